"""``crm-rag``: build an index from a CIDOC-CRM graph, look at it, ask it questions."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from llama_index_crm.build.builder import (
    CHUNK_SIZE,
    DEFAULT_FR_PATHS,
    UPDATE_CHUNK_SIZE,
    BuildStats,
    default_workers,
    peak_rss_mb,
)
from llama_index_crm.build.folder import (
    MANIFEST,
    REJECTED,
    build_folder,
    report_of,
    work_dir_for,
)
from llama_index_crm.build.memory import process_peak
from llama_index_crm.encoders import ALIASES, BACKENDS
from llama_index_crm.errors import CrmError
from llama_index_crm.llm_calls import DEFAULT_BUDGET_S
from llama_index_crm.query.memory import DEFAULT_HISTORY_TOKENS
from llama_index_crm.sources import open_source
from llama_index_crm.sources.credentials import split_user_password
from llama_index_crm.sources.endpoint_http import parse_header

SHOWN_REJECTIONS = 10
EXACT_BACKENDS = ("parquet", "sparql")
"""Where exact plans run (:data:`llama_index_crm.exact.endpoint.BACKENDS`)."""
BACKEND_NAMES = {"parquet": "the index's triples (parquet)",
                 "sparql": "the SPARQL endpoint (the plan's SPARQL query)"}
"""Rejected statements listed in the build summary (all are in ``rejected.nt``)."""


def _tokens(text: str) -> int:
    """A context window in tokens, at least 64 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 64:
        raise argparse.ArgumentTypeError(f"expected a number of tokens (at least 64), not "
                                         f"{text!r}")
    return value


LLM_CONTEXT_HELP = ("the LLM's context window in tokens, prompt and completion (a small "
                    "model's: 8192 for SmolLM2); the answer's context is fitted to it, the "
                    "least relevant sources left out. Default: known by name (OpenAI's "
                    "models), else learned when the server refuses a request for its length")


