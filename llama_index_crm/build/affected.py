"""Which documents a change to the graph touches.

A document is written from what its entity's writing *reads*: the entity's own triples, the
nodes its FR walk passes through, its folded satellites, and the names and annotations of
every node it shows. The affected entities of a delta are those whose reads meet it:

1. **Own triples**: every subject and object of a changed triple.
2. **FR walks**: the walk of an entity reads the edges of a node with the properties of the
   next step of a path. :class:`ReverseWalker` compiles every FR path of every category into
   one automaton and walks it *backwards* from each changed triple over the stored graph
   (before the change: a walk that met no changed triple there meets none after it either),
   from the states whose next step reads that triple; every entity reached in a start state
   walks through the change. Class constraints are ignored (more entities, never fewer).
3. **Names**: the name of a node reads its own triples and those of its appellations. The
   names of the candidates are resolved before and after the change; each node whose name
   changed, and then each node whose rendering as a target (``Name (types, date)``, or
   "Production of X" for an unlabelled node) changed, affects every entity linked to it or
   reaching it by an FR (``fr_edges.parquet``).
4. **Satellites**: entities whose appellations, dimensions, time-spans or rights changed, or
   whose names' and dimensions' types and units were renamed, or whose beginning or end of
   existence changed its date.

Chaining is not decided here: the update chains the whole archive again (it is cheap), from
the documents as written before chaining.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field

import numpy as np

from llama_index_crm.build.delta import DeltaSource, GraphDelta
from llama_index_crm.build.documents import DocumentWriter
from llama_index_crm.build.labels import DIRECT_LABELS, Labeller, best_literal
from llama_index_crm.build.neighbourhood import SKOS_CONCEPT, Neighbourhood
from llama_index_crm.build.traversal import FRWalker
from llama_index_crm.ontology import Ontology, Step
from llama_index_crm.rdf import RDF_TYPE, Literal, decode_object
from llama_index_crm.storage import TripleStore

_NAME_LINKS = frozenset({"P1_is_identified_by", "P102_has_title", "P48_has_preferred_identifier"})
_LABEL_LINKS = frozenset({"P1_is_identified_by", "P102_has_title"})
_TYPE_LINKS = frozenset({"P2_has_type", "P42_assigned", "P141_assigned"})
_SATELLITE_LINKS = _NAME_LINKS | frozenset({"P43_has_dimension", "P4_has_time-span",
                                            "P104_is_subject_to"})
_ROUNDS = 10


@dataclass(frozen=True, slots=True)
class _Move:
    """One transition of the automaton: from ``start`` the walk reads the outgoing edges
    with a key in ``out`` and the incoming ones with a key in ``inc``, landing in ``end``."""

    start: int
    end: int
    out: frozenset[str]
    inc: frozenset[str]


class ReverseWalker:
    """Every FR path of an ontology as one automaton, walked backwards over a graph."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self._walker = FRWalker(ontology)
        self.moves: list[_Move] = []
        self.skips: list[tuple[int, int]] = []
        self.starts: dict[int, str] = {}
        """Start state → the domain category of its FR."""
        self._states = 0
        for fr in ontology.fundamental_relationships():
            start = self._new()
            self.starts[start] = fr.domain
            for path in fr.paths:
                at = start
                for step in path.steps:
                    at = self._step(step, at)

    def _new(self) -> int:
        self._states += 1
        return self._states - 1

    def _property(self, prop: str, start: int, end: int, symmetric: bool) -> None:
        edge = self._walker._edge(prop)
        out, inc = edge.forward, edge.backward
        if symmetric:
            out = inc = out | inc
        self.moves.append(_Move(start, end, out, inc))

    def _step(self, step: Step, start: int) -> int:
        end = self._new()
        if step.kind == "property" and step.property:
            self._property(step.property, start, end, step.symmetric)
        elif step.kind == "all_of":
            for prop in step.all_of:
                self._property(prop, start, end, False)
        elif step.kind == "any_of":
            for child in step.children:
                self.skips.append((self._step(child, start), end))
        elif step.kind == "sequence":
            at = start
            for child in step.children:
                at = self._step(child, at)
            self.skips.append((at, end))
        if step.repeat:
            self.skips.append((end, start))
        if step.optional:
            self.skips.append((start, end))
        return end

    def walkers(self, store: TripleStore, delta: GraphDelta) -> set[str]:
        """The nodes whose FR walk, over ``store``, reads a triple of ``delta``."""
        keys = _predicate_keys(store, self.ontology)
        into: dict[int, list[_Move]] = defaultdict(list)
        for move in self.moves:
            into[move.end].append(move)
        skips_into: dict[int, list[int]] = defaultdict(list)
        for a, b in self.skips:
            skips_into[b].append(a)
        pids = {k: np.asarray(sorted(v), dtype=np.int64) for k, v in keys.items()}
        empty = np.zeros(0, dtype=np.int64)

        def ids(names: frozenset[str]) -> np.ndarray:
            found = [pids[n] for n in names if n in pids]
            return np.concatenate(found) if found else empty

        move_ids = {id(m): (ids(m.out), ids(m.inc)) for m in self.moves}
        seen: set[tuple[int, int]] = set()
        todo: list[tuple[int, int]] = []

        def seed(node: str, state: int) -> None:
            node_id = store.id_of(node)
            if node_id is not None and (node_id, state) not in seen:
                seen.add((node_id, state))
                todo.append((node_id, state))

        canonical = self.ontology.canonical
        for s, p, o in delta.added | delta.removed:
            if p == RDF_TYPE:  # class checks and range categories, in any state
                for state in range(self._states):
                    seed(s, state)
                continue
            key = canonical(p) or p
            for move in self.moves:
                if key in move.out:
                    seed(s, move.start)
                if key in move.inc and not o.startswith('"'):
                    seed(o, move.start)
        while todo:
            node, state = todo.pop()
            for before in skips_into.get(state, ()):
                if (node, before) not in seen:
                    seen.add((node, before))
                    todo.append((node, before))
            moves = into.get(state)
            if not moves:
                continue
            in_p, in_s = store.in_ids(node)
            out_p, out_o = store.out_ids(node)
            for move in moves:
                out_ids, inc_ids = move_ids[id(move)]
                came = np.concatenate([in_s[np.isin(in_p, out_ids)],
                                       out_o[np.isin(out_p, inc_ids)]])
                for prev in np.unique(came).tolist():
                    if (prev, move.start) not in seen:
                        seen.add((prev, move.start))
                        todo.append((prev, move.start))
        domains: dict[int, set[str]] = defaultdict(set)
        for n, state in seen:
            domain = self.starts.get(state)
            if domain is not None:
                domains[n].add(domain)
        rdf_type = store.id_of(RDF_TYPE)
        found: set[str] = set()
        for n, wanted in domains.items():
            p_ids, o_ids = store.out_ids(n)
            types = store.take(o_ids[p_ids == rdf_type]) if rdf_type is not None else []
            classes = {self.ontology.canonical(c) or c for c in types}
            if SKOS_CONCEPT in types:  # as the neighbourhood reads it
                classes.add("E55_Type")
            if self.ontology.category(classes) in wanted:
                found.add(store.term(n))
        return found


