"""Thin-document chaining: short documents are appended to their richest neighbour.

A document under ``threshold`` characters says too little to be found on its own (a bare
credit line, a place with only a name); appended to the richest document it is linked to
in the graph, its facts travel with that document. Events are never chained away: they are
the hubs that connect works, people, places and dates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from llama_index_crm.build.documents import EntityDocument

if TYPE_CHECKING:
    from llama_index_crm.storage import TripleStore

CHAIN_THRESHOLD = 400
"""Documents shorter than this (characters) are chained into a neighbour."""
KEEP_CATEGORIES = frozenset({"Event", "Actor", "Place"})
"""Never chained away: events (the hubs between works, people, places and dates), and the
people and places questions ask for by name ("who made…", "where…"), whose documents must
stay findable on their own however short they are."""
HUB_DEGREE = 2000
"""Documents of entities with more triples never receive chained documents."""


@dataclass(frozen=True, slots=True)
class ChainPlan:
    """Which documents are chained into which: decided from their lengths, URIs and
    categories alone, so that a build can decide it without holding every text.

    ``members`` maps the position of each document that receives others to the positions
    whose texts make its new text, in order (its own first); ``removed`` holds the
    positions chained away. Every other document stays as it is.
    """

    members: dict[int, list[int]]
    removed: frozenset[int]

    def apply(self, docs: Sequence[EntityDocument]) -> list[EntityDocument]:
        """The documents left, in their original order (``docs`` are not changed)."""
        return [self.final(i, docs[i], docs) for i in range(len(docs))
                if i not in self.removed]

    def final(self, i: int, doc: EntityDocument, docs: Sequence[EntityDocument] | Mapping[
            int, EntityDocument]) -> EntityDocument:
        """Document ``i`` (``doc``) as chaining leaves it; ``docs`` gives the documents
        chained into it by position."""
        members = self.members.get(i)
        if members is None:
            return doc
        parts = [doc, *(docs[m] for m in members[1:])]
        chained = list(doc.chained_from)
        for part in parts[1:]:
            chained += [part.uri, *part.chained_from]
        return replace(doc, text="\n\n".join(d.text for d in parts), chained_from=chained)


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
    neighbour stays. ``docs`` are not changed: a document that receives others is
    returned as a new one.

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
    uris, lengths = [d.uri for d in docs], [len(d.text) for d in docs]
    index = {u: i for i, u in enumerate(uris)}
    thin = thin_positions(uris, lengths, [d.category for d in docs], threshold, keep)
    candidates = []
    for t in thin:
        found = [index[n] for n in neighbours(uris[t])
                 if n in index and n != uris[t]
                 and (degree is None or degree(n) <= max_degree)]
        candidates.append(found)
    return plan_chains(uris, lengths, thin, candidates).apply(docs)


def chain_in_store(
    docs: list[EntityDocument],
    store: TripleStore,
    threshold: int = CHAIN_THRESHOLD,
    keep: frozenset[str] = KEEP_CATEGORIES,
    max_degree: int = HUB_DEGREE,
) -> list[EntityDocument]:
    """:func:`chain_thin_documents` with the neighbours and degrees of ``store``, found
    for every thin document at once (vectorised) rather than one look-up at a time: the
    same documents."""
    uris, lengths = [d.uri for d in docs], [len(d.text) for d in docs]
    plan = plan_in_store(uris, lengths, [d.category for d in docs], store, threshold, keep,
                         max_degree)
    return plan.apply(docs)


def plan_in_store(
    uris: Sequence[str],
    lengths: Sequence[int],
    categories: Sequence[str],
    store: TripleStore,
    threshold: int = CHAIN_THRESHOLD,
    keep: frozenset[str] = KEEP_CATEGORIES,
    max_degree: int = HUB_DEGREE,
) -> ChainPlan:
    """The :class:`ChainPlan` of documents given by their URIs, text lengths and
    categories (by position), with the neighbours and degrees of ``store``."""
    thin = thin_positions(uris, lengths, categories, threshold, keep)
    if not thin:
        return ChainPlan({}, frozenset())
    doc_ids = store.ids_of(pa.array(uris, pa.large_string()))
    doc_of = np.full(store.terms + 1, -1, dtype=np.int64)  # [-1]: not a term
    present = doc_ids >= 0
    doc_of[doc_ids[present]] = np.flatnonzero(present)
    # the degree of a term as TripleStore.degree counts it (a self-loop once)
    loops = store.s_ids[store.s_ids == store.o_ids]
    degree = (np.diff(store.out_offsets) + np.diff(store.in_offsets)
              - np.bincount(loops, minlength=store.terms))
    nodes = doc_ids[np.asarray(thin, dtype=np.int64)]
    known = np.flatnonzero(nodes >= 0)
    owner, _, other, _ = store.edges(nodes[known])
    owner = known[owner]
    keep_edge = ((other != nodes[owner]) & ~store.is_literal[other]
                 & (doc_of[other] >= 0) & (degree[other] <= max_degree))
    owner, other = owner[keep_edge], other[keep_edge]
    pairs = np.unique(np.stack([owner, other], axis=1), axis=0) if len(owner) else \
        np.zeros((0, 2), dtype=np.int64)
    cut = np.searchsorted(pairs[:, 0], np.arange(len(thin) + 1))
    found = doc_of[pairs[:, 1]].tolist()
    candidates = [found[cut[i]:cut[i + 1]] for i in range(len(thin))]
    return plan_chains(uris, lengths, thin, candidates)


def thin_positions(uris: Sequence[str], lengths: Sequence[int], categories: Sequence[str],
                   threshold: int, keep: frozenset[str]) -> list[int]:
    """Positions of the thin documents, in the order they are chained."""
    return sorted((i for i in range(len(uris))
                   if lengths[i] < threshold and categories[i] not in keep),
                  key=lambda i: (lengths[i], uris[i]))


def plan_chains(uris: Sequence[str], lengths: Sequence[int], thin: list[int],
                candidates: list[list[int]]) -> ChainPlan:
    """Chain ``thin`` (positions, in order) each into its richest candidate left."""
    removed: set[int] = set()
    members: dict[int, list[int]] = {}
    for t, found in zip(thin, candidates, strict=True):
        best = -1
        for n in found:
            if n in removed:
                continue
            if best < 0 or (lengths[n], uris[best]) > (lengths[best], uris[n]):
                best = n
        if best < 0:
            continue
        members[best] = [*members.get(best, [best]), *members.pop(t, [t])]
        removed.add(t)
    return ChainPlan(members, frozenset(removed))
