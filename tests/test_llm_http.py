"""LLM calls over real HTTP: what a strict OpenAI-compatible server accepts, the plan it
returns used, servers that lack a structured-output form, and an LLM that is down, slow or
has no credentials: the answer is printed all the same, with one line saying so."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from llm_servers import SlowServer, StrictStub, closed_port, refusal

from llama_index_crm.cli import main as cli_main
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.llm_calls import LLMClient, LLMLimits
from llama_index_crm.llms import make_llm
from llama_index_crm.query.chat import CrmChatEngine
from llama_index_crm.query.console import ChatConsole
from llama_index_crm.query.engine import CrmQueryPipeline

QUESTION = "How many churches are in Nicosia District?"
EXACT = "11 churches located in Nicosia District"
PLAN = {"operation": "count", "variables": [{
    "category": "Thing", "noun": "churches", "types": ["church"],
    "links": [{"relation": "located-in", "name": "Nicosia District"}]}]}
ANSWER = "Ten churches stand in Nicosia District (stub)."
PLANNER = "You turn a question about a museum collection"


def planner_reply(body: dict[str, Any]) -> dict[str, Any] | str:
    """The plan to the planner's requests, the answer to the others."""
    return PLAN if PLANNER in json.dumps(body["messages"]) else ANSWER


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def _messages_text(body: dict[str, Any]) -> str:
    return " ".join(str(m.get("content") or "") for m in body["messages"])


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


# -- the stub is strict ------------------------------------------------------------------------

def test_the_stub_refuses_what_openai_refuses() -> None:
    base = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert refusal(base) is None
    assert "only allowed when 'tools'" in str(refusal({**base, "tool_choice": "required"}))
    tool = {"type": "function", "function": {"name": "PlanSpec", "parameters": {}}}
    assert refusal({**base, "tools": [tool], "tool_choice": {
        "type": "function", "function": {"name": "PlanSpec"}}}) is None
    assert "not found" in str(refusal({**base, "tools": [tool], "tool_choice": {
        "type": "function", "function": {"name": "Other"}}}))
    assert "Unrecognized" in str(refusal({**base, "format": "json"}))
    assert "word 'json'" in str(refusal({**base, "response_format": {"type": "json_object"}}))
    assert "json_schema.name" in str(refusal({**base, "response_format": {
        "type": "json_schema", "json_schema": {"schema": {}}}}))


# -- accepted requests, a valid plan used -------------------------------------------------------

def test_ask_chat_and_query_send_only_requests_the_api_accepts(
        demo_index: CrmGraphIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "a", "question": QUESTION}) + "\n"
                         + json.dumps({"id": "b", "question": "Who founded it?",
                                       "turn_of": "a"}) + "\n")
    with StrictStub(planner_reply) as stub:
        llm = ["--index", str(demo_index.folder), "--llm", f"openai:stub-model@{stub.url}"]
        code, printed, err = _cli(["ask", *llm, QUESTION])
        assert code == 0 and printed.startswith(ANSWER) and "(count: 11)" in printed, err
        code, _, _ = _cli(["query", *llm, "--questions", str(questions),
                           "--out", str(tmp_path / "r.jsonl")])
        assert code == 0
        monkeypatch.setattr(sys, "stdin", StringIO(f"{QUESTION}\n\nWhen was it built?\n"))
        code, chatted, _ = _cli(["chat", *llm])
        assert code == 0 and chatted.count(ANSWER) == 2
        answer = CrmQueryPipeline(demo_index, llm=make_llm(
            f"openai:stub-model@{stub.url}")).run(QUESTION)
    assert stub.refused == []
    assert all(isinstance(r.get("max_tokens"), int) for r in stub.requests)
    assert not any("{{" in _messages_text(r) for r in stub.requests)  # single braces
    plans = [r for r in stub.requests if PLANNER in _messages_text(r)]
    assert plans and all(r["tool_choice"] == {"type": "function", "function": {
        "name": r["tools"][0]["function"]["name"]}} for r in plans)
    assert answer.exact is not None and answer.exact.plan is not None
    assert answer.exact.plan.analyzer == "llm" and answer.count == 11
    assert answer.answer == ANSWER and not answer.notices


