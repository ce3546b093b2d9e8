"""What the API returns: answers, entities and subgraphs as JSON-ready data.

Everything here is data for the page to show as text; nothing is markup. An answer is the
same :class:`~llama_index_crm.query.engine.CrmAnswer` that ``crm-rag ask --json`` prints
(:meth:`~llama_index_crm.query.engine.CrmAnswer.to_dict`), reshaped for the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llama_index_crm.rdf import Literal, decode_object, encode_object, local_name

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData
    from llama_index_crm.query.engine import CrmAnswer

MAX_TRIPLES = 400
"""Triples of an entity returned by ``/api/entity``."""
MAX_NEIGHBOURS = 200
"""FR neighbours of an entity returned by ``/api/entity``."""
MAX_IMAGES = 12
"""Image URLs of an entity returned by ``/api/entity``."""
MAX_GRAPH_EDGES = 60
"""Edges of the subgraph drawn under an answer."""

_REPRESENTED_BY = ("P138i_has_representation", "digitally_shown_by", "access_point")
"""Properties from an entity (or its visual item) to an image or a IIIF resource."""
_REPRESENTS = ("P138_represents",)
"""Properties from an image to what it shows."""
_SHOWS = ("P65_shows_visual_item", "P138i_has_representation", "digitally_shown_by")
"""Properties to the nodes whose images are the entity's too (one hop)."""


def _is_url(term: str) -> bool:
    return term.startswith(("http://", "https://"))


def term_label(index: GraphData, term: str) -> str:
    """What a person reads for a term: a literal's value, a node's label, else the last part
    of its IRI."""
    if term.startswith('"'):
        value = decode_object(term)
        return value.value if isinstance(value, Literal) else str(value)
    return index.triples.label(term) or local_name(term)


class Labels:
    """:func:`term_label` and property labels, each term looked up once per response (an
    answer's triples name the same few hundred terms again and again)."""

    def __init__(self, index: GraphData) -> None:
        self.index = index
        self._terms: dict[str, str] = {}
        self._props: dict[str, str] = {}

    def __call__(self, term: str) -> str:
        label = self._terms.get(term)
        if label is None:
            label = self._terms[term] = term_label(self.index, term)
        return label

    def prop(self, p: str) -> str:
        """The English label of a property (``was produced by``)."""
        label = self._props.get(p)
        if label is None:
            label = self._props[p] = self.index.ontology.label(p)
        return label

    def triple(self, s: str, p: str, o: str) -> dict[str, Any]:
        """One triple with the labels of its terms (``o_literal``: the object is a value)."""
        return {"s": s, "p": p, "o": o, "s_label": self(s), "p_label": self.prop(p),
                "o_label": self(o), "o_literal": o.startswith('"')}


def answer_view(index: GraphData, answer: CrmAnswer, explain: bool) -> dict[str, Any]:
    """An answer as ``/api/ask`` returns it.

    ``answer``, ``status`` and ``count`` are those of ``crm-rag ask --json``; ``sources``
    are its sources with their FR paths (``path``: the first, ``paths``: all) and labelled
    triples; ``evidence`` the exact layer's evidence lines; ``plan`` (with ``explain``) the
    plan as an FR path and as SPARQL; ``graph`` the subgraph the sources span.
    """
    data = answer.to_dict()
    exact = answer.exact
    labels = Labels(index)
    sources = [{"uri": s["uri"], "label": s["label"], "score": s["score"],
                "path": s["paths"][0] if s["paths"] else "", "paths": s["paths"],
                "triples": [labels.triple(*t) for t in s["triples"]]}
               for s in data["sources"]]
    plan = None
    if explain:
        plan = {"type": data["type"], "turn": data["turn"],
                "text": exact.plan_text if exact is not None else "",
                "sparql": exact.sparql if exact is not None else ""}
    return {"question": data["question"], "answer": data["answer"], "status": data["status"],
            "count": data["count"], "type": data["type"], "sources": sources,
            "evidence": list(exact.evidence) if exact is not None else [],
            "plan": plan, "graph": subgraph(data["sources"], labels),
            "latency_s": data["latency_s"]}


def subgraph(sources: list[dict[str, Any]], labels: Labels) -> dict[str, Any]:
    """The nodes and edges of the sources' triples between nodes (no literals), at most
    :data:`MAX_GRAPH_EDGES` edges, the sources' own first."""
    chosen = {s["uri"] for s in sources}
    edges: list[dict[str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for s in sources:
        for subj, pred, obj in s["triples"]:
            if obj.startswith('"') or (subj, pred, obj) in seen:
                continue
            seen.add((subj, pred, obj))
            edges.append({"s": subj, "p": pred, "o": obj})
    # edges between two sources first, then those touching one
    edges.sort(key=lambda e: -((e["s"] in chosen) + (e["o"] in chosen)))
    edges = edges[:MAX_GRAPH_EDGES]
    nodes: dict[str, dict[str, Any]] = {}
    for uri in [s["uri"] for s in sources] + [t for e in edges for t in (e["s"], e["o"])]:
        if uri not in nodes:
            nodes[uri] = {"id": uri, "label": labels(uri), "source": uri in chosen}
    return {"nodes": list(nodes.values()),
            "edges": [{**e, "label": labels.prop(e["p"])} for e in edges]}


def images_of(index: GraphData, uri: str) -> list[str]:
    """The image and IIIF URLs the graph gives for an entity: its P138 representations
    (either way), and those of the visual items and digital objects it is shown by, one
    hop on. Only http(s) URLs, as the graph writes them; nothing is derived."""
    store = index.triples
    found: list[str] = []

    def direct(node: str) -> list[str]:
        out = [o for p, o in store.outgoing(node)
               if isinstance(o, str) and local_name(p).endswith(_REPRESENTED_BY)]
        out += [s for s, p in store.incoming(node) if local_name(p).endswith(_REPRESENTS)]
        return out

    hops = [o for p, o in store.outgoing(uri)
            if isinstance(o, str) and local_name(p).endswith(_SHOWS)]
    for node in [*direct(uri), *(n for h in hops for n in direct(h))]:
        if _is_url(node) and node not in found:
            found.append(node)
    return found[:MAX_IMAGES]


def entity_view(index: GraphData, uri: str) -> dict[str, Any] | None:
    """An entity as ``/api/entity`` returns it: its document, its triples, its FR neighbours
    and its images; None when the graph does not hold it."""
    store = index.triples
    doc = index.doc_of_entity(uri)
    if doc is None and store.id_of(uri) is None:
        return None
    row = index.row_of.get(doc) if doc is not None else None
    triples = store.triples_of(uri)
    labels = Labels(index)
    neighbours = index.fr_links(uri)
    return {
        "uri": uri, "label": labels(uri),
        "category": index.meta.categories[row] if row is not None and doc == uri else None,
        "document": index.node(doc).get_content() if doc is not None else None,
        "document_uri": doc,
        "triples": [labels.triple(t.s, t.p, encode_object(t.o))
                    for t in triples[:MAX_TRIPLES]],
        "triples_total": len(triples),
        "neighbours": [{"uri": n, "label": labels(n)}
                       for n in neighbours[:MAX_NEIGHBOURS]],
        "neighbours_total": len(neighbours),
        "images": images_of(index, uri),
    }

