"""(Re)compute and check the gold of the blind set v14 (``v14.jsonl`` beside this script).

Usage (from the repository root; needs ``../shared/datasets`` beside the repository)::

    python benchmarks/questions/battery/make_gold_v14.py --check  # default: recompute, compare
    python benchmarks/questions/battery/make_gold_v14.py --write  # rewrite v14.jsonl with the gold
    python benchmarks/questions/battery/make_gold_v14.py --stats  # composition per graph

With ``V14_STORES=<dir>`` the prebuilt on-disk stores ``<dir>/<dataset>`` are opened read-only
instead of loading the zips.

The graphs and their order (imported from ``make_gold_v9.py``), the column rules (``?anchor``,
``?via``, ``?item``, ``?label``, ``?count``) and the checks (``make_gold_v4.py``) are v9's to
v13's; only the id prefix (``v14-<dataset>-NNN``) and the store variable differ. v14's theme is
WHAT THE THING IS, HOW IT CAME HERE, and CHAINS OF TWO FACTS: medium / material, object type,
dimensions, accession number, credit line / donor / how acquired, acquisition year, current
owner, technique and depicted subjects where the graph records them; composed questions
("where was the painter of T born", "what else did the maker of T make", "sitters portrayed by
artists born in P", "the director of the exhibition where X showed in 1939", "artists of E who
also directed an exhibition"); combined constraints (works by X of type T, of a medium before
a year, donor and type, nationality and type), some counts 0 because the combination does not
exist although each part does; exclusion ("works by X that are not photographs") and
comparison ("who has more works, A or B", "which of A, B, C was born earliest": the gold is
the person that answers, ``compare_*`` templates; ties would return every tied row). Credit
line labels drop the museum name and a leading "Gift of" / "Bequest of" (and YCBA's ", Yale BA
..." / ", Class of ..." suffix); places keep the part before the first comma; ACM
classifications are singularised. Phrasing is mixed (full questions, fragments, lower case,
commands, gallery preambles, "Surname, First"), with about a fifth of the museum questions in
French, German, Italian, Spanish, Dutch or Portuguese. Languages: ``en``, ``el`` (demo),
``fr``, ``de``, ``it``, ``es``, ``nl``, ``pt`` (Dutch and Portuguese accepted as in
``make_gold_v9.py``).
Exit codes: 0 all equal, 1 a difference or an invalid question, 2 a graph file is missing.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # make_gold_v12.py
from make_gold_v12 import nl_pt_set_main  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    return nl_pt_set_main("v14", __doc__ or "", argv)


if __name__ == "__main__":
    sys.exit(main())
