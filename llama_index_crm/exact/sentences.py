"""A question asked after sentences that only tell ("My daughter adores Anna Hyatt
Huntington's animals. How many did she make in the 1990s?"): the last sentence asks, the
ones before give what its pronouns point to.

:func:`asked_last` reads the last sentence alone, its pronoun put as the one name the
sentences before it hold; the answerer tries it as a reading (judged on its own words, an
empty result proving nothing) when the whole text finds no answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["asked_last"]

SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"“'¿¡]?[^\W\d_])")
"""The end of a sentence: a full stop, "!" or "?", then the next sentence."""
TELLING = re.compile(r"^\s*(?:i|i['’]m|i\s+am|we|we['’]re|we\s+are|my|our)\b", re.I)
"""The asker speaking of themselves: a clause that tells, not one that names."""
CLAUSE_BREAK = re.compile(r"\s+[—–-]+\s+|:\s+|;\s+")
"""Where a telling clause ends and the question begins, within one sentence."""
TIMES = re.compile(r"\b(?:1\d|20)\d\d(?:['’]?s)?\b|\b(?:centur(?:y|ies)|decades?)\b", re.I)
"""A year, a decade or a century: told before the question, it is part of what is asked."""
POINTER = re.compile(r"\b(?:it|them|him|he|she|they)\b", re.I)
POSSESSIVE = re.compile(r"\b(its|their|his|her)\s+(\w+)", re.I)


def asked_last(asked: str, names_in: Callable[[str], Sequence[str]]) -> list[tuple[str, str]]:
    """The last sentence of ``asked`` as a question of its own (none when there is one
    sentence): as it stands when it points back to nothing, else with its pronouns put as
    the one name (``names_in``: the graph's names a text holds) the sentences before it
    hold."""
    parts = SENTENCE_BREAK.split(asked.strip())
    if len(parts) < 2 and TELLING.match(asked):  # "I'm researching X - who designed Y?"
        parts = CLAUSE_BREAK.split(asked.strip(), maxsplit=1)
    if len(parts) < 2 or len(parts[-1].split()) < 2:
        return []
    head, tail = " ".join(parts[:-1]), parts[-1]
    if TIMES.search(head):  # "I love the 1890s. How many works by X?": the time is asked
        return []
    pointer = POINTER.search(tail) or POSSESSIVE.search(tail)
    if pointer is None:
        return [(tail, "reading the last sentence as the question")]
    names = list(dict.fromkeys(re.sub(r"['’]s?$", "", n) for n in names_in(head)))
    if len(names) != 1:
        return []
    literal = names[0].replace("\\", r"\\")
    text = POINTER.sub(literal, POSSESSIVE.sub(rf"the \2 of {literal}", tail))
    return [(text, f"reading “{pointer.group()}” as {names[0]}, named in the sentence "
                   f"before")]
