#!/usr/bin/env python3
"""(Re)compute the gold of the NMWA held-out question set from its `sparql` fields.

Runs make_gold.py (the YCBA sets; imported from beside this script) on the National Museum of
Wildlife Art graph: same command line, checks and derivation rules (listed in make_gold.py's
docstring; they are the dev set's), with these additions for NMWA:
  * anchor: besides <.../id/object/N> and <.../id/person-institution/N>, also
    <http://data.wildlifeart.org/object/N> and <http://data.wildlifeart.org/constituent/SLUG>
    head `gold_uris`.
  * object, actor, uri: also not labelled for creator_birth_year, creator_death_year and
    creator_birthplace (as for creator_nationality, the actor is only the path to the answer).
  * place (new column): an E53 place: its IRI joins gold_uris, the first comma-separated part of
    its label joins answer_labels.
  * credit: the museum name is also removed when trailing ("Robert Kuhn, National Museum of
    Wildlife Art"; variants with "The", a doubled space or "Musem").
None of these changes a YCBA or dev gold, so the script still reproduces them.

usage (from /work/main):
  python benchmarks/questions/make_gold_nmwa.py --check   # exit 1 if a stored gold differs
  python benchmarks/questions/make_gold_nmwa.py --write   # rewrite the file with the computed gold
  python benchmarks/questions/make_gold_nmwa.py --check
      --data ../shared/datasets/ycba/ycba_data.n3.zip --selftest ../shared/eval/ycba_dev.jsonl
                                                     # the derivation still reproduces the dev gold
  options: --data ZIP (default ../shared/datasets/nmwa/consolidated_data.n3.zip), FILE ...
  (default: nmwa_heldout.jsonl beside this script)

Only dependency: pyoxigraph.
"""
from __future__ import annotations

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # make_gold.py lies beside this script
    sys.path.insert(0, HERE)

from make_gold import ANCHOR_IRI, MUSEUM, Dataset, main  # noqa: E402

NMWA = Dataset(
    data=os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "nmwa",
                                       "consolidated_data.n3.zip")),
    files=(os.path.join(HERE, "nmwa_heldout.jsonl"),),
    anchor_re=re.compile(
        rf"<({ANCHOR_IRI}|http://data\.wildlifeart\.org/(?:object/\d+|constituent/[A-Za-z0-9_]+))>"),
    museums=(MUSEUM, "National Museum of Wildlife Art"),
    # NMWA credit lines end with the museum name ("Robert Kuhn, National Museum of Wildlife Art";
    # variants with "The", a doubled space or "Musem")
    trailing_museum_re=re.compile(
        r"[,;]?\s*(?:The\s+)?National\s+Muse?um\s+of\s+Wildlife\s+Art\.?$", re.I),
    path_actor_templates=frozenset({"creator_nationality", "creator_birth_year",
                                    "creator_death_year", "creator_birthplace"}),
    place_column=True,
)


if __name__ == "__main__":
    main(NMWA, __doc__)
