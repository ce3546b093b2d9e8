"""Dataset statistics stored with an index: PageRank over the FR graph and counts.

The FR graph has an edge entity → target for every Fundamental Relationship match found at
build time (``fr_edges.parquet``). PageRank over it (networkx, damping 0.85) says which
entities the collection is organised around; the query phase uses the top entities of a
category as candidates for list and count questions.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import RDF_TYPE

STATS_FILE = "statistics.json"
PAGERANK_FILE = "pagerank.parquet"
DAMPING = 0.85
TOP_PER_CATEGORY = 500


def fr_pagerank(fr_edges: pa.Table) -> dict[str, float]:
    """PageRank over the FR graph (an edge s → o per row; nodes in the rows' order)."""
    graph: nx.DiGraph = nx.DiGraph()
    graph.add_edges_from(zip(fr_edges.column("s").to_pylist(),
                             fr_edges.column("o").to_pylist(), strict=True))
    return dict(nx.pagerank(graph, alpha=DAMPING)) if graph.number_of_nodes() else {}


@dataclass(slots=True)
class GraphStatistics:
    """PageRank and counts of one built graph.

    Attributes:
        pagerank: entity IRI → PageRank score (entities of the FR graph only).
        top_by_category: category → the documents (IRIs) of highest PageRank, best first.
        class_counts: class IRI → number of typed subjects.
        category_counts: category → number of entities.
        fr_counts: FR id → number of matches.
    """

    pagerank: dict[str, float] = field(default_factory=dict)
    top_by_category: dict[str, list[str]] = field(default_factory=dict)
    class_counts: dict[str, int] = field(default_factory=dict)
    category_counts: dict[str, int] = field(default_factory=dict)
    fr_counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def compute(
        cls,
        fr_edges: pa.Table,
        triples: pa.Table,
        doc_categories: Mapping[str, str],
        doc_entities: Mapping[str, Iterable[str]],
        ontology: Ontology | None = None,
        top: int = TOP_PER_CATEGORY,
        pagerank: Mapping[str, float] | None = None,
        counts: GraphStatistics | None = None,
    ) -> GraphStatistics:
        """Statistics from the FR edges (s, fr, o) and the triple archive (s, p, o).

        Args:
            fr_edges: one row per FR match.
            triples: the archive (only ``s``, ``p``, ``o`` are read).
            doc_categories: document id → its category.
            doc_entities: document id → the entities it stands for (itself and chained ones).
            ontology: to map classes to categories.
            top: documents kept per category.
            pagerank: the PageRank of these very ``fr_edges`` (rows in the same order),
                computed earlier: used as it is (an update whose FR edges did not change).
            counts: statistics computed earlier from these very ``fr_edges`` and from an
                archive with the same ``rdf:type`` triples (an update that changed
                neither): its PageRank and counts are used as they are (``fr_edges`` and
                ``triples`` are then not read); only the top documents are computed.
        """
        onto = ontology or Ontology.default()
        if counts is not None:
            pagerank = counts.pagerank
        ranks = dict(pagerank) if pagerank is not None else fr_pagerank(fr_edges)
        doc_rank = {
            doc: max((ranks.get(e, 0.0) for e in entities), default=0.0)
            for doc, entities in doc_entities.items()
        }
        by_category: dict[str, list[str]] = {}
        for doc in sorted(doc_rank, key=lambda d: (-doc_rank[d], d)):
            cat = doc_categories.get(doc)
            if cat and len(by_category.setdefault(cat, [])) < top:
                by_category[cat].append(doc)
        if counts is not None:
            return cls(pagerank=ranks, top_by_category=by_category,
                       class_counts=dict(counts.class_counts),
                       category_counts=dict(counts.category_counts),
                       fr_counts=dict(counts.fr_counts))
        typed = triples.filter(pc.equal(triples.column("p"), RDF_TYPE))
        classes = Counter(typed.column("o").to_pylist())
        categories: Counter[str] = Counter()
        subject_classes: dict[str, list[str]] = {}
        for s, o in zip(typed.column("s").to_pylist(), typed.column("o").to_pylist(),
                        strict=True):
            subject_classes.setdefault(s, []).append(o)
        for types in subject_classes.values():
            cat = onto.category(types)
            if cat:
                categories[cat] += 1
        return cls(
            pagerank=ranks,
            top_by_category=by_category,
            class_counts=dict(classes.most_common()),
            category_counts=dict(categories.most_common()),
            fr_counts=dict(Counter(fr_edges.column("fr").to_pylist()).most_common()),
        )

    def persist(self, folder: Path) -> None:
        """Write ``statistics.json`` and ``pagerank.parquet`` into ``folder``."""
        summary = {
            "top_by_category": self.top_by_category,
            "class_counts": self.class_counts,
            "category_counts": self.category_counts,
            "fr_counts": self.fr_counts,
        }
        (folder / STATS_FILE).write_text(json.dumps(summary, indent=1, ensure_ascii=False))
        table = pa.table({"uri": list(self.pagerank), "pagerank": list(self.pagerank.values())})
        pq.write_table(table, folder / PAGERANK_FILE)

    @classmethod
    def load(cls, folder: Path) -> GraphStatistics:
        """Read what :meth:`persist` wrote."""
        summary = json.loads((folder / STATS_FILE).read_text())
        pagerank = read_pagerank(folder)
        return cls(
            pagerank=pagerank,
            top_by_category=summary["top_by_category"],
            class_counts=summary["class_counts"],
            category_counts=summary["category_counts"],
            fr_counts=summary["fr_counts"],
        )


def read_pagerank(folder: Path) -> dict[str, float]:
    """The PageRank :meth:`GraphStatistics.persist` wrote, in its order."""
    table = pq.read_table(folder / PAGERANK_FILE)
    return dict(zip(table.column("uri").to_pylist(), table.column("pagerank").to_pylist(),
                    strict=True))
