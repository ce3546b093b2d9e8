"""The demo behind ``make demo``: build the bundled Troodos graph and show what came out.

Run from the repository root: ``python examples/demo.py [--out DIR]``.
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm.build.folder import build_folder
from llama_index_crm.sources import RdfFileSource

HERE = Path(__file__).resolve().parent
DEMO_GRAPH = HERE / "data" / "troodos.ttl"
SHOWN = ("church/asinou", "person/nikephoros-ischyrios")
"""Documents printed at the end: those whose IRI ends with these."""


def main() -> None:
    """Build the demo graph into ``--out`` and print a summary and two documents."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(HERE.parent / "indexes" / "troodos"))
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    with RdfFileSource([DEMO_GRAPH]) as source:
        docs, stats = build_folder(source, out)
    seconds = time.perf_counter() - started

    triples = pq.read_table(out / "triples.parquet", columns=["s", "o"])
    objects = triples.column("o")
    nodes = set(pc.unique(triples.column("s")).to_pylist())
    nodes |= set(pc.unique(pc.filter(objects, pc.invert(pc.starts_with(objects, '"'))))
                 .to_pylist())
    by_category = collections.Counter(d.category for d in docs)

    print(f"Troodos painted churches: {DEMO_GRAPH.relative_to(HERE.parent)}")
    print(f"  nodes (IRIs and blank nodes)  {len(nodes):,}")
    print(f"  triples archived              {stats.triples_archived:,}")
    print(f"  entities                      {stats.entities:,}")
    print(f"  satellites folded in          {stats.satellites_absorbed:,}")
    print(f"  documents chained away        {stats.documents_chained:,}")
    print(f"  documents                     {stats.documents:,}")
    for category, count in sorted(by_category.items()):
        print(f"    {category:<10} {count:,}")
    print(f"  built in {seconds:.2f} s into {out}")
    for word in SHOWN:
        doc = next((d for d in docs if d.uri.endswith(word)), None)
        if doc is not None:
            print("\n" + "-" * 78 + f"\n{doc.text}")


if __name__ == "__main__":
    main()
