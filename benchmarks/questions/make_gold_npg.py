#!/usr/bin/env python3
"""(Re)compute the gold of the NPG held-out question set from its `sparql` fields.

Runs make_gold.py (the YCBA sets; imported from beside this script) on the National Portrait
Gallery graph: same command line, checks and derivation rules (listed in make_gold.py's
docstring; they are the dev set's), with these NPG settings:
  * data: the directory of the 14 NPG zips (shared/datasets/npg); every *.zip in it is loaded,
    one bulk load per file (all parse as strict N-Triples; duplicates across files collapse).
  * anchor: besides the YCBA IRIs, <http://data.npg.si.edu/object/N> and
    <http://data.npg.si.edu/person-institution/N> head `gold_uris`.
  * credit: "National Portrait Gallery, Smithsonian Institution" is removed from the front, and
    the donor phrase may be lower case ("...; gift of Phyllis B. Cox" -> "Phyllis B. Cox").
  * object, actor, uri: not labelled for the templates in `path_actor_templates` below (the
    actor is only the path to a year or place, as for creator_nationality).
Birth/death places are per-actor nodes (.../birth_event/birth_location_class): the queries give
them as a `label` column, so they are answer labels, not gold URIs.

usage (from /work/main):
  python benchmarks/questions/make_gold_npg.py --check   # exit 1 if a stored gold differs
  python benchmarks/questions/make_gold_npg.py --write   # rewrite the file with the computed gold
  options: --data DIR_OR_ZIP (default ../shared/datasets/npg), FILE ... (default:
  npg_heldout.jsonl beside this script)

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

NPG = Dataset(
    data=os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "datasets", "npg")),
    files=(os.path.join(HERE, "npg_heldout.jsonl"),),
    anchor_re=re.compile(
        rf"<({ANCHOR_IRI}|http://data\.npg\.si\.edu/(?:object|person-institution)/\d+)>"),
    museums=(MUSEUM, "National Portrait Gallery, Smithsonian Institution"),
    path_actor_templates=frozenset({
        "creator_nationality", "creator_birth_year", "creator_death_year", "creator_birthplace",
        "sitter_birth_year", "followup_birth_year", "followup_death_year",
        "followup_birthplace"}),
    credit_prefixes=("Gift of ", "gift of ", "Bequest of ", "bequest of "),
)


if __name__ == "__main__":
    main(NPG, __doc__)
