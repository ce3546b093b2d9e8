"""Yes/no questions read as the question they check: "did Alfred Barr direct German
Painting and Sculpture?" is "who directed German Painting and Sculpture?", and the answer
is yes when the one named is among its answers.

:func:`checked_question` makes the question to ask; the answerer asks it and says yes only
when the named node is a member of the complete answer set. It never says no: when the
node is not among them, the question goes to retrieval like any other it cannot settle (the
graph may record the fact by a path the reading does not take).
"""

from __future__ import annotations

import re

__all__ = ["checked_question", "past"]

YES_NO = re.compile(r"^\s*(?P<aux>did|does|do|was|were|is|are|has|had|have)\s+(?P<rest>.+?)"
                    r"\s*[?.!]*\s*$", re.I)
"""A question opening with an auxiliary: asked for yes or no."""
IRREGULAR = {"take": "took", "make": "made", "draw": "drew", "build": "built", "show": "showed",
             "sell": "sold", "buy": "bought", "give": "gave", "have": "had", "lend": "lent",
             "paint": "painted", "write": "wrote", "found": "founded", "shoot": "shot",
             "do": "did", "curate": "curated", "organise": "organised", "organize": "organized"}
"""Past forms a rule does not make."""


def past(verb: str) -> str:
    """The simple past of an English verb ("direct" → "directed", "take" → "took")."""
    verb = verb.lower()
    if verb in IRREGULAR:
        return IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ied"
    return verb + "ed"


def checked_question(asked: str, name: str) -> str | None:
    """The question a yes/no ``asked`` checks, about whoever stands where ``name`` (a name
    of the graph typed right after the auxiliary) stands; None when it is no such question."""
    found = YES_NO.match(asked)
    if found is None:
        return None
    aux, rest = found.group("aux").lower(), found.group("rest")
    if not rest.lower().startswith(name.lower()):
        return None
    after = rest[len(name):].strip(" ,")
    words = after.split()
    if not words:
        return None
    if aux in {"did", "does", "do"}:
        return f"who {past(words[0])} {' '.join(words[1:])}?".replace("  ", " ")
    if aux in {"has", "had", "have"}:  # "has X shown at E": who has shown at E
        return f"who {aux} {after}?"
    return f"who {'was' if aux in {'was', 'were'} else 'is'} {after}?"
