"""The name table: every name a node of the graph is known by, for linking names in questions.

A node's names come from its direct labels (``rdfs:label``, ``skos:prefLabel`` /
``altLabel``, ``dcterms:title``, schema and FOAF names) and from its appellations: titles,
actor and place appellations and identifiers reached by ``P1_is_identified_by`` or one of
its sub-properties (``P102_has_title``, ``P48``…; CRM 5/6 ``P131`` too), whose text is their
``P190_has_symbolic_content``, ``rdf:value`` or label. Each row also records the node's
fundamental category, from its classes or, for untyped nodes (a Getty TGN place that is only
labelled), from the range of the properties that point at it.

Written at build time as ``names.parquet`` (``node, name, kind, category``) and read by the
exact-answer layer (:mod:`llama_index_crm.exact.linking`).

>>> from llama_index_crm.rdf import Literal, Triple
>>> store = TripleStore.from_triples([
...     Triple("ex:w", "http://www.w3.org/2000/01/rdf-schema#label", Literal("Reapers")),
...     Triple("ex:w", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
...            "http://www.cidoc-crm.org/cidoc-crm/E22_Human-Made_Object"),
...     Triple("ex:a", "http://www.cidoc-crm.org/cidoc-crm/P1_is_identified_by", "ex:n"),
...     Triple("ex:n", "http://www.cidoc-crm.org/cidoc-crm/P190_has_symbolic_content",
...            Literal("West, Benjamin")),
...     Triple("ex:p", "http://www.cidoc-crm.org/cidoc-crm/P14_carried_out_by", "ex:a")])
>>> [(r.name, r.kind, r.category) for r in name_rows(store)]
[('Reapers', 'label', 'Thing'), ('West, Benjamin', 'appellation', 'Actor')]
>>> fold_name("Guérard, Henri-Charles & Co.")
'guerard henri charles and co'
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.ontology import Ontology
from llama_index_crm.rdf import RDF_TYPE, RDF_VALUE, RDFS, SKOS, Literal, decode_object, local_name
from llama_index_crm.storage.triples import TripleStore

NAMES_FILE = "names.parquet"

LABEL_PREDICATES = frozenset({
    RDFS + "label", SKOS + "prefLabel", "http://purl.org/dc/terms/title",
    "http://schema.org/name", "https://schema.org/name", "http://xmlns.com/foaf/0.1/name",
})
"""Predicates whose literal is a node's own name."""
ALT_PREDICATES = frozenset({SKOS + "altLabel"})
"""Predicates whose literal is another name of a node."""
APPELLATION_PROPERTY = "P1_is_identified_by"
"""Its sub-properties (titles, identifiers, CRM 5/6 ``P131``) lead to appellations."""
VALUE_PROPERTIES = frozenset({"P190_has_symbolic_content"})
"""CRM properties holding an appellation's text (``rdf:value`` and labels too)."""
IDENTIFIER_CLASS = "E42_Identifier"
SKIPPED_CATEGORIES = frozenset({"", "Time"})
"""Nodes named in the graph but never linked from a question: appellation and identifier
nodes themselves (no category) and time-spans ("1724")."""
MAX_NAME_CHARS = 300
"""Longer literals are texts, not names."""

GETTY_CATEGORIES = (
    ("http://vocab.getty.edu/tgn/", "Place"),
    ("http://vocab.getty.edu/ulan/", "Actor"),
    ("http://vocab.getty.edu/aat/", "Concept"),
)
"""Category of an untyped node by the Getty vocabulary its IRI belongs to."""

_SCHEMA = pa.schema([("node", pa.string()), ("name", pa.string()), ("kind", pa.string()),
                     ("category", pa.string())])
_MARKS = re.compile(r"[\u0300-\u036f]")
_APOSTROPHES = re.compile(r"['’`´]")
_NON_WORD = re.compile(r"[^\w]+|_")


class NameRow(NamedTuple):
    """One name of one node.

    Attributes:
        node: the node's IRI.
        name: the name as written in the graph.
        kind: ``label``, ``alt``, ``appellation`` or ``identifier``.
        category: the node's fundamental category (never ``Time``, never unknown).
    """

    node: str
    name: str
    kind: str
    category: str


def fold_name(text: str) -> str:
    """A name as compared with words of a question: HTML entities decoded, accents and
    case folded, ``&`` read as "and", apostrophes dropped, other punctuation a space."""
    text = unicodedata.normalize("NFKD", html.unescape(text))
    text = _MARKS.sub("", text).casefold().replace("&", " and ")
    text = _APOSTROPHES.sub("", text)
    return " ".join(_NON_WORD.sub(" ", text).split())


class _Predicates(NamedTuple):
    labels: np.ndarray
    alts: np.ndarray
    appellations: np.ndarray
    values: np.ndarray
    types: np.ndarray


