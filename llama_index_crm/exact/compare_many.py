"""Comparisons of three names or more: "which of Eli Harvey, Arthur Putnam and Anna Hyatt
Huntington was born earliest?", "Heade, Durrie or Peter Moran: who was born first?",
"Copley, Gilbert Stuart, Mather Brown — which one was born earliest?".

The names are listed one after the other, parted by commas and a last "and" or "or". The
question is compared two names at a time (:mod:`.compare`), the winner of each comparison
against the next name; every comparison must be made and have a winner (a tie, dates that
overlap, a name not found: no answer, the other readings then).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from llama_index_crm.exact.outcome import ExactAnswer

__all__ = ["Listed", "listed_names", "knockout"]

MIN_LISTED = 3
"""Names a list holds at least (two are read by :mod:`.compare`)."""
_BETWEEN = re.compile(r"^\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+)$", re.IGNORECASE)
"""What stands between two names of a list."""
_LEADING = re.compile(r"^[\s,:;—–-]+")


@dataclass(frozen=True, slots=True)
class Listed:
    """Names listed in a question, and where the list stands in it."""

    names: tuple[str, ...]
    start: int
    end: int


def listed_names(question: str, spans: Sequence[tuple[int, int]]) -> Listed | None:
    """The longest run of names at character ``spans`` parted only by commas and "and" /
    "or", when it holds :data:`MIN_LISTED` names or more, else None.

    >>> q = "Heade, Durrie or Peter Moran: who was born first?"
    >>> listed_names(q, [(0, 5), (7, 13), (17, 28)]).names
    ('Heade', 'Durrie', 'Peter Moran')
    """
    best: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for span in sorted(spans):
        if run and _BETWEEN.match(question[run[-1][1]:span[0]]):
            run.append(span)
        else:
            run = [span]
        if len(run) > len(best):
            best = list(run)
    if len(best) < MIN_LISTED:
        return None
    return Listed(tuple(question[a:b] for a, b in best), best[0][0], best[-1][1])


def pair_questions(question: str, listed: Listed, first: str, second: str) -> list[str]:
    """The question asked of two of the names: the list replaced by them, and the rest of
    the question asked first ("who was born first, A or B?")."""
    pair = f"{first} or {second}"
    inside = f"{question[:listed.start]}{pair}{question[listed.end:]}"
    rest = _LEADING.sub("", question[:listed.start] + question[listed.end:]).strip()
    rest = rest.rstrip("?!. ")
    return [inside, f"{rest}, {pair}?"] if rest else [inside]


def knockout(question: str, listed: Listed,
             compare: Callable[[str], ExactAnswer | None]) -> ExactAnswer | None:
    """The winner of the names compared two at a time, or None when a comparison is not
    made or has no winner."""
    champion = listed.names[0]
    said: list[str] = []
    last: ExactAnswer | None = None
    items: dict[str, dict] = {}
    for name in listed.names[1:]:
        answer = next((a for q in pair_questions(question, listed, champion, name)
                       if (a := compare(q)) is not None and a.status == "answered"), None)
        if answer is None:
            return None
        labels = [str(item.get("label")) for item in answer.items]
        won = next((label for label in labels if answer.text.startswith(f"{label}, with")),
                   None)
        if won is None:
            return None  # a tie, or dates that overlap
        for item in answer.items:
            items.setdefault(str(item.get("uri")), item)
        said.append(answer.text)
        champion, last = won, answer
    if last is None:
        return None
    winner = [i for i in items.values() if str(i.get("label")) == champion]
    others = [i for i in items.values() if str(i.get("label")) != champion]
    text = (f"{champion}, of {', '.join(listed.names)} (compared two at a time): "
            + " | ".join(said))
    return replace(last, text=text, items=[*winner, *others], total=len(items))
