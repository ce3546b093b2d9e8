#!/usr/bin/env python3
"""Build ``config/*.json``, the CIDOC-CRM ontology layer, from the RDFS files and TR-429 data.

Reads ``<shared>/datasets/ontology/`` (CIDOC_CRM_v7.1.3.rdf, CRMsci_v2.0.rdf, vir.ttl, parsed
with pyoxigraph) and ``<shared>/reference/`` (fundamental_relationships.json,
fc_class_mapping.json, crm_aliases.json), checks every class and property name against the
ontology (exit status 1 with a list of problems if any is unknown) and writes, deterministically:

* ``fundamental_relationships.json``: the 101 TR-429 FRs / 216 paths and the walking rules;
* ``categories.json``: class local name -> fundamental category (Thing, Actor, ...);
* ``properties.json``: label, inverse, direct super-properties, domain, range per property;
* ``classes.json``: label and direct superclasses per class;
* ``aliases.json``: CRM 5.x/6.x names -> 7.1.3 names, namespace variants;
* ``relationship_weights.json``: how much a property matters when ranking triples.

The Linked Art profile adds its ``la:`` terms (``Set``, ``member_of``, ``equivalent``, ...),
read from ``<shared>/datasets/ontology/crm_vocab.tsv`` (the cromulent term table) and kept
under their local names in the vocabulary ``la``, and the FRs of
``scripts/linked_art_profile.json`` (roles through attribute assignments, sets and their
members, custodians), appended to the TR-429 ones.

CRMdig and FRBRoo have no RDFS in ``shared`` (no licence stated). Their terms come from the
reference tables, which were derived from those files: ``class_index``/``unmapped`` of
fc_class_mapping.json (classes, categories) and ``subproperties``/``constraint_subclasses`` of
fundamental_relationships.json (hierarchy, as far as it is attested there), plus the two
CRMdig properties in :data:`EXTENSION_PROPERTIES`.

Usage::

    python scripts/build_ontology.py [--shared ../shared] [--out config]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox

REPO = Path(__file__).resolve().parent.parent
LINKED_ART_PROFILE = REPO / "scripts" / "linked_art_profile.json"
LINKED_ART_VOCAB = "crm_vocab.tsv"
LA_SYMMETRIC = frozenset({"equivalent"})
"""Linked Art properties with no inverse that read the same both ways."""
DEFAULT_SHARED = REPO.parent / "shared"
DEFAULT_OUT = REPO / "config"

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
CLASS_TYPES = frozenset({RDFS + "Class", OWL + "Class"})
PROPERTY_TYPES = frozenset({RDF + "Property", OWL + "ObjectProperty", OWL + "DatatypeProperty"})
CURIE_PREFIXES = {RDFS: "rdfs:", XSD: "xsd:", RDF: "rdf:"}

ONTOLOGY_FILES: tuple[tuple[str, str, ox.RdfFormat], ...] = (
    ("crm", "CIDOC_CRM_v7.1.3.rdf", ox.RdfFormat.RDF_XML),
    ("crmsci", "CRMsci_v2.0.rdf", ox.RdfFormat.RDF_XML),
    ("vir", "vir.ttl", ox.RdfFormat.TURTLE),
)
"""(vocabulary, file, format); earlier files win when a local name is declared twice."""

OWN_NAMESPACES: Mapping[str, tuple[str, ...]] = {
    "crm": ("http://www.cidoc-crm.org/cidoc-crm/",),
    "crmsci": ("http://www.cidoc-crm.org/extensions/crmsci/", "http://www.ics.forth.gr/isl/CRMsci/"),
    "vir": ("http://w3id.org/vir#",),
    "crmdig": ("http://www.ics.forth.gr/isl/CRMdig/", "http://www.cidoc-crm.org/extensions/crmdig/"),
    "frbroo": ("http://iflastandards.info/ns/fr/frbr/frbroo/", "http://erlangen-crm.org/efrbroo/"),
}
"""A file only declares terms in its own namespaces: what an extension says about a CRM term
(CRMsci's ``E27_Site subClassOf S20``, vir.ttl re-declaring ``crm:E55_Type``) is ignored."""

VOCAB_BY_PREFIX = {"E": "crm", "P": "crm", "S": "crmsci", "O": "crmsci", "D": "crmdig",
                   "L": "crmdig", "F": "frbroo", "R": "frbroo", "IC": "vir", "K": "vir"}
CODE_RE = re.compile(r"^([A-Z]+)(\d+)([a-z]?)_")
EXCLUDED_BY_RE = re.compile(r"excluded from Thing by TR-429 \((\w+)\)")

CATEGORIES = ("Thing", "Actor", "Place", "Event", "Concept", "Time")
CATEGORY_PRIORITY = ("Actor", "Place", "Event", "Thing", "Concept", "Time")
"""Tie-break when a class is equally near to two category roots."""

EXTENSION_PROPERTIES: Mapping[str, Mapping[str, Any]] = {
    "L1_digitized": {"vocab": "crmdig", "domain": "D2_Digitization_Process",
                     "range": "E18_Physical_Thing", "inverse": "L1i_was_digitized_by"},
    "L54_is_same-as": {"vocab": "crmdig", "domain": "E1_CRM_Entity", "range": "E1_CRM_Entity",
                       "symmetric": True},
}
"""CRMdig 3.2.1 properties used in FR paths but absent from every reference table."""

LABEL_OVERRIDES: Mapping[str, str] = {
    "K10i_is_basis_for": "is basis for",
}
"""vir.ttl labels K10i_is_basis_for "is based on", which reads the triple backwards."""

WEIGHT_DEFAULT = 0.5
WEIGHT_GROUPS: Mapping[str, tuple[float, tuple[str, ...]]] = {
    "location_containment": (0.9, (
        "P7_took_place_at", "P8_took_place_on_or_within", "P26_moved_to", "P27_moved_from",
        "P53_has_former_or_current_location", "P54_has_current_permanent_location",
        "P55_has_current_location", "P59_has_section", "P74_has_current_or_former_residence",
        "P89_falls_within", "P121_overlaps_with", "P122_borders_with", "P156_occupies",
        "P157_is_at_rest_relative_to", "P161_has_spatial_projection", "P167_was_within",
        "P189_approximates", "P198_holds_or_supports")),
    "production_creation": (0.85, (
        "P13_destroyed", "P14_carried_out_by", "P15_was_influenced_by",
        "P16_used_specific_object", "P17_was_motivated_by", "P31_has_modified",
        "P33_used_specific_technique", "P92_brought_into_existence",
        "P93_took_out_of_existence", "P94_has_created", "P95_has_formed",
        "P96_by_mother", "P97_from_father", "P98_brought_into_life", "P99_dissolved",
        "P100_was_death_of", "P108_has_produced", "P110_augmented", "P111_added",
        "P112_diminished", "P113_removed", "P123_resulted_in", "P124_transformed",
        "P126_employed", "P135_created_type", "P136_was_based_on", "P151_was_formed_from",
        "P152_has_parent", "P186_produced_thing_of_product_type", "P187_has_production_plan",
        "P188_requires_production_tool")),
    "part_whole": (0.8, (
        "P5_consists_of", "P9_consists_of", "P10_falls_within", "P46_is_composed_of",
        "P56_bears_feature", "P106_is_composed_of", "P107_has_current_or_former_member",
        "P148_has_component", "P165_incorporates")),
    "ownership_custody": (0.75, (
        "P22_transferred_title_to", "P23_transferred_title_from", "P24_transferred_title_of",
        "P28_custody_surrendered_by", "P29_custody_received_by", "P30_transferred_custody_of",
        "P49_has_former_or_current_keeper", "P50_has_current_keeper",
        "P51_has_former_or_current_owner", "P52_has_current_owner",
        "P109_has_current_or_former_curator", "P147_curated")),
    "depiction": (0.7, (
        "P62_depicts", "P65_shows_visual_item", "P128_carries", "P138_represents",
        "K1_denotes", "K4_is_visual_prototype_of", "K14_symbolize", "K17_has_attribute",
        "K21_depict_things_of_type", "K22_has_personification", "K23_connote", "K24_portray",
        "K25_express", "K34_illustrate")),
    "participation": (0.65, (
        "P11_had_participant", "P12_occurred_in_the_presence_of", "P25_moved",
        "P34_concerned", "P39_measured", "P41_classified", "P143_joined",
        "P144_joined_with", "P145_separated", "P146_separated_from")),
    "type_time_span": (0.6, (
        "P2_has_type", "P4_has_time-span", "P21_had_general_purpose",
        "P32_used_general_technique", "P42_assigned", "P43_has_dimension",
        "P44_has_condition", "P45_consists_of", "P72_has_language", "P86_falls_within",
        "P91_has_unit", "P101_had_as_general_use", "P103_was_intended_for",
        "P125_used_object_of_type", "P127_has_broader_term", "P137_exemplifies",
        "P150_defines_typical_parts_of", "P160_has_temporal_projection",
        "P164_is_temporally_specified_by", "P177_assigned_property_of_type",
        "P179_had_sales_price", "P180_has_currency", "P191_had_duration")),
    "reference": (0.5, (
        "P19_was_intended_use_of", "P20_had_specific_purpose", "P67_refers_to",
        "P68_foresees_use_of", "P69_has_association_with", "P70_documents", "P71_lists",
        "P73_has_translation", "P75_possesses", "P104_is_subject_to", "P105_right_held_by",
        "P129_is_about", "P130_shows_features_of", "P134_continued",
        "P140_assigned_attribute_to", "P141_assigned", "K26_has_source")),
    "identification": (0.4, (
        "P1_is_identified_by", "P37_assigned", "P38_deassigned",
        "P48_has_preferred_identifier", "P76_has_contact_point", "P102_has_title",
        "P139_has_alternative_form", "P142_used_constituent", "P190_has_symbolic_content")),
}
"""Relationship weights by group; inverses get the same weight and a property not listed
inherits the weight of its nearest weighted super-property."""

STEP_KINDS = ("property", "any_of", "all_of", "sequence")
STEP_FLAGS = ("repeat", "optional", "symmetric")
STEP_CLASSES = ("from_class", "via_class")
STEP_DROPPED = ("note",)

ABOUT_CRM = ("Contains information derived from the CIDOC CRM 7.1.3 RDFS (ICOM/CIDOC CRM SIG, "
             "FORTH-ICS, CC BY 4.0), CRMsci 2.0 RDFS (FORTH-ICS, CC BY 4.0) and VIR 1.3 "
             "(N. Carboni, CC BY 4.0). Generated by scripts/build_ontology.py; do not edit.")
ABOUT_TR429 = ("Fundamental Categories and Relationships of Tzompanaki & Doerr (2012), "
               "ICS-FORTH/TR-429, as CIDOC-CRM 7.1.3 paths (../shared/reference). ")


class BuildError(Exception):
    """The inputs are inconsistent; the message lists every problem found."""


@dataclass
class Term:
    """A class or property being assembled from the ontology files and reference tables."""

    vocab: str
    source: str
    labels: dict[str, str] = field(default_factory=dict)
    supers: set[str] = field(default_factory=set)
    domain: str | None = None
    range: str | None = None
    inverse: str | None = None
    symmetric: bool = False

    def label(self, name: str) -> str:
        """English label, else an untagged one, else the humanised local name."""
        if name in LABEL_OVERRIDES:
            return LABEL_OVERRIDES[name]
        return self.labels.get("en") or self.labels.get("") or humanize(name)


@dataclass
class Vocabulary:
    """Every class and property, keyed by local name."""

    classes: dict[str, Term] = field(default_factory=dict)
    properties: dict[str, Term] = field(default_factory=dict)

    def knows(self, name: str) -> bool:
        """True when ``name`` is a class or a property."""
        return name in self.classes or name in self.properties


# --------------------------------------------------------------------------- helpers
def humanize(name: str) -> str:
    """``P108i_was_produced_by`` -> ``was produced by``; ``E53_Place`` -> ``Place``."""
    return CODE_RE.sub("", name).replace("_", " ").strip() or name


def local_name(iri: str) -> str:
    """The part of ``iri`` after its last ``#`` or ``/``."""
    stripped = iri.rstrip("/#")
    return stripped[max(stripped.rfind("#"), stripped.rfind("/")) + 1 :]


def term_order(name: str) -> tuple[str, int, str]:
    """Natural sort key: E2 before E10, P1 before P1i before P2."""
    match = re.match(r"^([A-Za-z]+)(\d+)(.*)$", name)
    return (match.group(1), int(match.group(2)), match.group(3)) if match else (name, -1, "")


def vocab_of(name: str) -> str:
    """Vocabulary of a term by its code letters (``L11i_...`` -> ``crmdig``)."""
    match = CODE_RE.match(name)
    return VOCAB_BY_PREFIX.get(match.group(1), "unknown") if match else "unknown"


def closure(graph: Mapping[str, Iterable[str]], start: str) -> set[str]:
    """Reflexive-transitive closure of ``start`` along ``graph`` edges."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def distance(graph: Mapping[str, Iterable[str]], start: str, goal: str) -> int | None:
    """Fewest edges from ``start`` to ``goal`` (breadth first), or None."""
    frontier, seen, hops = [start], {start}, 0
    while frontier:
        if goal in frontier:
            return hops
        nxt = [s for n in frontier for s in graph.get(n, ()) if s not in seen]
        seen.update(nxt)
        frontier, hops = nxt, hops + 1
    return None


def minimal(names: set[str], supers: Mapping[str, Iterable[str]]) -> set[str]:
    """Drop every name that is a proper ancestor of another name in the set."""
    return {n for n in names if not any(n != m and n in closure(supers, m) for m in names)}


def load_json(path: Path) -> Any:
    """Parse one JSON file."""
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def dump_json(obj: Any) -> str:
    """The one serialisation used for every output file."""
    return json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


# --------------------------------------------------------------------------- ontology files
def read_quads(path: Path, fmt: ox.RdfFormat) -> Iterator[ox.Quad]:
    """Parse one RDF file (a UTF-8 byte-order mark is tolerated)."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    yield from ox.parse(data, format=fmt)


def read_ontology(onto_dir: Path, alias_targets: Mapping[str, str]) -> Vocabulary:
    """Classes and properties declared by the CRM, CRMsci and VIR files."""
    vocab = Vocabulary()
    raw: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for prefix, filename, fmt in ONTOLOGY_FILES:
        path = onto_dir / filename
        if not path.exists():
            raise BuildError(f"ontology file not found: {path} (use --shared)")
        own = OWN_NAMESPACES[prefix]
        declared: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for quad in read_quads(path, fmt):
            subject = quad.subject
            if not isinstance(subject, ox.NamedNode) or not subject.value.startswith(own):
                continue
            declared[local_name(subject.value)][quad.predicate.value].append(quad.object)
        for name, stmts in declared.items():
            types = {o.value for o in stmts.get(RDF + "type", ())}
            table = (vocab.classes if types & CLASS_TYPES
                     else vocab.properties if types & PROPERTY_TYPES else None)
            if table is None or name in table:
                continue
            term = table[name] = Term(prefix, filename)
            for lit in stmts.get(RDFS + "label", ()):
                if isinstance(lit, ox.Literal):
                    term.labels.setdefault(lit.language or "", lit.value)
            for key in ("subClassOf", "subPropertyOf", "domain", "range"):
                raw[name][key] += [o.value for o in stmts.get(RDFS + key, ())
                                   if isinstance(o, ox.NamedNode)]
            raw[name]["inverseOf"] += [o.value for o in stmts.get(OWL + "inverseOf", ())]

    def ref(iri: str) -> str:
        if iri.startswith(tuple(CURIE_PREFIXES)):
            ns = next(n for n in CURIE_PREFIXES if iri.startswith(n))
            return CURIE_PREFIXES[ns] + iri[len(ns):]
        name = local_name(iri)
        return name if vocab.knows(name) else alias_targets.get(name, name)

    for name, term in vocab.classes.items():
        term.supers = {ref(i) for i in raw[name]["subClassOf"]}
    for name, term in vocab.properties.items():
        term.supers = {ref(i) for i in raw[name]["subPropertyOf"]}
        term.domain = next((ref(i) for i in sorted(raw[name]["domain"])), None)
        term.range = next((ref(i) for i in sorted(raw[name]["range"])), None)
        term.inverse = next((ref(i) for i in sorted(raw[name]["inverseOf"])), None)
    return vocab


# --------------------------------------------------------------------------- reference terms
def add_reference_terms(vocab: Vocabulary, fc_map: Mapping[str, Any],
                        fr_ref: Mapping[str, Any]) -> None:
    """Add CRMdig/FRBRoo terms attested only by the reference tables (no RDFS available)."""
    class_supers: dict[str, set[str]] = defaultdict(set)
    class_vocab: dict[str, str] = {}
    for sup, subs in fr_ref["constraint_subclasses"].items():
        for sub in subs:
            class_supers[sub].add(sup)
    for name, info in fc_map["class_index"].items():
        class_supers[name].add(info["root"])
        class_vocab[name] = info["vocab"]
    for name, info in fc_map["unmapped"].items():
        class_vocab[name] = info["vocab"]
        match = EXCLUDED_BY_RE.search(info.get("reason", ""))
        if match:
            class_supers[name].add(match.group(1))
    for name in set(class_supers) | set(class_vocab):
        if name not in vocab.classes:
            vocab.classes[name] = Term(class_vocab.get(name) or vocab_of(name), "reference",
                                       supers=class_supers[name])

    prop_supers: dict[str, set[str]] = defaultdict(set)
    for sup, subs in fr_ref["subproperties"].items():
        prop_supers.setdefault(sup, set())
        for sub in subs:
            prop_supers[sub].add(sup)
    for name, supers in prop_supers.items():
        if name not in vocab.properties:
            vocab.properties[name] = Term(vocab_of(name), "reference", supers=set(supers))
    for name, info in EXTENSION_PROPERTIES.items():
        vocab.properties.setdefault(name, Term(
            info["vocab"], "build_ontology.py", domain=info["domain"], range=info["range"],
            inverse=info.get("inverse"), symmetric=bool(info.get("symmetric"))))


def add_linked_art_terms(vocab: Vocabulary, tsv: Path, problems: list[str]) -> None:
    """The ``la:`` classes and properties of the cromulent term table, by local name."""
    if not tsv.exists():
        raise BuildError(f"Linked Art term table not found: {tsv} (use --shared)")

    def ref(term: str) -> str:
        return term.partition(":")[2] if term.startswith(("la:", "dig:")) else term

    rows = [line.split("\t") for line in tsv.read_text(encoding="utf-8").splitlines()[1:]]
    for row in rows:
        if not row[0].startswith("la:") or len(row) < 4:
            continue
        name = ref(row[0])
        if vocab.knows(name):
            problems.append(f"la:{name} has the local name of another term")
            continue
        cells = [*row, *[""] * 10]
        term = Term("la", LINKED_ART_VOCAB, labels={"en": cells[3]})
        if cells[1] == "class":
            term.supers = {ref(s) for s in cells[5].split("|") if s}
            vocab.classes[name] = term
        elif cells[1] == "property":
            term.supers = {ref(s) for s in cells[5].split("|") if s}
            term.domain, term.range = ref(cells[6]) or None, ref(cells[7]) or None
            term.inverse = ref(cells[8]) or None
            term.symmetric = name in LA_SYMMETRIC
            vocab.properties[name] = term
    for table in (vocab.classes, vocab.properties):
        for name, term in table.items():
            if term.vocab == "la":
                for other in sorted(term.supers):
                    if other not in table:
                        problems.append(f"la:{name}: unknown super {other}")


def add_profile_frs(frs: dict[str, Any], profile: Mapping[str, Any], vocab: Vocabulary,
                    problems: list[str]) -> None:
    """Append the Linked Art profile's FRs to ``frs`` (names checked, counts updated)."""
    known = {fr["id"] for fr in frs["relationships"]}
    added = build_frs({"relationships": profile["relationships"],
                       "fundamental_categories": {}, "rules": {}, "step_schema": {},
                       "source": "", "crm_version": "", "description": ""}, vocab, problems,
                      parents=known)
    for fr in added["relationships"]:
        if fr["id"] in known:
            problems.append(f"{fr['id']}: the Linked Art profile repeats a TR-429 id")
        fr["profile"] = "linked-art"
    frs["relationships"] += added["relationships"]
    rels = frs["relationships"]
    frs["counts"] = {"relationships": len(rels), "paths": sum(len(r["paths"]) for r in rels),
                     "specializations": sum(1 for r in rels if r["specialization_of"]),
                     "general": sum(1 for r in rels if not r["specialization_of"]),
                     "linked_art_profile": len(added["relationships"])}
    frs["about"] += " " + profile["about"]


def add_mentioned_terms(vocab: Vocabulary, problems: list[str]) -> None:
    """Stub extension terms that a declared term names as its super (vir.ttl -> FRBRoo R57)."""
    for table in (vocab.classes, vocab.properties):
        for name, term in list(table.items()):
            for sup in sorted(term.supers):
                if sup in table:
                    continue
                if vocab_of(sup) in ("frbroo", "crmdig") and table is vocab.properties:
                    table[sup] = Term(vocab_of(sup), f"{term.source} (mentioned)")
                else:
                    problems.append(f"{name}: unknown super {sup}")


def complete_properties(vocab: Vocabulary) -> None:
    """Inverses (owl:inverseOf, else P108 <-> P108i), symmetry, domains and supers by inverse."""
    props = vocab.properties
    for name, term in props.items():
        if term.inverse and term.inverse in props and not props[term.inverse].inverse:
            props[term.inverse].inverse = name
    by_code: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in props:
        match = CODE_RE.match(name)
        if match:
            by_code[(match.group(1) + match.group(2), match.group(3))].append(name)
    for name, term in props.items():
        match = CODE_RE.match(name)
        if term.inverse or term.symmetric or not match:
            continue
        code, suffix = match.group(1) + match.group(2), match.group(3)
        partners = (by_code.get((code, "" if suffix == "i" else "i"), [])
                    if suffix in ("", "i") else [])
        if len(partners) == 1:
            term.inverse = partners[0]
        elif (suffix == "" and not by_code.get((code, "i")) and term.range
              and not term.range.startswith(("rdfs:", "xsd:")) and term.source != "reference"):
            term.symmetric = True  # P121, P122, P132, P133: one name, no inverse
    for name, term in props.items():
        if term.symmetric:
            term.inverse = name
    for term in props.values():
        inv = props.get(term.inverse or "")
        if inv is None or inv is term:
            continue
        term.domain = term.domain or inv.range
        term.range = term.range or inv.domain
        if term.source != "reference" and not term.source.endswith("build_ontology.py"):
            continue
        term.supers |= {props[s].inverse or "" for s in inv.supers if s in props} - {""}


def reduce_reference_supers(vocab: Vocabulary) -> None:
    """Attested ancestors of reference-only terms -> their direct supers."""
    for table in (vocab.classes, vocab.properties):
        graph = {n: t.supers for n, t in table.items()}
        for term in table.values():
            if term.source not in ("CIDOC_CRM_v7.1.3.rdf", "CRMsci_v2.0.rdf", "vir.ttl"):
                term.supers = minimal(term.supers, graph)


# --------------------------------------------------------------------------- categories
def assign_categories(vocab: Vocabulary, fc_defs: Mapping[str, Any],
                      fc_map: Mapping[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Category per class from the hierarchy: nearest root after exclusions wins.

    Returns the mapping and notes on where it departs from the reference mapping.
    """
    graph = {n: t.supers for n, t in vocab.classes.items()}
    reference = fc_map["class_index"]
    derived: dict[str, str] = {}
    for name in vocab.classes:
        ancestors = closure(graph, name)
        candidates: list[tuple[int, int, str]] = []
        for fc, spec in fc_defs.items():
            if ancestors & set(spec.get("exclude", ())):
                continue
            for root in spec["crm_classes"]:
                hops = distance(graph, name, root) if root in ancestors else None
                if hops is not None:
                    candidates.append((hops, CATEGORY_PRIORITY.index(fc), fc))
        if candidates:
            derived[name] = min(candidates)[2]
    notes: list[str] = []
    categories: dict[str, str] = {}
    for name, term in vocab.classes.items():
        ref = reference.get(name, {}).get("fc")
        if term.source == "reference":
            if ref:
                categories[name] = ref
            if derived.get(name) != ref:
                notes.append(f"{name}: reference says {ref}, attested hierarchy gives "
                             f"{derived.get(name)} (reference kept: no RDFS here)")
            continue
        if name in derived:
            categories[name] = derived[name]
        if (ref or name in fc_map["unmapped"]) and derived.get(name) != ref:
            notes.append(f"{name}: derived {derived.get(name)}, reference {ref}")
    for name in sorted(set(reference) - set(vocab.classes), key=term_order):
        notes.append(f"{name}: in the reference mapping only")
    return categories, notes


# --------------------------------------------------------------------------- FRs
def convert_step(step: Mapping[str, Any], where: str, vocab: Vocabulary,
                 problems: list[str]) -> dict[str, Any]:
    """Copy one step in the reference schema, checking every name it holds."""
    kinds = [k for k in STEP_KINDS if k in step]
    if len(kinds) != 1:
        problems.append(f"{where}: a step needs exactly one of {STEP_KINDS}, got {kinds}")
    allowed = set(STEP_KINDS) | set(STEP_FLAGS) | set(STEP_CLASSES) | {"as_in_report"}
    for key in sorted(set(step) - allowed - set(STEP_DROPPED)):
        problems.append(f"{where}: unknown step field {key!r}")
    out: dict[str, Any] = {}
    if "property" in step:
        check_property(step["property"], where, vocab, problems)
        out["property"] = step["property"]
        known = vocab.properties.get(step["property"])
        if step.get("symmetric") and known is not None and not known.symmetric:
            problems.append(f"{where}: {step['property']} marked symmetric, RDFS disagrees")
    if "all_of" in step:
        for name in step["all_of"]:
            check_property(name, where, vocab, problems)
        out["all_of"] = list(step["all_of"])
    for key in ("any_of", "sequence"):
        if key in step:
            out[key] = [convert_step(s, f"{where}.{key}[{i}]", vocab, problems)
                        for i, s in enumerate(step[key])]
    for key in STEP_CLASSES:
        if key in step:
            if step[key] not in vocab.classes:
                problems.append(f"{where}: {key} {step[key]} is not a known class")
            out[key] = step[key]
    for key in STEP_FLAGS:
        if step.get(key):
            out[key] = True
    if "as_in_report" in step:
        out["as_in_report"] = step["as_in_report"]
    return out


def check_property(name: str, where: str, vocab: Vocabulary, problems: list[str]) -> None:
    """Record a problem unless ``name`` is a known (7.1.3 or extension) property."""
    if name not in vocab.properties:
        problems.append(f"{where}: property {name} is not in CRM 7.1.3 or its extensions")


def split_round_trips(steps: list[dict[str, Any]], vocab: Vocabulary) -> tuple[list[Any], str]:
    """Read "up a [0,n] chain, then down its inverse [0,n]" as up *or* down.

    TR-429's event-actor-by follows ``P14`` to an actor, then
    ``(P107B.is_current_or_former_member_of)[0,n]`` and
    ``(P107F.has_current_or_former_member)[0,n]``. Composed, the two reach every member of
    every group the actor belongs to: on the Wildlife Art graph each production by an
    American artist was "by" all 343 members of the group *American*. As alternatives they
    keep what the report means (the actor, the groups it belongs to, the members of a
    group that carried the event out).

    Returns:
        The steps (the pair replaced by one ``any_of`` step) and a note, empty when nothing
        changed.
    """
    out: list[Any] = []
    notes: list[str] = []
    i = 0
    while i < len(steps):
        a, b = steps[i], steps[i + 1] if i + 1 < len(steps) else None
        known = vocab.properties.get(a.get("property", ""))
        if (b is not None and known is not None and known.inverse == b.get("property")
                and all(x.get("repeat") and x.get("optional") for x in (a, b))):
            out.append({"any_of": [a, b]})
            notes.append(f"{a['property']}[0,n] then {b['property']}[0,n] read as "
                         "alternatives (composed, they reach every member of every group)")
            i += 2
            continue
        out.append(a)
        i += 1
    return out, "; ".join(notes)


def build_frs(fr_ref: Mapping[str, Any], vocab: Vocabulary, problems: list[str],
              parents: Iterable[str] = ()) -> dict[str, Any]:
    """fundamental_relationships.json: the FRs in the reference step schema, names checked.

    ``parents``: ids of other relationships that a specialisation may name.
    """
    ids = {fr["id"] for fr in fr_ref["relationships"]} | set(parents)
    relationships: list[dict[str, Any]] = []
    n_paths = 0
    for fr in fr_ref["relationships"]:
        for key in ("domain", "range"):
            if fr[key] not in CATEGORIES:
                problems.append(f"{fr['id']}: unknown {key} category {fr[key]}")
        parent = fr.get("specialization_of")
        if parent and parent not in ids:
            problems.append(f"{fr['id']}: unknown parent relationship {parent}")
        paths = []
        for path in fr["paths"]:
            n_paths += 1
            if not path["id"].startswith(fr["id"] + "/"):
                problems.append(f"{path['id']}: path id does not start with {fr['id']}/")
            steps, adjusted = split_round_trips(
                [convert_step(s, f"{path['id']}#{i + 1}", vocab, problems)
                 for i, s in enumerate(path["steps"])], vocab)
            record_path = {"id": path["id"], "steps": steps,
                           "type_suffix": bool(path.get("type_suffix")),
                           "ends_at_type": bool(path.get("ends_at_type")),
                           "report_path": path.get("report_path", "")}
            if adjusted:
                record_path["adjusted"] = adjusted
            paths.append(record_path)
        if not paths:
            problems.append(f"{fr['id']}: no paths")
        record: dict[str, Any] = {"id": fr["id"], "label": fr["label"], "domain": fr["domain"],
                                  "range": fr["range"], "specialization_of": parent,
                                  "paths": paths}
        if fr.get("alt_labels"):
            record["alt_labels"] = list(fr["alt_labels"])
        if fr.get("note"):
            record["note"] = fr["note"]
        relationships.append(record)
    fcs = {}
    for fc, spec in fr_ref["fundamental_categories"].items():
        for name in spec["crm_classes"] + spec.get("exclude", []):
            if name not in vocab.classes:
                problems.append(f"fundamental_categories.{fc}: unknown class {name}")
        fcs[fc] = {k: spec[k] for k in ("crm_classes", "exclude", "note") if k in spec}
    rules: dict[str, Any] = {}
    for rule, spec in fr_ref["rules"].items():
        rules[rule] = dict(spec)
        if "steps" in spec:
            rules[rule]["steps"] = [convert_step(s, f"rules.{rule}#{i + 1}", vocab, problems)
                                    for i, s in enumerate(spec["steps"])]
    counts = {"relationships": len(relationships), "paths": n_paths,
              "specializations": sum(1 for r in relationships if r["specialization_of"]),
              "general": sum(1 for r in relationships if not r["specialization_of"])}
    for key, value in fr_ref.get("counts", {}).items():
        if counts.get(key) != value:
            problems.append(f"counts.{key}: reference says {value}, found {counts.get(key)}")
    schema = {k: v for k, v in fr_ref["step_schema"].items() if k not in STEP_DROPPED}
    return {"about": ABOUT_TR429 + ABOUT_CRM, "source": fr_ref["source"],
            "crm_version": fr_ref["crm_version"], "description": fr_ref["description"],
            "step_schema": schema, "fundamental_categories": fcs,
            "class_notes": fr_ref.get("class_notes", {}), "rules": rules, "counts": counts,
            "relationships": relationships}


def compare_closures(vocab: Vocabulary, fr_ref: Mapping[str, Any]) -> list[str]:
    """Where the reference's subproperty / constraint-subclass tables differ from ours."""
    notes = []
    down_p: dict[str, set[str]] = defaultdict(set)
    for name, term in vocab.properties.items():
        for sup in term.supers:
            down_p[sup].add(name)
    for prop, subs in fr_ref["subproperties"].items():
        ours = closure(down_p, prop) - {prop}
        if ours != set(subs):
            notes.append(f"subproperties[{prop}]: +{sorted(ours - set(subs))} "
                         f"-{sorted(set(subs) - ours)}")
    down_c: dict[str, set[str]] = defaultdict(set)
    for name, term in vocab.classes.items():
        for sup in term.supers:
            down_c[sup].add(name)
    for cls, subs in fr_ref["constraint_subclasses"].items():
        ours = closure(down_c, cls) - {cls}
        if ours != set(subs):
            notes.append(f"constraint_subclasses[{cls}]: +{sorted(ours - set(subs))} "
                         f"-{sorted(set(subs) - ours)}")
    return notes


# --------------------------------------------------------------------------- other outputs
def build_aliases(aliases: Mapping[str, Any], vocab: Vocabulary,
                  problems: list[str]) -> dict[str, Any]:
    """aliases.json: old names -> 7.1.3 names (checked), namespaces with their variants."""
    out: dict[str, Any] = {"about": "CIDOC-CRM 5.x/6.x and other old names -> 7.1.3 names "
                                    "(../shared/reference/crm_aliases.json). " + ABOUT_CRM}
    for section, table in (("classes", vocab.classes), ("properties", vocab.properties)):
        entries = {}
        for old, spec in aliases[section].items():
            if vocab.knows(old):
                problems.append(f"alias {old} is itself a current term")
            targets = ([spec["target"]] if spec.get("target") else []) + list(
                spec.get("target_all_of", []))
            if not targets:
                problems.append(f"alias {old} has no target")
            for target in targets:
                if target != "rdfs:Literal" and target not in table:
                    problems.append(f"alias {old} -> {target}: unknown {section[:-1]}")
            entries[old] = {k: spec[k] for k in ("target", "target_all_of", "kind", "exact", "note")
                            if k in spec}
        out[section] = entries
    out["namespaces"] = {
        prefix: {"canonical": spec["canonical"],
                 "variants": sorted(v["iri"] for v in spec.get("variants", []))}
        for prefix, spec in aliases["namespaces"].items()}
    out["absent_without_equivalent"] = dict(aliases.get("absent_without_equivalent", {}))
    return out


def build_weights(vocab: Vocabulary, problems: list[str]) -> dict[str, Any]:
    """relationship_weights.json: groups (both directions) and a flat per-property table."""
    props = vocab.properties
    explicit: dict[str, float] = {}
    groups: dict[str, Any] = {}
    for group, (weight, names) in WEIGHT_GROUPS.items():
        members: set[str] = set()
        for name in names:
            if name not in props:
                problems.append(f"weights.{group}: unknown property {name}")
                continue
            members |= {name, props[name].inverse or name}
        for name in members:
            if name in explicit and explicit[name] != weight:
                problems.append(f"weights: {name} is in two groups")
            explicit[name] = weight
        groups[group] = {"weight": weight, "properties": sorted(members, key=term_order)}
    flat: dict[str, float] = {}
    for name in props:
        level, seen = {name}, {name}
        while level:
            hits = [explicit[n] for n in level if n in explicit]
            if hits:
                flat[name] = max(hits)
                break
            level = {s for n in level for s in props[n].supers if s in props} - seen
            seen |= level
    return {"about": "Weight of a property when ranking triples; inverses share the weight; "
                     "an unlisted property inherits the weight of its nearest weighted "
                     "super-property (already applied in 'properties').",
            "default": WEIGHT_DEFAULT, "groups": groups, "properties": flat}


def build_tables(vocab: Vocabulary) -> tuple[dict[str, Any], dict[str, Any]]:
    """classes.json and properties.json."""
    classes = {name: {"label": t.label(name), "vocab": t.vocab, "source": t.source,
                      "superclasses": sorted(t.supers, key=term_order)}
               for name, t in vocab.classes.items()}
    props = {name: {"label": t.label(name), "vocab": t.vocab, "source": t.source,
                    "inverse": t.inverse, "symmetric": t.symmetric, "domain": t.domain,
                    "range": t.range, "superproperties": sorted(t.supers, key=term_order)}
             for name, t in vocab.properties.items()}
    about = ABOUT_CRM + (" Terms with source 'reference' (CRMdig, FRBRoo) have no RDFS here: "
                         "their supers are those attested in ../shared/reference.")
    return {"about": about, "classes": classes}, {"about": about, "properties": props}


# --------------------------------------------------------------------------- main
def build(shared: Path) -> tuple[dict[str, Any], list[str]]:
    """Every output file (name -> JSON object) and the informational notes."""
    ref_dir = shared / "reference"
    fr_ref = load_json(ref_dir / "fundamental_relationships.json")
    fc_map = load_json(ref_dir / "fc_class_mapping.json")
    aliases = load_json(ref_dir / "crm_aliases.json")
    alias_targets = {old: spec["target"] for section in ("classes", "properties")
                     for old, spec in aliases[section].items()
                     if spec.get("target") and spec["target"] != "rdfs:Literal"}
    problems: list[str] = []
    vocab = read_ontology(shared / "datasets" / "ontology", alias_targets)
    add_reference_terms(vocab, fc_map, fr_ref)
    add_linked_art_terms(vocab, shared / "datasets" / "ontology" / LINKED_ART_VOCAB, problems)
    add_mentioned_terms(vocab, problems)
    complete_properties(vocab)
    reduce_reference_supers(vocab)
    for name, term in vocab.properties.items():
        for ref in (term.domain, term.range, term.inverse):
            if ref and not ref.startswith(("rdfs:", "xsd:")) and not vocab.knows(ref):
                problems.append(f"{name}: unknown domain/range/inverse {ref}")
    fc_defs = fc_map["fundamental_categories"]
    for fc, spec in fc_defs.items():
        other = fr_ref["fundamental_categories"].get(fc, {})
        if (spec["crm_classes"], spec.get("exclude", [])) != (
                other.get("crm_classes"), other.get("exclude", [])):
            problems.append(f"category {fc}: roots differ between the reference files")
    categories, notes = assign_categories(vocab, fc_defs, fc_map)
    frs = build_frs(fr_ref, vocab, problems)
    add_profile_frs(frs, load_json(LINKED_ART_PROFILE), vocab, problems)
    notes += compare_closures(vocab, fr_ref)
    outputs = {"fundamental_relationships.json": frs}
    outputs["categories.json"] = {
        "about": ABOUT_TR429 + ABOUT_CRM, "categories": list(CATEGORIES),
        "priority": list(CATEGORY_PRIORITY),
        "roots": {fc: {"crm_classes": s["crm_classes"], "exclude": s.get("exclude", [])}
                  for fc, s in fc_defs.items()},
        "classes": categories}
    outputs["classes.json"], outputs["properties.json"] = build_tables(vocab)
    outputs["aliases.json"] = build_aliases(aliases, vocab, problems)
    outputs["relationship_weights.json"] = build_weights(vocab, problems)
    if problems:
        raise BuildError("\n  ".join([f"{len(problems)} problem(s):", *problems]))
    return outputs, notes


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED,
                        help="folder holding datasets/ontology and reference (default ../shared)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (config/)")
    parser.add_argument("--quiet", action="store_true", help="do not print the notes")
    args = parser.parse_args(argv)
    try:
        outputs, notes = build(args.shared)
    except BuildError as exc:
        print(f"build_ontology: {exc}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for filename, obj in sorted(outputs.items()):
        (args.out / filename).write_text(dump_json(obj), encoding="utf-8", newline="\n")
    if not args.quiet:
        frs = outputs["fundamental_relationships.json"]["counts"]
        print(f"wrote {len(outputs)} files to {args.out}: "
              f"{len(outputs['classes.json']['classes'])} classes, "
              f"{len(outputs['properties.json']['properties'])} properties, "
              f"{len(outputs['categories.json']['classes'])} categorised classes, "
              f"{frs['relationships']} FRs / {frs['paths']} paths")
        for note in notes:
            print(f"  note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
