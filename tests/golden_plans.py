"""The golden question → plan table (``tests/golden/plans.jsonl``): what the rule planner
makes of each question on small real graphs, as stable JSON.

Each row holds a question (with its earlier turns, if any), the fixture graph it is asked
of, what :meth:`ExactAnswerer.parse` made of it (the plan in full, names that link to
nothing, ambiguities, the reason when there is no plan), and what the answerer did with it
(status, the plan it ran, each word's role in the coverage check, the total). A refactor of
the planner must leave every row as it is (``tests/test_golden_plans.py``); a new question
shape or language is a new row (``scripts/make_golden_plans.py --update``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from llama_index_crm.exact.answerer import ExactAnswerer, answerer_for
from llama_index_crm.exact.plan import ExactPlan
from llama_index_crm.index import CrmGraphIndex

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "golden" / "plans.jsonl"
"""The golden table, one JSON row a line."""
QUESTIONS = ROOT / "tests" / "golden" / "questions.json"
"""The questions of the table: fixture → list of questions or [question, history] pairs."""
FIXTURES: dict[str, Path] = {
    "troodos": ROOT / "examples" / "data" / "troodos.ttl",
    "exhibitions": ROOT / "tests" / "data" / "exhibitions.ttl",
}
"""The small real graphs the questions are asked of."""

Turns = list[list[str]]


def questions() -> list[tuple[str, str, Turns]]:
    """(fixture, question, history) of every question of the table, in order."""
    listed = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    found: list[tuple[str, str, Turns]] = []
    for fixture, entries in listed.items():
        for entry in entries:
            if isinstance(entry, str):
                found.append((fixture, entry, []))
            else:
                found.append((fixture, entry[0], [list(t) for t in entry[1]]))
    return found


def _plan(plan: ExactPlan | None) -> dict[str, Any] | None:
    if plan is None:
        return None
    data = dataclasses.asdict(plan)
    data.pop("question", None)  # the row holds it
    return data


def _anchors(plan: ExactPlan | None) -> list[list[str]]:
    return [] if plan is None else [[a.text, a.node, a.category, a.how] for a in plan.anchors]


def _relations(plan: ExactPlan | None) -> list[str]:
    if plan is None:
        return []
    return [link.relation for var in plan.variables for link in var.links]


def _role(role: str) -> str:
    """A word's role; which of several relations of the plan a relation word is credited to
    follows set order (``understanding.covered``), so only that it is a relation is kept."""
    return "relation" if role.startswith("relation:") else role


def row(exact: ExactAnswerer, fixture: str, question: str, history: Turns) -> dict[str, Any]:
    """The golden row of one question."""
    turns = [(q, a) for q, a in history]
    parsed = exact.parse(question, turns)
    answer = exact.answer(question, turns)
    understanding = answer.understanding
    return {
        "fixture": fixture,
        "question": question,
        "history": history,
        "focus": [[a.text, a.node, a.category, a.how] for a in exact._focus(turns)],
        "parsed": {
            "kind": parsed.plan.operation if parsed.plan else None,
            "anchors": _anchors(parsed.plan),
            "relations": _relations(parsed.plan),
            "plan": _plan(parsed.plan),
            "missing": [[m.text, list(m.expected), list(m.closest)] for m in parsed.missing],
            "ambiguous": [[u.text, sorted({c.node for c in u.candidates})]
                          for u in parsed.ambiguous],
            "reason": parsed.reason,
        },
        "answer": {
            "status": answer.status,
            "language": answer.language,
            "kind": answer.plan.operation if answer.plan else None,
            "anchors": _anchors(answer.plan),
            "relations": _relations(answer.plan),
            "plan": _plan(answer.plan),
            "words": [[w.word, _role(w.role)] for w in understanding.words]
            if understanding else None,
            "total": answer.total,
        },
    }


def answerers(folder: Path, fixtures: Iterable[str]) -> dict[str, ExactAnswerer]:
    """The answerer of each fixture graph, indexes built under ``folder``."""
    built: dict[str, ExactAnswerer] = {}
    for name in fixtures:
        index = CrmGraphIndex.build([str(FIXTURES[name])], folder / name / "index",
                                    cache_dir=folder / name / "cache")
        built[name] = answerer_for(index)
    return built


def rows(folder: Path, progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every row of the table, computed now."""
    listed = questions()
    exact = answerers(folder, dict.fromkeys(f for f, _, _ in listed))
    made = []
    for fixture, question, history in listed:
        if progress:
            progress(question)
        made.append(row(exact[fixture], fixture, question, history))
    return made


def dump(row_: dict[str, Any]) -> str:
    """One row as its line of the table."""
    return json.dumps(row_, ensure_ascii=False, sort_keys=True, default=str)


def read_table(path: Path = TABLE) -> list[dict[str, Any]]:
    """The rows of the committed table."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
