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
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from llama_index.core.llms import LLM

from llama_index_crm.errors import LLMUnavailable
from llama_index_crm.exact.absence import AbsenceCheck, Proof
from llama_index_crm.exact.compare import Comparisons
from llama_index_crm.exact.described import DescribedNames
from llama_index_crm.exact.empty import EmptyCheck
from llama_index_crm.exact.endpoint import EndpointExecutor, PlanEndpoint
from llama_index_crm.exact.execute import TITLE_RELATION, ExactResult, Executor
from llama_index_crm.exact.kinds import collection_types, said_by_nodes
from llama_index_crm.exact.language import Lexicon, Lexicons
from llama_index_crm.exact.linking import Candidate, Missing, NameIndex, Unresolved
from llama_index_crm.exact.llm_planner import LLMPlanner
from llama_index_crm.exact.name_span import (
    capitalised_name,
    placed,
    replace_words,
    standing_alone,
)
from llama_index_crm.exact.outcome import ExactAnswer, Status
from llama_index_crm.exact.parse import Parsed, RulePlanner
from llama_index_crm.exact.parse_words import CLASS_NOUNS
from llama_index_crm.exact.plan import Anchor, ExactPlan, ValueFilter, Variable
from llama_index_crm.exact.readings import WHICH_PLACE, Readings, typed_lower
from llama_index_crm.exact.relations import RelationLexicon
from llama_index_crm.exact.render import describe_plan, evidence_lines, render
from llama_index_crm.exact.retries import Retries
from llama_index_crm.exact.roles import ROLE_RELATION, role_relations, with_roles
from llama_index_crm.exact.sentences import asked_last
from llama_index_crm.exact.similar import RelationSimilarity
from llama_index_crm.exact.sparql import plan_sparql
from llama_index_crm.exact.understanding import Understanding, covered, institution_words
from llama_index_crm.llm_calls import LLMClient
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

__all__ = ["ExactAnswer", "ExactAnswerer", "Status", "answerer_for"]

logger = logging.getLogger(__name__)

_BY_MAKER = re.compile(r"\bby\s+([^?!.,;]+)", re.IGNORECASE)
MAX_HISTORY = 3
"""Earlier turns searched for what a pronoun points back to."""
MAX_FOCUS = 3
"""Members of an earlier turn kept as what a pronoun may point to."""
MAX_ITEMS = 200
"""Members returned with their evidence in :attr:`ExactAnswer.items` (the total is exact)."""
LOOSE_MATCHES = frozenset({"misspelling", "surname", "short name", "given name", "qualifier",
                           "partial"})
"""Links an answer states ("reading “whistlr” as James McNeill Whistler")."""
ENDPOINT_EVIDENCE = ("the plan's SPARQL (--explain), its dates, texts, types and materials "
                     "read there and judged as over the index")
"""The evidence of an answer computed on the user's endpoint (no witness triples)."""
CATEGORY_NOUNS = {"Actor": "artist or other actor", "Thing": "work or object",
                  "Place": "place", "Event": "event", "Concept": "term"}


