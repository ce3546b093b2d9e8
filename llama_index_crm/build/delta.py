"""A change to a built graph: triples added and removed, and the graph after it.

:class:`GraphDelta` holds the two sets of triples (read from N-Triples or any RDF file, or
computed against a source read again: :func:`delta_against`). :class:`DeltaSource` is the
graph after the change as a :class:`~llama_index_crm.sources.base.GraphSource`: the stored
triple archive (``triples.parquet``) with the delta laid over it, so that an update fetches
the neighbourhoods it rebuilds without parsing the graph again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from llama_index_crm.errors import SourceError
from llama_index_crm.rdf import RDF_TYPE, Triple, decode_object, encode_object
from llama_index_crm.sources._filters import (
    ONTOLOGY_NAMESPACES,
    SCHEMA_TYPES,
    is_ontology_iri,
    select_entities,
)
from llama_index_crm.storage import TripleStore

Key = tuple[str, str, str]
"""A triple as (s, p, encoded o): how the archive stores it."""


def key_of(t: Triple) -> Key:
    """The archive's form of a triple."""
    return (t.s, t.p, encode_object(t.o))


@dataclass(slots=True)
class GraphDelta:
    """Triples to add and to remove (each a set of archive keys)."""

    added: set[Key] = field(default_factory=set)
    removed: set[Key] = field(default_factory=set)

    @classmethod
    def from_triples(cls, added: Iterable[Triple] = (),
                     removed: Iterable[Triple] = ()) -> GraphDelta:
        """A delta from triples; a triple both added and removed is removed."""
        rem = {key_of(t) for t in removed}
        return cls({key_of(t) for t in added} - rem, rem)

    @classmethod
    def from_files(cls, add: Sequence[str | Path] = (),
                   remove: Sequence[str | Path] = ()) -> GraphDelta:
        """A delta read from RDF files (N-Triples, Turtle, ...; strictly: a statement that
        does not parse is an error, since a delta that is half read would be wrong)."""
        return cls.from_triples(read_triples(add), read_triples(remove))

    def against(self, store: TripleStore) -> GraphDelta:
        """This delta reduced to what changes ``store``: additions it lacks, removals it
        holds."""
        def present(keys: set[Key]) -> set[Key]:
            return {k for k in keys if _has(store, k)}

        return GraphDelta(self.added - present(self.added), present(self.removed))

    def __len__(self) -> int:
        return len(self.added) + len(self.removed)

    def nodes(self) -> set[str]:
        """Subjects and non-literal objects of the changed triples."""
        out: set[str] = set()
        for s, p, o in self.added | self.removed:
            out.add(s)
            if not o.startswith('"') and p != RDF_TYPE:
                out.add(o)
        return out


def read_triples(paths: Sequence[str | Path]) -> list[Triple]:
    """Every triple of the given RDF files (all graphs), strictly parsed."""
    if not paths:
        return []
    from llama_index_crm.sources.rdf_files import RdfFileSource

    source = RdfFileSource(list(paths), strict=True)
    try:
        return list(source.triples())
    finally:
        source.close()


def _has(store: TripleStore, key: Key) -> bool:
    s, p, o = (store.id_of(x) for x in key)
    if s is None or p is None or o is None:
        return False
    p_ids, o_ids = store.out_ids(s)
    return bool(np.any((p_ids == p) & (o_ids == o)))


def delta_against(store: TripleStore, triples: Iterable[Triple],
                  subjects: set[str] | None = None) -> GraphDelta:
    """The delta that turns the archive ``store`` into the graph ``triples``.

    Only triples a build archives are compared: those whose subject is an IRI (an entity's
    outgoing triples, all archived) or a blank node the archive knows or a new triple
    links to. ``subjects``: when ``triples`` are only the outgoing triples of these
    subjects (an endpoint's entities), the archive's triples of blank nodes and ontology
    terms are left as they are (the source did not give theirs).
    """
    new: set[Key] = {key_of(t) for t in triples}
    blank = {k[0] for k in new if k[0].startswith("_:")}
    linked = {k[2] for k in new if k[2].startswith("_:")}
    known = {b for b in blank if store.id_of(b) is not None} | linked
    new = {k for k in new if not k[0].startswith("_:") or k[0] in known}
    table = archive_keys(store)
    if subjects is not None:
        s_col = table.column("s")
        iri = pc.invert(pc.starts_with(s_col, "_:"))
        for namespace in ONTOLOGY_NAMESPACES:
            iri = pc.and_(iri, pc.invert(pc.starts_with(s_col, namespace)))
        table = table.filter(iri)
        new = {k for k in new if k[0] in subjects}
    old = set(zip(*(table.column(c).to_pylist() for c in ("s", "p", "o")), strict=True))
    return GraphDelta(new - old, old - new)


def archive_keys(store: TripleStore) -> pa.Table:
    """The (s, p, o) columns of the archive as strings."""
    terms = store._terms.array  # noqa: SLF001 - one module of the same package
    return pa.table({name: terms.take(pa.array(ids)).cast(pa.string())
                     for name, ids in (("s", store.s_ids), ("p", store.p_ids),
                                       ("o", store.o_ids))})


