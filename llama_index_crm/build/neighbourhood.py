"""The in-memory neighbourhood of a chunk of entities: what the build has fetched so far.

Triples are indexed by node, with CRM predicates and classes reduced to their canonical
7.1.3 local names (aliases and namespace variants resolved), so that the FR walk and the
document writer never see a 5.x name or an Erlangen IRI. A node is *complete* once its
outgoing and incoming triples were fetched, *described* once its outgoing ones were. Asking
for the edges of a node that is not complete records it in :attr:`missing_full`; the builder
fetches those and walks again, so FR paths of any length complete. Given an in-process
source (an update's archive), a neighbourhood instead fetches a node the moment it is asked
for (:attr:`Neighbourhood.source`): nothing is ever missing, so nothing is written twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import RDF_TYPE, SKOS, Literal, Triple
from llama_index_crm.sources.base import GraphSource

SKOS_CONCEPT = SKOS + "Concept"


class Neighbourhood:
    """Adjacency of the fetched triples, keyed by canonical predicate names.

    Args:
        ontology: the CRM vocabulary used to canonicalise predicates and classes.
        source: an in-process source to fetch from on demand: a node asked for that is not
            complete (or described) is fetched at once, one node at a time, and the
            answer is what the fetch-and-walk-again rounds end with. None: asking for it
            records it as missing, for :meth:`fetch_missing`.
    """

    def __init__(self, ontology: Ontology, source: GraphSource | None = None) -> None:
        self.ontology = ontology
        self.source = source
        self.out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.inc: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.literals: dict[str, list[tuple[str, Literal]]] = defaultdict(list)
        self.types: dict[str, set[str]] = defaultdict(set)
        self.raw: list[Triple] = []
        self.complete: set[str] = set()
        self.described: set[str] = set()
        self.missing_full: set[str] = set()
        self.missing_out: set[str] = set()
        self.missed = False
        """Set whenever a node is asked for before it was fetched (reset by the caller)."""
        self.memo: dict[tuple[str, int], tuple[frozenset[str], bool]] = {}
        """Walk results per (node, step), valid until the neighbourhood grows."""
        self._seen: set[Triple] = set()
        self._pred_cache: dict[str, str] = {}
        self._super_cache: dict[str, frozenset[str]] = {}
        self._node_classes: dict[str, tuple[frozenset[str], str | None]] = {}
        """Per node: its classes closed under rdfs:subClassOf, and its category (dropped
        when a class of the node arrives)."""

    # -- filling -------------------------------------------------------------------------
    def predicate_key(self, iri: str) -> str:
        """Canonical local name of a CRM-family predicate, else the IRI itself."""
        key = self._pred_cache.get(iri)
        if key is None:
            key = self.ontology.canonical(iri) or iri
            self._pred_cache[iri] = key
        return key

    def add(self, triples: Iterable[Triple], *, complete: Iterable[str] = (),
            described: Iterable[str] = ()) -> int:
        """Index ``triples``; mark the given nodes as complete / described.

        Returns:
            The number of triples that were new.
        """
        added = 0
        seen, raw, literals, types = self._seen, self.raw, self.literals, self.types
        out, inc, keys = self.out, self.inc, self._pred_cache
        canonical = self.ontology.canonical
        by_node = self._node_classes
        for t in triples:
            if t in seen:
                continue
            seen.add(t)
            raw.append(t)
            added += 1
            s, p, o = t
            if isinstance(o, Literal):
                literals[s].append((p, o))
                continue
            if p == RDF_TYPE:
                if o == SKOS_CONCEPT:
                    types[s].add("E55_Type")
                types[s].add(canonical(o) or o)
                by_node.pop(s, None)
                continue
            key = keys.get(p) or self.predicate_key(p)
            out[s][key].append(o)
            inc[o][key].append(s)
        complete, described = list(complete), list(described)
        if self.source is None and (added or complete or described):
            # Results computed from complete nodes stay true: a complete node's triples
            # are all known already. Only results that met a missing node are dropped.
            self.memo = {k: v for k, v in self.memo.items() if not v[1]}
        for n in complete:
            self.complete.add(n)
            self.described.add(n)
            self.missing_full.discard(n)
            self.missing_out.discard(n)
        for n in described:
            self.described.add(n)
            self.missing_out.discard(n)
        return added

    def take_missing(self) -> tuple[list[str], list[str]]:
        """The nodes to fetch next: (with incoming edges, outgoing only), sorted."""
        full = sorted(self.missing_full - self.complete)
        out = sorted(self.missing_out - self.described - set(full))
        self.missing_full.clear()
        self.missing_out.clear()
        return full, out

    def fetch_missing(self, source: GraphSource) -> None:
        """Fetch every node asked for: with incoming edges the ones that must be complete,
        outgoing edges only for the rest (one batched request each)."""
        full, out = self.take_missing()
        if full:
            self.add(source.fetch(full, incoming=True), complete=full)
        if out:
            self.add(source.fetch(out, incoming=False), described=out)

    @property
    def has_missing(self) -> bool:
        """True when some node was asked for before it was fetched."""
        return bool(self.missing_full - self.complete or self.missing_out - self.described)

    # -- reading -------------------------------------------------------------------------
    def require(self, node: str) -> bool:
        """True if ``node`` is complete; otherwise remember it as missing."""
        if node in self.complete:
            return True
        if self.source is not None:  # on demand: no result ever met a missing node
            self.add(self.source.fetch([node], incoming=True), complete=(node,))
            return True
        self.missing_full.add(node)
        self.missed = True
        return False

    def require_described(self, node: str) -> bool:
        """True if the outgoing triples of ``node`` are known; otherwise remember it."""
        if node in self.described:
            return True
        if self.source is not None:
            self.add(self.source.fetch([node], incoming=False), described=(node,))
            return True
        self.missing_out.add(node)
        self.missed = True
        return False

    def _classes(self, node: str) -> tuple[frozenset[str], str | None]:
        cached = self._node_classes.get(node)
        if cached is not None:
            return cached
        types = self.types.get(node)
        if not types:
            return frozenset(), None
        out: set[str] = set()
        for t in types:
            sup = self._super_cache.get(t)
            if sup is None:
                sup = self.ontology.superclasses(t) | {t}
                self._super_cache[t] = sup
            out |= sup
        cached = self._node_classes[node] = (frozenset(out), self.ontology.category(types))
        return cached

    def superclasses(self, node: str) -> frozenset[str]:
        """Every class ``node`` is an instance of, closed under rdfs:subClassOf."""
        return self._classes(node)[0]

    def is_a(self, node: str, cls: str) -> bool:
        """True when ``node`` is an instance of ``cls`` (or of one of its subclasses)."""
        return cls in self._classes(node)[0]

    def category(self, node: str) -> str | None:
        """The fundamental category of ``node`` from its classes."""
        return self._classes(node)[1]

    def objects(self, node: str, keys: frozenset[str] | set[str]) -> list[str]:
        """Objects of the outgoing non-literal edges of ``node`` whose predicate is in keys."""
        edges = self.out.get(node)
        if not edges:
            return []
        if len(keys) < len(edges):
            return [o for p in keys for o in edges.get(p, ())]
        return [o for p, objs in edges.items() if p in keys for o in objs]

    def subjects(self, node: str, keys: frozenset[str] | set[str]) -> list[str]:
        """Subjects of the incoming edges of ``node`` whose predicate is in keys."""
        edges = self.inc.get(node)
        if not edges:
            return []
        if len(keys) < len(edges):
            return [s for p in keys for s in edges.get(p, ())]
        return [s for p, subs in edges.items() if p in keys for s in subs]

    def literal_values(self, node: str, predicates: Iterable[str]) -> list[Literal]:
        """Literals of ``node`` under any of the given predicate IRIs or canonical names."""
        wanted = set(predicates)
        return [
            lit
            for p, lit in self.literals.get(node, ())
            if p in wanted or self.predicate_key(p) in wanted
        ]
