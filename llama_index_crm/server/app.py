"""``create_app``: the FastAPI application of ``crm-rag serve``.

Routes (their OpenAPI page is ``/docs``, the schema ``/openapi.json``):

=========================  ==============================================================
``GET /``                  the chat page (one HTML file, its script and style; offline)
``GET /api/health``        readiness, and which datasets are loaded
``GET /api/datasets``      the datasets, with example questions
``POST /api/ask``          one question → answer, status, count, sources, evidence, plan
``POST /api/chat``         one turn of a session's conversation (same fields + session)
``POST /api/chat/reset``   forget a session
``POST /api/ask/stream``   ``/api/ask`` as server-sent events (the LLM's words as written)
``POST /api/chat/stream``  ``/api/chat`` as server-sent events
``GET /api/entity``        an entity's document, triples, FR neighbours and images
=========================  ==============================================================

Requests name datasets, never files. Blocking work (loading an index, answering) runs in
the server's thread pool, so one slow question does not hold the others.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from llama_index_crm.errors import CrmError
from llama_index_crm.query.chat import CrmChatEngine
from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline
from llama_index_crm.query.memory import DEFAULT_HISTORY_TOKENS
from llama_index_crm.server.datasets import DatasetRegistry
from llama_index_crm.server.limits import MAX_BODY_BYTES, BodyLimit, question_problem
from llama_index_crm.server.schema import (
    AnswerOut,
    AskRequest,
    ChatOut,
    ChatRequest,
    EntityOut,
    ResetRequest,
)
from llama_index_crm.server.sessions import (
    MAX_SESSIONS,
    SESSION_ID,
    SESSION_TTL_S,
    SessionStore,
    new_session_id,
)
from llama_index_crm.server.streaming import answer_events
from llama_index_crm.server.views import answer_view, entity_view

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from llama_index_crm.graph.data import GraphData

logger = logging.getLogger(__name__)

Indexes: TypeAlias = "GraphData | str | Path | Mapping[str, GraphData | str | Path]"
"""What :func:`create_app` serves: one index (loaded, or its folder) or several by name."""

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}
"""The page's files, shipped in the package (``server/static``); nothing else is served."""

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self' http: https:; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
"""The page's Content-Security-Policy: its own script only (no inline code), images from
the URLs the graph gives. A second line of defence: the page writes graph text as text."""



def _named(indexes: Indexes) -> dict[str, GraphData | str | Path]:
    if isinstance(indexes, Mapping):
        return dict(indexes)
    if isinstance(indexes, str | Path):
        return {Path(indexes).name or "index": indexes}
    return {indexes.folder.name or "index": indexes}