class DeltaSource:
    """The graph after ``delta``: the archive ``store`` with the delta laid over it.

    A :class:`~llama_index_crm.sources.base.GraphSource` (no SPARQL: FR targets are
    walked, which gives the same documents).
    """

    in_process = True

    def __init__(self, store: TripleStore, delta: GraphDelta, description: str) -> None:
        self.store = store
        self.delta = delta
        self._description = description
        self._removed = delta.removed
        self._out: dict[str, list[Triple]] = defaultdict(list)
        self._in: dict[str, list[Triple]] = defaultdict(list)
        self._ids: dict[str, int | None] = {}
        for s, p, o in sorted(delta.added):
            t = Triple(s, p, decode_object(o))
            self._out[s].append(t)
            if not o.startswith('"'):
                self._in[o].append(t)

    def describe(self) -> str:
        """The source the index was built from, updated."""
        return self._description

    def _id(self, node: str) -> int | None:
        """The archive's id of ``node`` (remembered: a hub is asked for in every round)."""
        if node in self._ids:
            return self._ids[node]
        found = self._ids[node] = self.store.id_of(node)
        return found

    def outgoing(self, node: str) -> list[Triple]:
        """The triples of ``node`` as subject, after the delta."""
        found: list[Triple] = []
        node_id = self._id(node)
        if node_id is not None:
            p_ids, o_ids = self.store.out_ids(node_id)
            strings = self.store.take(np.concatenate([p_ids, o_ids]))
            n = len(p_ids)
            found = [Triple(node, p, decode_object(o))
                     for p, o in zip(strings[:n], strings[n:], strict=True)
                     if (node, p, o) not in self._removed]
        return found + self._out.get(node, [])

    def incoming(self, node: str) -> list[Triple]:
        """The triples of ``node`` as object, after the delta."""
        found: list[Triple] = []
        node_id = self._id(node)
        if node_id is not None:
            p_ids, s_ids = self.store.in_ids(node_id)
            strings = self.store.take(np.concatenate([s_ids, p_ids]))
            n = len(s_ids)
            found = [Triple(s, p, node) for s, p in zip(strings[:n], strings[n:], strict=True)
                     if (s, p, node) not in self._removed]
        return found + self._in.get(node, [])

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        """Triples with a subject in ``nodes`` and, if ``incoming``, an object in them."""
        found: dict[Triple, None] = {}
        for node in dict.fromkeys(nodes):
            found.update(dict.fromkeys(self.outgoing(node)))
            if incoming:
                found.update(dict.fromkeys(self.incoming(node)))
        return list(found)

    def entities(self) -> list[str]:
        """Distinct IRI subjects after the delta, sorted, minus ontology and schema terms."""
        store = self.store
        subject_ids = np.unique(store.s_ids)
        subjects = set(store.take(subject_ids))
        touched = {k[0] for k in self._removed}
        for s in touched:  # a subject may have lost all its triples
            if not self.outgoing(s):
                subjects.discard(s)
        subjects.update(self._out)
        schema: set[str] = set()
        rdf_type = store.id_of(RDF_TYPE)
        if rdf_type is not None:
            kinds = store.ids_of(sorted(SCHEMA_TYPES))
            kinds = kinds[kinds >= 0]
            rows = (store.p_ids == rdf_type) & np.isin(store.o_ids, kinds)
            schema = set(store.take(np.unique(store.s_ids[rows])))
        for s, p, o in self.delta.added:
            if p == RDF_TYPE and o in SCHEMA_TYPES:
                schema.add(s)
        for s, p, o in self._removed:
            if p == RDF_TYPE and o in SCHEMA_TYPES and not any(
                    t.p == RDF_TYPE and t.o == o for t in self.outgoing(s)):
                schema.discard(s)
        return select_entities(subjects, schema)

    def is_entity(self, node: str) -> bool:
        """Whether :meth:`entities` lists ``node``, found from its own triples alone."""
        if node.startswith("_:") or is_ontology_iri(node):
            return False
        out = self.outgoing(node)
        return bool(out) and not any(t.p == RDF_TYPE and t.o in SCHEMA_TYPES for t in out)

    def entity_count(self, before: int) -> int:
        """``len(self.entities())``, from the number of entities before the delta: only the
        subjects of its triples can become or stop being entities."""
        old = DeltaSource(self.store, GraphDelta(), "")
        touched = {k[0] for k in self.delta.added | self._removed}
        return before + sum(self.is_entity(s) for s in touched) \
            - sum(old.is_entity(s) for s in touched)

    def triple_table(self) -> pa.Table:
        """The (s, p, o) strings of the graph after the delta."""
        table = archive_keys(self.store)
        if self._removed:
            joined = pc.binary_join_element_wise(
                table.column("s"), table.column("p"), table.column("o"), "\x00")
            gone = pa.array(["\x00".join(k) for k in self._removed], pa.string())
            table = table.filter(pc.invert(pc.is_in(joined, value_set=gone)))
        if self.delta.added:
            rows = sorted(self.delta.added)
            table = pa.concat_tables([table, pa.table({
                "s": [r[0] for r in rows], "p": [r[1] for r in rows],
                "o": [r[2] for r in rows]}, schema=table.schema)])
        return table

    def close(self) -> None:
        """Nothing to release (the archive belongs to the caller)."""


def fail_if_empty(delta: GraphDelta, what: str) -> None:
    """A clear error for a delta that names no triple at all."""
    if not delta.added and not delta.removed:
        raise SourceError(f"{what}: no triple to add or remove.")
