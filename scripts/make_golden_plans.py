"""Write or check ``tests/golden/plans.jsonl``: the rule planner's plan of every question of
``tests/golden/questions.json`` on the small real graphs (``tests/golden_plans.py``).

``python scripts/make_golden_plans.py --update`` rewrites the table (after a deliberate
change of behaviour, or new questions); without ``--update`` it reports the rows that
differ and exits 1 when any does. Run with ``PYTHONPATH=.`` from the repository root.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from golden_plans import TABLE, dump, read_table, rows  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        made = rows(Path(folder))
    if args.update:
        TABLE.parent.mkdir(parents=True, exist_ok=True)
        TABLE.write_text("".join(dump(r) + "\n" for r in made), encoding="utf-8")
        print(f"{len(made)} rows → {TABLE}")
        return 0
    old = {(r["fixture"], r["question"], dump(r["history"])): dump(r) for r in read_table()}
    changed = [r for r in made
               if old.get((r["fixture"], r["question"], dump(r["history"]))) != dump(r)]
    for r in changed:
        print(f"differs: [{r['fixture']}] {r['question']}")
    print(f"{len(made) - len(changed)}/{len(made)} rows as in {TABLE}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
