"""The demo behind ``make demo``: index the bundled Troodos graph and ask it questions.

Run from the repository root: ``python examples/demo.py [--out DIR]``. No LLM is needed:
answers are built from the retrieved documents and triples.
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from llama_index_crm import CrmGraphIndex
from llama_index_crm.sources import RdfFileSource

HERE = Path(__file__).resolve().parent
DEMO_GRAPH = HERE / "data" / "troodos.ttl"
SHOWN = ("church/asinou", "person/nikephoros-ischyrios")
"""Documents printed after the summary: those whose IRI ends with these."""
QUESTIONS = (
    "Who founded the church at Asinou?",
    "When were the wall paintings of Panagia tou Araka made?",
    "Which churches were painted by Philippos Goul?",
    "How many churches are in Nicosia District?",
    "how many churches did picasso paint",
    "what is the oldest church",
    "when was asinou built",
    "who is the most prolific painter",
)


def main() -> None:
    """Build the demo index into ``--out``, print a summary, two documents and answers."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(HERE.parent / "indexes" / "troodos"))
    args = parser.parse_args()
    out = Path(args.out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    with RdfFileSource([DEMO_GRAPH]) as source:
        index = CrmGraphIndex.build(source, out)
    seconds = time.perf_counter() - started
    stats = index.manifest["stats"]

    triples = pq.read_table(out / "triples.parquet", columns=["s", "o"])
    objects = triples.column("o")
    nodes = set(pc.unique(triples.column("s")).to_pylist())
    nodes |= set(pc.unique(pc.filter(objects, pc.invert(pc.starts_with(objects, '"'))))
                 .to_pylist())
    by_category = collections.Counter(index.meta.categories)

    print(f"Troodos painted churches: {DEMO_GRAPH.relative_to(HERE.parent)}")
    print(f"  nodes (IRIs and blank nodes)  {len(nodes):,}")
    print(f"  triples archived              {stats['triples_archived']:,}")
    print(f"  entities                      {stats['entities']:,}")
    print(f"  satellites folded in          {stats['satellites_absorbed']:,}")
    print(f"  documents chained away        {stats['documents_chained']:,}")
    print(f"  documents                     {len(index.doc_ids):,}")
    for category, count in sorted(by_category.items()):
        print(f"    {category:<10} {count:,}")
    print(f"  built and embedded in {seconds:.1f} s into {out}")
    print(f"  encoder backend               {index.embed_backend} (--embed-backend)")
    for suffix in SHOWN:
        doc = next((d for d in index.doc_ids if d.endswith(suffix)), None)
        if doc is not None:
            print("\n" + "-" * 78 + f"\n{index.node(doc).get_content()}")

    pipeline = index.as_query_pipeline()
    print("\n" + "=" * 78 + "\nQuestions (no LLM: answers are computed over the graph's triples)")
    for question in QUESTIONS:
        answer = pipeline.run(question)
        print(f"\nQ: {question}\nA: {answer.answer}  [{answer.status}]")
        for line in (answer.exact.evidence[:2] if answer.exact else []):
            print(f"   evidence: {line}")
        sources = ", ".join(r["label"] for r in answer.retrieved()[:4])
        print(f"   retrieved: {sources} … ({answer.latency_s * 1000:.0f} ms)")
    print(f"\nAsk your own: .venv/bin/crm-rag ask --index {out} \"Who painted Agiasmati?\"")
    converse(index)


CONVERSATION = (
    'Tell me about "Panagia Podithou".',
    "Who founded it?",
    "Apart from this one, which churches are in Nicosia District?",
)
"""A question, a follow-up (retrieved twice: contextualised and as asked) and a pivot (the
church of the first turn is left out)."""


def converse(index: CrmGraphIndex, shown_sources: int = 3, shown_lines: int = 3) -> None:
    """Ask :data:`CONVERSATION` in one chat; print each answer with its sources and the
    graph path that brought each source into the context."""
    chat = index.as_chat_engine()
    print("\n" + "=" * 78 + "\nA conversation (crm-rag chat; /sources shows every path)")
    for question in CONVERSATION:
        chat.chat(question)
        answer = chat.last
        assert answer is not None
        turn = answer.plan.turn.replace("_", "-")
        left_out = f", leaving out {', '.join(answer.plan.excluded)}" if answer.plan.excluded \
            else ""
        print(f"\nQ: {question}   [{turn}{left_out}]")
        lines = answer.answer.splitlines()
        more = " …" if len(lines) > shown_lines else ""
        print("A: " + "\n   ".join(lines[:shown_lines]) + more)
        for record in answer.source_records()[:shown_sources]:
            path = record["paths"][0] if record["paths"] else "(found by its words)"
            print(f"   source: {record['label']}  <{record['uri']}>\n      path: {path}")


if __name__ == "__main__":
    main()