def _seconds(text: str) -> float:
    """A positive number of seconds (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, not {text!r}")
    return value


def cmd_build(args: argparse.Namespace) -> int:
    """``crm-rag build SOURCE... --out DIR``."""
    from tqdm import tqdm

    out = Path(args.out).resolve()
    if args.resume and not work_dir_for(out).exists():
        print(f"Nothing to resume in {work_dir_for(out)}; building from the start.",
              file=sys.stderr)
    from llama_index_crm.build.ray_engine import RayEngine

    engine = RayEngine.of(args.ray, args.workers)  # without Ray, an error before any work
    started = time.perf_counter()
    process_peak()  # the peak memory of this process and its workers, sampled from now on
    source = open_source(args.sources, endpoint=args.endpoint, **source_options(args))
    # to a terminal the bars redraw; to a file or pipe (CI logs) a line every half minute
    interval = 0.1 if sys.stderr.isatty() else 30.0
    bar = tqdm(total=None, unit="entities", desc="build", disable=args.quiet,
               dynamic_ncols=True, mininterval=interval)
    last = [time.perf_counter(), 0.0]

    def on_chunk(done: int, total: int) -> None:
        now = time.perf_counter()
        rate = (done - last[1]) / max(now - last[0], 1e-9)
        last[0], last[1] = now, done
        bar.total = total
        bar.update(done - bar.n)
        bar.set_postfix(chunk_rate=f"{rate:,.0f}/s", refresh=False)

    embed_bar = tqdm(total=None, unit="docs", desc="embed", disable=args.quiet or args.no_embed,
                     dynamic_ncols=True, mininterval=interval)

    def on_embedded(done: int, total: int) -> None:
        embed_bar.total = total
        embed_bar.update(done - embed_bar.n)

    workers = args.workers or default_workers()
    try:
        if args.no_embed:
            with ExitStack() as session:
                if engine is not None:
                    session.enter_context(engine)
                _, stats = build_folder(
                    source, out, resume=args.resume, chunk_size=args.chunk_size,
                    workers=workers, on_chunk=on_chunk, fr_paths=args.fr_paths,
                    close_source=True, engine=engine,
                )
        else:
            from llama_index_crm.index import CrmGraphIndex

            index = CrmGraphIndex.build(
                source, out, embed_model=args.embed_model,
                embed_backend=args.embed_backend, resume=args.resume,
                chunk_size=args.chunk_size, workers=workers, on_chunk=on_chunk,
                on_embedded=on_embedded, fr_paths=args.fr_paths, close_source=True,
                vector_store=args.vector_store, ray=engine,
            )
            stats = BuildStats(**index.manifest["stats"])
    finally:
        bar.close()
        embed_bar.close()
        source.close()
    seconds = time.perf_counter() - started
    report = report_of(source)
    rejected, latin1 = report.rejections, sum(report.latin1_bytes.values())
    summary = {
        "entities": stats.entities,
        "documents": stats.documents,
        "satellites absorbed": stats.satellites_absorbed,
        "uncategorised": stats.uncategorised,
        "documents chained": stats.documents_chained,
        "triples archived": stats.triples_archived,
        **({"rejected statements": len(rejected)} if rejected else {}),
        **({"bytes read as Latin-1": latin1} if latin1 else {}),
        **({"record-local ids kept apart": len(report.scoped_ids)} if report.scoped_ids else {}),
        **({"Linked Art dates repaired": report.dates_repaired}
           if report.dates_repaired else {}),
        **({"date values kept as text": len(report.not_dates)} if report.not_dates else {}),
        "seconds": round(seconds, 1),
        "peak memory (MB)": round(peak_rss_mb()),
    }
    width = max(map(len, summary))
    print(f"Built {out}")
    for key, value in summary.items():
        print(f"  {key:<{width}}  {value:,}" if isinstance(value, int) else
              f"  {key:<{width}}  {value}")
    if report.scoped_ids:
        shown = ", ".join(f"{iri} ({n} records)"
                          for iri, n in list(report.scoped_ids.items())[:SHOWN_REJECTIONS])
        print(f"Record-local identifiers used by several records for different things, each "
              f"kept apart as <record id>/<path> (--no-record-scopes reads them as published): "
              f"{shown}{' …' if len(report.scoped_ids) > SHOWN_REJECTIONS else ''}")
    if rejected:
        print(f"Rejected statements (skipped; all {len(rejected):,} in {out / REJECTED}, "
              "--strict to stop at the first):")
        for rejection in rejected[:SHOWN_REJECTIONS]:
            print(f"  {rejection.summary()}")
    return 0


def source_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`open_source` given on the command line.

    Raises:
        CrmError: An option of endpoints was given with files, or the reverse.
    """
    endpoint = bool(args.endpoint) or (
        len(args.sources) == 1 and args.sources[0].startswith(("http://", "https://")))
    kw: dict[str, Any] = {"graphs": args.graph} if args.graph else {}
    given = {"--auth": args.auth, "--header": args.header, "--timeout": args.timeout,
             "--max-rps": args.max_rps, "--page-size": args.page_size}
    if not endpoint:
        wrong = [name for name, value in given.items() if value]
        if wrong:
            raise CrmError(f"{', '.join(wrong)}: options of a SPARQL endpoint, not of files.")
        return {**kw, "strict": args.strict, **({"base_iri": args.base} if args.base else {}),
                **({"scope_record_ids": False} if args.no_record_scopes else {})}
    if args.strict or args.base or args.no_record_scopes:
        raise CrmError("--strict, --base and --no-record-scopes are options of RDF files, "
                       "not of an endpoint.")
    if args.auth:
        kw["auth"] = split_user_password(args.auth, "--auth")
    if args.header:
        kw["headers"] = dict(parse_header(h) for h in args.header)
    for name in ("timeout", "max_rps", "page_size"):
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    return kw


def cmd_stats(args: argparse.Namespace) -> int:
    """``crm-rag stats DIR``: the manifest of a built folder."""
    path = Path(args.index) / MANIFEST
    if not path.exists():
        raise CrmError(f"{args.index} is not a built index (no {MANIFEST}). "
                       "Build one with: crm-rag build FILES... --out DIR")
    print(json.dumps(json.loads(path.read_text()), indent=1, ensure_ascii=False))
    return 0


def _pipeline(args: argparse.Namespace) -> Any:
    from llama_index_crm.index import CrmGraphIndex
    from llama_index_crm.llm_calls import LLMLimits
    from llama_index_crm.llms import make_llm
    from llama_index_crm.query.engine import CrmQueryPipeline

    limits = LLMLimits.within(args.llm_timeout, context_window=args.llm_context)
    index = CrmGraphIndex.load(args.index)
    llm = make_llm(args.llm, timeout=limits.timeout_s, context_window=args.llm_context)
    return CrmQueryPipeline(index, llm=llm, prompts=args.prompts, llm_limits=limits,
                            exact_backend=args.exact_backend, endpoint=args.endpoint)