def _predicates(store: TripleStore, ontology: Ontology) -> _Predicates:
    ids = np.unique(store.p_ids)
    names = store.take(ids)
    appellation = ontology.subproperties(APPELLATION_PROPERTY)
    groups: dict[str, list[int]] = {k: [] for k in _Predicates._fields}
    for term_id, iri in zip(ids.tolist(), names, strict=True):
        canonical = ontology.canonical(iri)
        if iri in LABEL_PREDICATES:
            groups["labels"].append(term_id)
        elif iri in ALT_PREDICATES:
            groups["alts"].append(term_id)
        elif iri == RDF_TYPE:
            groups["types"].append(term_id)
        elif canonical in appellation:
            groups["appellations"].append(term_id)
        if iri == RDF_VALUE or canonical in VALUE_PROPERTIES or iri in LABEL_PREDICATES:
            groups["values"].append(term_id)
    return _Predicates(*(np.asarray(groups[k], dtype=np.int64) for k in _Predicates._fields))


SUBJECT_PROPERTIES = frozenset({"P62", "P129", "P138"})
"""Properties whose untyped objects are subjects: the "Banjo" or "Necktie" a portrait depicts
(NPG's thesaurus terms have no class; P62's range, E1, has no category)."""


def node_categories(store: TripleStore, ontology: Ontology) -> np.ndarray:
    """The fundamental category of every term as an index into ``CATEGORIES``, -1 if none.

    From a node's classes (``rdf:type``, any IRI form, the highest-priority category
    wins); for an untyped node, from the Getty vocabulary of its IRI, then from the range
    classes of the properties pointing at it.
    """
    from llama_index_crm.ontology import CATEGORIES, CATEGORY_PRIORITY

    code = {c: i for i, c in enumerate(CATEGORIES)}
    rank = {c: CATEGORY_PRIORITY.index(c) for c in CATEGORIES}
    out = np.full(store.terms, -1, dtype=np.int8)
    best = np.full(store.terms, len(CATEGORIES), dtype=np.int8)
    type_id = store.id_of(RDF_TYPE)
    if type_id is not None:
        mask = store.p_ids == type_id
        subjects, classes = store.s_ids[mask], store.o_ids[mask]
        for cls in np.unique(classes).tolist():
            category = ontology.class_category(store.term(cls))
            if category is None:
                continue
            hit = subjects[classes == cls]
            better = rank[category] < best[hit]
            best[hit[better]] = rank[category]
            out[hit[better]] = code[category]
    for prefix, category in GETTY_CATEGORIES:
        out[(out < 0) & store.starts_with(prefix)] = code[category]
    untyped = (out < 0) & ~store.is_literal
    for pred in np.unique(store.p_ids).tolist():
        info = ontology.property_info(store.term(pred))
        category = ontology.class_category(info.range) if info and info.range else None
        if category is None:
            continue
        objects = store.o_ids[store.p_ids == pred]
        objects = objects[untyped[objects]]
        out[objects] = code[category]
    untyped = (out < 0) & ~store.is_literal
    for pred in np.unique(store.p_ids).tolist():  # what a work depicts or is about: a term
        if local_name(store.term(pred)).split("_")[0] in SUBJECT_PROPERTIES:
            objects = store.o_ids[store.p_ids == pred]
            out[objects[untyped[objects]]] = code["Concept"]
    return out