def test_a_server_without_tools_gets_a_json_response_format(demo_index: CrmGraphIndex) -> None:
    """llama.cpp-like: tools refused (HTTP 400), ``json_schema`` an HTTP 500; the JSON
    object format with its schema is used, and asked first from then on."""
    def reject(body: dict[str, Any]) -> tuple[int, str] | None:
        if "tools" in body:
            return 400, "tools are not supported by this server"
        kind = (body.get("response_format") or {}).get("type")
        return (500, "json_schema: unsupported") if kind == "json_schema" else None

    with StrictStub(planner_reply, reject) as stub:
        pipeline = CrmQueryPipeline(demo_index, llm=make_llm(f"openai:m@{stub.url}"))
        first = pipeline.run(QUESTION)
        asked = len(stub.requests)
        second = pipeline.run("How many churches are in the Troodos mountains?")
    assert first.exact is not None and first.exact.plan is not None
    assert first.exact.plan.analyzer == "llm" and first.count == 11
    plan_request = [r for r in stub.requests[asked:] if PLANNER in _messages_text(r)][0]
    assert plan_request["response_format"]["type"] == "json_object"
    assert "schema" in plan_request["response_format"]
    assert [status for status, _, _ in stub.refused] == [400]  # tools, once
    assert second.status == "answered"


def test_a_plan_that_is_not_a_plan_falls_back_to_the_rules(demo_index: CrmGraphIndex,
                                                           caplog: Any) -> None:
    def reply(body: dict[str, Any]) -> dict[str, Any] | str:
        return {"operation": "count", "variables": "all of them"} \
            if PLANNER in _messages_text(body) else ANSWER

    with StrictStub(reply) as stub:
        answer = CrmQueryPipeline(demo_index, llm=make_llm(f"openai:m@{stub.url}")).run(
            QUESTION)
    assert answer.count == 11 and answer.exact is not None and answer.exact.plan is not None
    assert answer.exact.plan.analyzer == "rules" and answer.answer == ANSWER
    assert "LLM planner failed" in caplog.text and not answer.notices


# -- degrade, never lose ---------------------------------------------------------------------

def test_ask_with_the_llm_down_prints_the_answer_and_one_line(
        demo_index: CrmGraphIndex, tmp_path: Path) -> None:
    """A real closed port, ``crm-rag ask`` in its own process: the exact answer on stdout,
    one line on stderr, rc 0, no traceback."""
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "IS_TESTING": "1"}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "llama_index_crm.cli", "ask", "--index", str(demo_index.folder),
         "--llm", f"openai:m@http://127.0.0.1:{closed_port()}/v1", QUESTION],
        capture_output=True, text=True, env=env, timeout=120)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert EXACT in done.stdout and "(count: 11)" in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unavailable" in lines[0] and "cannot connect" in lines[0], lines
    print(f"crm-rag ask with the LLM down: {elapsed:.1f} s")


def test_a_slow_llm_is_given_up_within_its_time_limit(demo_index: CrmGraphIndex) -> None:
    with SlowServer() as slow:
        started = time.monotonic()
        code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                                   f"openai:m@{slow.url}", "--llm-timeout", "2", QUESTION])
        elapsed = time.monotonic() - started
    assert code == 0 and EXACT in printed
    assert err.count("\n") == 1 and "no reply within 2 s" in err, err  # 2 s in all
    assert slow.requests == 1  # not sent again, and the answer writer did not wait for it
    assert slow.gets == 1  # the probe: it answers, so it is up
    assert elapsed < 2 + 10, elapsed  # the 2 s limit, and the question itself