class ExactAnswerer(Readings, Retries, Comparisons):
    """Answers questions exactly over one loaded index.

    Args:
        data: the loaded index (its triple store and name table are read).
        lexicon: the relations (default: ``config/exact/relations.json``).
        endpoint: run the plans that compile to SPARQL on this endpoint (the others over
            the index's triples, said so): :mod:`.endpoint`.
    """

    def __init__(self, data: GraphData, lexicon: RelationLexicon | None = None,
                 endpoint: PlanEndpoint | None = None) -> None:
        self.data = data
        lexicon = lexicon or RelationLexicon.default()
        self.endpoint = endpoint
        self.executor = Executor(data.triples, data.ontology, lexicon) if endpoint is None \
            else EndpointExecutor(data.triples, endpoint, data.ontology, lexicon)
        if ROLE_RELATION in lexicon:  # the roles this graph records ("Director", "Curator")
            lexicon = with_roles(lexicon, role_relations(
                self.executor.walker, lexicon[ROLE_RELATION],
                self.executor.members_of_category("Event"),
                skip=lambda label: CLASS_NOUNS.get(label, "Actor") != "Actor"))
            self.executor.lexicon = lexicon
        self.lexicon = lexicon
        self.names = NameIndex(data.name_rows())
        type_nouns = {label: category for label, category in data.type_labels()}
        self.executor.known_types = frozenset(fold_name(label) for label in type_nouns)
        self.executor.actor_types = frozenset(
            fold_name(t) for category, types in zip(data.meta.categories, data.meta.types,
                                                    strict=True)
            if category == "Actor" for t in types)
        self.planner = RulePlanner(self.names, self.lexicon, type_nouns, trial=self._trial,
                                   present=self.executor.relation_present,
                                   holders=self.executor.collection_holders)
        self.absence = AbsenceCheck(data, self.names)
        self.head_nouns = frozenset(self.planner.nouns) | frozenset(
            fold_name(n) for r in self.lexicon.values() for n in r.nouns)
        self.actor_nouns = frozenset(w for w, c in self.planner.nouns.items() if c == "Actor")
        self._institution: frozenset[str] | None = None
        self.relation_verbs = frozenset(
            fold_name(v) for r in self.lexicon.values() for v in r.verbs
            if " " not in v) - set(self.planner.nouns)
        self.empty = EmptyCheck(data, self.executor, self.names)
        self.similar = RelationSimilarity(data, self.lexicon)
        self.lexicons = Lexicons.default()
        self._script_names: dict[str, dict[str, str]] = {}
        self._place_rows: list[Any] | None = None
        self._descriptions_index: DescribedNames | None = None

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
        if plan is not None:
            return self.execute(plan)
        language = self.lexicons.detect(question)
        lexicon = self.lexicons.get(language)
        if language != "en" and (lexicon is None or not lexicon.words):
            name = lexicon.name if lexicon is not None else "this language"
            return ExactAnswer("retrieval_only", "", language=language,
                               plan_text=f"a question in {name}: no question "
                               f"words known for it, answered from retrieval")
        asked = question  # English idioms ("who's behind") or another language's words
        if lexicon is not None and lexicon.words:
            asked = lexicon.translate(question,
                                      self._names_in(question, lexicon.elision))
            english = self.lexicons.get("en")
            if language != "en" and english is not None:  # "in which district belongs X"
                asked = english.rewrite(asked)
        answer = self._in_script(self._answer(asked, history, llm, language), language)
        if language != "en" and asked != question:
            answer = replace(answer, asked=asked)  # what retrieval searches with
        return answer

    def _answer(self, asked: str, history: Sequence[tuple[str, str]],
                llm: LLM | LLMClient | None, language: str) -> ExactAnswer:
        """The question, in the planner's English (``asked``), read and read again."""
        asked = self._possessed(asked)  # "The Big I's creator": the creator of The Big I
        compared = self._compared(asked, language)  # "who was born first, A or B?"
        if compared is not None:
            return compared
        english = self.lexicons.get("en")
        topics = self._topics(asked)
        for text, note in topics:  # "X — how many of their works are here?"
            text = english.rewrite(text) if english is not None else text
            topical = self._read(text, history, None, language)
            if topical.status == "answered" and (topical.total or topical.result is not None
                                                 and topical.result.left_out):
                return replace(topical, text=f"{topical.text} ({note})")
        for text, settled, note in self._apposed(asked):  # "the actor Paul Lukas"
            pinned = self._read(text, history, llm, language, settled=settled)
            if pinned.status == "answered" and pinned.total:
                return replace(pinned, text=f"{pinned.text} ({note})")
        first = self._either_way(asked, self._read(asked, history, llm, language), history,
                                 language)
        if topics and first.status == "answered":
            # "X — what else did they direct?": read with its pronoun standing for X it
            # finds nothing; the plan that left the pronoun aside answers another question
            return ExactAnswer("retrieval_only", "", plan=first.plan, language=language,
                               understanding=first.understanding,
                               plan_text=f"the question points back to what it names first "
                               f"({topics[0][1]}), and that reading finds no answer: "
                               f"answered from retrieval\n{first.plan_text}")
        empty = first.status == "answered" and not first.total and first.plan is not None \
            and first.plan.operation in {"list", "count", "superlative", "describe"}
        if first.status != "retrieval_only" and not empty:
            return first
        checked = self._yes_no(asked, history, language) if first.status != "answered" \
            else None
        if checked is not None:  # "did X direct E?": X is one who directed E
            return checked
        both = self._conjoined(asked, history, language)
        if both is not None:  # "when was X born, and when did she die?"
            return both
        left = self._excluding(asked, history, language)
        if left is not None:  # "works by X that aren't paintings"
            return left
        kinds = self._two_kinds(asked, history, language)
        if kinds is not None:  # "which churches and monasteries are in X"
            return kinds
        ties = self._kinds_tied(first.plan) if first.plan is not None else []
        kept = self._settled_by_answer(asked, history, ties, language, None) if ties else None
        if kept is not None:  # "the director of Florine Stettheimer": the exhibition
            return kept
        typed = self._typed_roles(first)
        if typed is not None:
            return typed
        for text, note in [*first.readings, *topics, *self._appositions(asked),
                           *self._descriptions(asked), *asked_last(asked, self._names_of),
                           *self._relative_clauses(asked), *self._passives(asked),
                           *self._fronted(asked),
                           *self._misspelt_nouns(asked, first),
                           *self._dated_names(asked, first),
                           *self._place_questions(asked)]:
            # a reading that leaves words out is judged on the question as asked; one
            # that replaces words (a close name, a relation word) on its own words, and
            # then also without a class noun before the name it put in ("the church X")
            places = self._place_questions(text) if note else []
            for again, more in [(text, ""), *(self._appositions(text) if note else []),
                                *places, *((clause, more) for place, more in places
                                           for clause, _ in self._relative_clauses(place))]:
                other = self._read(again, history, None, language,
                                   cover=None if note else asked)
                other = self._typed_roles(other) or other
                # a reading is a guess: an empty result of it proves no absence
                if other.status == "answered" and (other.total or other.count is None
                                                   and other.plan is not None
                                                   and other.plan.operation == "value"):
                    which = next((n for n in (note, more) if n.startswith("reading “which")),
                                 None)
                    kind = WHICH_PLACE.match(text if which == more else asked)
                    if which is not None and kind is not None:
                        # "which district is X in": the place it lies in, climbed to a
                        # district; no place of that kind on the way: no answer
                        other = self._of_kind(other, fold_name(kind.group("noun")))
                        if other.status != "answered":
                            continue
                    said = "; ".join(n for n in (note, more) if n)
                    return replace(other, text=f"{other.text} ({said})" if said
                                   else other.text)
        return first

    def _in_script(self, answer: ExactAnswer, language: str) -> ExactAnswer:
        """An answer to a question in a language of another script (Greek) names what the
        graph also names in that script that way, the graph's main name in brackets."""
        pattern = SCRIPTS.get(language)
        if pattern is None or answer.status != "answered" or not answer.items:
            return answer
        names = self._script_names.get(language)
        if names is None:
            names = {}
            for row in self.names.rows:
                if row.kind != "identifier" and pattern.search(row.name):
                    names.setdefault(row.node, row.name)
            self._script_names[language] = names
        text = answer.text
        for item in answer.items:
            own = names.get(str(item.get("uri")))
            label = str(item.get("label") or "")
            if own and label and label in text and own not in text:
                text = text.replace(label, f"{own} ({label})", 1)
        return replace(answer, text=text)

    @property
    def institution(self) -> frozenset[str]:
        """Words naming the institution whose collection the graph is (its holders)."""
        if self._institution is None:
            labels = [self.executor.label(n) for n in
                      (self.executor.node_id(u) for u in self.executor.collection_holders())
                      if n is not None]
            self._institution = institution_words(labels)
        return self._institution

    def _read(self, asked: str, history: Sequence[tuple[str, str]], llm: LLM | LLMClient | None,
              language: str, cover: str | None = None,
              settled: dict[str, str] | None = None) -> ExactAnswer:
        """One reading of the question: planned, checked for coverage (of ``cover``, the
        question as asked, when the reading left words out), executed, and its absences
        checked; ``settled``: folded phrase → the node it is read as naming."""
        parsed = self._llm_parse(asked, llm) if llm is not None and not history and \
            settled is None else None
        parsed = parsed or (self.parse(asked, history) if settled is None else
                            self.planner.parse(asked, self._focus(history), settled))
        chosen = self._settled_by_maker(asked, parsed.ambiguous)
        if chosen:
            parsed = self.planner.parse(asked, self._focus(history),
                                        {k: v[0] for k, v in chosen.items()})
        if parsed.missing:
            return self._missing(asked, parsed.missing, language, cover)
        surnames = [u.text for u in parsed.ambiguous if all(
            c.how == "surname" for c in u.candidates)] + [
            a.text for a in (parsed.plan.anchors if parsed.plan is not None else ())
            if a.how == "surname"]
        for word in surnames:  # "German artists", "the French painters": no one's surname
            if AbsenceCheck.modifier(word, asked, self.head_nouns, self.actor_nouns):
                described = self._described(asked, word, language)
                if described is not None:
                    return described
        wider = self._wider_absent(asked, parsed.ambiguous, language) if parsed.ambiguous \
            and settled is None else None
        if wider is not None:  # "Snow Leopard in Moonlight": no "Leopard" of the graph
            return wider
        if parsed.ambiguous:
            kept = None if settled is not None else \
                self._settled_by_answer(asked, history, parsed.ambiguous, language, cover) \
                or self._subject_read(asked, history, parsed.ambiguous, language) \
                or self._tie_of_one_title(asked, history, parsed.ambiguous, language, cover)
            return kept or replace(self._ambiguous(parsed.ambiguous), language=language)
        if parsed.plan is None:
            return ExactAnswer("retrieval_only", "", plan_text=parsed.reason,
                               language=language)
        plan = parsed.plan
        understanding = covered(cover or asked, plan, self.lexicon,
                                collection=self.institution,
                                names=[maker for _, maker in chosen.values()])
        understanding.language = language
        if not understanding.complete:  # "Copley's 'General Thomas Gage'": its maker named;
            # "the Pitsilia region", "the painted churches": what the nodes themselves say
            makers = self._makers_named(plan, understanding.unexplained) + said_by_nodes(
                self.executor, self.lexicon, plan, cover or asked, understanding.unexplained)
            if makers:
                understanding = covered(cover or asked, plan, self.lexicon,
                                        collection=self.institution,
                                        names=[*(m for _, m in chosen.values()), *makers])
                understanding.language = language
        if not understanding.complete and plan.analyzer == "llm":
            # the LLM's plan leaves words out: validated like any plan, the rules plan instead
            return self._read(asked, history, None, language, cover)
        if not understanding.complete:
            words = ", ".join(f"“{w}”" for w in dict.fromkeys(understanding.unexplained))
            return ExactAnswer(
                "retrieval_only", "", plan=plan, language=language,
                understanding=understanding,
                plan_text=f"the plan leaves {words} unexplained, so it may answer "
                f"another question: answered from retrieval\n"
                f"{describe_plan(plan, self.lexicon)}")
        answer = self.execute(collection_types(plan, self.institution))
        answer = self._reaching(answer)
        unproven = self.empty.unproven(answer.result) if answer.result is not None else None
        if answer.result is not None and not answer.result.total and not unproven:
            unproven = self._hinted_only(plan)
        loose = [a for a in plan.anchors if a.how in LOOSE_MATCHES | {"word"}]
        if answer.result is not None and not answer.result.total and not unproven and loose:
            # "who painted Lagoudera" read as a gospel book whose name holds the word: the
            # empty result is the guess's, not the graph's answer about what was named
            unproven = (f"“{loose[0].text}” was read as “{loose[0].label}” ({loose[0].how}), "
                        f"and that reading finds nothing")
        slipped = [w.word for w in understanding.words if w.role == "slip"]
        if answer.result is not None and not answer.result.total and not unproven and slipped:
            # "the frescoes" read as the planner's "frescos": a guess, which proves nothing
            unproven = f"“{slipped[0]}” was read as a word one key away, and that reading " \
                       f"finds nothing"
        if answer.result is not None and not answer.result.total and not unproven:
            guessed = unworded(answer.result.missing_relations, understanding)
            if guessed:  # "Asinou's painters" read as painters born in Asinou
                labels = " or ".join(self.lexicon[r].label for r in guessed)
                unproven = (f"the graph records no {labels} at all, and no word of the "
                            f"question names it: the reading is a guess")
        if unproven:
            other = self._other_kind(answer)
            if other is not None:  # "portraits of Ulysses S. Grant": the person, not a work
                return replace(other, understanding=understanding, language=language)
            absent = self._standing_in(cover or asked, plan, language)
            return absent or ExactAnswer("retrieval_only", "", plan=plan, language=language,
                                         understanding=understanding,
                                         plan_text=f"{unproven}: answered from retrieval\n"
                                         f"{answer.plan_text}")
        by_maker = [f"of the works titled “{title}”, the one by {maker}"
                    for title, (_, maker) in chosen.items()]
        if by_maker and answer.status == "answered":
            answer = replace(answer, text=f"{answer.text} ({'; '.join(by_maker)})")
        return replace(answer, understanding=understanding, language=language)

    def reads_topic(self, question: str) -> bool:
        """Whether the question names a topic first and points back to it, which
        :meth:`answer` reads itself (the pronoun standing for the topic)."""
        return bool(self._topics(question))

    def _hinted_only(self, plan: ExactPlan) -> str | None:
        """Why an empty result proves nothing when only a hint emptied it ("who painted the
        church at Asinou": it has a maker, and its paintings are recorded on a part of it,
        not as a painting of the church itself), else None."""
        if not any(link.hints for v in plan.variables for link in v.links):
            return None
        plain = replace(plan, variables=tuple(
            replace(v, links=tuple(replace(link, hints=()) for link in v.links))
            for v in plan.variables))
        if not self.executor.run(plain).total:
            return None
        hints = sorted({h for v in plan.variables for link in v.links for h in link.hints})
        return (f"the graph records what the plan asks without “{'/'.join(hints[:2])}”, "
                f"and nothing so typed on its path")

    def _reaching(self, answer: ExactAnswer) -> ExactAnswer:
        """An empty result of a period dates begin in ("works from the 1840s": none dated
        wholly within them, three from 1845–1852, as grouping by decade counts them): those,
        said so, never "there are none"."""
        plan = answer.plan
        if answer.result is None or answer.result.total or plan is None:
            return answer
        strict = [f for v in plan.variables for f in v.filters
                  if f.years is not None and f.months is None and not f.begins]
        if not strict:
            return answer
        loose = replace(plan, variables=tuple(
            replace(v, filters=tuple(replace(f, begins=True) if f in strict else f
                                     for f in v.filters)) for v in plan.variables))
        found = self.execute(loose)
        if found.status != "answered" or not found.total:
            return answer
        return replace(found, text=f"{found.text} (none is dated wholly within the period; "
                                   f"these have dates that begin in it)")

    def _names_in(self, question: str, elision: bool = True) -> list[tuple[int, int]]:
        """Token spans of ``question`` (:meth:`Lexicon.tokens`) that are names of the graph
        as typed: kept whole when the question is translated ("Παναγία της Ασίνου")."""
        tokens = Lexicon.tokens(question, elision)
        at = [i for i, t in enumerate(tokens) if t[:1].isalnum()]
        words = [fold_name(tokens[i]) for i in at]
        spans = []
        taken: set[int] = set()
        for mention in self.names.scan(words, skip=self.planner.skip):
            first = tokens[at[mention.start]]
            # one capitalised word opening the question is no sign of a name ("Dove è …")
            if mention.end - mention.start >= 2 or first[:1].isupper() and mention.start:
                spans.append((at[mention.start], at[mention.end - 1] + 1))
                taken.update(range(mention.start, mention.end))
        # capitalised runs the scan missed: an inflected or misspelt name ("Παναγίας του
        # Μουτουλλά" for "Παναγία του Μουτουλλά"), kept when the name index knows them
        i = 0
        while i < len(at):
            if i in taken or not tokens[at[i]][:1].isupper() or i == 0:
                i += 1
                continue
            j = i + 1
            while j < len(at) and j not in taken and (
                    tokens[at[j]][:1].isupper() or len(words[j]) <= 3 and j + 1 < len(at)
                    and tokens[at[j + 1]][:1].isupper()):
                j += 1
            if j - i >= 2 and self.names.lookup(" ".join(words[i:j])) or \
                    j - i == 1 and len(words[i]) >= MIN_LONE_NAME and any(
                        words[i] in fold_name(c.name).split()
                        for c in self.names.lookup(words[i])):
                # one capitalised word that is a word of a name ("the valley of Marathasa")
                spans.append((at[i], at[j - 1] + 1))
            i = j
        return sorted(spans)

    def _missing(self, question: str, missing: Sequence[Missing],
                 language: str, cover: str | None = None) -> ExactAnswer:
        """``not_found`` when every missing name is proven absent, else retrieval."""
        proofs: list[Proof] = [
            Proof(m.text, False, f"“{m.text}” names the institution whose collection this "
                  f"graph is", ordinary=True)  # "does the Center hold": the YCBA
            if set(fold_name(m.text).split()) <= self.institution and
            standing_alone(question, m.text) else
            self.absence.check(m.text, question, self.planner.vocabulary,
                               foreign=language != "en", verbs=self.relation_verbs,
                               elsewhere=m.elsewhere, nouns=self.head_nouns,
                               language=language, actors=self.actor_nouns,
                               expected=m.expected)
            for m in missing]
        unproven = [p for p in proofs if not p.proven]
        # a word proven absent as part of a longer name is reported as that name
        # ("Starry" of "The Starry Night"), once
        pairs = {(fold_name(p.text) if p.proven else f"{i}"): (
            replace(m, text=p.text) if p.proven else m, p)
            for i, (m, p) in enumerate(zip(missing, proofs, strict=True))}
        missing = [m for m, _ in pairs.values()]
        proofs = [p for _, p in pairs.values()]
        if len(missing) == 1:
            titled = self._titled(question, missing[0], language, cover)
            if titled is not None:  # "Lewis Hine's pictures of the Dallas Cotton Mill"
                return titled
        if len(unproven) == 1 and unproven[0].describes and len(proofs) == 1:
            described = self._described(question, unproven[0].text, language)
            if described is not None:
                return described
        if len(proofs) == 1 and typed_lower(question, proofs[0].text):
            # "how many works are made of bronze", "number of photogravures": a material or
            # a medium the graph may state only in words
            stated = self._stated(question, proofs[0].text, language)
            if stated is not None:
                return stated
        absent = [m for m, p in zip(missing, proofs, strict=True) if p.proven]
        if absent and unproven and all(p.ordinary for p in unproven) and (
                language == "en" or all(self.absence.plain_english(p.text, question)
                                        for p in unproven)) and all(
                not m.elsewhere and self.absence.unheard(m.text)
                and (capitalised_name(question, m.text) or placed(question, m.text))
                for m in absent):
            # "the wall paintings of Agios Sozomenos": a name proven absent, beside words
            # that are no name at all, is absent whatever those words mean (in English: in
            # another language two capitalised words may be its untranslated nouns,
            # "la Lista del Patrimonio Mundial", unless the words are English, translated)
            return replace(self._not_found(absent), language=language)
        if unproven:
            readings = []
            for proof in unproven:
                if proof.close and fold_name(proof.close) != fold_name(proof.text):
                    text = replace_words(question, proof.text, proof.close)
                    readings.append((text, f"reading “{proof.text}” as {proof.close}"))
            # words that are no name (a name of the graph, of another kind than the reading
            # expected, is never replaced by a relation word or dropped)
            ordinary = [p.text for p in unproven if p.close is None and not p.named
                        or set(fold_name(p.text).split()) <= self.institution]
            for words in ordinary:  # a slip of a class noun ("how many peices by X")
                near = self._respelt(fold_name(words))
                if near is not None:
                    text = re.sub(rf"\b{re.escape(words)}\b", near, question, count=1)
                    readings.append((text, f"reading “{words}” as “{near}”"))
            for words in ordinary:  # a relation word by meaning ("portrays" → depicts)
                match = self.similar.match(words)
                if match is not None:
                    relation, score = match
                    word = self.similar.word_for(relation)
                    text = re.sub(r"\b" + re.escape(words) + r"\b", word, question, count=1)
                    readings.append((text, f"reading “{words}” as “{word}”, "
                                     f"{self.lexicon[relation].label} ({score:.2f})"))
            if ordinary:  # the question without them; coverage then judges what they meant
                text = question
                for words in ordinary:
                    text = re.sub(r"\b" + re.escape(words) + r"\b", " ", text, count=1)
                said = self._describing(question, ordinary)
                readings.append((" ".join(text.split()), said))
            return ExactAnswer("retrieval_only", "", language=language, readings=readings,
                               plan_text="; ".join(p.reason for p in unproven)
                               + ": answered from retrieval")
        return replace(self._not_found(missing), language=language)

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
        elif plan.operation == "value" and result.items:
            result, plan = self._statement_values(plan, result)
        text = render(result, self.executor)
        readings = [f"reading “{a.text}” as {a.label}" for a in plan.anchors
                    if a.how in LOOSE_MATCHES]
        readings += [f"“{a.text}” names {len(a.nodes)} {a.category.lower()}s here, all taken "
                     f"together" for a in plan.anchors if a.also]
        if readings:
            text = f"{text} ({'; '.join(readings)})"
        count = result.total if plan.operation == "count" or (
            plan.operation == "list" and not result.total) else None
        if plan.operation == "superlative" and plan.order_by == "count" and result.items and \
                result.items[0].count is not None:
            count = result.items[0].count  # "who has the most paintings": Russell's 54
        if plan.operation == "group" and plan.limit is not None and result.groups:
            count = len(result.groups[0].items)  # "which year had the most": 1959's 78
        if not result.total and result.missing_relations:
            count = None  # "this graph records no R at all": not a count of none
        items = [self._item(it) for it in result.items[:MAX_ITEMS]]
        evidence = evidence_lines(result, self.executor)
        if result.backend == "sparql" and self.endpoint is not None:
            evidence = [f"computed on {self.endpoint.describe()}: {ENDPOINT_EVIDENCE}"]
        return ExactAnswer(
            "answered", text, count, items, result.total, result.plan,
            describe_plan(result.plan, self.lexicon),
            plan_sparql(result.plan, self.executor), evidence,
            result=result, backend=result.backend)

    def _statement_values(self, plan: ExactPlan,
                          result: ExactResult) -> tuple[ExactResult, ExactPlan]:
        """Values the graph holds only as a statement's text: "what nationality was X"
        where X's nationality is no node but his biography reads "Dutch, 1872–1944".
        The statement is quoted, and the answer says where it comes from."""
        empty = [name for name in plan.attributes if self.lexicon[name].fallback and not any(
            v.relation == name for it in result.items for v in it.values)]
        if not empty or len(empty) < len(plan.attributes):
            return result, plan
        fallbacks = tuple(dict.fromkeys(str(self.lexicon[n].fallback) for n in empty))
        alternative = replace(plan, attributes=fallbacks)
        found = self.executor.run(alternative)
        if not any(v.relation in fallbacks for it in found.items for v in it.values):
            return result, plan
        missing = " or ".join(self.lexicon[n].label for n in empty)
        said = " or ".join(self.lexicon[f].label for f in fallbacks)
        found.notes.append(f"{missing} is not recorded as a node here; the {said} states "
                           f"it in words, quoted")
        return found, alternative

    def _fallback(self, plan: ExactPlan, missing: Sequence[str]) -> ExactPlan | None:
        """The plan read through a relation's statement fallback ("who gave X?" → X's
        credit line; "works given by Y" → works whose credit line names Y)."""
        var = plan.variables[0]
        for link in var.links:
            fallback = self.lexicon[link.relation].fallback
            if link.relation not in missing or not fallback or (
                    fallback != TITLE_RELATION and not self.executor.relation_present(fallback)):
                continue
            if not isinstance(link.target, Anchor):
                continue
            if link.inverse:  # who —gave→ X: X's statement
                if plan.operation not in {"list", "value"} or len(var.links) > 1:
                    return None  # "which artist is most represented in X": not X's title
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

    def _makers_named(self, plan: ExactPlan, words: Sequence[str]) -> list[str]:
        """The maker a question names beside the work it asks about ("Copley's 'General
        Thomas Gage'", German "Copleys Bildnis …"): the words left unexplained, read as an
        actor who made a work the plan names; [] when they are not."""
        relation = self.lexicon.get("created-by")
        works = [n for a in plan.anchors if a.category == "Thing" for n in a.nodes]
        if relation is None or not works or not words or len(words) > 4:
            return []
        text = " ".join(words)
        found: list[Candidate] = []
        for form in dict.fromkeys([text, re.sub(r"s$", "", text)]):  # "copleys"
            found = [c for c in self.names.lookup(form, ["Actor"], partial=False)
                     if c.how not in {"misspelling"}]
            if found:
                break
        wanted = {self.executor.node_id(c.node) for c in found} - {None}
        ids = [n for n in (self.executor.node_id(w) for w in works) if n is not None]
        if not wanted or not ids:
            return []
        walk = self.executor.walker.walk(relation, np.asarray(ids, dtype=np.int64))
        makers = {int(n) for n in walk.node.tolist()} & wanted
        if not makers:
            return []
        return [self.executor.label(n) for n in sorted(makers)] + [text]

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
            found += [self._as_anchor(it.node) for it in result.items
                      if it.node >= 0]  # a member only the endpoint knows: no anchor
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


