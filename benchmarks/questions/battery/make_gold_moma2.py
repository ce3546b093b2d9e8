#!/usr/bin/env python3
"""Derive the gold of the blind MoMA question set 2 from each question's own SPARQL.

usage:
  python make_gold_moma2.py                 # read moma2_draft.jsonl, write moma2.jsonl
  python make_gold_moma2.py --check         # recompute and compare with moma2.jsonl (exit 1)
  options: --draft FILE, --out FILE, --store DIR (pyoxigraph store, default
  moma_store beside this file, if present), --zip ZIP (load the N-Triples in memory instead).

Rules (those of benchmarks/questions/battery/make_gold_demomoma.py, made explicit per question
by the draft's `read` field, which maps each result column to how it is read):
  entity                 -> IRI joins gold_uris; its rdfs:label (whitespace collapsed) joins
                            answer_labels (not for aggregation questions)
  year                   -> first 4 digits of the literal
  nationality            -> biography statement cut at its first comma/period
                            ("American, born Austria. 1905-1988" -> "American")
  birthplace             -> the word(s) after "born " in the statement, up to , . ; or a digit
                            ("British, born Poland. 1900-1982" -> "Poland")
  nationality+birthplace -> both of the above
  count                  -> gold_count (aggregation) and the label
  label                  -> the literal, whitespace collapsed
  helper                 -> ignored
  * anchor: the first <http://linkedart.example.com/{exhibition,person}/N> IRI written in the query
    heads gold_uris.
  * ORDER BY in the query: row order kept; else labels and URIs sorted.
  * aggregation without a count column: gold_count = number of distinct answer entities, the label
    is that number; gold_uris keep the counted entities.
  * enumeration: gold_count = number of distinct answer entities; answer_labels keep at most
    the first 15 labels (gold_uris keep all).
  * expect not_found: the query must return no row; gold [], [], null.
Checks: every answered question has non-empty answer_labels, no question contains one of its own
answer labels (token match as in the scorer), ids unique, fields present.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import sys
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import pyoxigraph as ox

HERE = Path(__file__).resolve().parent
DRAFT = HERE / "moma2_draft.jsonl"
OUT = HERE / "moma2.jsonl"
STORE = HERE / "moma_store"  # optional cache, not committed
ZIP = HERE.parents[3] / "shared" / "datasets" / "moma" / "moma_1929_1959.nt.zip"  # ../shared
RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
ANCHOR = re.compile(r"<(http://linkedart\.example\.com/(?:exhibition|person)/\d+)>")
FIELDS = ["id", "dataset", "question", "type", "hops", "template", "gold_uris", "answer_labels",
          "gold_count", "sparql", "turn_of", "expect", "lang", "note"]
READS = {"entity", "year", "nationality", "birthplace", "nationality+birthplace", "count", "label",
         "helper"}
MAX_LABELS = 15


def collapse(s: object) -> str:
    return " ".join(str(s).split())


def norm(s: object) -> str:
    return " ".join(unicodedata.normalize("NFKC", html.unescape(str(s))).casefold().split())


def nationality_of(v: str) -> str:
    return re.split(r"[,.]", collapse(v), maxsplit=1)[0].strip()


def birthplace_of(v: str) -> str | None:
    m = re.search(r"\bborn\s+([A-Z][^.,;0-9]*?)\s*(?:[.,;]|\d|$)", collapse(v))
    return m.group(1).strip() if m else None


def uniq(seq: list[Any]) -> list[Any]:
    out: list[Any] = []
    for x in seq:
        if x is not None and x not in out:
            out.append(x)
    return out


def open_store(args: argparse.Namespace) -> ox.Store:
    if not (args.zip or ZIP).exists() and not Path(args.store).is_dir():
        print(f"no graph: {args.zip or ZIP} is missing (../shared beside the repository)",
              file=sys.stderr)
        sys.exit(2)
    if args.zip or not Path(args.store).is_dir():
        store = ox.Store()
        with zipfile.ZipFile(args.zip or ZIP) as z:
            data = b"".join(z.read(n) for n in sorted(z.namelist()) if not n.endswith("/"))
        store.bulk_load(data, format=ox.RdfFormat.N_TRIPLES)
        return store
    return ox.Store(str(args.store))


def label(store: ox.Store, iri: str) -> str | None:
    lits = [q.object for q in store.quads_for_pattern(ox.NamedNode(iri), RDFS_LABEL, None)
            if isinstance(q.object, ox.Literal)]
    pref = sorted(collapse(x.value) for x in lits if x.language in (None, "en"))
    anyl = sorted(collapse(x.value) for x in lits)
    return pref[0] if pref else (anyl[0] if anyl else None)


def derive(q: dict[str, Any], store: ox.Store) -> tuple[list[str], list[str], int | None, int]:
    res = store.query(q["sparql"])
    assert isinstance(res, ox.QuerySolutions), "a SELECT query"
    names = [v.value for v in res.variables]
    rows = [{n: (s[n].value if s[n] is not None else None) for n in names} for s in res]
    if q["expect"] == "not_found":
        if rows:
            raise ValueError(f"expect=not_found but the query returns {len(rows)} row(s)")
        return [], [], None, 0
    read = q["read"]
    for n in names:
        if read.get(n, "helper") not in READS:
            raise ValueError(f"unknown read {read.get(n)!r} for column {n}")
    typ = q["type"]
    ordered = bool(re.search(r"\bORDER\s+BY\b", q["sparql"], re.I))
    m = ANCHOR.search(q["sparql"])
    anchor = m.group(1) if m else None
    ents: list[str] = []
    labels: list[str | None] = []
    count: int | None = None
    for r in rows:
        for n in names:
            v, how = r.get(n), read.get(n, "helper")
            if v is None or how == "helper":
                continue
            if how == "entity":
                ents.append(v)
                if typ != "aggregation":
                    labels.append(label(store, v))
            elif how == "year":
                mm = re.search(r"\d{4}", v)
                labels.append(mm.group(0) if mm else None)
            elif how == "nationality":
                labels.append(nationality_of(v))
            elif how == "birthplace":
                labels.append(birthplace_of(v))
            elif how == "nationality+birthplace":
                labels += [nationality_of(v), birthplace_of(v)]
            elif how == "label":
                labels.append(collapse(v))
            elif how == "count":
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
    elif typ == "enumeration":
        gold_count = len(out_ents) if out_ents else len(out_labels)
        out_labels = out_labels[:MAX_LABELS]
    gold_uris = uniq(([anchor] if anchor else []) + out_ents)
    return gold_uris, out_labels, gold_count, len(rows)


def validate(q: dict[str, Any], seen: set[str]) -> list[str]:
    errs = []
    for f in ("id", "question", "type", "hops", "template", "sparql", "expect", "lang", "read"):
        if f not in q:
            errs.append(f"missing {f}")
    if q.get("id") in seen:
        errs.append("duplicate id")
    if q.get("type") not in {"specific", "enumeration", "aggregation"}:
        errs.append("bad type")
    if q.get("expect") not in {"answered", "not_found"}:
        errs.append("bad expect")
    if q.get("lang") not in {"en", "fr", "de", "it", "es"}:
        errs.append("bad lang")
    return errs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draft", type=Path, default=DRAFT)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--store", type=Path, default=STORE)
    ap.add_argument("--zip", type=Path, default=None)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    drafts = [json.loads(x) for x in args.draft.read_text(encoding="utf-8").splitlines()
              if x.strip()]
    store = open_store(args)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    bad = 0
    for q in drafts:
        errs = validate(q, seen)
        seen.add(q.get("id", ""))
        try:
            uris, labels, count, nrows = derive(q, store)
        except Exception as e:  # noqa: BLE001
            errs.append(f"sparql: {e}")
            uris, labels, count, nrows = [], [], None, 0
        if q.get("expect") == "answered":
            if not labels or not uris:
                errs.append(f"empty gold (rows={nrows}, uris={len(uris)}, labels={labels})")
            qn = norm(q["question"])
            for lab in labels:
                if re.search(r"(?<!\w)" + re.escape(norm(lab)) + r"(?!\w)", qn):
                    errs.append(f"question contains its answer label {lab!r}")
        rec = {"id": q["id"], "dataset": "moma", "question": q["question"], "type": q["type"],
               "hops": q["hops"], "template": q["template"], "gold_uris": uris,
               "answer_labels": labels, "gold_count": count, "sparql": q["sparql"],
               "turn_of": None, "expect": q["expect"], "lang": q["lang"]}
        if q.get("note"):
            rec["note"] = q["note"]
        out.append(rec)
        if errs:
            bad += 1
            for problem in errs:
                print(f"{q.get('id')}: {problem}")
    if args.check:
        old = {json.loads(x)["id"]: json.loads(x)
               for x in args.out.read_text(encoding="utf-8").splitlines() if x.strip()}
        for rec in out:
            o = old.get(rec["id"])
            if o is None:
                print(f"{rec['id']}: missing in {args.out.name}")
                bad += 1
                continue
            for f in ("gold_uris", "answer_labels", "gold_count", "question", "sparql"):
                if o.get(f) != rec[f]:
                    print(f"{rec['id']}: {f} differs: stored {o.get(f)!r}, sparql {rec[f]!r}")
                    bad += 1
        print(f"checked {len(out)} questions, {bad} problem(s)")
    else:
        with args.out.open("w", encoding="utf-8") as fh:
            for rec in out:
                fh.write(json.dumps({k: rec[k] for k in FIELDS if k in rec},
                                    ensure_ascii=False) + "\n")
        print(f"wrote {len(out)} questions to {args.out}, {bad} with problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
