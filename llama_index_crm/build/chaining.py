"""Thin-document chaining: short documents are appended to their richest neighbour.

A document under ``threshold`` characters says too little to be found on its own (a bare
credit line, a place with only a name); appended to the richest document it is linked to
in the graph, its facts travel with that document. Events are never chained away: they are
the hubs that connect works, people, places and dates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from llama_index_crm.build.documents import EntityDocument

CHAIN_THRESHOLD = 400
"""Documents shorter than this (characters) are chained into a neighbour."""
KEEP_CATEGORIES = frozenset({"Event", "Actor", "Place"})
"""Never chained away: events (the hubs between works, people, places and dates), and the
people and places questions ask for by name ("who made…", "where…"), whose documents must
stay findable on their own however short they are."""
HUB_DEGREE = 2000
"""Documents of entities with more triples never receive chained documents."""


def chain_thin_documents(
    docs: list[EntityDocument],
    neighbours: Callable[[str], Iterable[str]],
    threshold: int = CHAIN_THRESHOLD,
    keep: frozenset[str] = KEEP_CATEGORIES,
    degree: Callable[[str], int] | None = None,
    max_degree: int = HUB_DEGREE,
) -> list[EntityDocument]:
    """Fold every thin document into its richest neighbour; return the documents left.

    Richness is the length of a document as it was built, before anything was appended
    to it (otherwise one document that received a few thin ones would attract all the
    rest). Hubs (more than ``max_degree`` triples: a rights statement shared by thousands
    of images, a museum) never receive documents. A thin document with no eligible
    neighbour stays.

    Args:
        docs: all documents of the build.
        neighbours: graph neighbours of a URI (the triple store's ``neighbours``).
        threshold: the length under which a document is thin.
        keep: categories that are never chained away.
        degree: number of triples of a URI (the triple store's ``degree``).
        max_degree: neighbours with more triples are hubs.

    Returns:
        The remaining documents, in their original order.
    """
    by_uri = {d.uri: d for d in docs}
    size = {d.uri: len(d.text) for d in docs}
    removed: set[str] = set()
    thin = sorted(
        (d for d in docs if len(d.text) < threshold and d.category not in keep),
        key=lambda d: (len(d.text), d.uri),
    )
    for doc in thin:
        best: EntityDocument | None = None
        for n in neighbours(doc.uri):
            cand = by_uri.get(n)
            if cand is None or n in removed or n == doc.uri:
                continue
            if degree is not None and degree(n) > max_degree:
                continue
            if best is None or (size[n], best.uri) > (size[best.uri], n):
                best = cand
        if best is None:
            continue
        best.text = f"{best.text}\n\n{doc.text}"
        best.chained_from.extend([doc.uri, *doc.chained_from])
        removed.add(doc.uri)
    return [d for d in docs if d.uri not in removed]