MIN_LONE_NAME = 5
"""Letters one capitalised word needs to stand for a name it is a word of."""

SCRIPTS = {"el": re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]")}
"""Languages written in a script of their own: names in it are the language's names."""

_ANSWERERS: weakref.WeakKeyDictionary[Any, dict[int, ExactAnswerer]] = \
    weakref.WeakKeyDictionary()
_ANSWERERS_LOCK = threading.Lock()


def answerer_for(data: GraphData, endpoint: PlanEndpoint | None = None) -> ExactAnswerer:
    """The answerer of a loaded index (built on first use, then kept with the index), one
    per endpoint its plans run on (none: the index's triples)."""
    with _ANSWERERS_LOCK:
        kept = _ANSWERERS.setdefault(data, {})
        key = id(endpoint)
        found = kept.get(key)
        if found is None or found.endpoint is not endpoint:
            found = ExactAnswerer(data, endpoint=endpoint)
            kept[key] = found
        return found



def unworded(missing: Sequence[str], understanding: Understanding) -> list[str]:
    """The relations of ``missing`` (never recorded by the graph) that no word of the
    question names: the plan read them from grammar alone (a possessive, a preposition), so
    an empty result through them proves nothing."""
    named = {w.role.partition(":")[2] for w in understanding.words
             if w.role.startswith("relation:")}
    return [r for r in missing if r not in named]

