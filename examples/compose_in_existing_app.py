"""Add llama-index-crm's parts to an application that already has its own LlamaIndex index.

The application: a ``VectorStoreIndex`` over a guide's plain-text notes about the Troodos
churches. Added to it, one part at a time:

1. the CRM reader's documents (one per church, person, place or event, with its FR paths
   walked), inserted into the same vector index;
2. the ``CategoryRetriever`` of a ``CrmGraphIndex`` of the same graph ("which churches…"
   only looks at Things), merged with the application's own retriever;
3. the ``CoherentSubgraphPostprocessor`` (a connected, relevant selection) and the
   ``TripleContextPostprocessor`` (each document's facts as triples), reading the reader's
   triple store.

It answers through a stock ``RetrieverQueryEngine``. Without ``--llm`` the answers are
built from the documents and triples (llama-index-crm's synthesizer); with one, LlamaIndex's
own response synthesizer writes them. Run from the repository root::

    python examples/compose_in_existing_app.py [--index indexes/troodos] [--llm SPEC]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.response_synthesizers import BaseSynthesizer, get_response_synthesizer
from llama_index.core.schema import NodeWithScore, QueryBundle

from llama_index_crm import (
    CategoryRetriever,
    CidocCrmReader,
    CoherentSubgraphPostprocessor,
    CrmGraphIndex,
    RuleBasedAnalyzer,
    TripleContextPostprocessor,
)
from llama_index_crm.embeddings import load_embed_model
from llama_index_crm.llms import make_llm
from llama_index_crm.query.synthesis import CrmResponseSynthesizer

HERE = Path(__file__).resolve().parent
DEMO_GRAPH = HERE / "data" / "troodos.ttl"
NOTES = (
    ("Access to Asinou", "Asinou lies in the forest above Nikitari. Visitors reach the church "
     "by the mountain road from Nikitari and ask the caretaker in the village for the key."),
    ("Photography", "Flash photography is not allowed inside the painted churches: the light "
     "harms the wall paintings. Ask the caretaker before taking pictures."),
    ("Steep roofs", "Most Troodos churches have steep-pitched timber roofs over the masonry "
     "vaults, against the snow of the mountain winters."),
)
"""The application's own notes: plain text, no graph behind them."""
QUESTIONS = (
    "Which churches are in Nicosia District?",
    "How do visitors reach the church at Asinou?",
)
TOP_K = 10


class MergedRetriever(BaseRetriever):
    """The application's glue: its own retriever's hits interleaved with another's."""

    def __init__(self, first: BaseRetriever, second: BaseRetriever) -> None:
        super().__init__()
        self.first, self.second = first, second

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        merged: dict[str, NodeWithScore] = {}
        ranked = zip(self.first.retrieve(query_bundle), self.second.retrieve(query_bundle),
                     strict=False)
        for pair in ranked:
            for hit in pair:
                merged.setdefault(hit.node.node_id, hit)
        return list(merged.values())


def build_engine(crm_index: CrmGraphIndex, llm_spec: str | None = None) -> RetrieverQueryEngine:
    """The application's query engine with llama-index-crm's parts added."""
    embed_model = load_embed_model()
    # the application as it was: a vector index over its own notes
    notes = [Document(text=f"{title}\n{text}",
                      metadata={"label": title, "source": "guide's notes"})
             for title, text in NOTES]
    app_index = VectorStoreIndex.from_documents(notes, embed_model=embed_model)

    # 1. the CRM reader's documents go into the same index
    reader = CidocCrmReader(paths=[str(DEMO_GRAPH)])
    app_index.insert_nodes(list(reader.lazy_load_data()))

    # 2. the category channel of a CrmGraphIndex of the same graph, next to the app's own
    analyzer = RuleBasedAnalyzer.for_index(crm_index)
    category = CategoryRetriever(crm_index, analyzer.plan_for, similarity_top_k=TOP_K)
    retriever = MergedRetriever(app_index.as_retriever(similarity_top_k=TOP_K), category)

    # 3. the re-ranker and the facts, over the reader's triple store
    postprocessors: list[BaseNodePostprocessor] = [
        CoherentSubgraphPostprocessor.from_components(
            reader.triple_store, plan_provider=analyzer.plan_for, top_n=8),
        TripleContextPostprocessor.from_components(reader.triple_store, budget_chars=3000),
    ]
    llm = make_llm(llm_spec)
    synthesizer: BaseSynthesizer = (
        get_response_synthesizer(llm=llm) if llm is not None
        else CrmResponseSynthesizer(crm_index.as_query_pipeline(analyzer=analyzer)))
    return RetrieverQueryEngine(retriever=retriever, response_synthesizer=synthesizer,
                                node_postprocessors=postprocessors)


def main(argv: list[str] | None = None) -> int:
    """Open (or build) the CRM index, compose the engine and ask it the questions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", default=str(HERE.parent / "indexes" / "troodos"),
                        help="a CrmGraphIndex of the demo graph (built there if missing)")
    parser.add_argument("--llm", default=None, help="openai:MODEL, ollama:MODEL (default: none)")
    args = parser.parse_args(argv)
    folder = Path(args.index)
    if (folder / "manifest.json").exists():
        crm_index = CrmGraphIndex.load(folder)
    else:
        print(f"Building the demo graph into {folder} ...", file=sys.stderr)
        crm_index = CrmGraphIndex.build([str(DEMO_GRAPH)], folder)
    engine = build_engine(crm_index, args.llm)
    for question in QUESTIONS:
        response = engine.query(question)
        print(f"Q: {question}\nA: {response}")
        for hit in response.source_nodes[:6]:
            meta = hit.node.metadata
            origin = meta.get("source") or meta.get("uri", "")
            print(f"   {hit.score or 0.0:.3f}  {meta.get('label', '')}  ({origin})")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
