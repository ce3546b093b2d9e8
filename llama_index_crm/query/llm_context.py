"""The sections of an LLM's context, from the final context nodes and the index.

* **documents**: each document's own text, numbered, without its ``Facts:`` block;
* **relationships**: the fact lines of all documents (``subject → relation → object``,
  each once), then the graph paths that brought each source in (``metadata["fr_paths"]``);
* **statistics** (list and count questions only): entities per category, the most frequent
  classes, and the entities of highest PageRank in the answer's categories.

:meth:`~llama_index_crm.query.prompts.PromptSet.render_context` lays them out, after the
exact answer when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llama_index.core.schema import MetadataMode, NodeWithScore

from llama_index_crm.postprocessors.source_paths import PATHS_KEY
from llama_index_crm.postprocessors.triple_context import ARROW, FACTS_HEADER
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.rdf import local_name

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

__all__ = ["TOP_CLASSES", "TOP_ENTITIES", "context_sections", "split_facts"]

TOP_CLASSES = 8
"""Classes listed in the statistics, most frequent first."""
TOP_ENTITIES = 10
"""Entities of highest PageRank listed per target category."""


def split_facts(text: str) -> tuple[str, list[str]]:
    """A context node's text as ``(document text, fact lines)``.

    >>> split_facts("Asinou\\nFacts:\\nAsinou → falls within → Nikitari")
    ('Asinou', ['Asinou → falls within → Nikitari'])
    """
    head, _, facts = text.partition(FACTS_HEADER)
    return head.strip(), [line for line in facts.splitlines() if line.strip()]


def _documents(nodes: Sequence[NodeWithScore]) -> str:
    return "\n\n".join(
        f"[{i}] {split_facts(n.node.get_content(metadata_mode=MetadataMode.LLM))[0]}"
        for i, n in enumerate(nodes, start=1))


def _relationships(nodes: Sequence[NodeWithScore]) -> str:
    lines: dict[str, None] = {}
    for n in nodes:
        lines.update(dict.fromkeys(split_facts(n.node.get_content())[1]))
    for n in nodes:
        lines.update(dict.fromkeys(p for p in n.node.metadata.get(PATHS_KEY, ()) if ARROW in p))
    return "\n".join(lines)


def _statistics(index: GraphData, plan: QueryPlan) -> str:
    stats = index.statistics
    lines = []
    if stats.category_counts:
        lines.append("Entities per category: " + ", ".join(
            f"{cat} {count:,}" for cat, count in stats.category_counts.items()))
    if stats.class_counts:
        top = list(stats.class_counts.items())[:TOP_CLASSES]
        lines.append("Most frequent classes: " + ", ".join(
            f"{index.ontology.label(cls) or local_name(cls)} {count:,}" for cls, count in top))
    for category in plan.target_categories or tuple(stats.top_by_category)[:1]:
        top_docs = [d for d in stats.top_by_category.get(category, []) if d in index.row_of]
        if top_docs:
            names = "; ".join(index.meta.labels[index.row_of[d]]
                              for d in top_docs[:TOP_ENTITIES])
            lines.append(f"Most connected {category} entities (PageRank): {names}")
    return "\n".join(lines)


def context_sections(index: GraphData, plan: QueryPlan,
                     nodes: Sequence[NodeWithScore]) -> dict[str, str]:
    """``documents``, ``relationships`` and ``statistics`` (empty for specific questions)."""
    return {"documents": _documents(nodes), "relationships": _relationships(nodes),
            "statistics": _statistics(index, plan) if plan.is_list else ""}
