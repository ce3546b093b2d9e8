"""A terminal chat over a llama-index-crm index folder.

Run from the repository root::

    python examples/chat.py --index indexes/troodos [--llm openai:gpt-4o-mini] [--prompts my.toml]

Without ``--llm`` the answers come from the documents and triples (no LLM, no network).
When the folder holds no index yet, the bundled Troodos demo graph is built into it first.
Follow-ups ("When was it painted?"), vague follow-ups ("Tell me more") and pivots ("Aside
from Asinou, which churches…") keep the context of the conversation. Commands: ``/sources``
(the last answer's sources with their graph paths and triples), ``/context``, ``/reset``,
``/quit`` (an empty line or Ctrl-D also ends the chat). Questions can also be piped in::

    printf 'Who founded the church at Asinou?\\nWhen was it painted?\\n/sources\\n' \\
        | python examples/chat.py --index indexes/troodos
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from llama_index_crm import CrmGraphIndex
from llama_index_crm.build.folder import MANIFEST
from llama_index_crm.errors import CrmError
from llama_index_crm.llms import make_llm
from llama_index_crm.query.console import ChatConsole

HERE = Path(__file__).resolve().parent
DEMO_GRAPH = HERE / "data" / "troodos.ttl"


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


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, open (or build) the index and chat."""
    parser = argparse.ArgumentParser(description="Chat with a CIDOC-CRM index in the terminal.")
    parser.add_argument("--index", default="indexes/troodos",
                        help="index folder (the demo graph is built into it if it is empty)")
    parser.add_argument("--llm", default=None,
                        help="openai:MODEL, openai:MODEL@URL or ollama:MODEL (default: no LLM)")
    parser.add_argument("--prompts", default=None,
                        help="a TOML file overriding config/prompts/default.toml")
    parser.add_argument("--sources", type=int, default=5, help="sources shown per answer")
    args = parser.parse_args(argv)
    try:
        llm = make_llm(args.llm)
        index = open_index(Path(args.index))
        engine = index.as_chat_engine(llm, prompts=args.prompts)
    except CrmError as exc:
        print(f"chat: error: {exc}", file=sys.stderr)
        return 1
    return ChatConsole(engine, sources=args.sources).run()


if __name__ == "__main__":
    sys.exit(main())
