#!/usr/bin/env python3
"""Build ``config/exact/relations.json``: the relations the exact-answer layer links words to.

Reads the hand-kept ``config/exact/everyday_words.json`` (everyday verbs and nouns per
Fundamental Relationship or derived relation) and the generated ontology layer
(``config/fundamental_relationships.json``, ``config/properties.json``) and writes one entry
per relation with its CRM property paths, fully resolved and checked:

* an FR reference becomes the *core* of each of its paths: leading optional steps (the
  part-whole and membership climbs that broaden where a path starts) and trailing optional
  steps are dropped, so that "made by" means the actors of the thing's own production, not
  the nationality groups they belong to; a trailing repeated step (``P89_falls_within``)
  becomes the relation's ``closure``, applied when the question gives the range node ("in
  Nicosia District" also takes what lies in its villages);
* ``then`` steps are appended (a creation event, then its ``P4_has_time-span``);
* a ``statement`` relation reads E33 texts attached by ``P67i_is_referred_to_by``, typed with
  the given Getty AAT concepts or type labels; an ``identifier`` relation reads identifiers;
* words: the entry's verbs and nouns, the FR label, and the English labels of the CRM
  properties on its paths (so "carried out by", "has current location" work as written).

Every property name is checked against the ontology (exit status 1 listing unknown names).
The output is deterministic; a test checks that it matches the committed file.

Usage::

    python scripts/build_relations.py [--config config] [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO / "config"
WORDS_FILE = "exact/everyday_words.json"
OUT_FILE = "exact/relations.json"

STATEMENT_PATH: list[dict[str, Any]] = [{"any_of": [
    {"property": "P67i_is_referred_to_by"}, {"property": "P129i_is_subject_of"}]}]
"""Where statements about a thing hang (P129i is a sub-property of P67i; both listed for
graphs whose predicates are not expanded)."""
IDENTIFIER_PATH: list[dict[str, Any]] = [{"property": "P1_is_identified_by"}]
ENTRY_KEYS = frozenset({
    "id", "label", "fr", "fr_paths", "extra_paths", "then", "closure", "domain", "range",
    "paths", "value", "statement", "identifier", "range_types", "verbs", "nouns",
    "prepositions", "event_hints", "fallback"})


def core_steps(steps: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]],
                                                           dict[str, Any] | None]:
    """The core of an FR path and its closure: leading and trailing optional steps dropped;
    a trailing repeated single-property step kept as the closure.

    >>> core_steps([{"property": "P46i", "optional": True, "repeat": True},
    ...             {"property": "P53"}, {"property": "P89", "optional": True, "repeat": True}])
    ([{'property': 'P53'}], {'property': 'P89', 'repeat': True})
    >>> core_steps([{"property": "P89", "optional": True, "repeat": True}])
    ([{'property': 'P89', 'repeat': True}], None)
    """
    items = [dict(s) for s in steps]
    start = 0
    while start < len(items) and is_optional(items[start]):
        start += 1
    if start == len(items):  # nothing but optional steps: take the first once or more
        first = {k: v for k, v in items[0].items() if k != "optional"}
        return [first], None
    end = len(items)
    while end > start and is_optional(items[end - 1]):
        end -= 1
    closure = None
    trailing = items[end:]
    if trailing and "property" in trailing[0] and trailing[0].get("repeat"):
        closure = {"property": trailing[0]["property"], "repeat": True}
    return items[start:end], closure


def is_optional(step: Mapping[str, Any]) -> bool:
    """Whether a step may be skipped: itself optional, or a union of optional steps."""
    children = step.get("any_of", ())
    return bool(step.get("optional")) or bool(children) and all(map(is_optional, children))


def step_properties(step: Mapping[str, Any]) -> Iterator[str]:
    """Every property a step names."""
    if "property" in step:
        yield str(step["property"])
    yield from (str(p) for p in step.get("all_of", ()))
    for child in [*step.get("any_of", ()), *step.get("sequence", ())]:
        yield from step_properties(child)


def resolve(entry: Mapping[str, Any], frs: Mapping[str, Any],
            properties: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """One relation of ``relations.json`` and the problems found in its entry."""
    problems = [f"{entry.get('id')}: unknown key {k}" for k in entry if k not in ENTRY_KEYS]
    paths: list[list[dict[str, Any]]] = []
    closure = entry.get("closure")
    domain, range_ = entry.get("domain"), entry.get("range")
    fr_id = entry.get("fr")
    if fr_id:
        fr = frs.get(fr_id)
        if fr is None:
            return {}, [f"{entry['id']}: unknown FR {fr_id}"]
        domain, range_ = domain or fr["domain"], range_ or fr["range"]
        wanted = entry.get("fr_paths")
        for number, path in enumerate(fr["paths"], start=1):
            if wanted and number not in wanted:
                continue
            steps, found = core_steps(path["steps"])
            if steps not in paths:
                paths.append(steps)
            closure = closure or found
    for path in entry.get("paths", ()):
        paths.append([dict(s) for s in path])
    for path in entry.get("extra_paths", ()):
        paths.append([dict(s) for s in path])
    if entry.get("statement"):
        paths.append([dict(s) for s in STATEMENT_PATH])
        range_ = "Text"
    if entry.get("identifier"):
        paths.append([dict(s) for s in IDENTIFIER_PATH])
        range_ = "Text"
    then = [dict(s) for s in entry.get("then", ())]
    paths = [p + then for p in paths]
    if then or entry.get("value") in {"time", "text", "dimension"}:
        closure = entry.get("closure")  # a value is compared, never widened
    if not paths:
        problems.append(f"{entry['id']}: no path")
    names = sorted({p for path in paths for s in path for p in step_properties(s)}
                   | set(step_properties(closure or {})))
    problems += [f"{entry['id']}: unknown property {p}" for p in names if p not in properties]
    named = {p for path in paths for s in path if not is_optional(s) for p in step_properties(s)}
    crm_words = sorted({str(properties[p]["label"]).lower() for p in named if p in properties})
    label_words = [str(frs[fr_id]["label"]).lower()] if fr_id else []
    relation = {
        "id": entry["id"],
        "label": entry["label"],
        "fr": fr_id,
        "domain": domain,
        "range": range_ or ("Time" if entry.get("value") == "time" else "Any"),
        "value": entry.get("value", "node"),
        "paths": paths,
        "closure": closure,
        "statement_types": list(entry.get("statement", entry.get("identifier", ()))),
        "range_types": list(entry.get("range_types", ())),
        "verbs": list(entry.get("verbs", ())),
        "nouns": list(entry.get("nouns", ())),
        "prepositions": list(entry.get("prepositions", ())),
        "crm_words": sorted(set(label_words + crm_words)),
        "event_hints": dict(entry.get("event_hints", {})),
        "fallback": entry.get("fallback"),
    }
    return relation, problems


def build(config: Path) -> tuple[dict[str, Any], list[str]]:
    """The content of ``relations.json`` and the problems found."""
    words = json.loads((config / WORDS_FILE).read_text(encoding="utf-8"))
    frs = {fr["id"]: fr for fr in json.loads(
        (config / "fundamental_relationships.json").read_text(encoding="utf-8"))["relationships"]}
    properties = json.loads((config / "properties.json").read_text(encoding="utf-8"))["properties"]
    relations, problems = [], []
    for entry in words["relations"]:
        relation, found = resolve(entry, frs, properties)
        problems += found
        if relation:
            relations.append(relation)
    ids = [r["id"] for r in relations]
    problems += [f"duplicate relation id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    return {
        "about": "Generated by scripts/build_relations.py from config/exact/everyday_words.json "
                 "(hand-kept) and the FR and property tables of config/; do not edit.",
        "relations": relations,
    }, problems


def dump_json(obj: Any) -> str:
    """The deterministic JSON text of ``obj``."""
    return json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` compare) ``config/exact/relations.json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the committed file differs from what would be written")
    args = parser.parse_args(argv)
    data, problems = build(args.config)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    text = dump_json(data)
    out = args.config / OUT_FILE
    if args.check:
        same = out.exists() and out.read_text(encoding="utf-8") == text
        print(f"{out}: {'up to date' if same else 'differs: run scripts/build_relations.py'}")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {out} ({len(data['relations'])} relations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