def name_rows(store: TripleStore, ontology: Ontology | None = None,
              nodes: Collection[str] | None = None) -> Iterator[NameRow]:
    """Every (node, name) of the graph: direct labels first, then appellations.

    ``nodes``: only the rows of these nodes (each node's rows read its own triples, its
    appellations' and, for its category, its classes and the properties pointing at it).
    """
    from llama_index_crm.ontology import CATEGORIES

    ontology = ontology or Ontology.default()
    preds = _predicates(store, ontology)
    wanted: np.ndarray | None = None
    if nodes is not None:
        ids = store.ids_of(sorted(nodes))
        wanted = np.isin(store.s_ids, ids[ids >= 0])
    categories = node_categories(store, ontology)
    literal = store.is_literal

    def category(node: int) -> str:
        c = int(categories[node])
        return CATEGORIES[c] if c >= 0 else ""

    def keep(row: NameRow) -> bool:  # appellations, identifiers and time-spans are no answer
        return row.category not in SKIPPED_CATEGORIES

    values: dict[int, list[str]] = {}
    linked = np.isin(store.p_ids, preds.appellations) & ~literal[store.o_ids]
    mask = np.isin(store.p_ids, preds.values) & literal[store.o_ids]
    if wanted is not None:  # the values of the wanted nodes' appellations only
        linked &= wanted
        mask &= np.isin(store.s_ids, np.unique(store.o_ids[linked]))
    for s, o in zip(store.s_ids[mask].tolist(), store.o_ids[mask].tolist(), strict=True):
        text = _name_text(store.term(o))
        if text:
            values.setdefault(s, []).append(text)
    identifiers = _typed(store, ontology, preds.types, IDENTIFIER_CLASS)
    rows: dict[tuple[str, str], NameRow] = {}
    for kind, group in (("label", preds.labels), ("alt", preds.alts)):
        mask = np.isin(store.p_ids, group) & literal[store.o_ids]
        if wanted is not None:
            mask &= wanted
        for s, o in zip(store.s_ids[mask].tolist(), store.o_ids[mask].tolist(), strict=True):
            text = _name_text(store.term(o))
            if text and not store.is_literal[s]:
                node = store.term(s)
                rows.setdefault((node, text), NameRow(node, text, kind, category(s)))
    for s, o in zip(store.s_ids[linked].tolist(), store.o_ids[linked].tolist(), strict=True):
        kind = "identifier" if o in identifiers else "appellation"
        node = store.term(s)
        for text in values.get(o, ()):
            rows.setdefault((node, text), NameRow(node, text, kind, category(s)))
    yield from sorted(filter(keep, rows.values()),
                      key=lambda r: (r.kind != "label", r.node, r.name))


def _typed(store: TripleStore, ontology: Ontology, type_preds: np.ndarray,
           cls: str) -> set[int]:
    """Ids of the nodes typed with ``cls`` or a subclass."""
    wanted = ontology.subclasses(cls)
    mask = np.isin(store.p_ids, type_preds)
    classes = np.unique(store.o_ids[mask]).tolist()
    hits = [c for c in classes if ontology.canonical(store.term(c)) in wanted]
    return set(store.s_ids[mask & np.isin(store.o_ids, hits)].tolist())


def _name_text(encoded: str) -> str | None:
    value = decode_object(encoded)
    text = value.value if isinstance(value, Literal) else value
    text = " ".join(text.split())
    if not text or len(text) > MAX_NAME_CHARS or text.startswith(("http://", "https://")):
        return None
    return text


def write_names(store: TripleStore, folder: Path, ontology: Ontology | None = None) -> int:
    """Write ``names.parquet`` into ``folder``; returns the number of rows."""
    rows = list(name_rows(store, ontology))
    table = pa.table({f: [getattr(r, f) for r in rows] for f in NameRow._fields}, schema=_SCHEMA)
    pq.write_table(table, folder / NAMES_FILE, compression="zstd")
    return len(rows)


def name_dependents(store: TripleStore, nodes: Collection[str],
                    ontology: Ontology | None = None) -> set[str]:
    """``nodes`` and the nodes naming themselves after one of them (by an appellation
    link in ``store``): whose name rows change when ``nodes``' triples change."""
    ontology = ontology or Ontology.default()
    appellations = _predicates(store, ontology).appellations
    out = set(nodes)
    for node in nodes:
        node_id = store.id_of(node)
        if node_id is not None:
            p_ids, s_ids = store.in_ids(node_id)
            out.update(store.take(s_ids[np.isin(p_ids, appellations)]))
    return out


def update_names(store: TripleStore, before: Path, folder: Path, nodes: Collection[str],
                 ontology: Ontology | None = None) -> int:
    """Write ``names.parquet`` into ``folder`` from the one in ``before``, with the rows of
    ``nodes`` made again over ``store`` (the graph after a change; ``nodes``: every node
    whose rows the change may touch). The rows are those :func:`write_names` writes.
    """
    old = pq.read_table(before / NAMES_FILE)
    gone = pc.is_in(old.column("node"), value_set=pa.array(sorted(nodes), pa.string()))
    rows = list(name_rows(store, ontology, nodes))
    table = pa.concat_tables([
        old.filter(pc.invert(gone)).cast(_SCHEMA),
        pa.table({f: [getattr(r, f) for r in rows] for f in NameRow._fields}, schema=_SCHEMA)])
    # name_rows' order: labels first, then by node and name (UTF-8 bytes sort as code points)
    order = pc.sort_indices(table.append_column("later", pc.not_equal(table.column("kind"),
                                                                       "label")),
                            [("later", "ascending"), ("node", "ascending"),
                             ("name", "ascending")])
    pq.write_table(table.take(order), folder / NAMES_FILE, compression="zstd")
    return table.num_rows


def read_names(folder: Path) -> list[NameRow]:
    """The rows :func:`write_names` wrote."""
    table = pq.read_table(folder / NAMES_FILE)
    columns = [table.column(f).to_pylist() for f in NameRow._fields]
    return [NameRow(*row) for row in zip(*columns, strict=True)]
