"""``ExactAnswerer``: question → plan → complete result → sentence, with a status.

======================  ===============================================================
status                  meaning
======================  ===============================================================
``answered``            the question was compiled and executed over the whole graph
``not_found``           a name in it links to no node of the kind asked ("No artist named
                        Gainsborough in this graph; closest names: …")
``ambiguous``           a name links to several nodes equally well: the candidates are
                        returned so that a chat can ask back
``retrieval_only``      no plan covers the question: the retrieval answer is used, and
                        says so
======================  ===============================================================

One answerer is kept per loaded index (:func:`answerer_for`); building it reads the name
table once.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from llama_index.core.llms import LLM

from llama_index_crm.errors import LLMUnavailable
from llama_index_crm.exact.execute import TITLE_RELATION, ExactResult, Executor
from llama_index_crm.exact.linking import Candidate, NameIndex
from llama_index_crm.exact.llm_planner import LLMPlanner
from llama_index_crm.exact.parse import Missing, Parsed, RulePlanner, Unresolved
from llama_index_crm.exact.plan import Anchor, ExactPlan, ValueFilter, Variable
from llama_index_crm.exact.relations import RelationLexicon
from llama_index_crm.exact.render import describe_plan, evidence_lines, render
from llama_index_crm.exact.sparql import plan_sparql
from llama_index_crm.llm_calls import LLMClient
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

__all__ = ["ExactAnswer", "ExactAnswerer", "Status", "answerer_for"]

logger = logging.getLogger(__name__)

Status = Literal["answered", "not_found", "ambiguous", "retrieval_only"]
_BY_MAKER = re.compile(r"\bby\s+([^?!.,;]+)", re.IGNORECASE)
"""The words after "by" in a question: a maker's name, perhaps followed by more."""
MAX_HISTORY = 3
"""Earlier turns searched for what a pronoun points back to."""
MAX_FOCUS = 3
"""Members of an earlier turn kept as what a pronoun may point to."""
MAX_ITEMS = 200
"""Members returned with their evidence in :attr:`ExactAnswer.items` (the total is exact)."""
LOOSE_MATCHES = frozenset({"misspelling", "surname", "short name", "given name", "qualifier",
                           "partial"})
"""Links an answer states ("reading “whistlr” as James McNeill Whistler")."""
CATEGORY_NOUNS = {"Actor": "artist or other actor", "Thing": "work or object",
                  "Place": "place", "Event": "event", "Concept": "term"}


@dataclass(slots=True)
class ExactAnswer:
    """One question answered from the graph, or why it could not be.

    Attributes:
        status: see the module table.
        text: the sentence a person reads.
        count: the number of members (count questions; 0 for an absent name).
        items: members with their values and evidence (up to :data:`MAX_ITEMS`).
        total: members in the complete set.
        plan: the executed plan.
        plan_text: the plan as a readable FR path.
        sparql: the equivalent SPARQL query (run it on your endpoint).
        evidence: witness paths of the first members.
        candidates: the candidates of an ambiguous name.
        missing: names that link to nothing.
    """

    status: Status
    text: str
    count: int | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0
    plan: ExactPlan | None = None
    plan_text: str = ""
    sparql: str = ""
    evidence: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    result: ExactResult | None = None

    def context_block(self) -> str:
        """The exact result as the first block of an LLM's context."""
        if self.status == "retrieval_only":
            return ""
        lines = [f"{self.text} [{self.status}]"]
        if self.plan_text:
            lines.append("How it was computed:\n" + self.plan_text)
        if self.evidence:
            lines.append("Evidence:\n" + "\n".join(f"- {e}" for e in self.evidence))
        return "\n".join(lines)