def test_a_hung_llm_is_told_by_the_probe_and_never_asked(demo_index: CrmGraphIndex) -> None:
    """A server that takes connections and answers nothing (a stopped process): the probe
    gives up after its few seconds, the completion is never sent, the answer is printed."""
    with SlowServer(hung=True) as hung:
        code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                                   f"openai:m@{hung.url}", QUESTION])
    assert code == 0 and EXACT in printed and "(count: 11)" in printed
    assert err.count("\n") == 1 and "unavailable" in err and "no reply within 3 s" in err, err
    assert hung.gets == 1 and hung.requests == 0


def test_an_answer_request_the_server_refuses_keeps_the_answer(
        demo_index: CrmGraphIndex, caplog: Any) -> None:
    """A server that refuses the answer writer's request (HTTP 400, for no length it
    states: a context too long for its window is asked again, fitted, in
    ``test_llm_context.py``): the plan it gave is used, the exact answer printed, one line
    says why, and the LLM stays available."""
    def refused(body: dict[str, Any]) -> tuple[int, str] | None:
        return None if PLANNER in _messages_text(body) else \
            (400, "Invalid 'messages[1].content': string too long. Expected a string with "
                  "maximum length 1048576.")

    with StrictStub(planner_reply, reject=refused) as stub:
        code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                                   f"openai:m@{stub.url}", QUESTION])
    assert code == 0 and EXACT in printed and "(count: 11)" in printed
    assert "Traceback" not in err and "unavailable" not in err  # it is not down
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "refused the request (HTTP 400: Invalid 'messages[1]" \
        in said[0], said
    assert len(stub.requests) == 2 and len(stub.refused) == 1  # plan accepted, answer refused


def test_no_api_key_is_one_line(demo_index: CrmGraphIndex,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                               "openai:gpt-4o-mini", QUESTION])
    assert code == 0 and EXACT in printed
    assert err.count("\n") == 1 and "no API key" in err and "OPENAI_API_KEY" in err, err


def test_chat_and_the_python_api_answer_with_the_llm_down(demo_index: CrmGraphIndex) -> None:
    url = f"openai:m@http://127.0.0.1:{closed_port()}/v1"
    out = StringIO()
    console = ChatConsole(CrmChatEngine(CrmQueryPipeline(demo_index, llm=make_llm(url))),
                          out=out)
    assert console.run([QUESTION, "", "Which churches are in the Troodos mountains?"]) == 0
    said = out.getvalue()
    assert EXACT in said and "11 churches located in Troodos Mountains" in said
    assert said.count("unavailable") == 1  # said once, not per question
    answer = demo_index.ask(QUESTION, llm=make_llm(url))
    assert answer.count == 11 and EXACT in answer.answer
    assert len(answer.notices) == 1 and "cannot connect" in answer.notices[0]
    response = demo_index.as_query_engine(llm=make_llm(url)).query(QUESTION)
    assert EXACT in str(response)
    chat = demo_index.as_chat_engine(llm=make_llm(url)).chat(QUESTION)
    assert EXACT in chat.response


def test_an_llm_down_is_called_again_after_its_cooldown(caplog: Any) -> None:
    """The warning is logged once per outage, and the LLM is tried again after it."""
    caplog.set_level(logging.WARNING, logger="llama_index_crm.llm_calls")
    port = closed_port()
    client = LLMClient(make_llm(f"openai:m@http://127.0.0.1:{port}/v1"),  # type: ignore[arg-type]
                       LLMLimits(timeout_s=1, budget_s=2, retries=0, cooldown_s=0.5))
    from llama_index.core.base.llms.types import ChatMessage

    for _ in range(3):
        with pytest.raises(Exception, match="unavailable"):
            client.chat([ChatMessage(role="user", content="hi")])
    assert client.unavailable() is not None
    assert caplog.text.count("unavailable") == 1
    time.sleep(0.6)
    assert client.unavailable() is None  # cooled down: the next call tries it again