def _predicate_keys(store: TripleStore, ontology: Ontology) -> dict[str, set[int]]:
    """Canonical key → the predicate ids of ``store`` with that key."""
    out: dict[str, set[int]] = defaultdict(set)
    for pid in np.unique(store.p_ids).tolist():
        iri = store.term(pid)
        out[ontology.canonical(iri) or iri].add(pid)
    return out


def _unnamed(store: TripleStore, ontology: Ontology, nodes: set[str]) -> set[str]:
    """``nodes`` less those with a direct label of their own in ``store``.

    A node not changed itself (none of its outgoing triples in the delta) that has a
    direct label (``Labeller.resolve``'s first choice) has a real name: its rendering as a
    target, its entity label, category and satellite status then read only its own triples,
    the names of its types and assigned nodes and its time-spans, none of them a
    neighbour's name or class. Renaming or retyping a neighbour cannot change them (changed
    types, assignments and time-spans are candidates by their own links).
    """
    if not nodes:
        return set()
    keys = _predicate_keys(store, ontology)  # as Neighbourhood.literal_values matches them
    wanted = {i for k in DIRECT_LABELS for i in keys.get(k, ())}
    wanted |= {i for i in np.unique(store.p_ids).tolist() if store.term(i) in DIRECT_LABELS}
    label_ids = np.asarray(sorted(wanted), dtype=np.int64)
    if not len(label_ids):
        return set(nodes)
    out: set[str] = set()
    for node in nodes:
        node_id = store.id_of(node)
        if node_id is None:
            out.add(node)
            continue
        p_ids, o_ids = store.out_ids(node_id)
        hits = o_ids[np.isin(p_ids, label_ids)]
        values = [decode_object(t) for t in store.take(hits)] if len(hits) else []
        if best_literal([v for v in values if isinstance(v, Literal)]) is None:
            out.add(node)
    return out


