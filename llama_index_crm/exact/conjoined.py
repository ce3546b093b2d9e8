"""Two questions in one ("where was X born, and where did he die?"): each part read on
its own, the second with its pronoun standing for what the first named, and both answers
given together only when both are answered.

>>> split_conjoined("When was Constance Stuart Larrabee born, and when did she die?")
('When was Constance Stuart Larrabee born?', 'when did she die?')
>>> split_conjoined("who painted Asinou and when") is None
True
>>> with_name("when did she die?", "Constance Stuart Larrabee")
'when did Constance Stuart Larrabee die?'
>>> with_name("what are her best known works?", "Mary Cassatt")
"what are Mary Cassatt's best known works?"
"""

from __future__ import annotations

import re
from dataclasses import replace

from llama_index_crm.exact.outcome import ExactAnswer

__all__ = ["joined", "split_conjoined", "with_name"]

_WH = r"(?:where|when|who|whom|what|which|how\s+many|how\s+old|in\s+which\s+year|in\s+what\s+year)"
_SPLIT = re.compile(rf"^(?P<first>.+?)\s*,?\s+(?:and|&)\s+(?P<second>{_WH}\b.+)$", re.I)
_SUBJECT = re.compile(r"\b(?:he|she|they|it)\b", re.I)
_OWNER = re.compile(r"\b(?:his|her|their|its)\b", re.I)


def split_conjoined(question: str) -> tuple[str, str] | None:
    """(first question, second question) when ``question`` joins two questions with "and"
    and the second points back with a pronoun; None otherwise."""
    found = _SPLIT.match(question.strip())
    if found is None:
        return None
    first, second = found.group("first").strip(), found.group("second").strip()
    if not (_SUBJECT.search(second) or _OWNER.search(second)) or len(first.split()) < 3:
        return None
    if not first.endswith("?"):
        first = first.rstrip(" ,;.") + "?"
    return first, second


def with_name(question: str, name: str) -> str:
    """``question`` with its first pronoun replaced by ``name`` (an owner pronoun by its
    possessive)."""
    subject, owner = _SUBJECT.search(question), _OWNER.search(question)
    if owner is not None and (subject is None or owner.start() < subject.start()):
        return question[:owner.start()] + f"{name}'s" + question[owner.end():]
    if subject is not None:
        return question[:subject.start()] + name + question[subject.end():]
    return question


def joined(first: ExactAnswer, second: ExactAnswer) -> ExactAnswer:
    """One answer of two: the first's plan, both texts, items and evidence."""
    return replace(first, text=f"{first.text} {second.text}", count=None,
                   items=[*first.items, *second.items], total=first.total + second.total,
                   evidence=[*first.evidence, *second.evidence],
                   plan_text=f"{first.plan_text}\nand then:\n{second.plan_text}")
