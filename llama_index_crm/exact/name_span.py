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
NAME_JOINERS = frozenset({"of", "the", "de", "di", "del", "della", "du", "des", "la", "le",
                          "von", "der", "tou", "tis", "ton"})
"""Small words inside names, left out when names are compared."""
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


def standing_alone(question: str, word: str) -> bool:
    """Whether ``word`` stands in ``question`` as a name of its own: no capitalised word,
    possessive or quote next to it ("Neophytos found his …", not "'Christina's World'",
    "Modern Design", "Twenty Young Sculptors").

    >>> standing_alone("When did Neophytos found it?", "Neophytos")
    True
    >>> standing_alone("Who painted 'Christina's World'?", "Christina")
    False
    """
    match = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", question)
    if match is None:
        return False
    before = question[:match.start()].rstrip()
    after = question[match.end():]
    last = before.split()[-1] if before.split() else ""
    nxt = after.split()[0] if after.split() else ""
    quoted = before[-1:] in QUOTE_MARKS or after[:1] in QUOTE_MARKS
    return not quoted and not after.startswith(("'", "’")) and not (
        last[:1].isupper() and len(before.split()) > 1) and not nxt[:1].isupper()


QUOTE_MARKS = "\"“”‘«»"


def typed_lower_word(question: str, word: str) -> bool:
    """Whether ``question`` types the folded ``word`` in lower case somewhere."""
    return any(fold_name(m.group()) == word and m.group().islower()
               for m in _WORD.finditer(question))


def person_shaped(text: str) -> bool:
    """Two to four capitalised words and no joiner ("Gerhard Richter", not "San Nicola del
    Tetto"): a person's name, spelt the same in every language."""
    words = text.split()
    return 2 <= len(words) <= 4 and all(w[:1].isupper() for w in words) and not any(
        fold_name(w) in NAME_JOINERS for w in words)


def every_word_near(text: str, name: str) -> bool:
    """Whether ``name`` holds a near form of every word of ``text`` ("Gerhard Richter" and
    "Hans Richter": no)."""
    from rapidfuzz import fuzz

    words = fold_name(name).split()
    return all(any(fuzz.ratio(w, v) >= NEAR_RATIO for v in words)
               for w in fold_name(text).split())


def latin_words(text: str) -> bool:
    return all(ord(c) < 0x250 or not c.isalpha() for c in text)


HELD_SHARE = 0.7
"""Share of a name's words a question must hold to be taken as naming it."""


def holds_most(question: str, name: str) -> bool:
    """Whether the question holds most words of ``name`` (at least two)."""
    words = [w for w in fold_name(name).split() if w not in NAME_JOINERS]
    asked = set(fold_name(question).split())
    return len(words) >= 2 and sum(w in asked for w in words) >= HELD_SHARE * len(words)


def at_edge(text: str, name: str) -> bool:
    """Whether the words of ``text`` (two or more) begin or end ``name``, small joining
    words aside ("Nagel Weingaertner" of "Nagel & Weingaertner Lithography Company")."""
    small = NAME_JOINERS | {"and"}
    typed = [w for w in fold_name(text).split() if w not in small]
    words = [w for w in fold_name(name).split() if w not in small]
    return 2 <= len(typed) < len(words) and (words[:len(typed)] == typed
                                             or words[-len(typed):] == typed)


def name_window(question: str, text: str, name: str) -> str:
    """The words of ``question`` around ``text`` that are words of ``name`` (or small words
    between them), as typed: what to replace by the name ("Holy Cross church of
    Pelendri" for "Church of the Holy Cross, Pelendri")."""
    spans = [(m.start(), m.end(), fold_name(m.group())) for m in _WORD.finditer(question)]
    keys = [k for _, _, k in spans]
    words = fold_name(text).split()
    start = find_words(keys, words)
    if start is None:
        return text
    wanted = set(fold_name(name).split())
    first, last = start, start + len(words) - 1
    while first > 0 and keys[first - 1] in wanted and keys[first - 1] not in NAME_JOINERS:
        first -= 1
    joiners = NAME_JOINERS | {"at", "in"}  # "the Holy Cross church at Pelendri"
    while last + 1 < len(keys) and (keys[last + 1] in wanted or keys[last + 1] in
                                    joiners and last + 2 < len(keys) and
                                    keys[last + 2] in wanted - NAME_JOINERS):
        last += 1
    return question[spans[first][0]:spans[last][1]]


def replace_words(question: str, text: str, new: str) -> str:
    """``question`` with the words that fold to ``text`` (as the planner reported them,
    folded: "saint nicolas du toit") replaced by ``new``, wherever they stand as typed
    ("Saint-Nicolas-du-Toit").

    >>> replace_words("where is Saint-Nicolas-du-Toit?", "saint nicolas du toit", "X")
    'where is X?'
    """
    if text in question:
        return question.replace(text, new, 1)
    words = fold_name(text).split()
    spans = [(m.start(), m.end(), fold_name(m.group())) for m in re.finditer(r"\w+", question)]
    keys = [k for _, _, k in spans]
    n = len(words)
    for i in range(len(keys) - n + 1):
        if keys[i:i + n] == words:
            return question[:spans[i][0]] + new + question[spans[i + n - 1][1]:]
    return re.sub(re.escape(text), new, question, count=1, flags=re.IGNORECASE)


def capitalised_name(question: str, text: str) -> bool:
    """Whether ``text`` is two words or more, each written with a capital in ``question``
    ("Agios Sozomenos", not "Troodos World Heritage listing" or one German noun)."""
    at = question.find(text)
    words = question[at:at + len(text)].split() if at >= 0 else []
    return len(words) >= 2 and all(w[:1].isupper() for w in words)


PLACE_WORDS = frozenset({"at", "in", "near"})
"""Words before which one capitalised word names a place ("at Louvaras")."""


def placed(question: str, text: str) -> bool:
    """Whether ``text`` is one capitalised word right after "at", "in" or "near" in
    ``question`` ("the wall paintings of Agios Mamas at Louvaras")."""
    match = re.search(rf"\b(\w+)\s+{re.escape(text)}\b", question)
    return match is not None and len(text.split()) == 1 and text[:1].isupper() and \
        match.group(1).lower() in PLACE_WORDS