class _View:
    """Edges of the graph before or after a delta, by canonical predicate key."""

    def __init__(self, source: DeltaSource, ontology: Ontology) -> None:
        self.source = source
        self.key: Callable[[str], str] = lambda p: ontology.canonical(p) or p

    def objects(self, node: str, keys: frozenset[str] | None = None) -> set[str]:
        return {t.o for t in self.source.outgoing(node)
                if isinstance(t.o, str) and (keys is None or self.key(t.p) in keys)}

    def subjects(self, node: str, keys: frozenset[str] | None = None) -> set[str]:
        return {t.s for t in self.source.incoming(node)
                if keys is None or self.key(t.p) in keys}

    def neighbours(self, node: str) -> set[str]:
        return self.objects(node) | self.subjects(node)


class _Renderer:
    """Names and target renderings of nodes in one graph (with fetch rounds)."""

    def __init__(self, source: DeltaSource, ontology: Ontology, on_demand: bool = True
                 ) -> None:
        self.source = source
        self.writer = DocumentWriter(ontology, FRWalker(ontology))
        self.ontology = ontology
        self.on_demand = on_demand
        """Nodes fetched when first asked for (one round), not in fetch rounds."""

    def _run(self, nodes: list[str], what: Callable[[Neighbourhood, Labeller, str], object]
             ) -> dict[str, object]:
        nb = Neighbourhood(self.ontology, self.source if self.on_demand else None)
        nb.add(self.source.fetch(nodes, incoming=True), complete=nodes)
        lab = Labeller(nb)
        out: dict[str, object] = {}
        for _ in range(_ROUNDS):
            for node in nodes:
                out[node] = what(nb, lab, node)
            if not nb.has_missing:
                break
            nb.fetch_missing(self.source)
            lab.forget_missing()
        return out

    def names(self, nodes: list[str]) -> dict[str, object]:
        return self._run(nodes, lambda nb, lab, n: lab.resolve(n))

    def targets(self, nodes: list[str]) -> dict[str, object]:
        def both(nb: Neighbourhood, lab: Labeller, n: str) -> object:
            return (self.writer.target(nb, lab, n), self.writer.entity_label(nb, lab, n),
                    nb.category(n), self.writer.is_satellite(nb, n))
        return self._run(nodes, both)


def _changed(before: _Renderer, after: _Renderer, nodes: Iterable[str],
             how: str) -> set[str]:
    ordered = sorted(set(nodes))
    if not ordered:
        return set()
    old = getattr(before, how)(ordered)
    new = getattr(after, how)(ordered)
    return {n for n in ordered if old.get(n) != new.get(n)}


