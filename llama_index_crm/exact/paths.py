"""CRM property paths walked over the integer-encoded triple store, keeping evidence.

A path is a sequence of :class:`~llama_index_crm.ontology.Step` values (canonical CRM
property names, as in ``config/fundamental_relationships.json``). :class:`PathEngine`
compiles each step once against the graph's own predicates (every IRI form of the property
and its sub-properties forwards, of its inverse backwards, exactly as the build's SPARQL
compiler does) and walks a whole set of start nodes at once: each step is a gather over the
store's CSR arrays followed by a predicate mask, with no Python loop per node.

A property step also follows the attributions the graph records for that property: an
``E13_Attribute_Assignment`` that ``P140_assigned_attribute_to`` X, ``P141_assigned`` Y, with
``P177_assigned_property_of_type`` P, stands for X P Y ("attributed on stylistic grounds to
the painter Y"), and the walk keeps the assignment's triples as the witness.

A :class:`Walk` keeps, for every (start, node) pair it reached, the triple that led there
and a pointer to the row before, so the witness of any answer is a few array look-ups away.

>>> from llama_index_crm.rdf import Triple
>>> from llama_index_crm.storage import TripleStore
>>> crm = "http://www.cidoc-crm.org/cidoc-crm/"
>>> store = TripleStore.from_triples([Triple("ex:w", crm + "P108i_was_produced_by", "ex:p"),
...                                   Triple("ex:p", crm + "P14_carried_out_by", "ex:a")])
>>> engine = PathEngine(store)
>>> path = engine.compile([Step("property", "P92i_was_brought_into_existence_by"),
...                        Step("property", "P14_carried_out_by")])
>>> walk = engine.walk(engine.ids(["ex:w"]), path)
>>> store.take(walk.node), [store.take(t) for t in walk.witness(0)]
(['ex:a'], [['ex:w', 'http://www.cidoc-crm.org/cidoc-crm/P108i_was_produced_by', 'ex:p'], \
['ex:p', 'http://www.cidoc-crm.org/cidoc-crm/P14_carried_out_by', 'ex:a']])
>>> store.take(engine.walk(engine.ids(["ex:a"]), path, reverse=True).node)
['ex:w']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from llama_index_crm.ontology import Ontology, Step
from llama_index_crm.rdf import RDF_TYPE
from llama_index_crm.storage.triples import TripleStore

__all__ = ["ASSIGNED", "ASSIGNED_PROPERTY", "ASSIGNED_TO", "MAX_REPEAT", "CompiledStep",
           "PathEngine", "Walk"]

ASSIGNED_TO = "P140_assigned_attribute_to"
ASSIGNED = "P141_assigned"
ASSIGNED_PROPERTY = "P177_assigned_property_of_type"

MAX_REPEAT = 16
"""Rounds a repeated step (``P89_falls_within+``) is followed at most."""

_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class CompiledStep:
    """A step with its predicates resolved to term ids of one store.

    Attributes:
        forward: predicate ids followed subject → object.
        backward: predicate ids followed object → subject (the inverse property's forms).
        children: alternatives (``any_of``) or sub-path (``sequence``).
        sequence: True when ``children`` are walked one after the other.
        repeat: one or more times.
        optional: may be skipped.
        from_classes / via_classes: class ids the node before / after must have.
        from_links / via_links: (predicate ids, object ids): the node before / after must
            be the subject of such a triple (an attribution of the step's property).
    """

    forward: np.ndarray = field(default_factory=lambda: _EMPTY)
    backward: np.ndarray = field(default_factory=lambda: _EMPTY)
    children: tuple[CompiledStep, ...] = ()
    sequence: bool = False
    repeat: bool = False
    optional: bool = False
    from_classes: np.ndarray | None = None
    via_classes: np.ndarray | None = None
    from_links: tuple[np.ndarray, np.ndarray] | None = None
    via_links: tuple[np.ndarray, np.ndarray] | None = None

    def reversed(self) -> CompiledStep:
        """The same step walked the other way."""
        children = tuple(c.reversed() for c in self.children)
        return CompiledStep(self.backward, self.forward,
                            children[::-1] if self.sequence else children, self.sequence,
                            self.repeat, self.optional, self.via_classes, self.from_classes,
                            self.via_links, self.from_links)

    @property
    def empty(self) -> bool:
        """True when the step can match nothing in this graph (an optional step can
        always be skipped)."""
        if self.optional:
            return False
        if self.children:
            return all(c.empty for c in self.children) if not self.sequence else any(
                c.empty for c in self.children)
        return not len(self.forward) and not len(self.backward)


@dataclass(slots=True)
class Walk:
    """The rows a path reached from a set of start nodes.

    Attributes:
        start: per row, the index of its start node in the array walked from
            (:attr:`origins`).
        node: per row, the node reached (term id).
        row: per row, its index in the trail (see :meth:`witness`).
    """

    start: np.ndarray
    node: np.ndarray
    row: np.ndarray
    _parent: list[np.ndarray]
    _triples: list[np.ndarray]
    origins: np.ndarray = field(default_factory=lambda: _EMPTY)

    def origin(self, i: int) -> int:
        """The start node (term id) of row ``i``."""
        return int(self.origins[self.start[i]])

    def kept(self, keep: np.ndarray) -> Walk:
        """The rows where ``keep`` is true."""
        return Walk(self.start[keep], self.node[keep], self.row[keep], self._parent,
                    self._triples, self.origins)

    def witness(self, i: int) -> list[tuple[int, int, int]]:
        """The triples (term ids, in path order) that led row ``i`` from its start."""
        parent = np.concatenate(self._parent)
        triples = np.concatenate(self._triples)
        out = []
        r = int(self.row[i])
        while r >= 0 and triples[r, 0] >= 0:
            out.append((int(triples[r, 0]), int(triples[r, 1]), int(triples[r, 2])))
            r = int(parent[r])
        return out[::-1]

    def witnesses(self, rows: Iterable[int]) -> list[list[tuple[int, int, int]]]:
        """:meth:`witness` of several rows (the trail is joined once)."""
        parent = np.concatenate(self._parent)
        triples = np.concatenate(self._triples)
        found = []
        for i in rows:
            out = []
            r = int(self.row[i])
            while r >= 0 and triples[r, 0] >= 0:
                out.append((int(triples[r, 0]), int(triples[r, 1]), int(triples[r, 2])))
                r = int(parent[r])
            found.append(out[::-1])
        return found

    def __len__(self) -> int:
        return len(self.node)


class _Trail:
    """Rows appended while walking: parent row and the triple (s, p, o) that led here."""

    def __init__(self, n: int, origins: np.ndarray | None = None,
                 through: np.ndarray | None = None) -> None:
        self.parent: list[np.ndarray] = [np.full(n, -1, dtype=np.int64)]
        self.triples: list[np.ndarray] = [np.full((n, 3), -1, dtype=np.int64)]
        self.size = n
        self.n = n
        self.origins = origins
        self.through = through
        """Nodes one of which a row must pass on its way (its ends not counted): a row
        that has passed one carries its start index plus ``n``, so that it is kept apart
        from a row reaching the same node by another way."""

    def passed(self, start: np.ndarray, node: np.ndarray) -> np.ndarray:
        """``start`` of rows about to leave ``node``, marked where the node is one of
        :attr:`through` (and not the row's own start)."""
        if self.through is None or self.origins is None or not len(start):
            return start
        mark = (start < self.n) & np.isin(node, self.through) & \
            (node != self.origins[start % self.n])
        return np.where(mark, start + self.n, start)

    def add(self, parent: np.ndarray, triples: np.ndarray) -> np.ndarray:
        rows = np.arange(self.size, self.size + len(parent), dtype=np.int64)
        self.parent.append(parent.astype(np.int64, copy=False))
        self.triples.append(triples.astype(np.int64, copy=False))
        self.size += len(parent)
        return rows


def _ranges(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, position) for every position in the half-open ranges ``[starts, ends)``."""
    lengths = (ends - starts).astype(np.int64)
    total = int(lengths.sum())
    if not total:
        return _EMPTY, _EMPTY
    owner = np.repeat(np.arange(len(starts), dtype=np.int64), lengths)
    first = np.cumsum(lengths) - lengths
    position = np.arange(total, dtype=np.int64) - np.repeat(first - starts, lengths)
    return owner, position


class PathEngine:
    """Compiles and walks CRM property paths over one :class:`TripleStore`.

    Args:
        store: the triple store.
        ontology: the CRM vocabulary (sub-properties, inverses, aliases, subclasses).
    """

    def __init__(self, store: TripleStore, ontology: Ontology | None = None) -> None:
        self.store = store
        self.ontology = ontology or Ontology.default()
        self._by_name: dict[str, list[int]] = {}
        predicates = np.unique(store.p_ids)
        for term_id, iri in zip(predicates.tolist(), store.take(predicates), strict=True):
            name = self.ontology.canonical(iri) or iri
            self._by_name.setdefault(name, []).append(term_id)
        self.type_id = store.id_of(RDF_TYPE)
        self._class_ids: dict[str, np.ndarray] = {}
        self._classes_used: np.ndarray | None = None
        self._cache: dict[tuple[Step, ...], CompiledStep] = {}
        self._assigned: dict[str, np.ndarray] | None = None

    # -- terms -----------------------------------------------------------------------------
    def ids(self, terms: Sequence[str]) -> np.ndarray:
        """Term ids of IRIs (unknown ones dropped)."""
        ids = self.store.ids_of(list(terms))
        return ids[ids >= 0]

    def property_ids(self, prop: str) -> np.ndarray:
        """Predicate ids of ``prop`` and its sub-properties, in any IRI form of the graph."""
        names = self.ontology.subproperties(prop) or frozenset({prop})
        found = sorted(i for name in names for i in self._by_name.get(name, ()))
        return np.asarray(found, dtype=np.int64)

    def predicate_forms(self, prop: str) -> tuple[list[str], list[str]]:
        """IRIs of the graph for a property step: (forward forms, backward forms)."""
        inverse = self.ontology.inverse(prop)
        forward = self.store.take(self.property_ids(prop))
        backward = self.store.take(self.property_ids(inverse)) if inverse else []
        return forward, backward

    def classes_used(self) -> np.ndarray:
        """Ids of the terms the graph uses as classes (objects of ``rdf:type``), cached."""
        if self._classes_used is None:
            self._classes_used = _EMPTY if self.type_id is None else np.unique(
                self.store.o_ids[self.store.p_ids == self.type_id])
        return self._classes_used

    def class_ids(self, cls: str) -> np.ndarray:
        """Ids of the graph's class IRIs that are ``cls`` or a subclass of it."""
        found = self._class_ids.get(cls)
        if found is None:
            wanted = self.ontology.subclasses(cls) or frozenset({cls})
            if self.type_id is None:
                found = _EMPTY
            else:
                classes = self.classes_used()
                names = self.store.take(classes)
                found = np.asarray([c for c, n in zip(classes.tolist(), names, strict=True)
                                    if (self.ontology.canonical(n) or n) in wanted],
                                   dtype=np.int64)
            self._class_ids[cls] = found
        return found

    def has_class(self, nodes: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Boolean per node: typed with one of ``classes``."""
        if self.type_id is None:
            return np.zeros(len(nodes), dtype=bool)
        return self.has_link(nodes, np.asarray([self.type_id]), classes)

    def has_link(self, nodes: np.ndarray, predicates: np.ndarray,
                 objects: np.ndarray) -> np.ndarray:
        """Boolean per node: it is the subject of a triple with one of ``predicates`` and
        one of ``objects``."""
        if not len(nodes) or not len(predicates) or not len(objects):
            return np.zeros(len(nodes), dtype=bool)
        nodes = np.asarray(nodes, dtype=np.int64)
        owner, pos = _ranges(self.store.out_offsets[nodes], self.store.out_offsets[nodes + 1])
        hit = np.isin(self.store.p_ids[pos], predicates) & np.isin(self.store.o_ids[pos],
                                                                    objects)
        out = np.zeros(len(nodes), dtype=bool)
        out[owner[hit]] = True
        return out

    def objects_of(self, nodes: np.ndarray,
                   predicates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(index into ``nodes``, object id) of their triples with one of ``predicates``."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if not len(nodes) or not len(predicates):
            return _EMPTY, _EMPTY
        owner, pos = _ranges(self.store.out_offsets[nodes], self.store.out_offsets[nodes + 1])
        hit = np.isin(self.store.p_ids[pos], predicates)
        return owner[hit], self.store.o_ids[pos[hit]].astype(np.int64)

    def assigned_properties(self, prop: str) -> np.ndarray:
        """Ids of the terms attribute assignments name as their property
        (``P177_assigned_property_of_type``) that are ``prop`` or a sub-property of it."""
        if self._assigned is None:
            found: dict[str, list[int]] = {}
            kinds = self.property_ids(ASSIGNED_PROPERTY)
            if len(kinds):
                objects = np.unique(self.store.o_ids[np.isin(self.store.p_ids, kinds)])
                for term, iri in zip(objects.tolist(), self.store.take(objects), strict=True):
                    name = self.ontology.canonical(iri) or iri
                    found.setdefault(name, []).append(term)
            self._assigned = {k: np.asarray(v, dtype=np.int64) for k, v in found.items()}
        names = self.ontology.subproperties(prop) or frozenset({prop})
        ids = [self._assigned[n] for n in names if n in self._assigned]
        return np.unique(np.concatenate(ids)) if ids else _EMPTY

    def _attributed(self, prop: str) -> list[CompiledStep]:
        """``prop`` read through the attribute assignments of it: X ←P140— E13 —P141→ Y, and
        the other way for an assignment of its inverse."""
        kinds = self.property_ids(ASSIGNED_PROPERTY)
        to, assigned = self.property_ids(ASSIGNED_TO), self.property_ids(ASSIGNED)
        if not len(kinds) or not len(to) or not len(assigned):
            return []
        found = []
        inverse = self.ontology.inverse(prop)
        for name, first, then in ((prop, to, assigned), (inverse, assigned, to)):
            named = self.assigned_properties(name) if name else _EMPTY
            if len(named):
                found.append(CompiledStep(children=(
                    CompiledStep(_EMPTY, first, via_links=(kinds, named)),
                    CompiledStep(then, _EMPTY)), sequence=True))
        return found

    # -- compiling -------------------------------------------------------------------------
    def compile(self, steps: Sequence[Step]) -> CompiledStep:
        """A whole path as one sequence step (cached)."""
        key = tuple(steps)
        found = self._cache.get(key)
        if found is None:
            found = CompiledStep(children=tuple(self._step(s) for s in steps), sequence=True)
            self._cache[key] = found
        return found

    def _step(self, step: Step) -> CompiledStep:
        classes = {k: (self.class_ids(c) if c else None)
                   for k, c in (("from", step.from_class), ("via", step.via_class))}
        if step.kind == "property":
            assert step.property is not None
            inverse = self.ontology.inverse(step.property)
            forward = self.property_ids(step.property)
            backward = self.property_ids(inverse) if inverse else _EMPTY
            if step.symmetric:
                forward = backward = np.union1d(forward, backward)
            attributed = self._attributed(step.property)
            if attributed:  # the property as recorded, or as attributed
                return CompiledStep(children=(CompiledStep(forward, backward), *attributed),
                                    repeat=step.repeat, optional=step.optional,
                                    from_classes=classes["from"], via_classes=classes["via"])
            return CompiledStep(forward, backward, repeat=step.repeat, optional=step.optional,
                                from_classes=classes["from"], via_classes=classes["via"])
        if step.kind == "all_of":  # an intersection of properties: its first property only
            first = Step("property", step.all_of[0]) if step.all_of else None
            inner = self._step(first) if first else CompiledStep()
            return CompiledStep(inner.forward, inner.backward, repeat=step.repeat,
                                optional=step.optional, from_classes=classes["from"],
                                via_classes=classes["via"])
        return CompiledStep(children=tuple(self._step(c) for c in step.children),
                            sequence=step.kind == "sequence", repeat=step.repeat,
                            optional=step.optional, from_classes=classes["from"],
                            via_classes=classes["via"])

    # -- walking ---------------------------------------------------------------------------
    def walk(self, starts: np.ndarray, path: CompiledStep, reverse: bool = False,
             through: np.ndarray | None = None) -> Walk:
        """Every node ``path`` reaches from each of ``starts`` (term ids), with witnesses.

        Args:
            starts: start node ids.
            path: a compiled path (or step).
            reverse: walk it from its end to its start (range → domain).
            through: only the ways that pass one of these nodes between their ends (a
                role's set: a person reached through the "Artist" set of an exhibition
                and through its "Designer" set is its designer); None: any way.
        """
        starts = np.asarray(starts, dtype=np.int64)
        n = len(starts)
        trail = _Trail(n, starts, through)
        step = path.reversed() if reverse else path
        start, node, row = self._apply(step, np.arange(n, dtype=np.int64), starts,
                                       np.arange(n, dtype=np.int64), trail)
        if through is not None:
            keep = start >= n
            start, node, row = start[keep] - n, node[keep], row[keep]
        return Walk(start, node, row, trail.parent, trail.triples, starts)

    def _apply(self, step: CompiledStep, start: np.ndarray, node: np.ndarray, row: np.ndarray,
               trail: _Trail) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if step.from_classes is not None:
            keep = self.has_class(node, step.from_classes)
            start, node, row = start[keep], node[keep], row[keep]
        if step.from_links is not None:
            keep = self.has_link(node, *step.from_links)
            start, node, row = start[keep], node[keep], row[keep]
        if step.repeat:
            moved = self._closure(step, start, node, row, trail)
        else:
            moved = self._once(step, start, node, row, trail)
        if step.via_classes is not None:
            keep = self.has_class(moved[1], step.via_classes)
            moved = (moved[0][keep], moved[1][keep], moved[2][keep])
        if step.via_links is not None:
            keep = self.has_link(moved[1], *step.via_links)
            moved = (moved[0][keep], moved[1][keep], moved[2][keep])
        if step.optional:
            moved = _unique(*(np.concatenate(p) for p in zip((start, node, row), moved,
                                                              strict=True)))
        return moved

    def _once(self, step: CompiledStep, start: np.ndarray, node: np.ndarray, row: np.ndarray,
              trail: _Trail) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if step.children and step.sequence:
            for child in step.children:
                start, node, row = self._apply(child, start, node, row, trail)
            return start, node, row
        if step.children:
            parts = [self._apply(c, start, node, row, trail) for c in step.children]
            if not parts:
                return _EMPTY, _EMPTY, _EMPTY
            return _unique(*(np.concatenate(p) for p in zip(*parts, strict=True)))
        return self._edges(step, start, node, row, trail)

    def _closure(self, step: CompiledStep, start: np.ndarray, node: np.ndarray,
                 row: np.ndarray, trail: _Trail) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        once = CompiledStep(step.forward, step.backward, step.children, step.sequence)
        found = self._once(once, start, node, row, trail)
        seen = set(zip(found[0].tolist(), found[1].tolist(), strict=True))
        frontier = found
        parts = [found]
        for _ in range(MAX_REPEAT - 1):
            if not len(frontier[0]):
                break
            nxt = self._once(once, *frontier, trail)
            fresh = np.asarray([(s, n) not in seen for s, n in zip(nxt[0].tolist(),
                                                                    nxt[1].tolist(),
                                                                    strict=True)], dtype=bool)
            frontier = (nxt[0][fresh], nxt[1][fresh], nxt[2][fresh])
            seen.update(zip(frontier[0].tolist(), frontier[1].tolist(), strict=True))
            parts.append(frontier)
        return _unique(*(np.concatenate(p) for p in zip(*parts, strict=True)))

    def _edges(self, step: CompiledStep, start: np.ndarray, node: np.ndarray, row: np.ndarray,
               trail: _Trail) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        store = self.store
        parts = []
        start = trail.passed(start, node)
        if len(step.forward) and len(node):
            owner, pos = _ranges(store.out_offsets[node], store.out_offsets[node + 1])
            hit = np.isin(store.p_ids[pos], step.forward)
            owner, pos = owner[hit], pos[hit]
            triples = np.stack([node[owner], store.p_ids[pos], store.o_ids[pos]], axis=1)
            parts.append((start[owner], store.o_ids[pos].astype(np.int64),
                          trail.add(row[owner], triples)))
        if len(step.backward) and len(node):
            owner, pos = _ranges(store.in_offsets[node], store.in_offsets[node + 1])
            hit = np.isin(store.in_p[pos], step.backward)
            owner, pos = owner[hit], pos[hit]
            triples = np.stack([store.in_s[pos], store.in_p[pos], node[owner]], axis=1)
            parts.append((start[owner], store.in_s[pos].astype(np.int64),
                          trail.add(row[owner], triples)))
        if not parts:
            return _EMPTY, _EMPTY, _EMPTY
        return _unique(*(np.concatenate(p) for p in zip(*parts, strict=True)))


def _unique(start: np.ndarray, node: np.ndarray,
            row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with distinct (start, node), first witness kept, sorted by (start, node)."""
    if not len(start):
        return start, node, row
    order = np.lexsort((row, node, start))
    start, node, row = start[order], node[order], row[order]
    keep = np.ones(len(start), dtype=bool)
    keep[1:] = (start[1:] != start[:-1]) | (node[1:] != node[:-1])
    return start[keep], node[keep], row[keep]