class ExactAnswerer:
    """Answers questions exactly over one loaded index.

    Args:
        data: the loaded index (its triple store and name table are read).
        lexicon: the relations (default: ``config/exact/relations.json``).
    """

    def __init__(self, data: GraphData, lexicon: RelationLexicon | None = None) -> None:
        self.data = data
        self.lexicon = lexicon or RelationLexicon.default()
        self.executor = Executor(data.triples, data.ontology, self.lexicon)
        self.names = NameIndex(data.name_rows())
        type_nouns = {label: category for label, category in data.type_labels()}
        self.planner = RulePlanner(self.names, self.lexicon, type_nouns, trial=self._trial,
                                   present=self.executor.relation_present,
                                   holders=self.executor.collection_holders)

    def _trial(self, relation: str, other: str | None, inverse: bool,
               candidate: Candidate) -> bool:
        """Whether linking ``candidate`` through ``relation`` finds anything."""
        node = self.executor.node_id(candidate.node)
        if node is None:
            return False
        walk = self.executor.walker.walk(self.lexicon[relation],
                                         np.asarray([node], dtype=np.int64),
                                         reverse=not inverse, closure=not inverse)
        return bool(len(walk))

    # -- entry points ----------------------------------------------------------------------
    def parse(self, question: str,
              history: Sequence[tuple[str, str]] = ()) -> Parsed:
        """The planner's reading of ``question`` in its conversation."""
        return self.planner.parse(question, self._focus(history))

    def answer(self, question: str, history: Sequence[tuple[str, str]] = (),
               plan: ExactPlan | None = None,
               llm: LLM | LLMClient | None = None) -> ExactAnswer:
        """Answer ``question`` (``history``: earlier (question, answer) turns).

        Args:
            question: the question.
            history: earlier turns, oldest first.
            plan: a plan made elsewhere; the planners are skipped.
            llm: plan with this LLM first (structured output), the rules when it fails.
        """
        if plan is None:
            parsed = self._llm_parse(question, llm) if llm is not None and not history \
                else None
            parsed = parsed or self.parse(question, history)
            chosen = self._settled_by_maker(question, parsed.ambiguous)
            if chosen:
                parsed = self.planner.parse(question, self._focus(history),
                                            {k: v[0] for k, v in chosen.items()})
            if parsed.missing:
                return self._not_found(parsed.missing)
            if parsed.ambiguous:
                return self._ambiguous(parsed.ambiguous)
            if parsed.plan is None:
                return ExactAnswer("retrieval_only", "", plan_text=parsed.reason)
            plan = parsed.plan
            answer = self.execute(plan)
            settled = [f"of the works titled “{title}”, the one by {maker}"
                       for title, (_, maker) in chosen.items()]
            if settled and answer.status == "answered":
                answer = replace(answer, text=f"{answer.text} ({'; '.join(settled)})")
            return answer
        return self.execute(plan)

    def execute(self, plan: ExactPlan) -> ExactAnswer:
        """Run a plan and render its answer."""
        result = self.executor.run(plan)
        if not result.total and result.missing_relations:
            alternative = self._fallback(plan, result.missing_relations)
            if alternative is not None:
                missing = [self.lexicon[r].label for r in result.missing_relations]
                result = self.executor.run(alternative)
                plan = alternative
                result.notes.append(f"the graph records no {' or '.join(missing)}; read from "
                                    f"the {self.lexicon[alternative.attributes[0]].label}"
                                    if alternative.attributes else
                                    f"the graph records no {' or '.join(missing)}")
        text = render(result, self.executor)
        readings = [f"reading “{a.text}” as {a.label}" for a in plan.anchors
                    if a.how in LOOSE_MATCHES]
        readings += [f"“{a.text}” names {len(a.nodes)} {a.category.lower()}s here, all taken "
                     f"together" for a in plan.anchors if a.also]
        if readings:
            text = f"{text} ({'; '.join(readings)})"
        count = result.total if plan.operation == "count" or (
            plan.operation == "list" and not result.total) else None
        items = [self._item(it) for it in result.items[:MAX_ITEMS]]
        return ExactAnswer(
            "answered", text, count, items, result.total, result.plan,
            describe_plan(result.plan, self.lexicon),
            plan_sparql(result.plan, self.executor), evidence_lines(result, self.executor),
            result=result)

    def _fallback(self, plan: ExactPlan, missing: Sequence[str]) -> ExactPlan | None:
        """The plan read through a relation's statement fallback ("who gave X?" → X's
        credit line; "works given by Y" → works whose credit line names Y)."""
        var = plan.variables[0]
        for link in var.links:
            fallback = self.lexicon[link.relation].fallback
            if link.relation not in missing or not fallback:
                continue
            if not isinstance(link.target, Anchor):
                continue
            if link.inverse:  # who —gave→ X: X's statement
                return replace(plan, variables=(Variable(anchor=link.target),),
                               operation="value", attributes=(fallback,))
            rest = tuple(x for x in var.links if x is not link)
            # a credit line names the donor as the graph does; a title has the words asked
            said = link.target.text if fallback == TITLE_RELATION else link.target.label
            condition = ValueFilter(fallback, contains=fold_name(said),
                                    forms=fallback == TITLE_RELATION)
            return replace(plan, variables=(replace(var, links=rest).with_filter(condition),
                                            *plan.variables[1:]))
        return None

    def _settled_by_maker(self, question: str,
                          ambiguous: Sequence[Unresolved]) -> dict[str, tuple[str, str]]:
        """Ties between works of one title that the question settles by naming the maker
        ("the self-portrait by george bellows", "when was untitled by kitaj made"):
        folded title → (the only tied work made by the actor named after "by", the
        actor's name)."""
        chosen: dict[str, tuple[str, str]] = {}
        relation = self.lexicon.get("created-by")
        match = _BY_MAKER.search(question)
        if not ambiguous or relation is None or match is None:
            return chosen
        words = fold_name(match.group(1)).split()
        makers: list[Candidate] = []
        while words and not makers:  # "by george bellows in 1921": the longest name
            found = self.names.lookup(" ".join(words), ["Actor"], partial=False)
            makers = [c for c in found if c.score == found[0].score] if found else []
            words.pop()
        wanted = {self.executor.node_id(c.node) for c in makers} - {None}
        for unresolved in ambiguous:
            works = [c for c in unresolved.candidates if c.category == "Thing"]
            ids = [self.executor.node_id(c.node) for c in works]
            known = [(c, n) for c, n in zip(works, ids, strict=True) if n is not None]
            if len(known) < 2 or not wanted:
                continue
            walk = self.executor.walker.walk(relation, np.asarray([n for _, n in known],
                                                                    dtype=np.int64))
            hits = {known[int(start)][0].node: node for start, node in
                    zip(walk.start.tolist(), walk.node.tolist(), strict=True) if node in wanted}
            if len(hits) == 1:
                work, maker = hits.popitem()
                chosen[fold_name(unresolved.text)] = (work, self.executor.label(maker))
        return chosen

    def _llm_parse(self, question: str, llm: LLM | LLMClient) -> Parsed | None:
        """The LLM planner's reading, or None (and a warning) when it fails."""
        try:
            parsed = LLMPlanner(llm, self.names, self.lexicon).parse(question)
        except LLMUnavailable:  # said once, by the client; the rules plan
            return None
        except Exception as exc:  # noqa: BLE001 - any LLM failure: the rules plan instead
            logger.warning("LLM planner failed (%s: %s); the rules plan %r",
                           type(exc).__name__, str(exc)[:200], question)
            return None
        return parsed if (parsed.plan or parsed.missing or parsed.ambiguous) else None

    # -- pieces ----------------------------------------------------------------------------
    def _item(self, item: Any) -> dict[str, Any]:
        store = self.executor.store
        triples = list(item.evidence) + [t for v in item.values for t in v.evidence]
        return {
            "uri": item.uri, "label": item.label, "category": item.category,
            "count": item.count,
            "values": [{"relation": v.relation, "text": v.text, "years": v.years,
                        "node": v.node} for v in item.values],
            "evidence": [(store.term(s), store.term(p), store.term(o)) for s, p, o in
                         dict.fromkeys(triples)],
        }

    def _not_found(self, missing: Sequence[Missing]) -> ExactAnswer:
        parts = []
        for m in missing:
            kinds = " or ".join(CATEGORY_NOUNS.get(c, c.lower()) for c in m.expected) or \
                "node"
            text = f"No {kinds} named “{m.text}” in this graph"
            if m.elsewhere:
                other = m.elsewhere[0]
                kind = CATEGORY_NOUNS.get(other.category, other.category.lower())
                how = "is only that of" if other.how != "partial" else "appears only in " \
                    "the name of"
                article = "an" if kind[:1] in "aeiou" else "a"
                text += f" (the name {how} {article} {kind}: “{other.name}”)"
            if m.closest:
                text += "; closest names: " + ", ".join(m.closest)
            parts.append(text + ".")
        return ExactAnswer("not_found", " ".join(parts), 0, missing=list(missing))

    def _ambiguous(self, unresolved: Sequence[Unresolved]) -> ExactAnswer:
        u = unresolved[0]
        options = []
        for c in u.candidates[:8]:
            node = self.executor.node_id(c.node)
            label = self.executor.label(node) if node is not None else c.name
            options.append(f"{label} ({c.category.lower()}, <{c.node}>)")
        more = f" and {len(u.candidates) - 8} more" if len(u.candidates) > 8 else ""
        text = (f"“{u.text}” names {len(u.candidates)} nodes equally well: "
                f"{'; '.join(options)}{more}. Which one do you mean?")
        return ExactAnswer("ambiguous", text, candidates=list(u.candidates))

    def _focus(self, history: Sequence[tuple[str, str]]) -> list[Anchor]:
        """What the previous turn was about: its answer's members (a few), its names."""
        if not history:
            return []
        question = history[-1][0]
        parsed = self.planner.parse(question, self._focus(history[-MAX_HISTORY:-1]))
        if parsed.plan is None:
            return []
        plan = parsed.plan
        found: list[Anchor] = []
        for index in range(1, len(plan.variables)):  # "the church at Asinou" it was about
            members = self.executor.members(plan, index)
            if 0 < len(members) <= MAX_FOCUS:
                found += [self._as_anchor(n) for n in members]
        found += plan.anchors
        result = self.executor.run(plan)
        if 0 < len(result.items) <= MAX_FOCUS:  # "the church at Lagoudera": the church
            found += [self._as_anchor(it.node) for it in result.items]
        # what the turn was about leads; a pronoun of a kind ("he", "who made it": a work)
        # picks among them
        first: dict[str, Anchor] = {}
        for anchor in found:
            first.setdefault(anchor.node, anchor)
        return list(first.values())

    def _as_anchor(self, node: int) -> Anchor:
        label = self.executor.label(node)
        return Anchor(label, self.executor.uri(node), label,
                      self.executor.values.category(node) or "")


_ANSWERERS: weakref.WeakKeyDictionary[Any, ExactAnswerer] = weakref.WeakKeyDictionary()
_ANSWERERS_LOCK = threading.Lock()


def answerer_for(data: GraphData) -> ExactAnswerer:
    """The answerer of a loaded index (built on first use, then kept with the index)."""
    with _ANSWERERS_LOCK:
        found = _ANSWERERS.get(data)
        if found is None:
            found = ExactAnswerer(data)
            _ANSWERERS[data] = found
        return found
