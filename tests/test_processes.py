"""Questions answered by worker processes (:class:`ProcessPipeline`): the same answers as
one pipeline in this process, from 8 threads at once and from ``asyncio.gather``, the LLM
made in each worker and reached over real HTTP."""

from __future__ import annotations

import asyncio
import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from llm_servers import StrictStub

from llama_index_crm.index import CrmGraphIndex
from llama_index_crm.llms import make_llm
from llama_index_crm.query.processes import ProcessPipeline

QUESTIONS = (
    "How many churches are in Nicosia District?",
    "Who founded the church at Asinou?",
    "Which churches were painted by Philippos Goul?",
    "Which churches are in the Troodos mountains?",
    "Where is Panagia Podithou?",
    "Which villages have churches?",
)
PLANNER = "You turn a question about a museum collection"
PLAN = {"operation": "count", "variables": [{
    "category": "Thing", "noun": "churches", "types": ["church"],
    "links": [{"relation": "located-in", "name": "Nicosia District"}]}]}


def _reply(body: dict[str, Any]) -> dict[str, Any] | str:
    text = json.dumps(body["messages"])
    if PLANNER in text:
        return PLAN if "Nicosia District" in text else {"operation": "bogus"}
    return "An answer (stub)."


def _key(answer: Any) -> list[Any]:
    return [answer.answer, answer.status, answer.count, answer.notices,
            [[r["uri"], r["score"], r["paths"], r["triples"]] for r in answer.source_records()]]


@pytest.fixture
def _key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")  # inherited by the workers
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.mark.usefixtures("_key_env")
def test_workers_answer_as_the_pipeline_does(demo_index: CrmGraphIndex) -> None:
    with StrictStub(_reply) as stub:
        spec = f"openai:m@{stub.url}"
        serial = [_key(demo_index.as_query_pipeline(llm=make_llm(spec)).run(q))
                  for q in QUESTIONS]
        asked = len(stub.requests)
        with ProcessPipeline(demo_index.folder, processes=2, llm=spec,
                             warm=QUESTIONS[:1]) as pipeline:
            assert len(pipeline.pids) == 2 and os.getpid() not in pipeline.pids
            with ThreadPoolExecutor(8) as threads:
                answers = list(threads.map(pipeline.run, QUESTIONS * 3))

            async def gather() -> list[Any]:
                return await asyncio.gather(*(pipeline.arun(q) for q in QUESTIONS))

            gathered = asyncio.run(gather())
            with pytest.raises(ValueError):
                pipeline.run("  ")
            follow_up = pipeline.run("Who founded it?",
                                     [("Tell me about the church at Asinou", "Asinou")])
    assert [_key(a) for a in answers] == serial * 3
    assert [_key(a) for a in gathered] == serial
    assert answers[0].answer == "An answer (stub)." and answers[0].count == 11
    assert answers[0].exact is not None and answers[0].exact.plan is not None
    assert answers[0].exact.plan.analyzer == "llm"  # the workers' LLM planned it
    assert stub.refused == [] and len(stub.requests) > asked  # the workers asked it
    assert follow_up.plan.turn == "follow_up"