class _Notices:
    """Prints each notice of the answers once, on stderr (an LLM down: one line)."""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def __call__(self, answer: Any) -> None:
        for notice in answer.notices:
            if notice not in self.shown:
                self.shown.add(notice)
                print(f"crm-rag: {notice}", file=sys.stderr, flush=True)


def _print_answer(answer: Any, show_context: bool, explain: bool = False) -> None:
    print(answer.answer)
    if answer.count is not None:
        print(f"(count: {answer.count})")
    print(f"[{answer.status}]")
    exact = answer.exact
    if exact is not None and exact.evidence:
        print("\nEvidence:")
        for line in exact.evidence:
            print(f"  {line}")
    if explain and exact is not None:
        if exact.language != "en":
            print(f"\nLanguage: {exact.language}")
        if exact.understanding is not None:
            print("\nWords: " + exact.understanding.explain())
        if exact.backend:
            print(f"\nComputed by: {BACKEND_NAMES.get(exact.backend, exact.backend)}")
        if exact.plan_text:
            print("\nPlan:\n  " + exact.plan_text.replace("\n", "\n  "))
        if exact.sparql:
            print("\nSPARQL:\n" + exact.sparql)
    print("\nSources:")
    for item in answer.retrieved():
        print(f"  {item['score']:.4f}  {item['label']}  <{item['uri']}>")
    if show_context:
        print("\n" + answer.context)