def create_app(
    indexes: Indexes,
    *,
    llm: LLM | None = None,
    examples: Mapping[str, list[str]] | None = None,
    cors_origins: Sequence[str] = (),
    max_body_bytes: int = MAX_BODY_BYTES,
    session_ttl_s: float = SESSION_TTL_S,
    max_sessions: int = MAX_SESSIONS,
    history_tokens: int = DEFAULT_HISTORY_TOKENS,
    **pipeline_kwargs: Any,
) -> FastAPI:
    """The API and the chat page over one or several indexes.

    Args:
        indexes: a loaded index or an index folder, or ``{name: index or folder}`` for
            several datasets (folders are loaded on first use).
        llm: the LLM that writes answers (None: from documents and triples).
        examples: dataset name → example questions for the page (default: made from
            each index's best-connected entities).
        cors_origins: origins allowed to call the API from their pages (default: none,
            same origin only).
        max_body_bytes: largest request body accepted (413 beyond).
        session_ttl_s: idle seconds before a chat session is forgotten.
        max_sessions: chat sessions kept at most.
        history_tokens: token budget of the earlier turns a chat question is read with.
        **pipeline_kwargs: options of :class:`~llama_index_crm.query.engine.CrmQueryPipeline`
            (``prompts``, ...).
    """
    registry = DatasetRegistry(_named(indexes), llm=llm, examples=examples, **pipeline_kwargs)
    sessions = SessionStore(session_ttl_s, max_sessions)
    app = FastAPI(title="llama-index-crm", version=_version(), docs_url=None, redoc_url=None,
                  description="Plain-language questions over CIDOC-CRM knowledge graphs.")
    _offline_docs(app)
    app.state.registry = registry
    app.state.sessions = sessions
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    if cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["content-type"])

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: "
            f"{e.get('msg', 'invalid')}" for e in exc.errors())
        return JSONResponse({"detail": f"Invalid request: {problems}."}, status_code=422)

    def pipeline_of(dataset: str | None) -> tuple[str, CrmQueryPipeline]:
        name = dataset or registry.default
        try:
            return name, registry.pipeline(name)
        except KeyError:
            raise HTTPException(404, f"No dataset named {name!r}; this server has: "
                                     f"{', '.join(registry.names())}.") from None
        except CrmError as exc:
            raise HTTPException(503, str(exc)) from exc

    def checked(question: str) -> str:
        problem = question_problem(question)
        if problem is not None:
            raise HTTPException(422 if question.strip() else 400, problem)
        return question.strip()

    def session_id(given: str | None) -> str:
        if given is None:
            return new_session_id()
        if not SESSION_ID.match(given):
            raise HTTPException(422, "A session id is 8 to 64 letters, digits, '-' or '_'.")
        return given

    for path, (name, kind) in STATIC.items():
        app.add_api_route(path, _static_route(name, kind), methods=["GET"],
                          include_in_schema=False)

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        """Readiness: the server answers; which datasets are loaded (they load on first
        use, or failed to load, with the reason)."""
        datasets = registry.describe()
        return {"status": "ok", "ready": all(d["error"] is None for d in datasets),
                "llm": llm is not None, "sessions": len(sessions),
                "datasets": [{k: d[k] for k in ("name", "loaded", "error")} for d in datasets]}

    @app.get("/api/datasets")
    def datasets(dataset: str | None = Query(
            None, description="load this dataset first (default: the first), so that its "
                              "example questions are listed")) -> dict[str, Any]:
        """The datasets this server answers over, with example questions."""
        pipeline_of(dataset)
        return {"default": registry.default, "llm": llm is not None,
                "datasets": registry.describe()}

    @app.post("/api/ask", response_model=AnswerOut)
    def ask(request: AskRequest) -> Response:
        """Answer one question, without a conversation: the answer of ``crm-rag ask``."""
        started = time.perf_counter()
        question = checked(request.question)
        name, pipeline = pipeline_of(request.dataset)
        answer = pipeline.run(question)
        return _json({"dataset": name, **answer_view(pipeline.index, answer, request.explain)},
                     started)

    @app.post("/api/chat", response_model=ChatOut)
    def chat(request: ChatRequest) -> Response:
        """One turn of a conversation: follow-ups read in the session's earlier turns."""
        started = time.perf_counter()
        message = checked(request.message)
        sid = session_id(request.session)
        name, pipeline = pipeline_of(request.dataset)
        session = sessions.get(name, sid, lambda: CrmChatEngine(pipeline, history_tokens))
        with session.lock:
            session.engine.chat(message)
            answer = session.engine.last
        assert answer is not None
        return _json({"session": sid, "dataset": name,
                      **answer_view(pipeline.index, answer, request.explain)}, started)

    @app.post("/api/chat/reset")
    def reset(request: ResetRequest) -> dict[str, Any]:
        """Forget a session's conversation."""
        return {"session": request.session,
                "forgotten": sessions.drop(request.dataset or registry.default,
                                           request.session)}

    @app.post("/api/ask/stream", response_class=StreamingResponse)
    def ask_stream(request: AskRequest) -> StreamingResponse:
        """``/api/ask`` as server-sent events: ``status``, ``delta`` (the answer's text as
        the LLM writes it), then ``answer`` (everything ``/api/ask`` returns)."""
        question = checked(request.question)
        name, pipeline = pipeline_of(request.dataset)

        def view(answer: CrmAnswer) -> dict[str, Any]:
            return {"dataset": name, **answer_view(pipeline.index, answer, request.explain)}

        return _event_stream(answer_events(pipeline, question, (), view))

    @app.post("/api/chat/stream", response_class=StreamingResponse)
    def chat_stream(request: ChatRequest) -> StreamingResponse:
        """``/api/chat`` as server-sent events (see ``/api/ask/stream``)."""
        message = checked(request.message)
        sid = session_id(request.session)
        name, pipeline = pipeline_of(request.dataset)
        session = sessions.get(name, sid, lambda: CrmChatEngine(pipeline, history_tokens))
        engine = session.engine
        with session.lock:
            history = engine.memory.pairs()

        def view(answer: CrmAnswer) -> dict[str, Any]:
            return {"session": sid, "dataset": name,
                    **answer_view(pipeline.index, answer, request.explain)}

        def record(answer: CrmAnswer) -> None:
            top = answer.nodes[0].node.metadata.get("label", "") if answer.nodes else ""
            with session.lock:
                engine.memory.add(message, answer.answer, str(top))
                engine.last = answer

        return _event_stream(answer_events(pipeline, message, history, view, record))

    @app.get("/api/entity", response_model=EntityOut)
    def entity(uri: str = Query(max_length=2048, description="the entity's IRI"),
               dataset: str | None = None) -> Response:
        """An entity's document, triples, FR neighbours and image URLs."""
        name, pipeline = pipeline_of(dataset)
        view = entity_view(pipeline.index, uri)
        if view is None:
            raise HTTPException(404, f"The dataset {name!r} holds no entity {uri}.")
        return _json({"dataset": name, **view})

    return app


def _json(data: dict[str, Any], started: float | None = None) -> Response:
    """``data`` as JSON, as built: FastAPI's encoder and a validation pass would cost more
    than the rest of serving an answer (the models document the shape). With ``started``
    (``time.perf_counter()`` when the route began), a ``Server-Timing: answer;dur=MS``
    header says how long the route took, answer and JSON included."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    headers = ({"Server-Timing": f"answer;dur={1000 * (time.perf_counter() - started):.2f}"}
               if started is not None else None)
    return Response(body, media_type="application/json", headers=headers)


def _event_stream(events: Any) -> StreamingResponse:
    return StreamingResponse(events, media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _static_route(name: str, kind: str) -> Any:
    data = resources.files("llama_index_crm.server").joinpath("static", name).read_bytes()

    def serve() -> Response:
        return Response(data, media_type=kind, headers={
            "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"})

    return serve


def _offline_docs(app: FastAPI) -> None:
    """``/docs``: FastAPI's OpenAPI page with Swagger UI served from the ``swagger-ui-bundle``
    wheel, not a CDN (the server must work offline); without it, a page naming
    ``/openapi.json``."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse

    try:
        from fastapi.staticfiles import StaticFiles
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:
        swagger_ui_path = None

    if swagger_ui_path is not None:
        app.mount(DOCS_ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        if swagger_ui_path is None:
            return HTMLResponse("<!doctype html><title>API</title><p>The API is described "
                                "in <a href='/openapi.json'>/openapi.json</a> (install "
                                "swagger-ui-bundle for the interactive page).")
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title="llama-index-crm API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css", swagger_favicon_url="")


DOCS_ASSETS = "/docs-assets"
"""Where Swagger UI's script and style are served from (the swagger-ui-bundle wheel)."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llama-index-crm")
    except PackageNotFoundError:
        return "0"
