"""Readings tried again after the first finds nothing, each through the graph's own nodes:
a node described rather than named (:mod:`.described`), a role the graph gives people as a
type (:mod:`.typed_roles`), and a name that ties several nodes by one word of a longer name
the graph lacks ("Snow Leopard in Moonlight").

:class:`Retries` is a part of :class:`~.answerer.ExactAnswerer` (it plans and executes
through it), kept apart so that each file says one thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from llama_index_crm.exact.described import DescribedNames
from llama_index_crm.exact.empty import CLOSE_OTHER
from llama_index_crm.exact.exclusion import excluded
from llama_index_crm.exact.language import Lexicon
from llama_index_crm.exact.linking import CLOSE_LINKS, Missing, Unresolved, greek_cases
from llama_index_crm.exact.name_span import agrees, name_span
from llama_index_crm.exact.outcome import ExactAnswer, gives_values
from llama_index_crm.exact.parse_words import DETERMINERS
from llama_index_crm.exact.plan import Anchor, rebound
from llama_index_crm.exact.typed_roles import typed_role_plans
from llama_index_crm.exact.yes_no import checked_question
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.empty import EmptyCheck
    from llama_index_crm.exact.execute import Executor
    from llama_index_crm.exact.linking import NameIndex
    from llama_index_crm.exact.parse import RulePlanner
    from llama_index_crm.exact.plan import ExactPlan

__all__ = ["Retries"]

MAX_NAME_WORDS = 6
"""Words after the auxiliary of a yes/no question that may name the one asked about."""


class Retries:
    """The retries of :class:`~.answerer.ExactAnswerer`."""

    if TYPE_CHECKING:  # what the answerer provides
        planner: RulePlanner
        names: NameIndex
        executor: Executor
        _descriptions_index: DescribedNames | None
        empty: EmptyCheck

        def execute(self, plan: ExactPlan) -> ExactAnswer: ...

        def _answer(self, asked: str, history: Sequence[tuple[str, str]], llm: Any,
                    language: str) -> ExactAnswer: ...

        def _missing(self, question: str, missing: Sequence[Missing],
                     language: str, cover: str | None = None) -> ExactAnswer: ...

        def _names_in(self, question: str, elision: bool = True) -> list[tuple[int, int]]: ...

        def _read(self, asked: str, history: Sequence[tuple[str, str]], llm: Any,
                  language: str, cover: str | None = None,
                  settled: dict[str, str] | None = None) -> ExactAnswer: ...

    def _wider_absent(self, asked: str, ambiguous: Sequence[Unresolved],
                      language: str) -> ExactAnswer | None:
        """``not_found`` for a name that ties several nodes only by a word of it, when the
        name typed is longer ("Snow Leopard in Moonlight": works titled "Leopard"), no
        name of the graph holds its words, and the absence is proven as any missing one."""
        for tie in ambiguous:
            span = name_span(asked, tie.text)
            if span is None or any(agrees(span, c.name) for c in tie.candidates) or \
                    self.names.lookup(span, fuzzy=False, partial=False):
                continue
            kinds = tuple(dict.fromkeys(c.category for c in tie.candidates))
            answer = self._missing(asked, [Missing(span, kinds)], language)
            if answer.status == "not_found":
                return answer
        return None

    def _names_of(self, text: str) -> list[str]:
        """The graph's names ``text`` holds, as typed."""
        tokens = Lexicon.tokens(text, False)
        return [" ".join(tokens[a:b]) for a, b in self._names_in(text, False)]

    def _typed_roles(self, first: ExactAnswer) -> ExactAnswer | None:
        """"The donor of T" read as T's actors typed "donor" (:mod:`.typed_roles`)."""
        if first.status == "answered" and first.total or first.plan is None:
            return None
        for plan, note in typed_role_plans(first.plan, self.executor):
            typed = self.execute(plan)
            if typed.status == "answered" and typed.total:
                return replace(typed, text=f"{typed.text} ({note})")
        return None

    def _other_kind(self, answer: ExactAnswer) -> ExactAnswer | None:
        """The plan again with a name read as the node of another kind it also names, when
        the kind first read finds nothing ("the most recent portrait of Ulysses S. Grant":
        35 portraits are titled so, and none depicts another; the person Ulysses Simpson
        Grant, whom the name also names, is the one they depict). Only a node the name
        names best of its kind (one, or several bearing the same name); only a result that
        holds members (an empty one proves nothing of either reading)."""
        plan = answer.plan
        if plan is None or answer.result is None or answer.result.total:
            return None
        for anchor in plan.anchors:
            kind = self.empty.also_named(plan, anchor)
            if kind is None:
                continue
            found = [c for c in self.names.lookup(anchor.text, [kind]) if c.how in CLOSE_OTHER]
            best = [c for c in found if c.score == found[0].score] if found else []
            if not best or len({fold_name(c.name) for c in best}) > 1:
                continue  # "portraits of Lincoln": which Lincoln is not said
            other = Anchor(anchor.text, best[0].node, best[0].name, kind, best[0].how,
                           tuple(c.node for c in best[1:]))
            again = self.execute(rebound(plan, anchor, other))
            if again.status == "answered" and again.total:
                noun = {"Actor": "person", "Place": "place", "Event": "event"}.get(kind, "thing")
                said = f"reading “{anchor.text}” as "
                return again if said in again.text else replace(
                    again, text=f"{again.text} ({said}the {noun} "
                                f"{self.names.display(other.node)})")
        return None

    def _tie_of_one_title(self, asked: str, history: Sequence[tuple[str, str]],
                          ambiguous: Sequence[Unresolved], language: str,
                          cover: str | None) -> ExactAnswer | None:
        """A name several nodes of one kind bear alike (two portraits titled "Jeff Bezos")
        that also names one node of another kind (the person Jeffrey P. Bezos): read as
        that node when the reading answers ("jeff bezos birthplace"); None otherwise (the
        tie is asked back)."""
        if len(ambiguous) != 1:
            return None
        tie = ambiguous[0]
        kinds = {c.category for c in tie.candidates}
        if len(kinds) != 1 or len({fold_name(c.name) for c in tie.candidates}) != 1:
            return None
        others = [k for k in ("Actor", "Thing", "Place", "Event") if k not in kinds]
        found = [c for c in self.names.lookup(tie.text, others) if c.how in CLOSE_OTHER]
        best = [c for c in found if c.score == found[0].score] if found else []
        if len({c.node for c in best}) != 1:
            return None
        answer = self._read(asked, history, None, language, cover,
                            settled={fold_name(tie.text): best[0].node})
        if answer.status != "answered" or not answer.total or not gives_values(answer):
            return None
        noun = {"Actor": "person", "Place": "place", "Event": "event"}.get(
            best[0].category, "thing")
        kind = tie.candidates[0].category
        titled = f"{len(tie.candidates)} works are titled so" if kind == "Thing" else \
            f"{len(tie.candidates)} {kind.lower()}s are named so"
        said = f"reading “{tie.text}” as "
        note = titled if said in answer.text else \
            f"{said}the {noun} {self.names.display(best[0].node)}; {titled}"
        return replace(answer, text=f"{answer.text} ({note})")

    def _excluding(self, asked: str, history: Sequence[tuple[str, str]],
                   language: str) -> ExactAnswer | None:
        """"works by X that aren't paintings": the works by X with the paintings by X
        kept out (:mod:`.exclusion`), when both are read and the type is one the graph
        gives; None otherwise."""
        read = excluded(asked)
        if read is None:
            return None
        whole = self._answer(read.whole, history, None, language)
        part = self._answer(read.part, history, None, language)
        if part.status != "answered" and read.by is not None:  # "planographic prints by kitaj"
            part = self._answer(read.by, history, None, language)
        if whole.status != "answered" or part.status != "answered" or \
                whole.plan is None or part.plan is None or part.result is None:
            return None
        said = {singularise(fold_name(t)) for t in part.plan.variables[0].types}
        anchors = {a.node for a in part.plan.anchors}
        if not any(read.noun.endswith(t) for t in said) or \
                len(part.result.items) != part.result.total or \
                not {a.node for a in whole.plan.anchors} <= anchors:
            return None
        var = whole.plan.variables[0]
        left = tuple(item.uri for item in part.result.items)
        plan = replace(whole.plan, question=asked, variables=(
            replace(var, exclude=(*var.exclude, *left)), *whole.plan.variables[1:]))
        answer = self.execute(plan)
        if answer.status != "answered":
            return None
        kind = singularise(read.type) if len(left) == 1 else read.type
        note = f"({len(left)} {kind} left out, as asked)"
        text = re.sub(r"\(\d+ left out as asked\)", note, answer.text, count=1)
        return replace(answer, text=text if note in text else f"{text} {note}",
                       language=language)

    def _descriptions(self, asked: str) -> list[tuple[str, str]]:
        """Readings with a node described by a class noun and words of its name put by
        its name ("the church of the Archangel in Pedoulas": “Church of the Archangel
        Michael, Pedoulas”; :mod:`.described`)."""
        if self._descriptions_index is None:
            places = self.names.lookup
            self._descriptions_index = DescribedNames(
                self.names.rows, greek_cases, lambda w: [n for c in places(
                    w, ["Place"], surname=False, fuzzy=False, partial=False)
                    for n in (c.name, self.names.display(c.node))])
        tokens = Lexicon.tokens(asked, False)
        out = []
        for at, token in enumerate(tokens):
            category = self.planner.noun_category(fold_name(token))
            if category not in {"Thing", "Place", "Event"}:
                continue
            found = self._descriptions_index.find(
                tokens, at, category, lambda w: w in self.planner.vocabulary,
                lambda uri, noun: (n := self.executor.node_id(uri)) is not None
                and self.executor._typed(n, [noun]))
            if found is None:
                continue
            start = found.start - (found.start > 0 and
                                   fold_name(tokens[found.start - 1]) in DETERMINERS)
            said = " ".join(tokens[found.start:found.end])
            text = " ".join([*tokens[:start], f"“{found.label}”", *tokens[found.end:]])
            out.append((re.sub(r"\s+([?!.,;:])", r"\1", text),
                        f"reading “{said}” as “{found.label}”"))
        return out

    def _yes_no(self, asked: str, history: Sequence[tuple[str, str]],
                language: str) -> ExactAnswer | None:
        """"did Alfred Barr direct German Painting and Sculpture?": yes when he is one of
        those who directed it (:mod:`.yes_no`); None when he is not, or no reading
        answers (never a no)."""
        words = asked.split()[1:MAX_NAME_WORDS + 1]
        for size in range(len(words) - 1, 0, -1):  # the longest name after the auxiliary
            name = " ".join(words[:size]).strip(",")
            found = [c for c in self.names.lookup(name, ["Actor"], fuzzy=False, partial=False)
                     if c.how in CLOSE_LINKS or c.how == "surname"]
            if found:
                break
        else:
            return None
        question = checked_question(asked, name)
        if question is None:
            return None
        best = [c.node for c in found if c.score == found[0].score]
        answer = self._answer(question, history, None, language)
        if answer.status != "answered" or not best:
            return None
        members = {item.uri for item in answer.result.items} if answer.result is not None \
            else {str(item.get("uri")) for item in answer.items}
        if not members & set(best):
            return None
        who = self.names.display(next(n for n in best if n in members))
        return replace(answer, text=f"Yes: {who}. {answer.text} (reading the question as "
                                    f"“{question}”)")

