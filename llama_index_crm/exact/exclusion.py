"""Members of a kind left out by a type: "works by Paul Bransom that aren't paintings",
"Charles Sheeler — everything that isn't a photograph", "how many of Gilbert Stuart's
works here are not paintings".

The question is read as two questions the planner already answers: the whole ("works by
Paul Bransom") and the part left out, the same question with the type in place of the
noun ("paintings by Paul Bransom"). Both must be answered, and the part must have been
read with the type (a type the graph gives its nodes); the whole is then executed again
with the part's members kept out (:attr:`~.plan.Variable.exclude`), so that a count, a
list or a ranking of what is left is the planner's own. Otherwise no reading is made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import fold_name

__all__ = ["Excluded", "excluded"]

_NOT = re.compile(
    r"\s*(?:[,—–:-]\s*)?(?:(?:that|which)\s+)?(?:(?:are|is|were|was)\s+not|aren[’']?t|"
    r"isn[’']?t|weren[’']?t|wasn[’']?t|except(?:\s+for)?|other\s+than|excluding|apart\s+from|"
    r"but\s+not)\s+(?:an?\s+|any\s+)?(?P<type>[^?.!,;:—–]+?)\s*[?.!]?\s*$",
    re.IGNORECASE)
"""A type left out at the end of the question."""
_EVERYTHING = re.compile(r"\b(?:everything|anything|all)\b(?!\s+(?:works|items|pieces))",
                         re.IGNORECASE)
_NOUNS = re.compile(r"\b(?:works?|items?|pieces?|objects?|artworks?|things?)\b",
                    re.IGNORECASE)
"""Nouns of the whole a type stands in for."""


@dataclass(frozen=True, slots=True)
class Excluded:
    """A question read as a whole and a typed part left out of it.

    Attributes:
        whole: the question without the part ("works by Paul Bransom").
        part: the part asked the same way ("paintings by Paul Bransom").
        by: the part asked with "by", when the whole ends with its noun ("kitaj works":
            "planographic prints by kitaj"), else None.
        type: the type as typed ("paintings").
        noun: its folded singular ("painting").
    """

    whole: str
    part: str
    type: str
    noun: str
    by: str | None = None


def excluded(asked: str) -> Excluded | None:
    """``asked`` read as a whole and a typed part left out, or None.

    >>> e = excluded("works by paul bransom that aren't paintings")
    >>> e.whole, e.part, e.noun
    ('works by paul bransom', 'paintings by paul bransom', 'painting')
    >>> excluded("Charles Sheeler — everything that isn't a photograph").part
    'Charles Sheeler — photograph'
    >>> excluded("works by Homer") is None
    True
    """
    match = _NOT.search(asked)
    if match is None or match.start() == 0:
        return None
    kind = match.group("type").strip()
    whole = asked[:match.start()].rstrip(" ,—–:-")
    if not kind or not whole:
        return None
    whole = _EVERYTHING.sub("works", whole, count=1)
    if _NOUNS.search(whole) is None:
        return None
    part = _NOUNS.sub(kind, whole, count=1)
    noun = list(_NOUNS.finditer(whole))[-1]
    maker = whole[:noun.start()].strip(" ,—–:-")
    by = f"{kind} by {maker}" if not whole[noun.end():].strip() and maker else None
    return Excluded(whole, part, kind, singularise(fold_name(kind)), by)
