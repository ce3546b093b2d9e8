#!/usr/bin/env python3
"""(Re)compute and check the gold of demo.jsonl (Troodos demo graph) and moma.jsonl (MoMA exhibition
history 1929-1959, Linked Art) from each question's own `sparql`.

usage (from the repository root):
  python benchmarks/questions/battery/make_gold_demomoma.py --check   # exit 1 on any mismatch
  python benchmarks/questions/battery/make_gold_demomoma.py --write   # write the computed gold
  options: FILE ... (default demo.jsonl moma.jsonl beside this script), --demo TTL (default
  examples/data/troodos.ttl), --moma ZIP (default ../shared/datasets/moma/moma_1929_1959.nt.zip,
  beside the repository); exit 2 if a graph is missing.

Only dependency: pyoxigraph. Each graph is loaded once per run (in memory).

Derivation rules (the dev-set rules of benchmarks/questions/make_gold.py, adapted to these
graphs):
  * anchor: the first entity IRI written in the query heads gold_uris
    (demo: <https://example.org/troodos/{church,person,place,group,character}/...>;
     moma: <http://linkedart.example.com/{exhibition,person}/N>).
  * result columns, by name:
      church, exhibition, person, actor, uri, object, group
                             -> answer entity: IRI joins gold_uris, its label joins
                                answer_labels (not labelled for aggregation questions)
      place                  -> answer entity; label = first comma-separated part of its label
      rep                    -> gold URI only (a labelled representation node), no label
      subject                -> label of an iconographic type (E55), no URI
      year, begin            -> first 4 digits of the literal
      nationality            -> the biography statement cut at its first comma / period
                                ("German, born Switzerland. 1879-1940" -> "German")
      label                  -> the literal, whitespace collapsed
      count                  -> the number as a string; gold_count for aggregation questions
      anything else          -> helper, ignored
  * labels of entities: demo graph, lang "el": the Greek (@el) preferred appellation
    (P1_is_identified_by -> P190_has_symbolic_content@el) or an @el rdfs:label, else the English
    label; every other language: the rdfs:label (@en or untagged). MoMA: rdfs:label.
  * ORDER BY in the query (or template about_*): labels/URIs keep row order; else sorted.
  * aggregation without a count column: gold_count = number of distinct answer entities.
  * enumeration: gold_count = number of distinct answer entities (or labels when there are none).
  * expect not_found: the query must return no row; gold_uris [], answer_labels [], gold_count null.
  * template "vague": no gold by construction (gold_uris [], answer_labels [], gold_count null);
    the `sparql` field is empty and a `note` is required.
Also checked: required fields, type/expect/lang values, unique ids, turn_of, an answered question
has labels (or a count of 0, or a note), no question contains one of its answer labels (token match
as in the scorer), and demo translations of one `group` share template and gold_uris.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar, cast

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
DEMO_TTL = REPO / "examples" / "data" / "troodos.ttl"
MOMA_ZIP = SHARED / "datasets" / "moma" / "moma_1929_1959.nt.zip"
T = TypeVar("T")
Question = dict[str, Any]
FIELDS = ["id", "dataset", "question", "type", "hops", "template", "gold_uris", "answer_labels",
          "gold_count", "sparql", "turn_of", "expect", "lang"]
TYPES = {"specific", "enumeration", "aggregation"}
EXPECTS = {"answered", "not_found"}
LANGS = {"en", "el", "fr", "de", "it", "es"}
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
CRM = "http://www.cidoc-crm.org/cidoc-crm/"
ANCHOR = {
    "demo": re.compile(r"<(https://example\.org/troodos/(?:church|person|place|group|character)/[^>]+)>"),
    "moma": re.compile(r"<(http://linkedart\.example\.com/(?:exhibition|person)/\d+)>"),
}
ENTITY_COLS = {"church", "exhibition", "person", "actor", "uri", "object", "group"}


def require_data(args: argparse.Namespace, needed: set[str]) -> None:
    """Exit 2 with a clear message when a graph the questions need is missing."""
    if "moma" in needed and not SHARED.is_dir() and Path(args.moma) == MOMA_ZIP:
        print(f"error: {SHARED} is missing: the MoMA graph is read from ../shared/datasets "
              "beside the repository (or give --moma ZIP)", file=sys.stderr)
        sys.exit(2)
    paths = {"demo": args.demo, "moma": args.moma}
    missing = [str(paths[d]) for d in sorted(needed) if d in paths and not Path(paths[d]).exists()]
    if missing:
        print("error: missing graph file(s): " + ", ".join(missing), file=sys.stderr)
        sys.exit(2)


def load(dataset: str, args: argparse.Namespace) -> ox.Store:
    store = ox.Store()
    if dataset == "demo":
        store.load(path=str(args.demo), format=ox.RdfFormat.TURTLE)
    else:
        with zipfile.ZipFile(args.moma) as z:
            data = b"".join(z.read(n) for n in sorted(z.namelist()) if not n.endswith("/"))
        store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES)
    return store


def collapse(s: object) -> str:
    return " ".join(str(s).split())


class Labeler:
    def __init__(self, store: ox.Store) -> None:
        self.store = store
        self.cache: dict[tuple[str, str], str | None] = {}

    def _lits(self, node: ox.NamedNode | ox.BlankNode, pred: str) -> list[ox.Literal]:
        return [q.object for q in self.store.quads_for_pattern(node, ox.NamedNode(pred), None)
                if isinstance(q.object, ox.Literal)]

    def label(self, iri: str, lang: str = "en") -> str | None:
        key = (iri, lang)
        if key in self.cache:
            return self.cache[key]
        node = ox.NamedNode(iri)
        lab: str | None = None
        if lang == "el":
            for q in self.store.quads_for_pattern(node, ox.NamedNode(CRM + "P1_is_identified_by"),
                                                  None):
                ap = q.object
                if not isinstance(ap, ox.NamedNode | ox.BlankNode):
                    continue
                types = {t.object.value for t in self.store.quads_for_pattern(
                    ap, ox.NamedNode(CRM + "P2_has_type"), None)
                    if isinstance(t.object, ox.NamedNode | ox.BlankNode | ox.Literal)}
                if not any(t.endswith("/preferred-name") for t in types):
                    continue
                els = sorted(collapse(lit.value)
                             for lit in self._lits(ap, CRM + "P190_has_symbolic_content")
                             if lit.language == "el")
                if els:
                    lab = els[0]
                    break
            if lab is None:
                els = sorted(collapse(lit.value) for lit in self._lits(node, RDFS_LABEL)
                             if lit.language == "el")
                lab = els[0] if els else None
        if lab is None:
            lits = self._lits(node, RDFS_LABEL)
            pref = sorted(collapse(lit.value) for lit in lits if lit.language in (None, "en"))
            anyl = sorted(collapse(lit.value) for lit in lits)
            lab = pref[0] if pref else (anyl[0] if anyl else None)
        self.cache[key] = lab
        return lab


def year_of(v: object) -> str | None:
    m = re.search(r"\d{4}", str(v))
    return m.group(0) if m else None


def nationality_of(v: object) -> str:
    return re.split(r"[,.]", collapse(v), maxsplit=1)[0].strip()


def uniq(seq: Iterable[T | None]) -> list[T]:
    out: list[T] = []
    for x in seq:
        if x is not None and x not in out:
            out.append(x)
    return out


def derive(q: Question, store: ox.Store, lab: Labeler) -> tuple[list[str], list[str], int | None]:
    if q["template"] == "vague":
        return [], [], None
    res = cast(ox.QuerySolutions, store.query(q["sparql"]))  # the queries are SELECT queries
    names = [v.value for v in res.variables]
    rows = [{n: (s[n].value if s[n] is not None else None) for n in names} for s in res]
    if q.get("expect") == "not_found":
        if rows:
            raise ValueError(f"expect=not_found but the query returns {len(rows)} row(s)")
        return [], [], None
    typ, lang = q["type"], q.get("lang", "en")
    ordered = bool(re.search(r"\bORDER\s+BY\b", q["sparql"], re.I)) \
        or q["template"].startswith("about")
    m = ANCHOR[q["dataset"]].search(q["sparql"])
    anchor = m.group(1) if m else None
    ents: list[str] = []
    labels: list[str | None] = []
    count: int | None = None
    label_entities = typ != "aggregation"
    for r in rows:
        for n in names:
            v = r.get(n)
            if v is None:
                continue
            if n in ENTITY_COLS or n == "place":
                ents.append(v)
                if label_entities:
                    lv = lab.label(v, lang)
                    if n == "place" and lv:
                        lv = lv.split(",")[0].strip()
                    labels.append(lv)
            elif n == "rep":
                ents.append(v)
            elif n == "subject":
                labels.append(lab.label(v, lang))
            elif n in ("year", "begin"):
                labels.append(year_of(v))
            elif n == "nationality":
                labels.append(nationality_of(v))
            elif n == "label":
                labels.append(collapse(v))
            elif n == "count":
                count = int(float(v))
                labels.append(str(count))
    out_ents: list[str] = uniq(ents)
    out_labels: list[str] = uniq(labels)
    if not ordered:
        out_ents, out_labels = sorted(out_ents), sorted(out_labels)
    gold_count = None
    if typ == "aggregation":
        if count is None:
            count = len(out_ents)
            out_labels = [str(count)]
        gold_count = count
        if count == 0:
            out_labels = []
    elif typ == "enumeration":
        gold_count = len(out_ents) if out_ents else len(out_labels)
    return uniq(([anchor] if anchor else []) + out_ents), out_labels, gold_count


def norm(s: object) -> str:
    return " ".join(unicodedata.normalize("NFKC", html.unescape(str(s))).casefold().split())


def validate(q: Question, seen: set[Any]) -> list[str]:
    errs = [f"missing field {f}" for f in FIELDS if f not in q]
    if q.get("type") not in TYPES:
        errs.append(f"bad type {q.get('type')!r}")
    if q.get("expect") not in EXPECTS:
        errs.append(f"bad expect {q.get('expect')!r}")
    if q.get("lang") not in LANGS:
        errs.append(f"bad lang {q.get('lang')!r}")
    if q.get("id") in seen:
        errs.append("duplicate id")
    if q.get("turn_of") is not None and q["turn_of"] not in seen:
        errs.append("turn_of is not an earlier id")
    if not isinstance(q.get("hops"), int):
        errs.append("hops is not an integer")
    if q.get("template") == "vague" and "note" not in q:
        errs.append("vague question without a note")
    if q.get("expect") == "answered" and not q.get("answer_labels") and \
            not (q.get("type") == "aggregation" and q.get("gold_count") == 0) and "note" not in q:
        errs.append("answered question without answer_labels (and no note)")
    qn = norm(q.get("question", ""))
    for lab in q.get("answer_labels") or []:
        if re.search(r"(?<!\w)" + re.escape(norm(lab)) + r"(?!\w)", qn):
            errs.append(f"the question already contains the answer label {lab!r}")
    return errs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--demo", type=Path, default=DEMO_TTL)
    ap.add_argument("--moma", type=Path, default=MOMA_ZIP)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="compare stored gold with the SPARQL gold (default)")
    g.add_argument("--write", action="store_true", help="write the computed gold into the files")
    args = ap.parse_args()
    files = args.files or [str(HERE / f) for f in ("demo.jsonl", "moma.jsonl")]
    questions: dict[str, list[Question]] = {}
    for path in files:
        with open(path, encoding="utf-8") as fh:
            questions[path] = [json.loads(line) for line in fh if line.strip()]
    require_data(args, {str(q.get("dataset")) for qs in questions.values() for q in qs})
    stores: dict[str, tuple[ox.Store, Labeler]] = {}
    bad = 0
    for path, qs in questions.items():
        fname = Path(path).name
        seen: set[Any] = set()
        nbad = 0
        groups: dict[str, list[Question]] = {}
        for q in qs:
            ds = q.get("dataset")
            if ds not in ANCHOR:
                print(f"{fname} {q.get('id')}: unknown dataset {ds!r}")
                nbad += 1
                continue
            if ds not in stores:
                st = load(ds, args)
                stores[ds] = (st, Labeler(st))
            store, lab = stores[ds]
            errs: list[str] = []
            try:
                uris, labels, count = derive(q, store, lab)
            except Exception as e:  # noqa: BLE001 - report and go on
                errs.append(f"sparql: {e}")
            else:
                if args.write:
                    q["gold_uris"], q["answer_labels"], q["gold_count"] = uris, labels, count
                else:
                    computed: tuple[tuple[str, object], ...] = (
                        ("gold_uris", uris), ("answer_labels", labels), ("gold_count", count))
                    for f, v in computed:
                        if q.get(f) != v:
                            errs.append(f"{f}: stored {q.get(f)!r}, sparql gives {v!r}")
            errs = validate(q, seen) + errs
            seen.add(q.get("id"))
            if q.get("group"):
                groups.setdefault(q["group"], []).append(q)
            if errs:
                nbad += 1
                for err in errs:
                    print(f"{fname} {q.get('id')}: {err}")
        for gname, members in groups.items():
            if len({m["template"] for m in members}) > 1 or \
                    len({json.dumps(m["gold_uris"]) for m in members}) > 1:
                print(f"{fname} group {gname}: translations differ in template/gold_uris")
                nbad += 1
        if args.write:
            with open(path, "w", encoding="utf-8") as fh:
                for q in qs:
                    keys = [k for k in FIELDS if k in q] + [k for k in q if k not in FIELDS]
                    fh.write(json.dumps({k: q[k] for k in keys}, ensure_ascii=False) + "\n")
        print(f"{fname}: {len(qs)} questions, {nbad} with problems"
              + (" (written)" if args.write else ""))
        bad += nbad
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
