"""The answer writer's context fitted to a small model's window, over real HTTP: a strict
OpenAI-compatible stub that refuses, with llama-cpp-python's HTTP 400 and words, a request
longer than its window. The window set (``--llm-context``) is never exceeded; a window
learned from the refusal gets one more, trimmed request; the exact answer and its evidence
are never cut, the least relevant sources go first."""

from __future__ import annotations

import json
import logging
import re
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from typing import Any

import pytest
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llm_servers import StrictStub, context_limit

from llama_index_crm.cli import main as cli_main
from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.llm_calls import LLMClient, LLMLimits
from llama_index_crm.llm_window import known_context_window, parse_context_refusal
from llama_index_crm.llms import make_llm
from llama_index_crm.query.context_budget import fit_messages
from llama_index_crm.query.engine import CrmQueryPipeline

QUESTION = "How many churches are in Nicosia District?"
EXACT = "11 churches located in Nicosia District"
ANSWER = "Eleven churches (stub)."
PLANNER = "You turn a question about a museum collection"
WINDOW = 4096
"""The stub's window: the demo's full context (40,000 characters) is three times more."""


def _text(body: dict[str, Any]) -> str:
    return " ".join(str(m.get("content") or "") for m in body["messages"])


def _is_answer(body: dict[str, Any]) -> bool:
    return PLANNER not in _text(body)


def _documents(body: dict[str, Any]) -> list[str]:
    """The first line of each ``[i] …`` document of an answer request."""
    user = str(body["messages"][-1]["content"])
    return [m.group(1) for m in re.finditer(r"^\[\d+\] (.*)$", user, re.M)]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_window_set_is_never_exceeded(demo_index: CrmGraphIndex, caplog: Any) -> None:
    """``--llm-context 4096``: the first answer request fits (no HTTP 400), keeps the exact
    answer with all its evidence and the most relevant sources, and says it trimmed."""
    with StrictStub(lambda body: ANSWER, context_limit(WINDOW, applies=_is_answer)) as stub:
        code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                                   f"openai:m@{stub.url}", "--llm-context", str(WINDOW),
                                   "--json", QUESTION])
        pipeline = CrmQueryPipeline(demo_index)
    assert code == 0, err
    answer = json.loads(printed)
    assert answer["answer"] == ANSWER and answer["count"] == 11
    assert stub.refused == [], [why for _, why, _ in stub.refused]
    asked = [r for r in stub.requests if _is_answer(r)]
    assert len(asked) == 1
    sent = _text(asked[0])
    # the exact answer and every line of its evidence, whole
    exact = pipeline.exact_answer(QUESTION)
    assert EXACT in sent and exact.evidence
    assert all(line in sent for line in exact.evidence)
    # the sources kept are the best-scored ones, in the context's order
    nodes = pipeline.retrieve(pipeline.plan(QUESTION))
    kept = _documents(asked[0])
    assert 0 < len(kept) < len(nodes)
    best = sorted(range(len(nodes)), key=lambda i: (-float(nodes[i].score or 0.0), i))
    expected = [nodes[i].node.get_content(metadata_mode=MetadataMode.LLM).splitlines()[0]
                for i in sorted(best[:len(kept)])]
    assert kept == expected
    lines = [r.getMessage() for r in caplog.records if r.name == "llama_index_crm.query.engine"]
    assert len(lines) == 1 and "trimmed to its 4,096-token window" in lines[0], lines
    assert f"{len(kept)} of {len(nodes)} sources kept" in lines[0]


def test_a_window_learned_from_the_refusal_is_asked_again_once(
        demo_index: CrmGraphIndex, caplog: Any) -> None:
    """No window set: the server refuses the long context (HTTP 400, its window said); the
    request is sent again once, fitted, and answered; the next question is fitted from
    the start."""
    caplog.set_level(logging.WARNING)
    with StrictStub(lambda body: ANSWER, context_limit(WINDOW, applies=_is_answer)) as stub:
        pipeline = CrmQueryPipeline(demo_index, llm=make_llm(f"openai:m@{stub.url}"))
        first = pipeline.run(QUESTION)
        second = pipeline.run("How many churches are in the Troodos mountains?")
    assert first.answer == ANSWER and second.answer == ANSWER and first.count == 11
    assert not first.notices and not second.notices
    asked = [r for r in stub.requests if _is_answer(r)]
    assert [status for status, _, _ in stub.refused] == [400]  # the first request only
    assert len(asked) == 3 and stub.refused[0][2] == asked[0]
    assert len(_text(asked[1])) < len(_text(asked[0])) / 2
    assert EXACT in _text(asked[1])
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
            and r.name == "llama_index_crm.query.engine"]
    assert len(said) == 2, said  # one line for each trimmed question
    assert "refused a context too long for its 4,096-token window (HTTP 400); asked " \
        "again with" in said[0]
    assert "trimmed to its 4,096-token window" in said[1]
    assert pipeline.llm_client is not None and pipeline.llm_client.context_window == WINDOW


