"""``crm-rag ask`` with the LLM down: wall time, rc and what stderr says, per case.

Each case runs ``crm-rag ask`` in its own process (imports included, as a user meets it):

* ``no-llm``: no ``--llm`` (the floor: loading the index and answering);
* ``closed-port``: ``--llm openai:m@http://127.0.0.1:PORT/v1`` with nothing listening;
* ``hung-server``: a server that accepts connections and requests and answers none (a
  stopped or wedged process);
* ``slow-server``: one that answers ``GET /models`` but never a completion (the request's
  default time limit applies);
* ``import-openai``: ``python -c "import llama_index.llms.openai"`` alone (what naming an
  OpenAI-compatible LLM costs before anything is contacted).

The machine is shared: the 1-minute load average is recorded before each run.

Usage::

    python benchmarks/llm_down.py --index <folder> [--repeat 3] [--cases no-llm,closed-port]

Writes ``benchmarks/results/llm_down.json`` (``--output`` to change).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _machine import machine_info  # noqa: E402  (beside this script)

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "How many churches are in Nicosia District?"
CASES = ("no-llm", "closed-port", "hung-server", "slow-server", "import-openai")
STOP = threading.Event()


class _Slow(BaseHTTPRequestHandler):
    """Answers GET (404), never POST."""

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        STOP.wait(120)

    def log_message(self, *args: Any) -> None:
        """Silent."""


class _Hung(_Slow):
    """Answers nothing."""

    def do_GET(self) -> None:  # noqa: N802
        STOP.wait(120)

def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(argv: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "not-needed"}
    load = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    wall = time.monotonic() - started
    return {"wall_s": round(wall, 2), "rc": done.returncode, "load_1m": round(load, 2),
            "stderr": done.stderr.strip()[-300:], "count_10": "(count: 10)" in done.stdout}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", required=True, help="a demo graph index folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--output", default=str(ROOT / "benchmarks/results/llm_down.json"))
    args = parser.parse_args()
    ask = [sys.executable, "-m", "llama_index_crm.cli", "ask", "--index", args.index]
    servers = {}
    for name, handler in (("hung", _Hung), ("slow", _Slow)):
        server = servers[name] = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    argvs = {
        "no-llm": [*ask, QUESTION],
        "closed-port": [*ask, "--llm", f"openai:m@http://127.0.0.1:{_closed_port()}/v1",
                        QUESTION],
        **{f"{name}-server": [*ask, "--llm",
                              f"openai:m@http://127.0.0.1:{server.server_address[1]}/v1",
                              QUESTION] for name, server in servers.items()},
        "import-openai": [sys.executable, "-c", "import llama_index.llms.openai"],
    }
    results: dict[str, Any] = {"machine": machine_info(), "cases": {}}
    try:
        for case in args.cases.split(","):
            runs = [_run(argvs[case]) for _ in range(args.repeat)]
            walls = [r["wall_s"] for r in runs]
            results["cases"][case] = {"median_s": round(statistics.median(walls), 2),
                                      "max_s": max(walls), "runs": runs}
            print(f"{case:14s} median {statistics.median(walls):5.1f} s  max {max(walls):5.1f} s"
                  f"  rc {[r['rc'] for r in runs]}  load {[r['load_1m'] for r in runs]}"
                  f"  {runs[-1]['stderr'][:110]!r}", flush=True)
    finally:
        STOP.set()
        for server in servers.values():
            server.shutdown()
    Path(args.output).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
