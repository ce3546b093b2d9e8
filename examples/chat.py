"""A terminal chat over a llama-index-crm index folder.

Run from the repository root::

    python examples/chat.py --index indexes/troodos [--llm openai:gpt-4o-mini]

Without ``--llm`` the answers come from the documents and triples (no LLM, no network).
When the folder holds no index yet, the bundled Troodos demo graph is built into it first.
Follow-up questions ("When was it painted?") keep the context of the conversation. An empty
line, ``quit`` or Ctrl-D ends the chat. Questions can also be piped in, one per line::

    printf 'Who founded the church at Asinou?\\nWhen was it painted?\\n' \\
        | python examples/chat.py --index indexes/troodos
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from llama_index.core.chat_engine.types import BaseChatEngine

from llama_index_crm import CrmGraphIndex
from llama_index_crm.build.folder import MANIFEST
from llama_index_crm.errors import CrmError
from llama_index_crm.llms import make_llm

HERE = Path(__file__).resolve().parent
DEMO_GRAPH = HERE / "data" / "troodos.ttl"
QUIT = frozenset({"", "quit", "exit", ":q"})


def needs_demo_build(folder: Path) -> bool:
    """True when ``folder`` holds no index, or only the structural demo build of ``make demo``.

    A folder with another graph in it is never replaced: loading it reports what is wrong.
    """
    manifest = folder / MANIFEST
    if not manifest.exists():
        return not folder.exists() or not any(folder.iterdir())
    data = json.loads(manifest.read_text())
    return data.get("embedding") is None and data.get("source") == f"RDF files: {DEMO_GRAPH.name}"


def open_index(folder: Path) -> CrmGraphIndex:
    """The index in ``folder``, building the demo graph into it first when needed."""
    if needs_demo_build(folder):
        print(f"Building the demo graph {DEMO_GRAPH.name} into {folder} ...", file=sys.stderr)
        return CrmGraphIndex.build([str(DEMO_GRAPH)], folder)
    return CrmGraphIndex.load(folder)


def print_reply(reply: object, sources: int) -> None:
    """The answer, then its sources as ``score  label  <IRI>``."""
    print(getattr(reply, "response", "") or "(no answer)")
    nodes = getattr(reply, "source_nodes", None) or []
    if nodes and sources:
        print("Sources:")
        for n in nodes[:sources]:
            meta = n.node.metadata
            print(f"  {n.score or 0.0:.3f}  {meta.get('label', '')}  <{meta.get('uri', '')}>")
    print()


def chat_loop(engine: BaseChatEngine, sources: int) -> int:
    """Read questions from stdin until an empty line, ``quit`` or end of input."""
    interactive = sys.stdin.isatty()
    if interactive:
        print("Ask about the collection (empty line, 'quit' or Ctrl-D to stop).")
    while True:
        try:
            question = input("> " if interactive else "").strip()
        except EOFError:
            break
        if question.lower() in QUIT:
            break
        if not interactive:
            print(f"> {question}")
        try:
            reply = engine.chat(question)
        except CrmError as exc:
            print(f"error: {exc}\n", file=sys.stderr)
            continue
        except Exception as exc:  # an LLM server that fails must not end the conversation
            print(f"error: {type(exc).__name__}: {exc}\n", file=sys.stderr)
            continue
        print_reply(reply, sources)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, open (or build) the index and chat."""
    parser = argparse.ArgumentParser(description="Chat with a CIDOC-CRM index in the terminal.")
    parser.add_argument("--index", default="indexes/troodos",
                        help="index folder (the demo graph is built into it if it is empty)")
    parser.add_argument("--llm", default=None,
                        help="openai:MODEL, openai:MODEL@URL or ollama:MODEL (default: no LLM)")
    parser.add_argument("--sources", type=int, default=5, help="sources shown per answer")
    args = parser.parse_args(argv)
    try:
        llm = make_llm(args.llm)
        index = open_index(Path(args.index))
    except CrmError as exc:
        print(f"chat: error: {exc}", file=sys.stderr)
        return 1
    return chat_loop(index.as_chat_engine(llm), args.sources)


if __name__ == "__main__":
    sys.exit(main())