@dataclass(slots=True)
class Affected:
    """What a delta touches: the nodes renamed, re-rendered, and the entities to rewrite."""

    entities: set[str]
    renamed: set[str]
    rerendered: set[str]
    walkers: int
    walked: set[str] = field(default_factory=set)
    """The nodes whose FR walk reads a changed triple (:meth:`ReverseWalker.walkers`), and
    the subjects and objects of changed triples: every other entity walks its FRs as it
    did before the change, to the same targets by the same derivations."""


def affected_entities(store: TripleStore, delta: GraphDelta, ontology: Ontology,
                      fr_sources: Callable[[set[str]], set[str]],
                      entities: Container[str], reverse: ReverseWalker | None = None
                      ) -> Affected:
    """The entities whose documents may change with ``delta`` (see the module docstring).

    Args:
        store: the graph before the change (the stored archive).
        delta: the change, reduced to what changes ``store``.
        ontology: the CRM vocabulary.
        fr_sources: the entities with an FR edge to any of the given nodes (before).
        entities: the entities after the change (a document is written only for these).
        reverse: a compiled :class:`ReverseWalker` (made when None).
    """
    old_src = DeltaSource(store, GraphDelta(), "")
    new_src = DeltaSource(store, delta, "")
    views = (_View(old_src, ontology), _View(new_src, ontology))
    before, after = _Renderer(old_src, ontology), _Renderer(new_src, ontology)

    def linked_in(nodes: Iterable[str], keys: frozenset[str] | None = None) -> set[str]:
        return {s for n in nodes for v in views for s in v.subjects(n, keys)}

    def linked_out(nodes: Iterable[str], keys: frozenset[str] | None = None) -> set[str]:
        return {o for n in nodes for v in views for o in v.objects(n, keys)}

    sub = ontology.subproperties
    existence = frozenset().union(*(
        sub(p) for p in ("P92_brought_into_existence", "P92i_was_brought_into_existence_by",
                         "P93_took_out_of_existence", "P93i_was_taken_out_of_existence_by")))
    changed = delta.added | delta.removed
    c_out = {s for s, _, _ in changed}
    c_in = {o for _, p, o in changed if not o.startswith('"') and p != RDF_TYPE}
    c_type = {s for s, p, _ in changed if p == RDF_TYPE}
    # names: a node's own triples and its appellations'
    renamed = _changed(before, after, c_out | linked_in(c_out, _LABEL_LINKS), "names")
    # renderings as a target: the name, types, date; for an unlabelled node its neighbours
    candidates = (c_out | c_in | renamed | linked_in(renamed, _TYPE_LINKS)
                  | linked_in(c_out, frozenset({"P4_has_time-span"})))
    touched = renamed | c_type
    near = {m for x in touched for v in views for m in v.neighbours(x)}
    candidates |= _unnamed(store, ontology, near - c_out)
    rerendered = _changed(before, after, candidates, "targets") | renamed
    # documents
    reverse = reverse or ReverseWalker(ontology)
    walkers = reverse.walkers(store, delta)
    docs = set(c_out | c_in | walkers | rerendered)
    docs |= {n for x in rerendered | c_type for v in views for n in v.neighbours(x)}
    docs |= fr_sources(rerendered)
    docs |= linked_in(c_out, _SATELLITE_LINKS)
    docs |= linked_in(linked_in(renamed, frozenset({"P2_has_type", "P91_has_unit"})),
                      _NAME_LINKS | frozenset({"P43_has_dimension"}))
    events = c_out | linked_in(c_out, frozenset({"P4_has_time-span"}))
    docs |= linked_in(events, existence) | linked_out(events, existence)
    return Affected({d for d in docs if d in entities}, renamed, rerendered, len(walkers),
                    walkers | c_out | c_in)