def cmd_update(args: argparse.Namespace) -> int:
    """``crm-rag update --index DIR --add A.nt --remove R.nt`` or ``... SOURCE...``."""
    from llama_index_crm.index import CrmGraphIndex

    source = None
    if args.sources or args.endpoint:
        source = open_source(args.sources, endpoint=args.endpoint, **source_options(args))
    try:
        CrmGraphIndex.update(args.index, add=args.add, remove=args.remove, source=source,
                             chunk_size=args.chunk_size, load=False)
    finally:
        if source is not None:
            source.close()
    manifest = json.loads((Path(args.index) / MANIFEST).read_text())
    entry = manifest["updates"][-1]
    if not args.quiet:
        print(json.dumps(entry, indent=1, ensure_ascii=False))
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    """``crm-rag query --index DIR --questions Q.jsonl --out R.jsonl``."""
    questions = [json.loads(line) for line in Path(args.questions).read_text().splitlines()
                 if line.strip()]
    blank = [str(q.get("id", i + 1)) for i, q in enumerate(questions)
             if not str(q.get("question") or "").strip()]
    if blank:
        print(f"crm-rag: error: {args.questions}: empty question (id {', '.join(blank)}); "
              "nothing was answered", file=sys.stderr)
        return 2
    pipeline = _pipeline(args)
    histories: dict[str, list[tuple[str, str]]] = {}
    notices = _Notices()
    out_path = Path(args.out)
    tmp = out_path.with_suffix(out_path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for q in questions:
            history = histories.get(q["turn_of"], []) if q.get("turn_of") else []
            answer = pipeline.run(q["question"], history)
            notices(answer)
            histories[q["id"]] = [*history, (q["question"], answer.answer)]
            out.write(json.dumps({
                "id": q["id"], "retrieved": answer.retrieved(), "context": answer.context,
                "answer": answer.answer, "count": answer.count, "status": answer.status,
                "latency_s": round(answer.latency_s, 4),
            }, ensure_ascii=False) + "\n")
    tmp.replace(out_path)
    print(f"Answered {len(questions)} questions into {out_path}")
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    """``crm-rag ask --index DIR "question"`` (``--json``: answer and sources as JSON)."""
    question = " ".join(args.question).strip()
    if not question:
        print("crm-rag: error: the question is empty: ask something, e.g. "
              "crm-rag ask --index DIR \"Who made …?\"", file=sys.stderr)
        return 2
    answer = _pipeline(args).run(question)
    _Notices()(answer)
    if args.json:
        data = answer.to_dict()
        if args.context:
            data["context"] = answer.context
        print(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        _print_answer(answer, args.context, args.explain)
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    """``crm-rag chat --index DIR``: a conversation with /sources, /context, /reset, /quit."""
    from llama_index_crm.query.chat import CrmChatEngine
    from llama_index_crm.query.console import ChatConsole

    return ChatConsole(CrmChatEngine(_pipeline(args), args.history_tokens),
                       notices=_Notices()).run()


def cmd_serve(args: argparse.Namespace) -> int:
    """``crm-rag serve --index [NAME=]DIR ...``: the JSON API and the chat page."""
    try:
        import uvicorn

        from llama_index_crm.server import create_app
        from llama_index_crm.server.datasets import parse_index_option
    except ImportError as exc:
        raise CrmError(f"crm-rag serve needs the serve extra ({exc.name} is missing): "
                       "pip install 'llama-index-crm[serve]'") from exc
    from llama_index_crm.llms import make_llm

    indexes: dict[str, str] = {}
    for value in args.index:
        name, folder = parse_index_option(value)
        if name in indexes:
            raise CrmError(f"--index: two datasets are named {name!r}; name them NAME=DIR")
        if not (Path(folder) / MANIFEST).exists():
            raise CrmError(f"{folder} is not a built index (no {MANIFEST}). "
                           "Build one with: crm-rag build FILES... --out DIR")
        indexes[name] = folder
    examples: dict[str, list[str]] = {}
    for value in args.examples or ():
        name, _, file = value.partition("=")
        if name not in indexes or not file:
            raise CrmError(f"--examples {value!r}: NAME=FILE with NAME one of "
                           f"{', '.join(indexes)}")
        examples[name] = [line.strip() for line in Path(file).read_text().splitlines()
                          if line.strip()]
    app = create_app(indexes, llm=make_llm(args.llm, context_window=args.llm_context),
                     examples=examples,
                     cors_origins=args.cors or (), prompts=args.prompts)
    if args.preload:
        for name in indexes:
            app.state.registry.pipeline(name)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"crm-rag: serving on {args.host}: other machines can reach this server; it "
              "has no authentication.", file=sys.stderr)
    print(f"Serving {', '.join(indexes)} on http://{args.host}:{args.port}/ "
          f"(API: /docs; Ctrl-C stops)", file=sys.stderr)
    uvicorn.run(app, host=args.host, port=args.port,
                log_level="info" if args.verbose else "warning")
    return 0


def _source_arguments(p: argparse.ArgumentParser) -> None:
    """The options that say where a graph is read from (build and update)."""
    p.add_argument("--endpoint", help="read from this SPARQL endpoint instead of files")
    p.add_argument("--graph", action="append", metavar="IRI",
                       help="read only this named graph (repeatable; default-graph-uri for an "
                            "endpoint, the graph of TriG/N-Quads files)")
    files = p.add_argument_group("RDF files")
    files.add_argument("--strict", action="store_true",
                       help="stop at the first statement that does not parse (default: skip "
                            "it, report it and write it to rejected.nt)")
    files.add_argument("--no-record-scopes", action="store_true",
                       help="read Linked Art records' record-local identifiers as published "
                            "(default: one used by several records for different things, "
                            "such as .../TimeSpan/0, is kept apart by record)")
    files.add_argument("--base", metavar="IRI",
                       help="resolve relative IRIs against this IRI (default: the file's "
                            "file: URL)")
    endpoint = p.add_argument_group("SPARQL endpoint")
    endpoint.add_argument("--auth", metavar="USER:PASSWORD",
                          help="HTTP basic or digest credentials (also: the CRM_RAG_AUTH "
                               "environment variable, ~/.netrc, or user:password@ in the URL)")
    endpoint.add_argument("--header", action="append", metavar="'NAME: VALUE'",
                          help="an extra HTTP header, e.g. an API key (repeatable)")
    endpoint.add_argument("--timeout", type=float, metavar="S",
                          help="seconds to wait for each request (default 60)")
    endpoint.add_argument("--max-rps", type=float, metavar="N",
                          help="at most N requests a second, all workers together (be polite "
                               "to public endpoints)")
    endpoint.add_argument("--page-size", type=int, metavar="N",
                          help="list subjects N at a time, for servers that cap result sizes")


def _vector_store_arg(text: str) -> str:
    """``--vector-store``, checked before anything is built."""
    from llama_index_crm.graph.vector_stores import StoreSpec

    try:
        StoreSpec.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return text


def make_parser() -> argparse.ArgumentParser:
    """The argument parser of ``crm-rag``."""
    parser = argparse.ArgumentParser(prog="crm-rag", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)

    build = sub.add_parser("build", help="build documents and triple store from a graph")
    build.add_argument("sources", nargs="*", help="RDF files or folders (.ttl .nt .nq .trig "
                       ".rdf .jsonld, .zip/.gz archives of those)")
    _source_arguments(build)
    build.add_argument("--out", required=True, help="folder to write (replaced atomically)")
    build.add_argument("--resume", action="store_true",
                       help="continue an interrupted build from its last completed chunk")
    build.add_argument("--chunk-size", type=int, default=CHUNK_SIZE)
    build.add_argument("--fr-paths", choices=("auto", "sparql", "walk"),
                       default=DEFAULT_FR_PATHS,
                       help="find FR targets by SPARQL property-path queries per chunk "
                            "(faster) or by walking fetched neighbourhoods; auto (default): "
                            "the queries, except on servers that run them slowly (Virtuoso); "
                            "the documents are the same")
    build.add_argument("--workers", type=int, default=None,
                       help="processes building chunks at once (default: one per core, ≤ 4); "
                            "with --ray, the Ray actors (default: one per CPU of the cluster)")
    build.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                       help="build the chunks and embed on Ray (pip install "
                            "'llama-index-crm[ray]'): alone, a local cluster started for "
                            "the build; with an ADDRESS (auto, HOST:6379, ray://HOST:10001), "
                            "a running cluster; same documents as without")
    build.add_argument("--no-embed", action="store_true",
                       help="documents and triples only: no embeddings, BM25 or statistics")
    build.add_argument("--embed-model", default=None,
                       help="sentence-transformers model name or path (default: the offline "
                            "all-MiniLM-L6-v2 wheel)")
    build.add_argument("--embed-backend", default=None,
                       choices=(*BACKENDS, *ALIASES),
                       help="encoder of the bundled model: onnx-int8 (default), onnx, torch, "
                            "or model2vec (alias fast: a static model, much faster, weaker "
                            "retrieval); a named --embed-model runs on torch")
    build.add_argument("--vector-store", default=None, metavar="KIND[:WHERE]",
                       type=_vector_store_arg,
                       help="where the dense vectors are searched: faiss (default), "
                            "lancedb:PATH (pip install 'llama-index-crm[lancedb]') or "
                            "qdrant:PATH_OR_URL ('llama-index-crm[qdrant]'); no PATH: the "
                            "index folder's vector_store/; the manifest records it")
    build.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    build.set_defaults(func=cmd_build)

    update = sub.add_parser(
        "update", help="apply a change to a built index (triples added and removed, or a "
        "source read again), rewriting only the documents it touches")
    update.add_argument("sources", nargs="*",
                        help="RDF files (or --endpoint) to read again: the change is their "
                             "difference from the index's triples")
    _source_arguments(update)
    update.add_argument("--index", required=True, help="a folder written by crm-rag build")
    update.add_argument("--add", action="append", default=[], metavar="FILE",
                        help="RDF file of triples to add (N-Triples, Turtle, ...; repeatable)")
    update.add_argument("--remove", action="append", default=[], metavar="FILE",
                        help="RDF file of triples to remove (repeatable)")
    update.add_argument("--chunk-size", type=int, default=UPDATE_CHUNK_SIZE)
    update.add_argument("-q", "--quiet", action="store_true", help="no summary")
    update.set_defaults(func=cmd_update)

    def with_index(p: argparse.ArgumentParser) -> None:
        p.add_argument("--index", required=True, help="a folder written by crm-rag build")
        p.add_argument("--llm", default=None,
                       help="openai:MODEL, openai:MODEL@URL (OpenAI-compatible) or "
                            "ollama:MODEL; default: answer from documents and triples")
        p.add_argument("--llm-timeout", type=_seconds, default=DEFAULT_BUDGET_S, metavar="S",
                       help="seconds an LLM call may take, retries included (default "
                            f"{DEFAULT_BUDGET_S:g}); an LLM that is down, slower or without "
                            "credentials is said in one line and answered without")
        p.add_argument("--llm-context", type=_tokens, default=None, metavar="N",
                       help=LLM_CONTEXT_HELP)
        p.add_argument("--context", action="store_true", help="also print the context")
        p.add_argument("--explain", action="store_true",
                       help="also print the exact plan as an FR path and as SPARQL")
        p.add_argument("--prompts", default=None,
                       help="a TOML file overriding config/prompts/default.toml (the LLM's "
                            "system prompts and context template)")
        p.add_argument("--exact-backend", choices=EXACT_BACKENDS, default="parquet",
                       help="where exact plans run: the index's triples (parquet, default) "
                            "or, with --endpoint, compiled to SPARQL on that endpoint "
                            "(sparql; plans that do not compile run on the index's triples, "
                            "said so)")
        p.add_argument("--endpoint", default=None, metavar="URL",
                       help="the SPARQL endpoint of --exact-backend sparql (credentials "
                            "from the URL, CRM_RAG_AUTH or ~/.netrc)")

    query = sub.add_parser("query", help="answer a JSONL file of questions (evaluation)")
    with_index(query)
    query.add_argument("--questions", required=True)
    query.add_argument("--out", required=True)
    query.set_defaults(func=cmd_query)

    ask = sub.add_parser("ask", help="answer one question")
    with_index(ask)
    ask.add_argument("question", nargs="+")
    ask.add_argument("--json", action="store_true",
                     help="print the answer and its sources (paths, triples) as JSON")
    ask.set_defaults(func=cmd_ask)

    chat = sub.add_parser("chat", help="a conversation in the terminal (/sources, /context, "
                          "/reset, /quit)")
    with_index(chat)
    chat.add_argument("--history-tokens", type=int, default=DEFAULT_HISTORY_TOKENS,
                      help="token budget of the earlier turns a question is read with")
    chat.set_defaults(func=cmd_chat)

    serve = sub.add_parser("serve", help="a JSON API and a chat page over built indexes "
                           "(needs the serve extra)")
    serve.add_argument("--index", action="append", required=True, metavar="[NAME=]DIR",
                       help="a folder written by crm-rag build, named NAME (default: the "
                            "folder's name); repeat it to serve several datasets, each loaded "
                            "on first use")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--llm", default=None,
                       help="openai:MODEL, openai:MODEL@URL or ollama:MODEL (answers then "
                            "stream as server-sent events); default: answer from documents "
                            "and triples")
    serve.add_argument("--llm-context", type=_tokens, default=None, metavar="N",
                       help=LLM_CONTEXT_HELP)
    serve.add_argument("--prompts", default=None,
                       help="a TOML file overriding config/prompts/default.toml")
    serve.add_argument("--examples", action="append", metavar="NAME=FILE",
                       help="example questions for a dataset's page, one a line (default: "
                            "made from its best-connected entities)")
    serve.add_argument("--cors", action="append", metavar="ORIGIN",
                       help="let pages of this origin call the API (default: none)")
    serve.add_argument("--preload", action="store_true",
                       help="load every index before serving (default: on first use)")
    serve.set_defaults(func=cmd_serve)

    stats = sub.add_parser("stats", help="print the manifest of a built folder")
    stats.add_argument("index")
    stats.set_defaults(func=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``crm-rag``; errors become one clear line and exit code 1."""
    parser = make_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    # the handler filters too: bm25s sets its own logger to DEBUG when it is imported
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.INFO if args.verbose else logging.WARNING)
    if not args.verbose:  # an LLM that is down is said once, by the notice line
        logging.getLogger("llama_index_crm.llm_calls").setLevel(logging.ERROR)
    if args.command == "build" and not args.sources and not args.endpoint:
        parser.error("give RDF files or --endpoint URL")
    if args.command == "update" and not (args.sources or args.endpoint or args.add
                                         or args.remove):
        parser.error("give --add/--remove files, or the RDF files (or --endpoint) to read "
                     "again")
    if getattr(args, "exact_backend", "parquet") == "sparql" and not args.endpoint:
        parser.error("--exact-backend sparql needs --endpoint URL")
    if getattr(args, "exact_backend", None) == "parquet" and args.endpoint:
        parser.error("--endpoint is for --exact-backend sparql")
    if args.command == "update" and (args.sources or args.endpoint) and (args.add
                                                                         or args.remove):
        parser.error("give either --add/--remove or a source to read again, not both")
    try:
        code: int = args.func(args)
        return code
    except CrmError as exc:
        print(f"crm-rag: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("crm-rag: interrupted; the previous output folder is untouched "
              "(run again with --resume to continue a build)", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
