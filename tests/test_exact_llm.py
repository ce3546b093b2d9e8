"""The exact answer with an LLM: its result leads the LLM's context, and an LLM planner
(structured output) plans first, the rules taking over when it fails. Tested with MockLLM
and with an OpenAI-compatible HTTP server started here (a stub that records requests)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from typing import Any

import pytest
from llama_index.core.llms import MockLLM

from llama_index_crm.cli import main as cli_main
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.llms import make_llm
from llama_index_crm.query.engine import CrmQueryPipeline

QUESTION = "How many churches are in Nicosia District?"
PLAN = {"operation": "count", "variables": [{
    "category": "Thing", "noun": "churches", "types": ["church"],
    "links": [{"relation": "located-in", "name": "Nicosia District"}]}]}
ANSWER = "There are ten churches in Nicosia District (stub)."


class Stub:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 that records requests."""

    def __init__(self, plan: object) -> None:
        self.plan = plan
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
                planning = "You turn a question about a museum collection" in text
                content = (json.dumps(stub.plan) if planning and isinstance(stub.plan, dict)
                           else str(stub.plan) if planning else ANSWER)
                reply = json.dumps({
                    "id": "stub", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "stub"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Stub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub_plan() -> Iterator[Stub]:
    with Stub(PLAN) as stub:
        yield stub


def _ask(index: CrmGraphIndex, url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    out = StringIO()
    with redirect_stdout(out):
        code = cli_main(["ask", "--index", str(index.folder), "--llm",
                         f"openai:stub-model@{url}", QUESTION])
    assert code == 0
    return out.getvalue()


def test_http_llm_plans_and_answers_from_the_exact_result(
        demo_index: CrmGraphIndex, stub_plan: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    printed = _ask(demo_index, stub_plan.url, monkeypatch)
    assert printed.startswith(ANSWER) and "(count: 11)" in printed and "[answered]" in printed
    planning, answering = stub_plan.requests
    assert "located-in" in json.dumps(planning)  # the relation list reached the planner
    context = json.dumps(answering["messages"], ensure_ascii=False)
    exact = context.index("11 churches located in Nicosia District")
    assert exact < context.index("Documents:")  # the exact result leads the context
    # the plan that was executed is the LLM's, linked to the graph's node
    pipeline = CrmQueryPipeline(demo_index, llm=make_llm(f"openai:stub-model@{stub_plan.url}"))
    answer = pipeline.run(QUESTION)
    assert answer.exact is not None and answer.exact.plan is not None
    assert answer.exact.plan.analyzer == "llm" and answer.count == 11


def test_http_llm_planner_failure_falls_back_to_the_rules(
        demo_index: CrmGraphIndex, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    bad = {"operation": "count", "variables": [{"links": [{"relation": "no-such-relation",
                                                            "name": "Nicosia District"}]}]}
    with Stub(bad) as stub:
        printed = _ask(demo_index, stub.url, monkeypatch)
    assert "(count: 11)" in printed and "[answered]" in printed
    assert "LLM planner failed" in caplog.text and "no-such-relation" in caplog.text


def test_mock_llm_receives_the_exact_block_first(demo_index: CrmGraphIndex) -> None:
    pipeline = CrmQueryPipeline(demo_index, llm=MockLLM())
    answer = pipeline.run(QUESTION)
    # MockLLM cannot plan (no JSON): the rules did; it echoes the prompt it was given
    assert answer.status == "answered" and answer.count == 11
    assert answer.exact is not None and answer.exact.plan is not None
    assert answer.exact.plan.analyzer == "rules"
    assert answer.answer.index("11 churches located in Nicosia District") < \
        answer.answer.index("Documents:")
    assert answer.context.startswith("11 churches located in Nicosia District")
