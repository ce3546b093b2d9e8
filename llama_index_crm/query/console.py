"""A conversation in the terminal: ``crm-rag chat`` and ``examples/chat.py``.

Questions are answered by a :class:`~.chat.CrmChatEngine`; lines starting with ``/`` are
commands:

* ``/sources``: the last answer's sources, each with the graph paths that brought it into
  the context and the triples it cites;
* ``/context``: the last answer's context;
* ``/reset``: forget the conversation;
* ``/help``: the commands; ``/quit`` (or ``quit``, ``exit``, end of input) ends the
  conversation. An empty line is ignored.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from llama_index_crm.errors import CrmError
from llama_index_crm.postprocessors.triple_context import ARROW
from llama_index_crm.query.chat import CrmChatEngine
from llama_index_crm.query.engine import CrmAnswer
from llama_index_crm.rdf import local_name

__all__ = ["HELP", "QUIT", "ChatConsole"]

QUIT = frozenset({"/quit", "quit", "exit", ":q", "/exit"})
"""Lines that end the conversation."""
HELP = ("Commands: /sources (the last answer's sources, paths and triples), /context (its "
        "context), /reset (forget the conversation), /quit.")
SHOWN_SOURCES = 5
"""Sources listed under each answer."""
SHOWN_TRIPLES = 8
"""Triples listed per source by ``/sources``."""


class ChatConsole:
    """Reads questions and commands, prints answers (see the module).

    Args:
        engine: the chat engine.
        out: where to print.
        sources: sources listed under each answer (0: none).
        notices: called with each answer, to show its notices (default: printed under
            it, each once).
    """

    def __init__(self, engine: CrmChatEngine, out: TextIO | None = None,
                 sources: int = SHOWN_SOURCES,
                 notices: Callable[[CrmAnswer], None] | None = None) -> None:
        self.engine = engine
        self.out = out or sys.stdout
        self.sources = sources
        self._shown: set[str] = set()
        self.notices = notices or self._say_notices
        self._commands: dict[str, Callable[[], None]] = {
            "/sources": self.show_sources, "/context": self.show_context,
            "/reset": self.reset, "/help": lambda: self.say(HELP),
        }

    def say(self, text: str = "") -> None:
        """Print one line (or several)."""
        print(text, file=self.out)

    def _name(self, term: str) -> str:
        label = self.engine.pipeline.index.triples.label(term)
        return label if label else local_name(term)

    def _last(self) -> CrmAnswer | None:
        if self.engine.last is None:
            self.say("No answer yet: ask a question first.")
        return self.engine.last

    def _say_notices(self, answer: CrmAnswer) -> None:
        for notice in answer.notices:
            if notice not in self._shown:
                self._shown.add(notice)
                self.say(f"({notice})")

    def show_answer(self, answer: CrmAnswer) -> None:
        """The answer, its count, and the first sources as ``score  label  <IRI>``."""
        self.say(answer.answer or "(no answer)")
        if answer.count is not None:
            self.say(f"(count: {answer.count})")
        if answer.plan.excluded:
            self.say(f"(left out: {', '.join(answer.plan.excluded)})")
        for item in answer.retrieved()[: self.sources]:
            self.say(f"  {item['score']:.3f}  {item['label']}  <{item['uri']}>")
        self.say()

    def show_sources(self) -> None:
        """``/sources``: every source of the last answer, its paths and triples."""
        answer = self._last()
        if answer is None:
            return
        for record in answer.source_records():
            self.say(f"{record['label']}  <{record['uri']}>  score {record['score']:.3f}")
            for path in record["paths"] or ["(found by its words, no path from the question)"]:
                self.say(f"  path: {path}")
            triples = record["triples"]
            for s, p, o in triples[:SHOWN_TRIPLES]:
                self.say(f"  triple: {ARROW.join(self._name(t) for t in (s, p, o))}")
            if len(triples) > SHOWN_TRIPLES:
                self.say(f"  … and {len(triples) - SHOWN_TRIPLES} more triples")
        self.say()

    def show_context(self) -> None:
        """``/context``: the context of the last answer."""
        answer = self._last()
        if answer is not None:
            self.say(answer.context)
            self.say()

    def reset(self) -> None:
        """``/reset``: forget the conversation."""
        self.engine.reset()
        self.say("Conversation reset.")

    def handle(self, line: str) -> bool:
        """Answer a question or run a command; False when the conversation ends."""
        text = line.strip()
        if not text:  # a stray Enter
            return True
        if text.lower() in QUIT:
            return False
        command = self._commands.get(text.lower())
        if command is not None:
            command()
        elif text.startswith("/"):
            self.say(f"Unknown command {text}. {HELP}")
        else:
            try:
                self.engine.chat(text)
            except CrmError as exc:
                self.say(f"error: {exc}\n")
                return True
            except Exception as exc:  # noqa: BLE001 - an LLM server failing must not end it
                self.say(f"error: {type(exc).__name__}: {exc}\n")
                return True
            if self.engine.last is not None:
                self.notices(self.engine.last)
                self.show_answer(self.engine.last)
        return True

    def run(self, lines: Iterable[str] | None = None) -> int:
        """Converse until ``/quit`` or the end of ``lines`` (default: the standard input; a
        piped question is echoed before its answer); empty lines are skipped."""
        interactive = lines is None and sys.stdin.isatty()
        if interactive:
            self.say(f"Ask about the collection. {HELP}")
        source = iter(lines) if lines is not None else None
        while True:
            try:
                line = next(source) if source is not None else input("> " if interactive
                                                                     else "")
            except (EOFError, StopIteration):
                break
            if not interactive and line.strip():
                self.say(f"> {line.strip()}")
            if not self.handle(line):
                break
        return 0