def test_a_server_that_refuses_the_trimmed_request_too_keeps_the_answer(
        demo_index: CrmGraphIndex, caplog: Any) -> None:
    """A server whose count is far above its word (a tokenizer of 1 character a token):
    one more request, never a third; the exact answer stands, said in one more line."""
    with StrictStub(lambda body: ANSWER,
                    context_limit(WINDOW, chars_per_token=0.5, applies=_is_answer)) as stub:
        code, printed, err = _cli(["ask", "--index", str(demo_index.folder), "--llm",
                                   f"openai:m@{stub.url}", QUESTION])
    assert code == 0 and EXACT in printed and "(count: 11)" in printed
    assert "Traceback" not in err and "unavailable" not in err
    assert len([r for r in stub.requests if _is_answer(r)]) == 2 and len(stub.refused) == 2
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
            and r.name == "llama_index_crm.query.engine"]
    assert len(said) == 2 and "asked again" in said[0], said
    assert "refused the request (HTTP 400: This model's maximum context length" in said[1]


def test_a_window_the_server_lists_is_never_exceeded(demo_index: CrmGraphIndex,
                                                     caplog: Any) -> None:
    """vLLM states each model's window in ``GET /models`` (``max_model_len``): the probe
    reads it, and no request is refused."""
    models = {"object": "list", "data": [{"id": "m", "object": "model",
                                          "max_model_len": WINDOW}]}
    with StrictStub(lambda body: ANSWER, context_limit(WINDOW, applies=_is_answer),
                    models=models) as stub:
        answer = CrmQueryPipeline(demo_index, llm=make_llm(f"openai:m@{stub.url}"),
                                  exact=False).run(QUESTION)
    assert answer.answer == ANSWER and stub.refused == []
    said = [r.getMessage() for r in caplog.records if r.name == "llama_index_crm.query.engine"]
    assert len(said) == 1 and "trimmed to its 4,096-token window" in said[0], said


def test_refusals_of_servers_are_read() -> None:
    vllm = ("'max_tokens' or 'max_completion_tokens' is too large: 768. This model's "
            "maximum context length is 8192 tokens and your request has 7600 input tokens "
            "(768 > 8192 - 7600).")
    found = parse_context_refusal(vllm)
    assert found is not None and (found.window, found.prompt_tokens) == (8192, 7600)
    openai = ("This model's maximum context length is 128,000 tokens. However, your "
              "messages resulted in 130,512 tokens. Please reduce the length of the messages.")
    found = parse_context_refusal(openai)
    assert found is not None and (found.window, found.prompt_tokens) == (128000, 130512)
    assert parse_context_refusal("Invalid 'messages[1].content': string too long") is None


def test_where_a_window_is_known() -> None:
    assert known_context_window(make_llm("openai:m@http://127.0.0.1:9/v1")) is None
    assert known_context_window(make_llm("openai:m@http://127.0.0.1:9/v1",
                                         context_window=2048)) == 2048
    assert known_context_window(make_llm("openai:gpt-4o-mini")) == 128000
    llm = make_llm("openai:m@http://127.0.0.1:9/v1", context_window=8192)
    assert llm is not None
    client = LLMClient(llm, LLMLimits(context_window=4096))
    assert client.context_window == 4096  # the smallest known
    assert client.completion_tokens(768) == 768
    assert LLMClient(llm, LLMLimits(context_window=1024)).completion_tokens(768) == 256
    with pytest.raises(ValueError, match="at least 64"):
        LLMLimits(context_window=10)
    with pytest.raises(SystemExit) as exited, redirect_stderr(StringIO()):
        cli_main(["ask", "--index", ".", "--llm-context", "0", QUESTION])
    assert exited.value.code == 2


def test_the_best_document_alone_too_long_is_cut_at_a_line() -> None:
    """A window smaller than the best document: its first lines, nothing else."""
    lines = [f"fact line {i} " + "x" * 40 for i in range(200)]
    nodes = [NodeWithScore(node=TextNode(text="Best\n" + "\n".join(lines)), score=2.0),
             NodeWithScore(node=TextNode(text="Other\nline"), score=1.0)]

    def render(kept: Any) -> Any:
        from llama_index.core.base.llms.types import ChatMessage

        return [ChatMessage(role="user", content="Q\n" + "\n".join(
            n.node.get_content() for n in kept))]

    fitted = fit_messages(render, nodes, 2000)
    assert fitted.cut and fitted.kept == 1 and fitted.fits
    text = str(fitted.messages[0].content)
    assert text.startswith("Q\nBest\nfact line 0 ") and "Other" not in text
    assert text.endswith("x" * 40)  # cut at a line's end
