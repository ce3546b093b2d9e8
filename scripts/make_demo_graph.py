"""Build the bundled demo graph ``examples/data/troodos.ttl`` from its fact table.

The fact table ``examples/data/troodos_facts.toml`` describes the Painted Churches in the
Troodos Region of Cyprus; this script models it in CIDOC-CRM 7.1.3 with the VIR extension
for iconography and writes deterministic, readable Turtle (same input, same bytes).

Usage::

    python scripts/make_demo_graph.py            # (re)write examples/data/troodos.ttl
    python scripts/make_demo_graph.py --check    # exit 1 if the file is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FACTS_PATH = ROOT / "examples" / "data" / "troodos_facts.toml"
OUTPUT_PATH = ROOT / "examples" / "data" / "troodos.ttl"

CRM = "http://www.cidoc-crm.org/cidoc-crm/"
VIR = "http://w3id.org/vir#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
BASE = "https://example.org/troodos/"

RDF_TYPE = RDF + "type"
RDFS_LABEL = RDFS + "label"

# Instance IRIs are BASE + kind + "/" + id; the kinds also fix the order of the sections
# in the Turtle file.
KINDS = (
    "dataset",
    "right",
    "place",
    "church",
    "identifier",
    "feature",
    "production",
    "attribution",
    "period",
    "timespan",
    "person",
    "group",
    "atom",
    "representation",
    "character",
    "attribute",
    "dimension",
    "unit",
    "appellation",
    "type",
)
SECTION_TITLES = {
    "dataset": "Dataset and rights",
    "place": "Places (E53)",
    "church": "Churches and other buildings (E22)",
    "identifier": "Catalogue numbers (E42)",
    "feature": "Parts of churches (E25)",
    "production": "Construction and painting campaigns (E12)",
    "attribution": "Attributions and designations (E13)",
    "period": "Historical periods (E4)",
    "timespan": "Time-spans (E52)",
    "person": "Actors (E21, E74)",
    "atom": "Iconography (VIR)",
    "dimension": "Dimensions (E54, E58)",
    "appellation": "Appellations (E41)",
    "type": "Types (E55)",
}
PREFIXES: tuple[tuple[str, str], ...] = (
    ("crm", CRM),
    ("vir", VIR),
    ("rdfs", RDFS),
    ("xsd", XSD),
    ("tr", BASE),
    *((kind, f"{BASE}{kind}/") for kind in KINDS),
)
_PN_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$")
_CRM_KEY = re.compile(r"^[EP](\d+)([a-z]?)(i?)_")
_TAKES_ARTICLE = frozenset({"Church", "Monastery", "Holy", "Latin", "Enkleistra"})
_DATE = re.compile(r"^-?\d{4}-\d{2}-\d{2}$")
_INTEGER = re.compile(r"^[+-]?\d+$")


@dataclass(frozen=True, order=True)
class IRI:
    value: str


@dataclass(frozen=True, order=True)
class Literal:
    value: str
    lang: str = ""
    datatype: str = ""


Term = IRI | Literal
Triple = tuple[IRI, IRI, Term]


def crm(name: str) -> IRI:
    return IRI(CRM + name)


def vir(name: str) -> IRI:
    return IRI(VIR + name)


def node(kind: str, ident: str) -> IRI:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return IRI(f"{BASE}{kind}/{ident}")


class FactError(ValueError):
    """The fact table is inconsistent (a dangling reference, a missing field)."""


class GraphBuilder:
    """Collects triples from the fact table, checking every reference it follows."""

    def __init__(self, facts: Mapping[str, Any]) -> None:
        self.facts = facts
        self.triples: set[Triple] = set()

    # -- primitives ------------------------------------------------------------------

    def add(self, s: IRI, p: IRI, o: Term) -> None:
        self.triples.add((s, p, o))

    def typed(self, s: IRI, *classes: IRI) -> None:
        for cls in classes:
            self.add(s, IRI(RDF_TYPE), cls)

    def label(self, s: IRI, text: str, lang: str = "en") -> None:
        self.add(s, IRI(RDFS_LABEL), Literal(text, lang=lang))

    def note(self, s: IRI, text: str) -> None:
        self.add(s, crm("P3_has_note"), Literal(text, lang="en"))

    def table(self, name: str) -> Mapping[str, Any]:
        value = self.facts.get(name, {})
        if not isinstance(value, Mapping):
            raise FactError(f"[{name}] must be a table")
        return value

    def ref(self, table: str, ident: str) -> str:
        if ident not in self.table(table):
            raise FactError(f"unknown {table} entry {ident!r}")
        return ident

    def type_node(self, ident: str) -> IRI:
        return node("type", self.ref("types", ident))

    def has_type(self, s: IRI, idents: Iterable[str]) -> None:
        for ident in idents:
            self.add(s, crm("P2_has_type"), self.type_node(ident))

    def actor(self, ident: str) -> IRI:
        entry = self.table("actors").get(ident)
        if entry is None:
            raise FactError(f"unknown actor {ident!r}")
        is_person = entry.get("class", "E21_Person") == "E21_Person"
        return node("person" if is_person else "group", ident)

    def reference(self, text: str) -> IRI:
        """A ``kind:id`` reference from the fact table, checked against its table."""
        kind, _, ident = text.partition(":")
        tables = {
            "church": "churches",
            "production": "campaigns",
            "person": "actors",
            "group": "actors",
            "type": "types",
            "representation": "representations",
            "place": "places",
        }
        if kind not in tables or not ident:
            raise FactError(f"bad reference {text!r}")
        self.ref(tables[kind], ident)
        return node(kind, ident)

    def appellations(self, owner: IRI, key: str, entry: Mapping[str, Any]) -> None:
        """P1_is_identified_by E41 nodes: the preferred name (all its languages) and
        each alternative name."""
        name = entry.get("name")
        if name:
            appellation = node("appellation", key)
            self.appellation(owner, appellation, name, "preferred-name")
            if "en" in name:
                self.label(owner, name["en"])
        for index, alt in enumerate(entry.get("alt_names", []), start=1):
            alt = dict(alt)
            kind = alt.pop("type", "alternative-name")
            self.appellation(owner, node("appellation", f"{key}-alt-{index}"), alt, kind)

    def appellation(
        self, owner: IRI, appellation: IRI, texts: Mapping[str, str], kind: str
    ) -> None:
        self.typed(appellation, crm("E41_Appellation"))
        self.add(owner, crm("P1_is_identified_by"), appellation)
        self.has_type(appellation, [kind])
        for lang, text in texts.items():
            self.add(appellation, crm("P190_has_symbolic_content"), Literal(text, lang=lang))

    def time_span(self, owner: IRI, ident: str, when: Mapping[str, Any]) -> None:
        span = node("timespan", ident)
        self.typed(span, crm("E52_Time-Span"))
        self.add(owner, crm("P4_has_time-span"), span)
        self.label(span, str(when["label"]))
        for field, prop in (("begin", "P82a_begin_of_the_begin"), ("end", "P82b_end_of_the_end")):
            if field in when:
                self.add(span, crm(prop), date_literal(when[field]))

    # -- sections --------------------------------------------------------------------

    def build(self) -> set[Triple]:
        self.build_types()
        self.build_units()
        self.build_places()
        self.build_periods()
        self.build_actors()
        self.build_churches()
        self.build_campaigns()
        self.build_attributions()
        self.build_iconography()
        self.build_dimensions()
        self.build_dataset()
        return self.triples

    def build_types(self) -> None:
        for ident, entry in self.table("types").items():
            t = node("type", ident)
            self.typed(t, crm("E55_Type"))
            self.label(t, entry["label"])
            if "el" in entry:
                self.label(t, entry["el"], lang="el")
            if "broader" in entry:
                self.add(t, crm("P127_has_broader_term"), self.type_node(entry["broader"]))

    def build_units(self) -> None:
        for ident, entry in self.table("units").items():
            unit = node("unit", ident)
            self.typed(unit, crm("E58_Measurement_Unit"))
            self.label(unit, entry["label"])

    def build_places(self) -> None:
        for ident, entry in self.table("places").items():
            place = node("place", ident)
            self.typed(place, crm("E53_Place"))
            if "label" in entry:
                self.label(place, entry["label"])
            self.appellations(place, f"place-{ident}", entry)
            self.has_type(place, [entry["type"]])
            for parent in entry.get("within", []):
                self.add(place, crm("P89_falls_within"), node("place", self.ref("places", parent)))

    def build_periods(self) -> None:
        for ident, entry in self.table("periods").items():
            period = node("period", ident)
            self.typed(period, crm("E4_Period"))
            self.appellations(period, f"period-{ident}", entry)
            self.has_type(period, [entry["type"]])
            place = node("place", self.ref("places", entry["place"]))
            self.add(period, crm("P7_took_place_at"), place)
            self.time_span(period, f"period-{ident}", entry["when"])

    def periods_containing(self, when: Mapping[str, Any]) -> list[IRI]:
        """The periods whose time-span wholly contains ``when`` (compared by year)."""
        if "begin" not in when or "end" not in when:
            return []
        begin, end = year_of(when["begin"]), year_of(when["end"])
        return [
            node("period", ident)
            for ident, entry in self.table("periods").items()
            if year_of(entry["when"]["begin"]) <= begin and end <= year_of(entry["when"]["end"])
        ]

    def build_actors(self) -> None:
        for ident, entry in self.table("actors").items():
            actor = self.actor(ident)
            cls = entry.get("class", "E21_Person")
            if cls not in ("E21_Person", "E74_Group"):
                raise FactError(f"actor {ident!r}: unsupported class {cls!r}")
            self.typed(actor, crm(cls))
            self.appellations(actor, f"{actor.value.split('/')[-2]}-{ident}", entry)
            self.has_type(actor, entry.get("types", []))
            if "note" in entry:
                self.note(actor, entry["note"])

    def build_churches(self) -> None:
        churches = self.table("churches")
        for ident, entry in churches.items():
            church = node("church", ident)
            self.typed(church, crm("E22_Human-Made_Object"))
            self.appellations(church, f"church-{ident}", entry)
            self.has_type(church, entry["types"])
            if "catalogue" in entry:
                identifier = node("identifier", ident)
                self.typed(identifier, crm("E42_Identifier"))
                self.add(church, crm("P1_is_identified_by"), identifier)
                self.add(identifier, crm("P190_has_symbolic_content"), Literal(entry["catalogue"]))
                self.has_type(identifier, ["catalogue-number"])
            prop = {
                "P55": "P55_has_current_location",
                "P53": "P53_has_former_or_current_location",
            }[entry.get("location_property", "P55")]
            self.add(church, crm(prop), node("place", self.ref("places", entry["location"])))
            if "part_of" in entry:
                self.add(
                    church,
                    crm("P46i_forms_part_of"),
                    node("church", self.ref("churches", entry["part_of"])),
                )
            name = entry["name"]["en"]
            if name.split(" ", 1)[0] in _TAKES_ARTICLE:
                name = "the " + name
            for part in entry.get("parts", []):
                feature = node("feature", f"{ident}-{part}")
                self.typed(feature, crm("E25_Human-Made_Feature"))
                self.label(feature, f"{self.table('types')[part]['label']} of {name}")
                self.has_type(feature, [part])
                self.add(church, crm("P56_bears_feature"), feature)

    def part_feature(self, church: str, part: str) -> IRI:
        if part not in self.table("churches")[self.ref("churches", church)].get("parts", []):
            raise FactError(f"church {church!r} has no part {part!r}")
        return node("feature", f"{church}-{part}")

    def build_campaigns(self) -> None:
        for ident, entry in self.table("campaigns").items():
            production = node("production", ident)
            self.typed(production, crm("E12_Production"))
            if "label" in entry:
                self.label(production, entry["label"])
            church = self.ref("churches", entry["church"])
            made = (
                self.part_feature(church, entry["part"])
                if "part" in entry
                else node("church", church)
            )
            if entry.get("direction", "inverse") == "forward":
                self.add(production, crm("P108_has_produced"), made)
            else:
                self.add(made, crm("P108i_was_produced_by"), production)
            self.has_type(production, entry.get("types", []))
            if "technique" in entry:
                technique = self.type_node(entry["technique"])
                self.add(production, crm("P32_used_general_technique"), technique)
            for actor in entry.get("carried_out_by", []):
                self.add(production, crm("P14_carried_out_by"), self.actor(actor))
            if "took_place_at" in entry:
                place = node("place", self.ref("places", entry["took_place_at"]))
                self.add(production, crm("P7_took_place_at"), place)
            if "when" in entry:
                self.time_span(production, ident, entry["when"])
                for period in self.periods_containing(entry["when"]):
                    self.add(production, crm("P10_falls_within"), period)
            if "evidence" in entry:
                self.note(production, entry["evidence"])

    def build_attributions(self) -> None:
        for ident, entry in self.table("attributions").items():
            assignment = node("attribution", ident)
            self.typed(assignment, crm("E13_Attribute_Assignment"))
            self.label(assignment, entry["label"])
            self.has_type(assignment, entry.get("types", []))
            for target in entry["targets"]:
                self.add(assignment, crm("P140_assigned_attribute_to"), self.reference(target))
            self.add(assignment, crm("P141_assigned"), self.reference(entry["assigned"]))
            self.add(assignment, crm("P177_assigned_property_of_type"), crm(entry["property"]))
            for actor in entry.get("carried_out_by", []):
                self.add(assignment, crm("P14_carried_out_by"), self.actor(actor))
            if "used_object" in entry:
                used = self.reference(entry["used_object"])
                self.add(assignment, crm("P16_used_specific_object"), used)
            if "when" in entry:
                self.time_span(assignment, f"attribution-{ident}", entry["when"])
            if "note" in entry:
                self.note(assignment, entry["note"])

    def build_iconography(self) -> None:
        for ident, entry in self.table("characters").items():
            character = node("character", ident)
            self.typed(character, vir("IC16_Character"))
            for lang, text in entry["label"].items():
                self.label(character, text, lang=lang)
            self.has_type(character, [entry["type"]])
            if "source" in entry:
                self.add(character, vir("K26_has_source"), self.actor(entry["source"]))
        for ident, entry in self.table("attributes").items():
            attribute = node("attribute", ident)
            self.typed(attribute, vir("IC10_Attribute"))
            self.label(attribute, entry["label"])
            self.add(attribute, vir("K21_depict_things_of_type"), self.type_node(entry["depicts"]))
        for ident, entry in self.table("representations").items():
            representation = node("representation", ident)
            self.typed(representation, vir("IC9_Representation"))
            self.label(representation, entry["label"])
            self.has_type(representation, [entry["subject"]])
            for character in entry.get("portrays", []):
                target = node("character", self.ref("characters", character))
                self.add(representation, vir("K24_portray"), target)
            for attribute in entry.get("attributes", []):
                target = node("attribute", self.ref("attributes", attribute))
                self.add(representation, vir("K17_has_attribute"), target)
            # The painted surface: deliberately unlabelled (its meaning is the
            # representation it denotes).
            atom = node("atom", ident)
            self.typed(atom, vir("IC1_Iconographic_Atom"))
            self.add(atom, vir("K1_denotes"), representation)
            church = self.ref("churches", entry["church"])
            if "part" in entry:
                self.add(atom, crm("P46i_forms_part_of"), self.part_feature(church, entry["part"]))
            else:
                self.add(atom, crm("P56i_is_found_on"), node("church", church))
            if "campaign" in entry:
                campaign = node("production", self.ref("campaigns", entry["campaign"]))
                self.add(atom, crm("P108i_was_produced_by"), campaign)

    def build_dimensions(self) -> None:
        for ident, entry in self.table("dimensions").items():
            dimension = node("dimension", ident)
            self.typed(dimension, crm("E54_Dimension"))
            type_label = self.table("types")[self.ref("types", entry["type"])]["label"]
            self.label(dimension, f"{type_label}: {entry['value']}")
            self.has_type(dimension, [entry["type"]])
            self.add(dimension, crm("P90_has_value"), number_literal(entry["value"]))
            self.add(dimension, crm("P91_has_unit"), node("unit", self.ref("units", entry["unit"])))
            self.add(self.reference(entry["of"]), crm("P43_has_dimension"), dimension)

    def build_dataset(self) -> None:
        entry = self.table("dataset")
        dataset = node("dataset", entry["id"])
        self.typed(dataset, crm("E73_Information_Object"))
        self.label(dataset, entry["label"])
        self.note(dataset, entry["note"])
        self.has_type(dataset, [entry["type"]])
        subject = node("place", self.ref("places", entry["refers_to"]))
        self.add(dataset, crm("P67_refers_to"), subject)
        right_id = self.ref("rights", entry["right"])
        right = node("right", right_id)
        self.add(dataset, crm("P104_is_subject_to"), right)
        right_entry = self.table("rights")[right_id]
        self.typed(right, crm("E30_Right"))
        self.label(right, right_entry["label"])
        self.has_type(right, [right_entry["type"]])
        if "note" in right_entry:
            self.note(right, right_entry["note"])


def date_literal(value: object) -> Literal:
    """An integer year as xsd:gYear, a ``YYYY-MM-DD`` string as xsd:date."""
    if isinstance(value, bool):
        raise FactError(f"not a date: {value!r}")
    if isinstance(value, int):
        sign = "-" if value < 0 else ""
        return Literal(f"{sign}{abs(value):04d}", datatype=XSD + "gYear")
    if isinstance(value, str) and _DATE.match(value):
        return Literal(value, datatype=XSD + "date")
    raise FactError(f"not a year or YYYY-MM-DD date: {value!r}")


def year_of(value: object) -> int:
    """The (astronomical) year of a fact-table date: an integer or ``YYYY-MM-DD``."""
    literal = date_literal(value)
    text = literal.value
    sign = -1 if text.startswith("-") else 1
    return sign * int(text.lstrip("-")[:4])


def number_literal(value: object) -> Literal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FactError(f"not a number: {value!r}")
    if isinstance(value, int):
        return Literal(str(value), datatype=XSD + "integer")
    return Literal(repr(value), datatype=XSD + "decimal")


# -- Turtle ------------------------------------------------------------------------------


def _escape(text: str) -> str:
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        else:
            out.append(char)
    return "".join(out)


def render_iri(iri: IRI) -> str:
    best: tuple[str, str] | None = None
    for prefix, namespace in PREFIXES:
        if iri.value.startswith(namespace) and (best is None or len(namespace) > len(best[1])):
            best = (prefix, namespace)
    if best is not None:
        local = iri.value[len(best[1]) :]
        if _PN_LOCAL.match(local):
            return f"{best[0]}:{local}"
    return f"<{iri.value}>"


def render_term(term: Term) -> str:
    if isinstance(term, IRI):
        return render_iri(term)
    if term.datatype == XSD + "integer" and _INTEGER.match(term.value):
        return term.value
    quoted = f'"{_escape(term.value)}"'
    if term.lang:
        return f"{quoted}@{term.lang}"
    if term.datatype:
        return f"{quoted}^^{render_iri(IRI(term.datatype))}"
    return quoted


def _predicate_key(predicate: IRI) -> tuple[int, int, str, str]:
    if predicate.value == RDF_TYPE:
        return (0, 0, "", "")
    if predicate.value == RDFS_LABEL:
        return (1, 0, "", "")
    for rank, namespace in ((2, CRM), (3, VIR)):
        if predicate.value.startswith(namespace):
            local = predicate.value[len(namespace) :]
            match = _CRM_KEY.match(local) or re.match(r"^[A-Z]+(\d+)([a-z]?)(i?)_", local)
            if match:
                return (rank, int(match.group(1)), match.group(2) + match.group(3), local)
            return (rank, 0, "", local)
    return (4, 0, "", predicate.value)


def _object_key(term: Term) -> tuple[int, str, str]:
    if isinstance(term, IRI):
        return (0, render_iri(term), "")
    # English first, then other languages, then typed values.
    lang_rank = "0" if term.lang == "en" else "1" + term.lang
    return (1, lang_rank, term.value)


def _subject_key(subject: IRI) -> tuple[int, str]:
    for index, kind in enumerate(KINDS):
        namespace = f"{BASE}{kind}/"
        if subject.value.startswith(namespace):
            return (index, subject.value[len(namespace) :])
    return (len(KINDS), subject.value)


def to_turtle(triples: Iterable[Triple]) -> str:
    by_subject: dict[IRI, dict[IRI, list[Term]]] = defaultdict(lambda: defaultdict(list))
    for s, p, o in triples:
        by_subject[s][p].append(o)
    lines = [
        "# Painted Churches in the Troodos Region of Cyprus: llama-index-crm demo graph.",
        "# CIDOC-CRM 7.1.3 + VIR. Generated by scripts/make_demo_graph.py from",
        "# examples/data/troodos_facts.toml; do not edit by hand. Data licence: CC BY 4.0.",
        "",
    ]
    lines += [f"@prefix {prefix}: <{namespace}> ." for prefix, namespace in PREFIXES]
    section = ""
    for subject in sorted(by_subject, key=_subject_key):
        kind_index = _subject_key(subject)[0]
        kind = KINDS[kind_index] if kind_index < len(KINDS) else ""
        if kind in SECTION_TITLES and kind != section:
            section = kind
            lines += ["", f"# ---- {SECTION_TITLES[kind]} ----"]
        lines.append("")
        lines.append(render_iri(subject))
        predicates = sorted(by_subject[subject], key=_predicate_key)
        for index, predicate in enumerate(predicates):
            verb = "a" if predicate.value == RDF_TYPE else render_iri(predicate)
            values = sorted(by_subject[subject][predicate], key=_object_key)
            objects = [render_term(o) for o in values]
            end = " ." if index == len(predicates) - 1 else " ;"
            one_line = f"    {verb} {', '.join(objects)}"
            if len(one_line) <= 100 or len(objects) == 1:
                lines.append(one_line + end)
            else:
                lines.append(f"    {verb}")
                lines += [f"        {obj}," for obj in objects[:-1]]
                lines.append(f"        {objects[-1]}{end}")
    return "\n".join(lines) + "\n"


# -- entry points -------------------------------------------------------------------------


def load_facts(path: Path = FACTS_PATH) -> dict[str, Any]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def build_graph(facts: Mapping[str, Any]) -> set[Triple]:
    return GraphBuilder(facts).build()


def render(facts: Mapping[str, Any]) -> str:
    """The Turtle text for ``facts`` (deterministic)."""
    return to_turtle(build_graph(facts))


def statistics(triples: set[Triple]) -> dict[str, Any]:
    iris = {s for s, _, _ in triples} | {o for _, _, o in triples if isinstance(o, IRI)}
    classes = Counter(
        render_iri(o) for _, p, o in triples if p.value == RDF_TYPE and isinstance(o, IRI)
    )
    return {"triples": len(triples), "iris": len(iris), "classes": dict(sorted(classes.items()))}


def _validate(text: str, expected: int) -> None:
    """Parse the Turtle back with pyoxigraph, if installed, and compare triple counts."""
    try:
        import pyoxigraph
    except ImportError:  # pragma: no cover - optional check
        return
    parsed = list(pyoxigraph.parse(text.encode("utf-8"), format=pyoxigraph.RdfFormat.TURTLE))
    if len(parsed) != expected:
        raise SystemExit(f"round-trip mismatch: wrote {expected} triples, parsed {len(parsed)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--facts", type=Path, default=FACTS_PATH)
    parser.add_argument("--out", type=Path, default=OUTPUT_PATH)
    parser.add_argument("--check", action="store_true", help="only check that --out is up to date")
    args = parser.parse_args(argv)
    triples = build_graph(load_facts(args.facts))
    text = to_turtle(triples)
    _validate(text, len(triples))
    data = text.encode("utf-8")
    if args.check:
        current = args.out.read_bytes() if args.out.exists() else b""
        if current != data:
            print(f"{args.out} is out of date; run scripts/make_demo_graph.py", file=sys.stderr)
            return 1
        return 0
    args.out.write_bytes(data)
    stats = statistics(triples)
    print(f"wrote {args.out}: {stats['triples']} triples, {stats['iris']} IRIs")
    for cls, count in stats["classes"].items():
        print(f"  {cls}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
