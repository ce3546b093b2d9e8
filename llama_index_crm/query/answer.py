"""Answers without an LLM: counted, listed or quoted from the documents and triples.

* Count questions: the entities of the target categories that the question's anchor (the
  best-ranked document outside those categories: the artist of "how many works by…") is
  linked to by a Fundamental Relationship, within the asked period; the count is exact
  with respect to the graph, not to what fitted in the context.
* List questions: the same entities, named.
* Specific questions: the lines of the best documents that share most with the question
  (with cue words: "who" looks at creators, "when" at dates, "where" at places…).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from llama_index.core.schema import NodeWithScore

from llama_index_crm.query.lexicon import singularise
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.query.temporal import years_of
from llama_index_crm.rdf import fold_label

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "by", "for", "to", "and", "or", "is", "was",
    "were", "are", "be", "been", "what", "which", "who", "whom", "whose", "when", "where",
    "why", "how", "did", "does", "do", "made", "make", "it", "its", "this", "that", "these",
    "those", "there", "their", "his", "her", "he", "she", "they", "them", "with", "from", "as",
    "about", "me", "tell", "show", "list", "all", "any", "many", "much", "number",
))
_CUES: dict[str, tuple[str, ...]] = {
    "who": ("created by", "by (actor)", "carried out", "is generator of", "produced"),
    "artist": ("created by", "by (actor)", "produced"),
    "made": ("created by", "created in", "beginning of existence", "date"),
    "when": ("date", "beginning of existence", "end of existence", "created in",
             "changed ownership", "acquisition", "from (event)", "has met (event)"),
    "year": ("date", "beginning of existence", "end of existence", "created in",
             "changed ownership", "acquisition"),
    "born": ("beginning of existence", "from (event)"),
    "die": ("end of existence",),
    "died": ("end of existence",),
    "where": ("located", "took place", "from (place)", "place"),
    "nationality": ("is member of", "created by"),
    "material": ("is made of", "is referred to by", "material"),
    "medium": ("is made of", "is referred to by"),
    "technique": ("is made of", "is referred to by", "technique"),
    "type": ("type", "classified", "classes"),
    "credit": ("is referred to by",),
    "gift": ("is referred to by",),
    "acquire": ("changed ownership", "acquisition", "found or acquired"),
    "acquired": ("changed ownership", "acquisition", "found or acquired"),
}


class EntityInfo(NamedTuple):
    """What the answerer needs to know of a linked entity."""

    label: str
    category: str
    text: str
    types: tuple[str, ...] = ()


@dataclass(slots=True)
class Listing:
    """What a list or count question found: the anchor and its linked entities."""

    anchor_uri: str
    anchor_label: str
    items: list[tuple[str, str]]  # (uri, label)


def terms(text: str) -> set[str]:
    """Lower-cased content words of ``text``."""
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _STOP}


def best_lines(question: str, nodes: Sequence[NodeWithScore], max_lines: int = 3) -> list[str]:
    """The document lines that answer a specific question best, as ``Label: line``."""
    q_terms = terms(question)
    q_words = {w.lower() for w in _WORD.findall(question)}
    cues = [c for w in q_words for c in _CUES.get(w, _CUES.get(singularise(w), ()))]
    scored: list[tuple[float, int, str]] = []
    for rank, n in enumerate(nodes[:5]):
        label = str(n.node.metadata.get("label", ""))
        for line in n.node.get_content().splitlines()[1:]:
            low = line.lower()
            if not low or low.startswith(("facts:", "other relations:", "classes:")):
                continue
            overlap = len(q_terms & terms(line))
            cue = sum(1 for c in cues if c in low)
            score = overlap + 2 * cue - 0.3 * rank
            if score > 0:
                scored.append((score, -rank, f"{label}: {line.lstrip('- ')}"))
    scored.sort(key=lambda x: (-x[0], -x[1]))
    return list(dict.fromkeys(line for _, _, line in scored))[:max_lines]


_ABOUT = re.compile(r"\b(tell me (more )?about|(know|learn|hear) more about|describe|"
                    r"what do you know about|information (on|about)|who (is|was))\b", re.I)
"""A request to describe an entity rather than to name one of its facts."""
_SUMMARY_SKIP = ("classes:", "names:", "identifiers:", "other relations:", "- ",
                 "is referred to by", "is similar or same with", "dimensions:")
"""Document lines a description leaves out: naming, cataloguing and long lists."""
SUMMARY_LINES = 5
"""Lines of a document that describe its entity in a no-LLM answer."""


def summary(question: str, plan: QueryPlan, nodes: Sequence[NodeWithScore]) -> str | None:
    """For "Tell me about X": X's identifying facts, in its document's order (makers, dates,
    types, materials and places come first in every document). None when the question does
    not ask for a description or X is not among the first context documents."""
    if not _ABOUT.search(question):
        return None
    for n in nodes[:3]:
        label = str(n.node.metadata.get("label", ""))
        if not any(_names_match(a, label) for a in plan.anchors):
            continue
        own = n.node.get_content().split("\n\n", 1)[0]  # chained documents follow
        lines = [line for line in own.splitlines()[1:]
                 if line and not line.lower().startswith(_SUMMARY_SKIP)]
        if lines:
            return "\n".join(f"{label}: {line}" for line in lines[:SUMMARY_LINES])
    return None


def _names_match(anchor: str, label: str) -> bool:
    """True when a name in a question and an entity label name the same thing.

    >>> _names_match("Daniel Orme", "Orme, Daniel")
    True
    >>> _names_match("Daniel Orme", "British")
    False
    """
    a, b = terms(anchor), terms(label)
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= 0.6


TermLinks = Callable[[str], Sequence[tuple[str, str, Sequence[str]]]]
"""A name → the nodes labelled so, each with the entities pointing at it."""


def _items(plan: QueryPlan, uris: Iterable[str],
           describe: Callable[[str], EntityInfo | None]) -> list[tuple[str, str]]:
    """The entities among ``uris`` a list question asks for: of its target categories, in
    its period, and of the type it names when some are ("how many churches")."""
    targets = set(plan.target_categories)
    items: list[tuple[str, str]] = []
    typed: list[tuple[str, str]] = []
    nouns = {singularise(w) for w in terms(plan.question)}
    for other in uris:
        info = describe(other)
        if info is None:
            continue
        if targets and info.category not in targets:
            continue
        if plan.time_range:
            low, high = plan.time_range
            if not any(low <= y <= high for y in years_of(info.text)):
                continue
        items.append((other, info.label))
        if any(nouns & set(_WORD.findall(t.lower())) for t in info.types):
            typed.append((other, info.label))
    items = typed or items
    items.sort(key=lambda x: (x[1].lower(), x[0]))
    return items


def listing(
    plan: QueryPlan,
    nodes: Sequence[NodeWithScore],
    links: Callable[[str], Sequence[str]],
    describe: Callable[[str], EntityInfo | None],
    term_links: TermLinks | None = None,
) -> Listing | None:
    """The anchor of a list/count question and the target-category entities linked to it.

    The anchor is the context document the question names ("works by Daniel Orme"). When
    none is named but the question names a node without a document of its own (a place
    the data only labels: "What works depict Ireland?"), the anchor is that node and the
    items are the entities pointing at it. Otherwise the first context document.

    Args:
        plan: the question's plan.
        nodes: the final context, best first.
        links: FR-linked entities of an entity.
        describe: entity → its label, category, document text and types (None when it
            has no document).
        term_links: name → nodes so labelled and the entities pointing at them.
    """
    targets = set(plan.target_categories)
    context = set(plan.context_categories) - targets
    candidates = [n for n in nodes if n.node.metadata.get("category") in context] or [
        n for n in nodes if n.node.metadata.get("category") not in targets]
    # the candidate whose name is what the question names ("works by Daniel Orme")
    named = [n for n in candidates
             if any(_names_match(a, str(n.node.metadata.get("label", ""))) for a in plan.anchors)]
    exact = {fold_label(a) for a in plan.anchors}
    if term_links is not None and not any(
            fold_label(str(n.node.metadata.get("label", ""))) in exact for n in named):
        # no document bears the name itself ("Northern Ireland" only resembles "Ireland")
        for name in plan.anchors:
            for node, label, subjects in term_links(name):
                items = _items(plan, subjects, describe)
                if items:
                    return Listing(node, label, items)
    if not candidates:
        return None
    anchor = (named or candidates)[0]
    uri = str(anchor.node.metadata.get("uri", anchor.node.node_id))
    return Listing(uri, str(anchor.node.metadata.get("label", "")),
                   _items(plan, links(uri), describe))


def structured_answer(
    plan: QueryPlan,
    nodes: Sequence[NodeWithScore],
    links: Callable[[str], Sequence[str]],
    describe: Callable[[str], EntityInfo | None],
    max_items: int = 50,
    term_links: TermLinks | None = None,
) -> tuple[str, int | None, list[str]]:
    """``(answer text, count, cited entity IRIs)`` built from the context, no LLM.

    Args:
        plan: the question's plan.
        nodes: the final context, best first.
        links: FR-linked entities of an entity.
        describe: entity → its label, category, document text and types.
        max_items: names listed before "… and N more".
        term_links: name → nodes so labelled and the entities pointing at them (anchors
            without a document).
    """
    if not nodes:
        return ("Nothing in the graph matches this question.", 0 if plan.type == "aggregation"
                else None, [])
    if plan.is_list:
        found = listing(plan, nodes, links, describe, term_links)
        if found and found.items:
            names = [label for _, label in found.items]
            shown = "; ".join(names[:max_items])
            more = f"; … and {len(names) - max_items} more" if len(names) > max_items else ""
            what = "/".join(c.lower() for c in plan.target_categories) or "entities"
            period = (f" in {plan.time_range[0]}–{plan.time_range[1]}"
                      if plan.time_range else "")
            cited = [found.anchor_uri, *(u for u, _ in found.items)]
            if plan.type == "aggregation":
                return (f"{len(names)} ({what} linked to {found.anchor_label}{period}): "
                        f"{shown}{more}", len(names), cited)
            return f"{found.anchor_label}{period}: {shown}{more}", None, cited
        if plan.type == "aggregation":  # never a count of documents in the context
            names = [str(n.node.metadata.get("label", "")) for n in nodes[:5]]
            return ("No exact count could be computed; the documents retrieved for it are: "
                    + "; ".join(names) + ".", None,
                    [str(n.node.metadata.get("uri")) for n in nodes[:5]])
    described = summary(plan.question, plan, nodes)
    if described:
        return described, None, [str(nodes[0].node.metadata.get("uri"))]
    lines = best_lines(plan.question, nodes)
    if not lines:
        top = nodes[0].node
        return (top.get_content().splitlines()[0], None, [str(top.metadata.get("uri"))])
    return "\n".join(lines), None, [str(nodes[0].node.metadata.get("uri"))]
