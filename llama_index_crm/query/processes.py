"""Questions answered in worker processes: throughput beyond the GIL.

Two thirds of a question's time holds the GIL (docs/benchmarks.md, issue 25), so threads
asking one :class:`~llama_index_crm.query.engine.CrmQueryPipeline` do not run at once.
:class:`ProcessPipeline` keeps ``processes`` worker processes, each of which loads the
index once (and answers the ``warm`` questions, untimed); :meth:`ProcessPipeline.run` sends
a question to a free worker and returns its :class:`CrmAnswer`, the same one the pipeline
gives in this process. Any number of threads (a web server's pool) or coroutines
(:meth:`ProcessPipeline.arun`) may ask at once.

>>> with ProcessPipeline("indexes/ycba", processes=2) as pipeline:      # doctest: +SKIP
...     answers = list(ThreadPoolExecutor(8).map(pipeline.run, questions))

Each worker holds a whole index (441 MB for YCBA). The LLM, if any, is named by a spec
(``openai:MODEL@URL``: :func:`~llama_index_crm.llms.make_llm`) or made by a picklable
callable, in each worker; each has its own LLM client (its cooldown, the window it learned).
Conversations are the caller's: pass ``history`` with each question.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index_crm.query.plan import require_question

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from llama_index_crm.query.engine import CrmAnswer, CrmQueryPipeline

__all__ = ["ProcessPipeline"]

START_TIMEOUT_S = 600.0
"""Seconds the workers have to load the index and answer the warm-up questions."""

_PIPELINE: list[CrmQueryPipeline] = []
"""This worker process's pipeline (empty outside a worker)."""


def _start(folder: str, llm: str | Callable[[], LLM] | None, kwargs: dict[str, Any],
           warm: Sequence[str], started: Any) -> None:
    """A worker's initializer: the index loaded, the warm-up questions answered."""
    from llama_index_crm.index import CrmGraphIndex
    from llama_index_crm.llms import make_llm

    made = llm() if callable(llm) else make_llm(llm)
    pipeline = CrmGraphIndex.load(folder).as_query_pipeline(llm=made, **kwargs)
    for question in warm:
        pipeline.run(question)
    _PIPELINE.append(pipeline)
    started.wait(START_TIMEOUT_S)


def _ready() -> int:
    """This worker's process id (every worker has started: they wait for each other)."""
    time.sleep(0.1)  # long enough for each worker to take one
    return os.getpid()


def _run(question: str, history: list[tuple[str, str]] | None) -> CrmAnswer:
    return _PIPELINE[0].run(question, history)


class ProcessPipeline:
    """A query pipeline whose questions are answered by worker processes (see the module).

    Args:
        folder: an index folder (``crm-rag build``'s).
        processes: worker processes (default: the machine's cores).
        llm: the LLM of each worker: a spec (``openai:MODEL@URL``) or a picklable callable
            that makes it; None: answers from documents and triples.
        warm: questions each worker answers before the first one is asked (the caches a
            serving process has warm).
        **pipeline_kwargs: options of :class:`CrmQueryPipeline` (``prompts``,
            ``llm_limits``, ``exact``, …), picklable.

    Raises:
        concurrent.futures.process.BrokenProcessPool: a worker did not start (its error is
            in the log).
    """

    def __init__(self, folder: str | Path, processes: int | None = None,
                 llm: str | Callable[[], LLM] | None = None, warm: Iterable[str] = (),
                 **pipeline_kwargs: Any) -> None:
        count = processes or os.cpu_count() or 1
        if count < 1:
            raise ValueError(f"processes must be at least 1, not {processes}")
        self.folder = Path(folder)
        self.processes = count
        context = multiprocessing.get_context("spawn")  # no fork of a threaded process
        started = context.Barrier(count)
        self._pool = ProcessPoolExecutor(
            count, mp_context=context, initializer=_start,
            initargs=(str(self.folder), llm, pipeline_kwargs, list(warm), started))
        self._closed = threading.Event()
        try:
            # a task a worker (each submit starts one): their initializers wait for each
            # other, so that every worker has loaded before the first question
            self.pids = sorted({f.result(START_TIMEOUT_S)
                                for f in [self._pool.submit(_ready) for _ in range(count)]})
        except BaseException:
            self.close()
            raise

    def run(self, question: str, history: Sequence[tuple[str, str]] | None = None
            ) -> CrmAnswer:
        """The :class:`CrmAnswer` of ``question`` from a free worker (thread-safe).

        Raises:
            ValueError: an empty or blank question.
        """
        require_question(question)
        return self._pool.submit(_run, question, list(history or ()) or None).result()

    async def arun(self, question: str, history: Sequence[tuple[str, str]] | None = None
                   ) -> CrmAnswer:
        """:meth:`run` awaited: the event loop is free while a worker answers."""
        require_question(question)
        future = self._pool.submit(_run, question, list(history or ()) or None)
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Stop the workers (their questions in flight are answered first)."""
        if not self._closed.is_set():
            self._closed.set()
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ProcessPipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
