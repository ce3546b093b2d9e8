#!/usr/bin/env python3
"""(Re)compute the gold of the YCBA question sets from their `sparql` fields.

usage (from /work/main):
  python benchmarks/questions/make_gold.py --check   # exit 1 if a stored gold differs
  python benchmarks/questions/make_gold.py --write   # rewrite the files with the computed gold
  python benchmarks/questions/make_gold.py --check --selftest ../shared/eval/ycba_dev.jsonl
                                                     # the derivation must reproduce the dev gold
  options: --data ZIP (default ../shared/datasets/ycba/ycba_data.n3.zip; a directory loads every
  *.zip in it), FILE ... (default: the three ycba_*.jsonl beside this script)

make_gold_nmwa.py and make_gold_npg.py import this module and run the same derivation on the NMWA
and NPG graphs: what differs between graphs (data path, default files, anchor IRIs, museum names
and donor phrases in credit lines, and a few extra rules) is a `Dataset`; `YCBA` below is this
script's.

Only dependency: pyoxigraph.

How a gold is derived from the result rows of `sparql` (one rule set for every file, also the
dev set):
  * anchor: the first numeric object/actor IRI written in the query (<.../id/object/N>,
    <.../id/person-institution/N>) heads `gold_uris`.
  * result columns, by name:
      object, actor, uri   -> answer entity: its IRI joins gold_uris, its label joins answer_labels
                              (actors: display appellation, else rdfs:label; others: rdfs:label,
                              skos:prefLabel, rdf:value); not labelled for count templates and for
                              creator_nationality (there the actor is only the path to the group)
      type                 -> classification type: singular of its label
                              ("photographs" -> "photograph")
      group                -> nationality group label
      begin, year          -> a 4-digit year (first 4 digits of the literal)
      credit               -> credit line without the museum name and a leading "Gift of"/
                              "Bequest of" (Dataset.credit_prefixes), cut at the first comma
      medium               -> the medium text cut at the first comma or " on " ("Watercolor on ...")
      label                -> the literal, whitespace collapsed
      count                -> the number as a string; for type aggregation also gold_count
      other columns (end, n, h, w, ...) are helpers and ignored.
  * about_object ("tell me about T"): the object is the only gold URI, labels in column order.
  * order: if the query has ORDER BY, labels/URIs keep row order; else URIs and labels are sorted.
  * aggregation without a count column: gold_count = number of distinct answer entities,
    answer_labels = [str(gold_count)]; a count of 0 gives answer_labels [] (brief of ycba_absent).
  * enumeration: gold_count = number of distinct answer entities (or labels when there are none).
  * expect == "not_found": the query must return no row; gold_uris [], answer_labels [],
    gold_count null.
Also checked: required fields, type/expect values, unique ids, turn_of pointing to an earlier id,
an answered question has labels (or a count of 0, or a `note`), and no question already contains
one of its answer labels.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import unicodedata
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import pyoxigraph as ox

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FILES = [os.path.join(HERE, f) for f in
                 ("ycba_rephrased.jsonl", "ycba_absent.jsonl", "ycba_superlatives.jsonl")]
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "ycba",
                                             "ycba_data.n3.zip"))
FIELDS = ["id", "dataset", "question", "type", "hops", "template", "gold_uris", "answer_labels",
          "gold_count", "sparql", "turn_of", "expect"]
TYPES = {"specific", "enumeration", "aggregation"}
EXPECTS = {"answered", "not_found"}
COUNT_TEMPLATES = {"count_works_by_artist", "count_works_by_artist_decade"}
ENTITY_COLS = ("object", "actor", "uri")
ABOUT_TEMPLATES = {"about_object"}
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_PREF = "http://www.w3.org/2004/02/skos/core#prefLabel"
RDF_VALUE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#value"
CRM = "http://www.cidoc-crm.org/cidoc-crm/"
DISPLAY_NAME = "http://vocab.getty.edu/aat/300404670"
ANCHOR_IRI = r"http://collection\.britishart\.yale\.edu/id/(?:object|person-institution)/\d+"
ANCHOR_RE = re.compile(rf"<({ANCHOR_IRI})>")
MUSEUM = "Yale Center for British Art"

T = TypeVar("T")
# a question / answer record as read from the JSONL files
Question = dict[str, Any]
# RDF terms that have a `.value` (pyoxigraph types quad objects as these or an RDF-star Triple)
ValueTerm = ox.NamedNode | ox.BlankNode | ox.Literal


@dataclass(frozen=True)
class Dataset:
    """What the derivation needs to know about one graph; the rules themselves are shared."""
    data: str                    # default --data (zipped N-Triples)
    files: tuple[str, ...]       # default question files
    anchor_re: re.Pattern[str]   # group 1: the anchor IRI that heads gold_uris
    museums: tuple[str, ...]     # leading museum names removed from credit lines, in this order
    # removes a trailing museum name from a credit line (None: no such rule)
    trailing_museum_re: re.Pattern[str] | None = None
    # templates whose actor column only leads to the answer: gold URI, no label
    path_actor_templates: frozenset[str] = frozenset({"creator_nationality"})
    # a `place` column is an answer entity (labelled by the first comma-separated part);
    # otherwise it is a helper column and ignored
    place_column: bool = False
    # leading donor phrases removed from a credit line (after the museum name)
    credit_prefixes: tuple[str, ...] = ("Gift of ", "Bequest of ")


YCBA = Dataset(data=DEFAULT_DATA, files=tuple(DEFAULT_FILES), anchor_re=ANCHOR_RE,
               museums=(MUSEUM,))


def load_store(path: str) -> ox.Store:
    """Load a zip of N-Triples, or every *.zip of a directory (one bulk load per zip)."""
    zips = sorted(os.path.join(path, f) for f in os.listdir(path)
                  if f.endswith(".zip")) if os.path.isdir(path) else [path]
    if not zips:
        raise FileNotFoundError(f"no .zip file in {path}")
    store = ox.Store()
    for zpath in zips:
        with zipfile.ZipFile(zpath) as z:
            data = b"".join(z.read(n) for n in sorted(z.namelist()) if not n.endswith("/"))
        store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES)
    return store


def collapse(s: object) -> str:
    return " ".join(str(s).split())


class Labeler:
    def __init__(self, store: ox.Store) -> None:
        self.store = store
        self.cache: dict[str, str | None] = {}

    def _values(self, iri: str, pred: str) -> list[str]:
        return sorted(collapse(t.object.value) for t in
                      self.store.quads_for_pattern(ox.NamedNode(iri), ox.NamedNode(pred), None)
                      if isinstance(t.object, ox.Literal))

    def label(self, iri: str) -> str | None:
        if iri in self.cache:
            return self.cache[iri]
        lab = None
        # actors: the display appellation (some actors carry a second, wrong rdfs:label)
        for t in self.store.quads_for_pattern(ox.NamedNode(iri),
                                              ox.NamedNode(CRM + "P131_is_identified_by"), None):
            # the appellation is a resource (IRI or blank node), never a literal
            ap = cast("ox.NamedNode | ox.BlankNode", t.object)
            types = {cast(ValueTerm, x.object).value for x in
                     self.store.quads_for_pattern(ap, ox.NamedNode(CRM + "P2_has_type"), None)}
            if DISPLAY_NAME in types:
                vals = self._values(ap.value, RDF_VALUE)
                if vals:
                    lab = vals[0]
                    break
        if lab is None:
            for pred in (RDFS_LABEL, SKOS_PREF, RDF_VALUE):
                vals = self._values(iri, pred)
                if vals:
                    lab = vals[0]
                    break
        self.cache[iri] = lab
        return lab

    def type_label(self, iri: str) -> str | None:
        cands: list[str] = []
        for v in self._values(iri, RDFS_LABEL) + self._values(iri, SKOS_PREF):
            if "(" in v:
                continue
            if v.endswith("s") and not v.endswith("ss"):
                v = v[:-1]
            cands.append(v)
        if not cands:
            return self.label(iri)
        return sorted(set(cands), key=lambda c: (-cands.count(c), c))[0]


def year_of(v: object) -> str | None:
    m = re.search(r"\d{4}", str(v))
    return m.group(0) if m else None


def credit_of(v: object, ds: Dataset = YCBA) -> str:
    s = collapse(v)
    for museum in ds.museums:
        if s.startswith(museum):
            s = s[len(museum):].lstrip(",; ")
    if ds.trailing_museum_re is not None:
        s = ds.trailing_museum_re.sub("", s)
    for pre in ds.credit_prefixes:
        if s.startswith(pre):
            s = s[len(pre):]
    return s.split(",")[0].strip()


def medium_of(v: object) -> str:
    s = collapse(v)
    s = re.split(r",| on ", s, maxsplit=1)[0]
    return s.strip()


def run(store: ox.Store, sparql: str) -> tuple[list[str], list[dict[str, str | None]]]:
    # the question queries are SELECT queries
    res = cast(ox.QuerySolutions, store.query(sparql))
    names = [v.value for v in res.variables]
    rows = []
    for sol in res:
        rows.append({n: (sol[n].value if sol[n] is not None else None) for n in names})
    return names, rows


def uniq(seq: Iterable[T | None]) -> list[T]:
    out: list[T] = []
    for x in seq:
        if x is not None and x not in out:
            out.append(x)
    return out


def derive(q: Question, store: ox.Store, lab: Labeler,
           ds: Dataset = YCBA) -> tuple[list[str], list[str], int | None]:
    """Return (gold_uris, answer_labels, gold_count) computed from q['sparql']."""
    names, rows = run(store, q["sparql"])
    expect = q.get("expect", "answered")
    if expect == "not_found":
        if rows:
            raise ValueError(f"expect=not_found but the query returns {len(rows)} row(s)")
        return [], [], None
    tpl, typ = q["template"], q["type"]
    ordered = re.search(r"\bORDER\s+BY\b", q["sparql"], re.I) is not None
    m = ds.anchor_re.search(q["sparql"])
    anchor = m.group(1) if m else None
    ents: list[str] = []
    labels: list[str | None] = []
    count: int | None = None
    label_entities = tpl not in COUNT_TEMPLATES and tpl not in ds.path_actor_templates
    # about_object: gold is the object only, labels in column order (artist, year) as in the dev set
    entity_uris = tpl not in ABOUT_TEMPLATES
    if tpl in ABOUT_TEMPLATES:
        ordered = True
    for r in rows:
        for n in names:
            v = r.get(n)
            if v is None:
                continue
            if n in ENTITY_COLS:
                if entity_uris:
                    ents.append(v)
                if label_entities:
                    labels.append(lab.label(v))
            elif n == "place" and ds.place_column:
                if entity_uris:
                    ents.append(v)
                pl = lab.label(v)
                labels.append(pl.split(",")[0].strip() if pl else None)
            elif n == "type":
                labels.append(lab.type_label(v))
            elif n == "group":
                labels.append(lab.label(v))
            elif n in ("begin", "year"):
                labels.append(year_of(v))
            elif n == "credit":
                labels.append(credit_of(v, ds))
            elif n == "medium":
                labels.append(medium_of(v))
            elif n == "label":
                labels.append(collapse(v))
            elif n == "count":
                count = int(float(v))
                labels.append(str(count))
    uniq_ents: list[str] = uniq(ents)
    uniq_labels: list[str] = uniq(labels)
    if not ordered:
        uniq_ents = sorted(uniq_ents)
        uniq_labels = sorted(uniq_labels)
    gold_count = None
    if typ == "aggregation":
        if count is None:
            count = len(uniq_ents)
            uniq_labels = [str(count)]
        gold_count = count
        if count == 0:
            uniq_labels = []
    elif typ == "enumeration":
        gold_count = len(uniq_ents) if uniq_ents else len(uniq_labels)
    gold_uris: list[str] = uniq(([anchor] if anchor else []) + uniq_ents)
    return gold_uris, uniq_labels, gold_count


def validate(q: Question, seen_ids: set[Any], selftest: bool) -> list[str]:
    errs: list[str] = []
    need = FIELDS if not selftest else [f for f in FIELDS if f != "expect"]
    for f in need:
        if f not in q:
            errs.append(f"missing field {f}")
    if q.get("type") not in TYPES:
        errs.append(f"bad type {q.get('type')!r}")
    if not selftest and q.get("expect") not in EXPECTS:
        errs.append(f"bad expect {q.get('expect')!r}")
    if q.get("turn_of") is not None and q["turn_of"] not in seen_ids:
        errs.append(f"turn_of {q['turn_of']!r} is not an earlier id")
    if q.get("id") in seen_ids:
        errs.append("duplicate id")
    if not isinstance(q.get("hops"), int):
        errs.append("hops is not an integer")
    if q.get("expect", "answered") == "answered" and not q.get("answer_labels") and \
            not (q.get("type") == "aggregation" and q.get("gold_count") == 0) and "note" not in q:
        errs.append("answered question without answer_labels (and no note)")
    qn = norm(q.get("question", ""))
    for lab in q.get("answer_labels") or []:
        if re.search(r"(?<!\w)" + re.escape(norm(lab)) + r"(?!\w)", qn):
            errs.append(f"the question already contains the answer label {lab!r}")
    return errs


def norm(s: object) -> str:
    return " ".join(unicodedata.normalize("NFKC", html.unescape(str(s))).casefold().split())


def dump(q: Question) -> str:
    keys = [k for k in FIELDS if k in q] + [k for k in q if k not in FIELDS]
    return json.dumps({k: q[k] for k in keys}, ensure_ascii=False)


def main(ds: Dataset = YCBA, description: str | None = __doc__) -> None:
    """The command line (see the module docstring); `description` is the --help text."""
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--data", default=ds.data)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="compare stored gold with the SPARQL gold (default)")
    g.add_argument("--write", action="store_true", help="write the computed gold into the files")
    ap.add_argument("--selftest", metavar="DEV_JSONL",
                    help="also check that the derivation reproduces the gold of this file "
                         "(the dev set)")
    args = ap.parse_args()
    files = args.files or list(ds.files)
    store = load_store(args.data)
    lab = Labeler(store)
    bad = 0
    targets = [(f, False) for f in files] + ([(args.selftest, True)] if args.selftest else [])
    for path, selftest in targets:
        with open(path, encoding="utf-8") as fh:
            qs = [json.loads(line) for line in fh if line.strip()]
        seen: set[Any] = set()
        nbad = 0
        for q in qs:
            errs: list[str] = []
            uris: list[str] | None
            labels: list[str] | None
            count: int | None
            try:
                uris, labels, count = derive(q, store, lab, ds)
            except Exception as e:  # noqa: BLE001 - report and go on
                errs.append(f"sparql: {e}")
                uris = labels = count = None
            if uris is not None:
                if args.write and not selftest:
                    q["gold_uris"], q["answer_labels"], q["gold_count"] = uris, labels, count
                else:
                    computed: tuple[tuple[str, object], ...] = (
                        ("gold_uris", uris), ("answer_labels", labels), ("gold_count", count))
                    for field, v in computed:
                        if q.get(field) != v:
                            errs.append(f"{field}: stored {q.get(field)!r}, sparql gives {v!r}")
            errs = validate(q, seen, selftest) + errs
            seen.add(q.get("id"))
            if errs:
                nbad += 1
                for err in errs:
                    print(f"{os.path.basename(path)} {q.get('id')}: {err}")
        if args.write and not selftest:
            with open(path, "w", encoding="utf-8") as fh:
                for q in qs:
                    fh.write(dump(q) + "\n")
        written = " (written)" if args.write and not selftest else ""
        print(f"{os.path.basename(path)}: {len(qs)} questions, {nbad} with problems{written}")
        bad += nbad
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
