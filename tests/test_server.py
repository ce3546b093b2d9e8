"""The JSON API of ``crm-rag serve`` (``llama_index_crm.server``) over the demo index: the
same answers as ``crm-rag ask``, sessions that stay apart and expire, the limits, and the
command itself on a real port."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra (FastAPI) is not installed")
pytest.importorskip("httpx", reason="httpx (FastAPI's TestClient) is not installed")

from conftest import DEMO  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from llama_index.core.llms import MockLLM  # noqa: E402
from serving import HOSTILE, IMG_LABEL, SCRIPT_LABEL  # noqa: E402

from llama_index_crm.index import CrmGraphIndex  # noqa: E402
from llama_index_crm.server import create_app  # noqa: E402
from llama_index_crm.server.schema import AnswerOut, ChatOut, EntityOut  # noqa: E402
from llama_index_crm.server.sessions import SessionStore  # noqa: E402

ASINOU = "Who founded the church at Asinou?"
FOUNDER = "https://example.org/troodos/person/nikephoros-ischyrios"
ASINOU_CHURCH = "https://example.org/troodos/church/asinou"


@pytest.fixture(scope="module")
def client(demo_index: CrmGraphIndex, hostile_index: CrmGraphIndex) -> Iterator[TestClient]:
    app = create_app({"troodos": demo_index, "hostile": hostile_index})
    with TestClient(app) as c:
        yield c


def post(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


# -- answers ---------------------------------------------------------------------------------
def test_ask_returns_the_pipeline_answer_with_sources_paths_and_evidence(
        client: TestClient, demo_index: CrmGraphIndex) -> None:
    data = post(client, "/api/ask", {"question": ASINOU})
    AnswerOut.model_validate(data)  # the documented shape (OpenAPI) is the one sent
    expected = demo_index.ask(ASINOU)
    assert data["answer"] == expected.answer
    assert data["status"] == "answered" and data["count"] == expected.count
    assert "Nikephoros Ischyrios" in data["answer"]
    assert [s["uri"] for s in data["sources"]] == [r["uri"] for r in expected.retrieved()]
    founder = next(s for s in data["sources"] if s["uri"] == FOUNDER)
    assert founder["path"].startswith("Asinou → ") and founder["path"].endswith(
        "Nikephoros Ischyrios")
    assert any(t["p_label"] == "carried out by" and t["o"] == FOUNDER
               for t in founder["triples"])
    assert data["evidence"] and "Nikephoros Ischyrios" in data["evidence"][0]
    assert data["plan"] is None  # only with explain
    ids = {n["id"] for n in data["graph"]["nodes"]}
    assert FOUNDER in ids and all(e["s"] in ids and e["o"] in ids
                                  for e in data["graph"]["edges"])


def test_explain_returns_the_plan_and_its_sparql(client: TestClient) -> None:
    data = post(client, "/api/ask", {"question": ASINOU, "explain": True})
    assert "made by" in data["plan"]["text"]
    assert data["plan"]["sparql"].lstrip().startswith("PREFIX") and "SELECT" in \
        data["plan"]["sparql"]


def test_chat_reads_follow_ups_in_their_own_session_only(client: TestClient) -> None:
    first = post(client, "/api/chat", {"message": "Tell me about Panagia Phorbiottissa "
                                                  "(Asinou)"})
    session = first["session"]
    ChatOut.model_validate(first)
    follow = post(client, "/api/chat", {"session": session, "message": "Who founded it?"})
    assert follow["session"] == session
    assert "Nikephoros Ischyrios" in follow["answer"] and follow["status"] == "answered"
    # the same words in a fresh session have no "it" to resolve
    alone = post(client, "/api/chat", {"session": "fresh-session-1", "message":
                                       "Who founded it?"})
    assert "Nikephoros Ischyrios" not in alone["answer"]
    assert alone["session"] == "fresh-session-1"
    assert alone["answer"] != follow["answer"]
    client.post("/api/chat/reset", json={"session": session})
    again = post(client, "/api/chat", {"session": session, "message": "Who founded it?"})
    assert again["answer"] == alone["answer"]


def test_sessions_expire_when_idle_and_are_capped() -> None:
    now = [0.0]
    store = SessionStore(ttl_s=60, max_sessions=2, clock=lambda: now[0])
    made: list[object] = []

    def make() -> Any:
        made.append(object())
        return made[-1]

    a = store.get("d", "session-a", make)
    assert store.get("d", "session-a", make) is a and len(made) == 1
    now[0] = 61.0
    renewed = store.get("d", "session-a", make)
    assert renewed is not a and renewed.engine is made[1]  # expired: a new conversation
    store.get("d", "session-b", make)
    store.get("d", "session-c", make)
    assert len(store) == 2  # the least recently used (a) went first
    assert not store.drop("d", "session-a") and store.drop("d", "session-c")
    assert store.get("other", "session-b", make).engine is made[-1]  # per dataset


def test_concurrent_sessions_answer_without_mixing(served: str,
                                                   demo_index: CrmGraphIndex) -> None:
    """20 conversations at once over HTTP, each about another entity, each with a
    follow-up: every answer is the one the same conversation gets alone."""
    rows = [i for i, c in enumerate(demo_index.meta.categories) if c in ("Thing", "Actor")]
    labels = sorted({demo_index.meta.labels[i] for i in rows})[:20]
    assert len(labels) == 20

    def talk(label: str, session: str) -> list[tuple[str, str, str]]:
        out = []
        for message in (f"Tell me about {label}", "When was it made?"):
            body = json.dumps({"session": session, "message": message}).encode()
            request = urllib.request.Request(f"{served}/api/chat", body,
                                             {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=120) as response:
                data = json.load(response)
            assert data["session"] == session
            out.append((data["answer"], data["status"], data["sources"][0]["uri"]))
        return out

    alone = {label: talk(label, f"alone-{i:04d}") for i, label in enumerate(labels)}
    with ThreadPoolExecutor(20) as pool:
        together = dict(zip(labels, pool.map(talk, labels, [f"together-{i:04d}" for i in
                                                            range(20)]), strict=True))
    assert together == alone
    assert len({turns[0][0] for turns in alone.values()}) >= 15  # the questions differ


def test_stream_without_llm_sends_the_answer_of_ask(client: TestClient) -> None:
    with client.stream("POST", "/api/ask/stream", json={"question": ASINOU}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = _events("".join(response.iter_text()))
    names = [e for e, _ in events]
    assert names[0] == "status" and names[-1] == "answer" and "delta" in names
    final = events[-1][1]
    assert final == {**post(client, "/api/ask", {"question": ASINOU}),
                     "latency_s": final["latency_s"]}


def test_stream_with_an_llm_sends_its_words_as_written(demo_index: CrmGraphIndex) -> None:
    """MockLLM (prompt plumbing only): the deltas make up the final answer, and the exact
    count and status stay those of the graph."""
    app = create_app(demo_index, llm=MockLLM(max_tokens=12))
    with TestClient(app) as c:
        body = {"message": "How many churches are in Nicosia District?",
                "session": "stream-session"}
        with c.stream("POST", "/api/chat/stream", json=body) as response:
            events = _events("".join(response.iter_text()))
        deltas = [d["text"] for e, d in events if e == "delta"]
        final = events[-1][1]
        assert len(deltas) > 1 and "".join(deltas).strip() == final["answer"]
        assert final["status"] == "answered" and final["count"] is not None
        session = app.state.sessions.get(demo_index.folder.name, "stream-session", object)
        assert session.engine.memory.turns[0].answer == final["answer"]  # the turn is kept


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


# -- entities, datasets ------------------------------------------------------------------------
def test_entity_has_its_document_triples_neighbours(client: TestClient) -> None:
    data = client.get("/api/entity", params={"uri": ASINOU_CHURCH}).json()
    EntityOut.model_validate(data)
    assert data["label"] == "Panagia Phorbiottissa (Asinou)"
    assert data["document"].startswith("[Thing] Panagia Phorbiottissa (Asinou)")
    assert any(t["p_label"] == "was produced by" for t in data["triples"])
    assert FOUNDER in {n["uri"] for n in data["neighbours"]}
    assert data["images"] == []  # the demo graph links no images
    missing = client.get("/api/entity", params={"uri": "https://example.org/nothing"})
    assert missing.status_code == 404 and "holds no entity" in missing.json()["detail"]


def test_entity_images_are_the_urls_the_graph_gives(client: TestClient,
                                                    hostile_image: tuple[str, list[str]]) -> None:
    data = client.get("/api/entity", params={"uri": HOSTILE + "work",
                                              "dataset": "hostile"}).json()
    assert data["images"] == [hostile_image[0]]
    assert data["label"] == SCRIPT_LABEL  # returned as data; the page writes it as text
    person = client.get("/api/entity", params={"uri": HOSTILE + "person",
                                                "dataset": "hostile"}).json()
    assert person["label"] == IMG_LABEL and person["images"] == []


def test_datasets_load_on_first_use(demo_index: CrmGraphIndex, tmp_path: Path) -> None:
    app = create_app({"demo": demo_index.folder, "other": demo_index.folder,
                      "broken": tmp_path})
    with TestClient(app) as c:
        health = c.get("/api/health").json()
        assert [d["loaded"] for d in health["datasets"]] == [False, False, False]
        listed = c.get("/api/datasets").json()
        assert listed["default"] == "demo" and listed["datasets"][0]["examples"]
        assert [d["loaded"] for d in c.get("/api/health").json()["datasets"]] == [
            True, False, False]
        other = c.get("/api/datasets", params={"dataset": "other"}).json()["datasets"][1]
        assert other["loaded"] and other["examples"] == listed["datasets"][0]["examples"]
        assert all(any(label in q for label in demo_index.meta.labels)
                   for q in other["examples"])  # each names something the graph holds
        assert post(c, "/api/ask", {"question": ASINOU, "dataset": "other"})["answer"] == \
            demo_index.ask(ASINOU).answer
        broken = c.post("/api/ask", json={"question": ASINOU, "dataset": "broken"})
        assert broken.status_code == 503 and "could not be loaded" in broken.json()["detail"]
        assert c.get("/api/health").json()["ready"] is False


def test_openapi_documents_the_routes(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for route in ("/api/ask", "/api/chat", "/api/entity", "/api/health", "/api/datasets",
                  "/api/ask/stream", "/api/chat/stream"):
        assert route in paths


def test_the_openapi_page_loads_nothing_from_outside(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "http://" not in page.text and "https://" not in page.text  # no CDN
    assert "/openapi.json" in page.text
    for asset in re.findall(r'(?:src|href)="(/docs-assets/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200


# -- limits ------------------------------------------------------------------------------------
def test_empty_and_long_questions_get_clear_4xx(client: TestClient) -> None:
    empty = client.post("/api/ask", json={"question": "   "})
    assert empty.status_code == 400 and "empty" in empty.json()["detail"]
    long = client.post("/api/chat", json={"message": "Who? " * 2000})
    assert long.status_code == 422
    assert "10,000 characters" in long.json()["detail"] and "2,000" in long.json()["detail"]


def test_request_bodies_are_size_limited(client: TestClient) -> None:
    big = client.post("/api/ask", content=json.dumps({"question": "x" * 200_000}),
                      headers={"Content-Type": "application/json"})
    assert big.status_code == 413 and "larger than" in big.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"question": "'
        for _ in range(100):
            yield b"x" * 1000
        yield b'"}'

    streamed = client.post("/api/ask", content=chunks(),
                           headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413


def test_no_request_can_name_a_file(client: TestClient) -> None:
    extra = client.post("/api/ask", json={"question": ASINOU, "index": "/etc"})
    assert extra.status_code == 422 and "index" in extra.json()["detail"]
    for name in ("../troodos", "/etc/passwd", str(DEMO.parent)):
        response = client.post("/api/ask", json={"question": ASINOU, "dataset": name})
        assert response.status_code == 404 and "No dataset named" in response.json()["detail"]
    assert client.get("/../README.md").status_code == 404
    assert client.get("/static/app.js").status_code == 404  # only the page's three files
    bad_session = client.post("/api/chat", json={"message": ASINOU, "session": "../x"})
    assert bad_session.status_code == 422


def test_cors_is_off_unless_origins_are_given(client: TestClient,
                                              demo_index: CrmGraphIndex) -> None:
    preflight = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options(
        "/api/ask", headers=preflight).headers
    assert "access-control-allow-origin" not in client.get(
        "/api/health", headers={"Origin": "https://elsewhere.example"}).headers
    with TestClient(create_app(demo_index,
                               cors_origins=["https://elsewhere.example"])) as open_client:
        allowed = open_client.options("/api/ask", headers=preflight).headers
        assert allowed["access-control-allow-origin"] == "https://elsewhere.example"


def test_page_is_offline_and_never_writes_markup(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    for asset in ("/app.js", "/style.css"):
        assert client.get(asset).status_code == 200
    text = page.text + client.get("/app.js").text + client.get("/style.css").text
    assert "http://" not in page.text and "https://" not in page.text  # no CDN
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in text


# -- the command -------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_crm_rag_serve_answers_like_crm_rag_ask(demo_index: CrmGraphIndex) -> None:
    folder = str(demo_index.folder)
    port = _free_port()
    cli = [sys.executable, "-m", "llama_index_crm.cli"]
    server = subprocess.Popen([*cli, "serve", "--index", folder, "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ})
    try:
        asked = subprocess.run([*cli, "ask", "--json", "--index", folder, ASINOU],
                               capture_output=True, text=True, check=True)
        expected = json.loads(asked.stdout)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/health", timeout=5) as r:
                    assert json.load(r)["status"] == "ok"
                break
            except OSError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                assert time.monotonic() < deadline, "crm-rag serve did not start"
                time.sleep(0.2)
        request = urllib.request.Request(f"{url}/api/ask", json.dumps(
            {"question": ASINOU}).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as r:
            data = json.load(r)
        assert (data["answer"], data["status"], data["count"]) == (
            expected["answer"], expected["status"], expected["count"])
        assert [s["uri"] for s in data["sources"]] == [s["uri"] for s in expected["sources"]]
        assert data["dataset"] == Path(folder).name
        # bound to the loopback interface only
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True,
                                   text=True)
        if listening.returncode == 0 and listening.stdout.strip():
            assert all("127.0.0.1:" in line for line in listening.stdout.splitlines())
    finally:
        server.terminate()
        server.wait(20)


def test_crm_rag_serve_refuses_a_folder_that_is_not_an_index(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "llama_index_crm.cli", "serve", "--index",
                             f"x={tmp_path}"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "is not a built index" in result.stderr
    named = subprocess.run([sys.executable, "-m", "llama_index_crm.cli", "serve", "--index",
                            f"../x={tmp_path}"], capture_output=True, text=True, timeout=60)
    assert named.returncode == 1 and "dataset name" in named.stderr
