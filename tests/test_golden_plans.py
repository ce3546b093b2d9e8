"""The golden question → plan table still holds: every question of
``tests/golden/plans.jsonl`` gets the same plan, coverage and status from the rule planner
on its small real graph (``tests/golden_plans.py``; rewrite the table deliberately with
``scripts/make_golden_plans.py --update``)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest
from golden_plans import TABLE, answerers, read_table, row

from llama_index_crm.exact.answerer import ExactAnswerer
from llama_index_crm.exact.vocabulary import PLANNER_DIR, QuestionWords
from llama_index_crm.ontology import find_config_dir

ROWS = read_table()


@pytest.fixture(scope="module")
def exact(tmp_path_factory: pytest.TempPathFactory,
          models_cache: Path) -> dict[str, ExactAnswerer]:
    return answerers(tmp_path_factory.mktemp("golden"), dict.fromkeys(r["fixture"] for r in ROWS))


def _pretty(data: dict[str, Any]) -> list[str]:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1).splitlines()


def test_the_table_is_large_and_covers_both_graphs() -> None:
    assert len(ROWS) >= 120, TABLE
    assert {r["fixture"] for r in ROWS} == {"troodos", "exhibitions"}
    assert sum(r["answer"]["status"] == "answered" for r in ROWS) >= 60


@pytest.mark.parametrize("golden", ROWS, ids=[f"{r['fixture']}:{r['question'][:40]}"
                                              for r in ROWS])
def test_the_question_gets_its_golden_plan(exact: dict[str, ExactAnswerer],
                                           golden: dict[str, Any]) -> None:
    now = json.loads(json.dumps(row(exact[golden["fixture"]], golden["fixture"],
                                    golden["question"], golden["history"]),
                                ensure_ascii=False, default=str))
    if now != golden:
        diff = "\n".join(difflib.unified_diff(_pretty(golden), _pretty(now), "golden", "now",
                                              lineterm=""))
        pytest.fail(f"{golden['question']!r} on {golden['fixture']}:\n{diff}")


def test_the_planner_words_file_must_hold_every_table_and_no_other(tmp_path: Path) -> None:
    source = json.loads((find_config_dir() / PLANNER_DIR / "en.json").read_text("utf-8"))
    words = QuestionWords.from_file(find_config_dir() / PLANNER_DIR / "en.json")
    assert words == QuestionWords.load("en") and "whom" in words.person_wh
    del source["words"]["articles"]
    source["words"]["adverbs"] = ["very"]
    broken = tmp_path / "xx.json"
    broken.write_text(json.dumps(source), encoding="utf-8")
    with pytest.raises(ValueError, match=r"missing \['articles'\], unknown \['adverbs'\]"):
        QuestionWords.from_file(broken)
