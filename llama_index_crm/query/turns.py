"""Turns of a conversation: standalone, follow-up, vague follow-up or pivot.

How a question leans on the conversation decides how it is retrieved (see
:class:`~llama_index_crm.retrievers.conversation.ConversationRetriever`):

* **standalone**: it names its own subject; one retrieval pass.
* **follow-up** ("Who painted it?"): dual retrieval, once with the question contextualised
  by the previous turn and once as asked, interleaved.
* **vague** ("Tell me more", "What about that?", "And?"): no pass with the raw words, which
  say nothing; the previous turn's entities lead.
* **pivot** ("Aside from Asinou, which churches…", "other than this one", "apart from…"):
  the exclusion is stripped, the cleaned question is retrieved, and the excluded entity is
  kept out of the result and the answer.

Pure functions over plain strings, like :mod:`.conversation`.

>>> read_turn("Aside from Asinou, which churches are in Nicosia District?")
TurnReading(kind='pivot', question='Which churches are in Nicosia District?', excluded=('Asinou',))
>>> history = [("Who founded the church at Asinou?", "Nikephoros Ischyrios")]
>>> read_turn("Tell me more", history).kind, read_turn("Who paid for it?", history).kind
('vague', 'follow_up')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from llama_index_crm.query.conversation import (
    Turn,
    clip,
    is_follow_up,
    name_spans,
    quoted_titles,
    resolve_reference,
    word_set,
)
from llama_index_crm.query.plan import TurnKind

__all__ = [
    "TurnKind",
    "TurnReading",
    "is_vague",
    "read_turn",
    "strip_exclusion",
]

_EXCLUSION_RE = re.compile(
    r"(?P<comma>,\s*)?\b(?P<trigger>aside from|apart from|other than|besides|except for|except"
    r"|excluding|not counting|leaving aside|leaving out|setting aside)\s+", re.IGNORECASE)
"""A phrase that keeps something out of the answer ("aside from Asinou, …")."""
_DEICTIC_RE = re.compile(
    r"(?:this|that|these|those|it|him|her|them)(?:\s+(?:one|ones|church|churches|work|works"
    r"|painting|paintings|person|people|place|places|building|buildings|artist|artists))?\b",
    re.IGNORECASE)
"""An exclusion that points back ("other than this one"): the previous turn's subject."""
_CLAUSE_END_RE = re.compile(r"[,;:?!.]")
_VAGUE_WORDS = word_set("""
tell me more about that this it them him her what and else anything go on continue elaborate
detail details please so ok okay then further expand say something the information info us
can could you would i like to know hear learn
""")
"""Words a vague follow-up is made of: none of them names or asks for a particular fact."""
_WORD_RE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)


@dataclass(frozen=True, slots=True)
class TurnReading:
    """How one question leans on the conversation.

    Attributes:
        kind: ``standalone``, ``follow_up``, ``vague`` or ``pivot``.
        question: the question to analyse: as asked, or with its exclusion stripped.
        excluded: names the answer must leave out (a pivot's excluded entity; a deictic
            "this one" resolved to the previous turn's subject).
    """

    kind: TurnKind
    question: str
    excluded: tuple[str, ...] = ()


def is_vague(question: str) -> bool:
    """Whether ``question`` asks for more without saying about what or which fact.

    >>> is_vague("Tell me more."), is_vague("And?"), is_vague("What about that?")
    (True, True, True)
    >>> is_vague("Who painted it?"), is_vague("Tell me more about Asinou")
    (False, False)
    """
    if quoted_titles(question) or name_spans(question):
        return False
    words = [w.lower() for w in _WORD_RE.findall(clip(question))]
    return bool(words) and all(w in _VAGUE_WORDS for w in words)


def _excluded_span(rest: str) -> tuple[str, int, bool]:
    """``(excluded text, characters it takes in rest, deictic)`` after an exclusion phrase."""
    stripped = rest.lstrip()
    lead = len(rest) - len(stripped)
    for quote in quoted_titles(stripped):
        if stripped[1:].startswith(quote) and stripped[:1] in "\"“‘'«":
            return quote, lead + len(quote) + 2, False
    deictic = _DEICTIC_RE.match(stripped)
    if deictic:
        return deictic.group(0), lead + deictic.end(), True
    body = stripped[4:] if stripped.lower().startswith("the ") else stripped
    spans = name_spans(body)
    if spans and body.startswith(spans[0]):
        end = len(stripped) - len(body) + len(spans[0])
        return spans[0], lead + end, False
    clause = _CLAUSE_END_RE.search(stripped)
    end = clause.start() if clause else len(stripped)
    return stripped[:end].strip(), lead + end, False


def strip_exclusion(question: str) -> tuple[str, str, bool] | None:
    """The question without its exclusion, the excluded text, and whether it points back.

    Args:
        question: a question.

    Returns:
        ``(cleaned question, excluded text, deictic)``, or None without an exclusion.

    >>> strip_exclusion("Which churches, other than Asinou, were painted by Philippos Goul?")
    ('Which churches were painted by Philippos Goul?', 'Asinou', False)
    >>> strip_exclusion("Apart from this one, which churches are in Nicosia District?")
    ('Which churches are in Nicosia District?', 'this one', True)
    >>> strip_exclusion('Which works besides "Battersea Reach" did he paint?')
    ('Which works did he paint?', 'Battersea Reach', False)
    >>> strip_exclusion('Who painted "All Except the Sky"?') is None
    True
    """
    text = clip(question)
    titles = [(at, at + len(t)) for t in quoted_titles(text) if (at := text.find(t)) >= 0]
    match = next((m for m in _EXCLUSION_RE.finditer(text)
                  if not any(start <= m.start("trigger") < end for start, end in titles)),
                 None)  # "Everything Except the Sky" is a title, not an exclusion
    if match is None:
        return None
    excluded, used, deictic = _excluded_span(text[match.end():])
    if not excluded:
        return None
    before = text[: match.start()]
    after = text[match.end() + used:]
    if match.group("comma") or not before.strip():
        after = re.sub(r"^\s*,\s*", " ", after)  # ", other than X," or "Aside from X, …"
    cleaned = " ".join(f"{before} {after}".split())
    cleaned = re.sub(r"\s+([,;:?!.])", r"\1", cleaned)
    cleaned = cleaned[:1].upper() + cleaned[1:]
    return cleaned, excluded, deictic


def _previous_subjects(history: Sequence[Turn]) -> tuple[str, ...]:
    """What "this one" refers to: the previous turn's subject and its top entity."""
    found = []
    reference = resolve_reference("this", history)
    if reference is not None:
        found.append(reference[0])
    if history and history[-1][1].strip() and len(history[-1][1]) <= 100:
        found.append(" ".join(history[-1][1].split()))
    return tuple(dict.fromkeys(found))


def read_turn(question: str, history: Sequence[Turn] | None = None) -> TurnReading:
    """How ``question`` leans on the earlier ``(question, answer-or-top-label)`` turns.

    Args:
        question: the current question.
        history: earlier turns, oldest first.

    Returns:
        Its :class:`TurnReading`. Without history a question is standalone or a pivot on a
        name; "other than this one" needs a previous turn to point at.
    """
    turns = list(history or ())
    pivot = strip_exclusion(question)
    if pivot is not None:
        cleaned, excluded, deictic = pivot
        names = _previous_subjects(turns) if deictic else (excluded,)
        if names:
            return TurnReading("pivot", cleaned, names)
    if turns and is_vague(question):
        return TurnReading("vague", question)
    if turns and is_follow_up(question):
        return TurnReading("follow_up", question)
    return TurnReading("standalone", question)
