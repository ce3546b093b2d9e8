"""The answer generator's prompts, read from ``config/prompts/default.toml``.

A :class:`PromptSet` holds a system prompt per question type (specific, enumeration,
aggregation), the exclusion note of a pivot, the context template with its sections
(``{exact}`` first: the exact answer and its evidence when the pipeline has one, then the
documents, the relationships and, for lists and counts, the dataset statistics) and the
user message. A user's own TOML file with the same tables overrides any of them
(:meth:`PromptSet.load`); the file lives outside the index's configuration hash, so
editing prompts never asks for a rebuild.

>>> prompts = PromptSet.default()
>>> prompts.render_context(exact="", documents="A", relationships="", statistics="")
'Documents:\\nA'
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from llama_index_crm.errors import CrmError
from llama_index_crm.ontology import find_config_dir
from llama_index_crm.query.plan import QueryPlan

__all__ = ["DEFAULT_PROMPTS", "PROMPTS_DIR", "PromptError", "PromptSet", "Prompts"]

PROMPTS_DIR = "prompts"
"""Sub-folder of ``config/`` holding the prompts (not hashed into an index's manifest)."""
DEFAULT_PROMPTS = "default.toml"
SECTIONS = ("exact", "documents", "relationships", "statistics")
"""The context's sections, in the order of the default template."""
FIELDS: dict[tuple[str, str], frozenset[str]] = {
    ("system", "specific"): frozenset(),
    ("system", "enumeration"): frozenset(),
    ("system", "aggregation"): frozenset(),
    ("system", "exclusion"): frozenset({"excluded"}),
    ("context", "template"): frozenset(SECTIONS),
    **{("context", name): frozenset({"text"}) for name in SECTIONS},
    ("question", "history"): frozenset({"text"}),
    ("question", "template"): frozenset({"context", "history", "question"}),
}
"""Every prompt, as (table, key), and the placeholders it may use."""
REQUIRED: dict[tuple[str, str], frozenset[str]] = {
    ("context", "template"): frozenset({"exact"}),
    ("question", "template"): frozenset({"context", "question"}),
}
"""Placeholders a prompt must keep: the exact answer's slot, the context and the question."""


class PromptError(CrmError, ValueError):
    """A prompt file that cannot be read or uses unknown placeholders."""


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@dataclass(frozen=True, slots=True)
class PromptSet:
    """The prompts of the answer generator (see the module).

    Attributes:
        prompts: ``(table, key)`` → template, for every entry of :data:`FIELDS`.
        source: the files they were read from, the default first.
    """

    prompts: Mapping[tuple[str, str], str]
    source: tuple[str, ...] = ()

    @classmethod
    def default(cls) -> PromptSet:
        """The prompts shipped in ``config/prompts/default.toml``."""
        return _default()

    @classmethod
    def from_file(cls, path: str | Path) -> PromptSet:
        """The default prompts with those of a user's TOML file laid over them.

        Raises:
            PromptError: the file is missing or not TOML, names an unknown table or key,
                uses a placeholder its prompt does not have, or drops a required one.
        """
        default = cls.default()
        return _read(Path(path).expanduser(), dict(default.prompts), default.source)

    @classmethod
    def load(cls, prompts: Prompts = None) -> PromptSet:
        """The prompts to use: the default, a :class:`PromptSet`, or a user's TOML file."""
        if isinstance(prompts, PromptSet):
            return prompts
        if prompts is None:
            return cls.default()
        return cls.from_file(prompts)

    def check(self, where: str) -> None:
        """Raise :class:`PromptError` for a missing prompt or a wrong placeholder."""
        for key, allowed in FIELDS.items():
            template = self.prompts.get(key)
            name = ".".join(key)
            if template is None:
                raise PromptError(f"{where}: no prompt {name}")
            try:
                used = _placeholders(template)
            except ValueError as exc:
                raise PromptError(f"{where}: {name} is not a valid template ({exc}); "
                                  "write a literal brace as {{ or }}") from exc
            unknown = used - allowed
            if unknown:
                raise PromptError(f"{where}: {name} uses {sorted(unknown)}; it may use "
                                  f"{sorted(allowed) or 'no placeholders'}")
            missing = REQUIRED.get(key, frozenset()) - used
            if missing:
                raise PromptError(f"{where}: {name} must keep {sorted(missing)}")

    def __getitem__(self, key: tuple[str, str]) -> str:
        return self.prompts[key]

    def system_prompt(self, plan: QueryPlan) -> str:
        """The system prompt of the plan's question type, with its exclusion note."""
        text = self[("system", plan.type)]
        if plan.excluded:
            excluded = " and ".join(f"“{name}”" for name in plan.excluded)
            text += "\n" + self[("system", "exclusion")].format(excluded=excluded)
        return text

    def render_context(self, **sections: str) -> str:
        """The context from its sections (``exact``, ``documents``, ``relationships``,
        ``statistics``); an empty section is left out with its heading."""
        filled = {name: self[("context", name)].format(text=sections[name].strip())
                  if sections.get(name, "").strip() else "" for name in SECTIONS}
        return self[("context", "template")].format(**filled).strip()

    def messages(self, plan: QueryPlan, context: str, question: str,
                 history: Sequence[tuple[str, str]] = ()) -> list[ChatMessage]:
        """The system message and the user message of one question.

        Args:
            plan: the question's plan (its type picks the system prompt).
            context: :meth:`render_context`'s text.
            question: the question as asked.
            history: earlier ``(question, answer or top label)`` turns, already bounded.
        """
        turns = "\n".join(f"- {q} → {a}" if a else f"- {q}" for q, a in history)
        history_text = self[("question", "history")].format(text=turns) if turns else ""
        user = self[("question", "template")].format(
            context=f"{context}\n\n" if context else "", history=history_text,
            question=question)
        return [ChatMessage(role=MessageRole.SYSTEM, content=self.system_prompt(plan)),
                ChatMessage(role=MessageRole.USER, content=user)]


Prompts = PromptSet | str | Path | None
"""What the query entry points accept as ``prompts``: a set, a TOML file, or the default."""


def _read(file: Path, prompts: dict[tuple[str, str], str],
          source: tuple[str, ...]) -> PromptSet:
    """``prompts`` with those of ``file`` laid over them, checked."""
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PromptError(f"cannot read the prompt file {file}: {exc}") from exc
    for table, entries in data.items():
        if not isinstance(entries, dict):
            raise PromptError(f"{file}: [{table}] must be a table of prompts")
        for key, value in entries.items():
            if (table, key) not in FIELDS:
                known = ", ".join(".".join(k) for k in FIELDS)
                raise PromptError(f"{file}: unknown prompt {table}.{key} (known: {known})")
            if not isinstance(value, str):
                raise PromptError(f"{file}: {table}.{key} must be a string")
            prompts[(table, key)] = value
    result = PromptSet(prompts, (*source, str(file)))
    result.check(str(file))
    return result


@cache
def _default() -> PromptSet:
    return _read(Path(find_config_dir()) / PROMPTS_DIR / DEFAULT_PROMPTS, {}, ())
