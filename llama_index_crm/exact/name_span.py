"""The whole name a missing word stands in: what is said of the word must agree with it.

A question names "The Starry Night"; the graph has a work "Night" and a person "Starr". The
planner links "Night", and "Starry" is left missing. That "Starry" is one letter from "Starr"
says nothing of the name the user typed: a name of the graph is close to it only if it also
holds the name's other words. The same holds for "Beatrix" in "Beatrix Potter" (a "Beatrice"
and a "Potter" in the graph, no one named both) and "Vermilion" in "The Elk of Vermilion
Pass". :func:`name_span` finds the name a word stands in (a quoted title, or the run of
capitalised words around it); :func:`agrees` says whether a name of the graph holds it.

>>> name_span("Who painted The Starry Night?", "Starry")
'The Starry Night'
>>> name_span("Where is Van Gogh's The Starry Night?", "Van Gogh") is None
True
>>> agrees("The Starry Night", "Starr, Ringo")
False
>>> agrees("John Singer Sargent", "John Singer Sargent (American, 1856-1925)")
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from llama_index_crm.query.conversation import quoted_titles
from llama_index_crm.storage.names import fold_name

SPAN_JOINERS = frozenset({"of", "the", "de", "di", "del", "della", "du", "des", "la", "le",
                          "von", "van", "der", "tou", "tis", "ton", "a", "an", "with", "y"})
"""Small words that may stand between the capitalised words of one name."""
NEAR_RATIO = 70
"""rapidfuzz ratio from which a typed word is a word of a name spelt otherwise."""

_WORD = re.compile(r"[^\W_][\w'’\-]*", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s?$")


def find_words(keys: Sequence[str], words: Sequence[str]) -> int | None:
    """Where the folded ``words`` start among the folded tokens ``keys`` (None: nowhere)."""
    n = len(words)
    joined = " ".join(words)
    for i in range(len(keys)):
        if " ".join(k for k in keys[i:i + n] if k) == joined:
            return i
    for i in range(len(keys)):  # "o'keeffe" folds to one word, typed as two
        for j in range(i + 1, min(len(keys), i + 2 * n) + 1):
            if fold_name(" ".join(keys[i:j])) == joined:
                return i
    return None


def name_span(question: str, text: str) -> str | None:
    """The name ``text`` stands in, as typed, when it is longer than ``text``: a quoted title
    holding it, or the run of capitalised words (and small words between them) around it.
    None when ``text`` stands alone, or the question is typed in title case or capitals."""
    folded = fold_name(text)
    for title in quoted_titles(question):
        whole = fold_name(title)
        if whole != folded and f" {folded} " in f" {whole} ":
            return title
    tokens = list(_WORD.finditer(question))
    keys = [fold_name(t.group()) for t in tokens]
    words = folded.split()
    start = find_words(keys, words) if words else None
    if start is None or len(tokens) < 3:
        return None
    small = [t.group().lower() in SPAN_JOINERS for t in tokens]  # "à" is no "a"
    capital = [t.group()[:1].isupper() for t in tokens]
    if not any(t.group().islower() and not j for t, j in zip(tokens, small, strict=True)):
        return None  # typed in title case or capitals: capitals say nothing
    end = start
    while end + 1 < len(tokens) and fold_name(" ".join(keys[start:end + 1])) != folded:
        end += 1

    if not any(capital[i] for i in range(max(start, 1), end + 1)):
        return None  # "the bronze of Martin Luther King": words in lower case are no name's

    def owned(i: int) -> bool:  # "Van Gogh's": a possessive ends a name
        return bool(_POSSESSIVE.search(tokens[i].group())) and len(tokens[i].group()) > 2

    def named(i: int) -> bool:  # the question's first word is capitalised as a sentence's
        return i >= 1 and capital[i] and not owned(i)

    first = start
    i = start - 1
    while i >= 1:
        if named(i):
            first = i
        elif not (small[i] and any(named(j) for j in range(max(i - 2, 1), i)
                                   if all(small[k] for k in range(j + 1, i + 1)))):
            break
        i -= 1
    last = end
    i = end + 1
    while i < len(tokens) and not owned(last):
        if capital[i]:
            last = i
        elif not (small[i] and any(capital[j] for j in range(i + 1, min(i + 3, len(tokens)))
                                   if all(small[k] for k in range(i, j)))):
            break
        i += 1
    if first == start and last == end:
        return None
    span = question[tokens[first].start():tokens[last].end()]
    span = _POSSESSIVE.sub("", span)
    return span if content_words(span) != content_words(text) else None


def content_words(text: str) -> list[str]:
    """The words of a name that tell it apart: no small joining words."""
    return [w for w in fold_name(text).split() if w not in SPAN_JOINERS]


def agrees(span: str, name: str) -> bool:
    """Whether ``name`` holds a near form of every word of the name ``span`` ("John Potter"
    does not hold "Beatrix Potter"; "Frederic Remington" holds "Frederik Remington")."""
    from rapidfuzz import fuzz

    words = fold_name(name).split()
    return all(any(fuzz.ratio(w, v) >= NEAR_RATIO for v in words)
               for w in content_words(span))
