"""Other readings of a question, tried when the first finds no answer: a class noun typed
wrong, a passive or a relative clause put plainly, an apposition ("the church X"), "which
district …" read as "where …" and climbed to the place of that kind, a nationality or a
material the graph states only in words read as a filter on what states it.

:class:`Readings` is a part of :class:`~.answerer.ExactAnswerer` (it plans and executes
through it); kept apart so that each file says one thing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from llama_index_crm.exact.conjoined import joined, split_conjoined, with_name
from llama_index_crm.exact.execute import Value
from llama_index_crm.exact.language import Lexicon
from llama_index_crm.exact.linking import CLOSE_LINKS, Missing, Unresolved
from llama_index_crm.exact.name_span import capitalised_name
from llama_index_crm.exact.outcome import ExactAnswer, gives_values
from llama_index_crm.exact.parse_words import DETERMINERS
from llama_index_crm.exact.plan import ValueFilter
from llama_index_crm.exact.render import render
from llama_index_crm.query.lexicon import singularise, slips
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.absence import AbsenceCheck
    from llama_index_crm.exact.execute import Executor
    from llama_index_crm.exact.linking import NameIndex
    from llama_index_crm.exact.parse import RulePlanner
    from llama_index_crm.exact.plan import ExactPlan
    from llama_index_crm.exact.relations import RelationLexicon

__all__ = ["MATERIAL_CUES", "WHICH_PLACE", "Readings", "typed_lower"]

_RELATIVE = re.compile(r"\b([A-Za-z]+)\s+(who|that)\s+([A-Za-z]+)\s+", re.IGNORECASE)
"""A noun, "who" or "that", and a verb: a relative clause ("the artist who made …")."""

_TRAILING_WH = re.compile(r"^(?P<x>.{6,}?)[\s,]+(?P<wh>where|when|who|whom)\s*\??$",
                          re.IGNORECASE)
"""A question ending with its question word ("… died where?")."""
_PASSIVE = re.compile(r"^(?P<x>.+?)[\s:,\-—]+(?:(?:was|were|is|are)\s+)?(?P<verb>\w+)\s+by\s*\??$",
                      re.IGNORECASE)
"""The words after "by" in a question: a maker's name, perhaps followed by more."""

_BORN_COMPOUND = re.compile(r"\b(?P<adj>[A-Za-z]{4,})-born\s+(?P<noun>[a-z]+)", re.I)
"""A place adjective before "-born" and the noun it qualifies."""
MIN_PLACE_STEM = 4
"""Letters of a place adjective that must open the place's name."""

MIN_MISSPELT = 6
"""Letters an unexplained word needs to be read as a noun one edit away."""
MIN_SLIPPED = 4
"""Letters a word needs to be read as a mistyped word of the planner ("lsit")."""

MATERIAL_CUES = frozenset({"made", "of", "in", "with", "medium", "media", "material",
                           "materials", "cast", "are", "is", "were", "was", "on"})
"""Words before a material that cue it ("made of bronze", "with medium photogravure")."""

WHICH_PLACE = re.compile(r"^\s*(?:in\s+)?(?:which|what)\s+(?P<noun>[a-z]+)\s+"
                          r"(?P<rest>(?:was|were|did|is)\s.+?)(?:\s+in)?\s*\??\s*$", re.I)
"""A question asking which place: "which country was X born in"."""


_TOPIC_BREAK = re.compile(r"\s+[—–-]+\s+|:\s+|\s*[—–]\s*")
"""Where a question naming its topic first goes on ("X — who directed it?", "X: when?")."""
_TRAILING_NOUN = re.compile(r"\bthe\s+(\w+)\s*[?.!]*\s*$", re.I)
"""A noun ending a question after "the" ("who was the director?")."""
_POINTER = re.compile(r"\b(?:it|them|him|he|she|they|its|their|his|her)\b", re.I)
_POSSESSIVE = re.compile(r"\b(its|their|his|her)\s+(\w+)", re.I)
_DEMONSTRATIVE = re.compile(r"\b(?:that|this|the\s+same)\s+(artists?|painters?|makers?|"
                            r"photographers?|sculptors?|engravers?|creators?|printmakers?)\b",
                            re.I)
_PREAMBLE = re.compile(r"^(?:(?:i'?m|i am|we'?re|we are)\s+(?:looking\s+(?:into|at)|"
                       r"researching|studying|reading\s+about|interested\s+in|curious\s+"
                       r"about|writing\s+about|working\s+on|[a-z]+ing(?:\s+(?:up|on|for))?)|"
                       r"(?:question|quick question|regarding|about|concerning|re)\b)[\s,:]*",
                       re.I)
_TOPIC_WORDS = frozenset({"the", "a", "an", "show", "exhibition", "exhibit", "of", "in",
                          "at", "moma", "museum", "retrospective", "inaugural", "famous",
                          "so", "called", "titled", "named", "entitled", "s", "appearances",
                          "career", "record", "records", "history"})
"""Words a topic phrase may hold beside its name and say nothing more by."""
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_BESIDE = " -–—,:;()[]"
_PAREN_YEAR = re.compile(r"[„“\"'‘«](?P<title>[^„“”\"'‘’«»]{3,})(?P<q>[”“\"'’»])"
                         r"\s*\((?P<year>1\d{3}|20\d{2})\)")
"""What may stand between a name and its year ("Twelve Americans (1956)")."""
COLLECTION_NOUNS = frozenset({"collection", "collections", "museum", "holdings"})
"""Words for where the works are, which a slip may also touch."""
WHOLE_NAME = 0.95
"""How well a topic typed alone must match a name to be read as one."""
_TITLE_WORDS = frozenset({"titled", "title", "titles", "named", "called", "entitled"})
MAX_TIED = 6
"""Nodes of a tied name each read in turn (more: the tie is asked back)."""
PART_NAMES = frozenset({"surname", "short name", "given name", "acronym", "initials"})
"""Matches by a part of a person's name: people who share it are told apart by the
reading that answers."""
CATEGORY_WORDS = {"Actor": "person or group", "Thing": "work or object", "Place": "place",
                  "Event": "event", "Concept": "term", "Time": "period"}


class Readings:
    """The readings of :class:`~.answerer.ExactAnswerer`."""

    if TYPE_CHECKING:  # what the answerer provides
        planner: RulePlanner
        names: NameIndex
        executor: Executor
        lexicon: RelationLexicon
        relation_verbs: frozenset[str]
        absence: AbsenceCheck
        _place_rows: list[Any] | None

        @property
        def institution(self) -> frozenset[str]: ...

        def _read(self, asked: str, history: Sequence[tuple[str, str]], llm: Any,
                  language: str, cover: str | None = None,
                  settled: dict[str, str] | None = None) -> ExactAnswer: ...

        def execute(self, plan: ExactPlan) -> ExactAnswer: ...

        def _missing(self, question: str, missing: Sequence[Missing],
                     language: str) -> ExactAnswer: ...

        def _names_in(self, question: str, elision: bool = True) -> list[tuple[int, int]]: ...

    def _settled_by_answer(self, asked: str, history: Sequence[tuple[str, str]],
                           ambiguous: Sequence[Unresolved], language: str,
                           cover: str | None) -> ExactAnswer | None:
        """A name nodes of several kinds carry ("Ben Shahn": an artist, and an exhibition
        named after him), read as each of them: when exactly one reading covers the question
        and finds an answer ("how many exhibitions was Ben Shahn part of": the artist's),
        that one, said so; otherwise None (the tie is asked back). Nodes of one kind stay a
        tie (an empty reading of one of two works of a title proves nothing), unless the
        name is part of each of theirs ("Hemingway portraits by Man Ray": of the three
        Hemingways, only Ernest's reading answers)."""
        if len(ambiguous) != 1:
            return None
        tie = ambiguous[0]
        if len(tie.candidates) > MAX_TIED or len({c.category for c in tie.candidates}) < 2 and \
                not all(c.how in PART_NAMES for c in tie.candidates):
            return None
        found = []
        for candidate in tie.candidates:
            answer = self._read(asked, history, None, language, cover,
                                settled={fold_name(tie.text): candidate.node})
            if answer.status == "answered" and answer.total and answer.result is not None \
                    and gives_values(answer):
                found.append((candidate, answer))
        if len(found) == len(tie.candidates) > 1 and len({a.text for _, a in found}) == 1 \
                and all(c.how in PART_NAMES for c in tie.candidates):
            # "The Sneak by Bunn": a Ken Bunn and a Kenneth R. Bunn, and each reading gives
            # the same answer; which one is meant changes nothing
            answer = found[0][1]
            return replace(answer, text=f"{answer.text} (“{tie.text}” names "
                                        f"{len(found)} people here; each reading gives this)")
        if len({c.category for c, _ in found}) != 1 or len(found) != 1:
            return None
        candidate, answer = found[0]
        kind = CATEGORY_WORDS.get(candidate.category, candidate.category.lower())
        others = len(tie.candidates) - 1
        rest = "the other node so named gives" if others == 1 else \
            f"the {others} other nodes so named give"
        note = f"reading “{tie.text}” as the {kind}; {rest} no answer to it"
        if len({c.category for c in tie.candidates}) == 1:  # "Obama": two people, the
            note = f"{rest} no answer to it"  # answer says which one it read
        return replace(answer, text=f"{answer.text} ({note})")

    def _conjoined(self, asked: str, history: Sequence[tuple[str, str]],
                   language: str) -> ExactAnswer | None:
        """Two questions joined by "and", the second pointing back with a pronoun: both
        answered (the second about the one node the first named), or None."""
        parts = split_conjoined(asked)
        if parts is None:
            return None
        first = self._read(parts[0], history, None, language)
        anchors = list(first.plan.anchors) if first.plan is not None else []
        if first.status != "answered" or len({a.node for a in anchors}) != 1:
            return None
        second = self._read(with_name(parts[1], anchors[0].label), history, None, language)
        return joined(first, second) if second.status == "answered" else None

    def _subject_read(self, asked: str, history: Sequence[tuple[str, str]],
                      ambiguous: Sequence[Unresolved], language: str) -> ExactAnswer | None:
        """A title many works share, asked of works in the plural ("how many moose
        pictures", "pictures of the Grand Canyon"): read as what the works show, when that
        reading answers; None otherwise (the tie is asked back)."""
        if len(ambiguous) != 1:
            return None
        tie = ambiguous[0]
        if len(tie.candidates) < 2 or {c.category for c in tie.candidates} != {"Thing"} or \
                len({fold_name(c.name) for c in tie.candidates}) != 1:
            return None
        text = subject_question(asked, tie.text)
        if text is None:
            return None
        answer = self._read(text, history, None, language)
        if answer.status != "answered" or not answer.total:
            return None
        note = (f"reading “{tie.text}” as what the works show, not as one of the "
                f"{len(tie.candidates)} works titled so")
        return replace(answer, text=f"{answer.text} ({note})")

    def _standing_in(self, asked: str, plan: ExactPlan, language: str) -> ExactAnswer | None:
        """A name no node carries that the plan read as title words and no title holds
        ("which portraits show Clara Schumann"): judged as the missing name it is (absent
        when proven so, else None)."""
        texts = [c.contains for v in plan.variables for c in v.filters
                 if c.forms and c.contains]
        if len(texts) != 1:
            return None
        at = asked.lower().find(texts[0].lower())
        typed = asked[at:at + len(texts[0])] if at >= 0 else ""
        if not capitalised_name(asked, typed):
            return None
        missing = Missing(typed, (), tuple(self.names.closest(typed, None)),
                          tuple(self.names.containing(typed)))
        answer = self._missing(asked, [missing], language)
        return answer if answer.status == "not_found" else None

    def _titled(self, question: str, missing: Missing, language: str,
                cover: str | None = None) -> ExactAnswer | None:
        """Works asked for by words no node is named but works' titles hold ("pictures of
        the Dallas Cotton Mill", "photographs titled with Great Spruce Head Island"): read
        as works with those words in their title, said so; None otherwise (``cover``: the
        words the reading must still explain, when ``question`` left some out)."""
        if not any(c.how == "partial" and c.category == "Thing" for c in missing.elsewhere):
            return None
        if any(c.category == "Actor" and fold_name(c.name).endswith(f" {fold_name(missing.text)}")
               for c in missing.elsewhere):
            return None  # "works of McKnight Kauffer": a person's name ends so, a maker asked
        words = fold_name(question).split()
        if not any(self.planner.nouns.get(w) == "Thing" or w in _TITLE_WORDS for w in words):
            return None  # a person or a place asked about: absent as itself
        span = re.escape(missing.text).replace(r"\ ", r"\s+")
        # the capitalised words just before it are the title's too ("the Dallas Cotton Mill")
        run = re.search(rf"(?:\b[A-Z][\w'’.-]*\s+)*{span}", question)
        said = " ".join(run.group().split()) if run and run.start() else missing.text
        span = re.escape(said).replace(r"\ ", r"\s+")
        # only after a word of titles or depiction ("works by David Hockney" asks a maker)
        text, n = re.subn(rf"(?:\b(?:titled|named|called|entitled)\s+(?:with\s+|after\s+)?"
                          rf"|\b(?:of|about|showing|shows?|depicting|depicts?|featuring|"
                          rf"features?|with)\s+)(?:the\s+)?"
                          rf"[“\"']?{span}[”\"']?", f" with “{said}” in the title",
                          question, count=1, flags=re.IGNORECASE)
        if not n:
            return None
        text = re.sub(r"\b(?:are|is|were|was)\s+(?=with “)", "", " ".join(text.split()))
        answer = self._read(text, (), None, language, cover=cover)
        if answer.status != "answered" or not answer.total:
            return None
        return replace(answer, text=f"{answer.text} (no node is named “{said}”; read as "
                                    f"words of the titles)")

    def _describing(self, question: str, words: Sequence[str]) -> str:
        """A note when the one ordinary word left out is the material or type of the work
        named right after it ("the bronze African Black Rhino …": the work is bronze), so
        the reading is judged on its own words; "" otherwise."""
        if len(words) != 1:
            return ""
        word = fold_name(words[0]).removeprefix("the ").strip()
        after = re.search(re.escape(words[0]) + r"\s+(.+)$", question, re.IGNORECASE)
        concepts = [c for c in self.names.exact(word, ["Concept"])][:3]
        if after is None or not concepts:
            return ""
        for start, end in self._names_in(after.group(1), False)[:1]:
            tokens = Lexicon.tokens(after.group(1), False)
            works = [c for c in self.names.lookup(" ".join(tokens[start:end]))
                     if c.category == "Thing"][:3]
            held = {self.executor.node_id(c.node) for c in concepts} - {None}
            for work in works:
                node = self.executor.node_id(work.node)
                if node is not None and held & self._within_two(node):
                    return f"reading “{words[0]}” as what {work.name} is"
        return ""

    def _within_two(self, node: int) -> set[int]:
        """The nodes one or two triples away from ``node`` (its material, through its
        production or a part)."""
        store = self.executor.store
        near = store.neighbour_ids(node).tolist()
        return set(near) | {n for m in near for n in store.neighbour_ids(m).tolist()}

    def _kinds_tied(self, plan: ExactPlan) -> list[Unresolved]:
        """A name the plan linked to one node that nodes of another kind carry as well
        (an artist, and the exhibition named after her): the tie, to be read each way."""
        for anchor in plan.anchors:
            found = self.names.lookup(anchor.text)
            top = tuple(c for c in found if c.score == found[0].score) if found else ()
            if len(top) <= MAX_TIED and len({c.category for c in top}) > 1 and \
                    anchor.node in {c.node for c in top}:
                return [Unresolved(anchor.text, top)]
        return []

    def _possessed(self, asked: str) -> str:
        """"The Big I's creator" as "the creator of The Big I": a name's possessive before
        an actor noun, put as the genitive the planner composes ("how many works of the
        creator of The Big I")."""
        tokens = Lexicon.tokens(asked, False)
        changed = False
        for start, end in reversed(self._names_in(asked, False)):
            last = tokens[end - 1]
            if end >= len(tokens) or not re.search(r"\w['’]s$", last) or \
                    self.planner.noun_category(fold_name(tokens[end])) != "Actor":
                continue
            titled = self.names.lookup(" ".join(tokens[start:end + 1]))
            if titled and titled[0].score >= WHOLE_NAME:  # "whistler's mother": a title
                continue
            name = " ".join([*tokens[start:end - 1], last[:-2]])
            tokens = [*tokens[:start], "the", tokens[end], "of", name, *tokens[end + 1:]]
            changed = True
        return re.sub(r"\s+([?!.,;:])", r"\1", " ".join(tokens)) if changed else asked

    def _topics(self, asked: str) -> list[tuple[str, str]]:
        """Readings of a question that names its topic first and then points back to it
        ("Five California Houses: whose work was in it?", "Built in USA: Post-War
        Architecture — who served as its advisor?", "I'm looking into the show X — who
        directed it?"): the pronoun replaced by the topic (the whole phrase, then the name
        alone when the other words of the phrase say nothing more)."""
        out: list[tuple[str, str]] = []
        for match in reversed(list(_TOPIC_BREAK.finditer(asked))):
            head, tail = asked[:match.start()].strip(), asked[match.end():].strip()
            pointer = _POINTER.search(tail) or _DEMONSTRATIVE.search(tail) or \
                self._whose(tail)  # "X show - who was the director?": X's director
            if not head or pointer is None:
                continue
            head = re.sub(r"(\w)['’]s\b", r"\1", _PREAMBLE.sub("", head).strip())
            spans = self._names_in(head, False)
            tokens = Lexicon.tokens(head, False)
            names = [" ".join(tokens[a:b]) for a, b in spans]
            whole = self.names.lookup(head)
            if not names and whole and whole[0].score >= WHOLE_NAME:  # "Balthus — …"
                names, spans = [head], [(0, len(tokens))]
            if not names:  # "Great — and who directed it?": the pronoun is the last turn's
                break
            rest = [fold_name(t) for i, t in enumerate(tokens)
                    if not any(a <= i < b for a, b in spans) and fold_name(t)]
            topics = [head]
            found = self.names.lookup(names[0]) if len(names) == 1 else []
            kinds = {c.category for c in found}  # "the architect Louis I. Kahn": a person
            if kinds and all(w in _TOPIC_WORDS or self.planner.noun_category(w) in kinds
                            or w.isdigit() and self._names_year(names[0], int(w))
                            for w in rest):
                topics.append(names[0])  # "the 1939 show Seven American Photographers"
            for topic in dict.fromkeys(topics):
                literal = _escaped(topic)
                text = _DEMONSTRATIVE.sub(rf"the \1 of {literal}", tail)  # "that artist"
                if pointer.re is _TRAILING_NOUN:
                    text = f"{tail[:pointer.end(1)]} of {topic}{tail[pointer.end(1):]}"
                text = _POINTER.sub(literal, _POSSESSIVE.sub(rf"the \2 of {literal}", text))
                out.append((text, f"reading “{pointer.group()}” as {topic}"))
            break
        return out

    def _whose(self, tail: str) -> re.Match[str] | None:
        """A relation noun ending the question after "the" ("who was the director?"): the
        topic named before is whose."""
        found = _TRAILING_NOUN.search(tail)
        nouns = {fold_name(n) for r in self.lexicon.values() for n in r.nouns}
        return found if found and fold_name(found.group(1)) in nouns else None

    def _dated_names(self, asked: str, first: ExactAnswer) -> list[tuple[str, str]]:
        """Readings without a year typed right beside a name when it is the named node's own
        date ("twelve americans 1956 - which artists were in it": the show of 1956, not
        artists born then)."""
        if first.plan is None:  # "the exhibition „Modern European Art“ (1933)"
            return [(asked[:m.end("q")] + asked[m.end():],
                     f"reading “{m.group('year')}” as the date of {m.group('title')}")
                    for m in _PAREN_YEAR.finditer(asked)
                    if self._names_year(m.group("title"), int(m.group("year")))][:1]
        out = []
        for anchor in first.plan.anchors:
            at = re.search(re.escape(anchor.text), asked, re.IGNORECASE)
            years = self._own_years(anchor.node) if at is not None else None
            if at is None or years is None:
                continue
            for match in _YEAR.finditer(asked):
                between = asked[at.end():match.start()] if match.start() >= at.end() else \
                    asked[match.end():at.start()]
                gap = between.strip(_BESIDE).lower()
                # "who organized 12 Photographers in 1951": an event's own year
                of_event = gap == "in" and match.start() >= at.end() and \
                    anchor.category == "Event"
                if gap and not of_event or not years[0] <= int(match.group()) <= years[1]:
                    continue
                before = asked[:match.start()].rstrip(_BESIDE)
                if of_event:
                    before = re.sub(r"\s+in$", "", before, flags=re.IGNORECASE)
                text = " ".join((before + " " + asked[match.end():].lstrip(_BESIDE)).split())
                out.append((text, f"reading “{match.group()}” as the date of "
                                  f"{anchor.label}"))
        return out

    def _names_year(self, name: str, year: int) -> bool:
        """Whether a node ``name`` names is dated in ``year`` ("the 1939 show X")."""
        for candidate in self.names.lookup(name)[:MAX_TIED]:
            years = self._own_years(candidate.node)
            if years is not None and years[0] <= year <= years[1]:
                return True
        return False

    def _own_years(self, uri: str) -> tuple[int, int] | None:
        """The years a named event or work is dated in (its own time-span)."""
        node = self.executor.node_id(uri)
        category = self.executor.values.category(node) if node is not None else None
        relation = self.lexicon.get({"Event": "event-date", "Thing": "creation-date"}.get(
            category or "", ""))
        if node is None or relation is None:
            return None
        walk = self.executor.walker.walk(relation, np.asarray([node], dtype=np.int64))
        spans = [y for y in (self.executor.values.span_years(int(n))
                             for n in walk.node.tolist()) if y is not None]
        return (min(b for b, _ in spans), max(e for _, e in spans)) if spans else None

    def _misspelt_nouns(self, asked: str, first: ExactAnswer) -> list[tuple[str, str]]:
        """Readings with a word the plan left unexplained spelt as the class or type noun
        one edit away ("how many exhibitons" → "exhibitions"); long words only."""
        if first.understanding is None:
            return []
        out = []
        for word in first.understanding.unexplained:
            near = self._respelt(word)
            if near is not None:
                text = re.sub(rf"\b{re.escape(word)}\b", near, asked, count=1,
                              flags=re.IGNORECASE)
                out.append((text, f"reading “{word}” as “{near}”"))
        return out

    def _stated(self, question: str, word: str, language: str) -> ExactAnswer | None:
        """A word for what works are made of, read as the works whose materials or medium
        statement say it: the question without the word (and the words cueing it: "made
        of", "with medium"; a counted noun becomes "works"), its works filtered."""
        tokens = Lexicon.tokens(question, False)
        keys = [fold_name(t) for t in tokens]
        at = next((i for i, k in enumerate(keys) if k == fold_name(word)), None)
        if at is None:
            return None
        counted = at >= 2 and keys[at - 2:at] in (["how", "many"], ["number", "of"])
        start = at
        while not counted and start > 0 and keys[start - 1] in MATERIAL_CUES:
            start -= 1
        rest = tokens[:start] + (["works"] if counted else []) + tokens[at + 1:]
        text = re.sub(r"\s+([?!.,;:])", r"\1", " ".join(rest))
        found = self._filtered(text, "Thing", word, ("made-of", "medium-statement"), language,
                               forms=True)
        return found

    def _filtered(self, text: str, category: str, word: str, relations: Sequence[str],
                  language: str, forms: bool = False) -> ExactAnswer | None:
        """``text`` planned, its first variable (of ``category``) kept where one of
        ``relations`` gives a value that says ``word``; None when no reading finds any."""
        first = self._read(text, (), None, language)
        plan = first.plan
        if first.status != "answered" or plan is None or \
                plan.variables[0].category != category or plan.variables[0].anchor is not None:
            return None
        for relation in relations:
            if relation not in self.lexicon or not self.executor.relation_present(relation):
                continue
            var = plan.variables[0]
            condition = ValueFilter(relation, contains=fold_name(word), forms=forms)
            trial = replace(plan, variables=(replace(var, filters=(*var.filters, condition)),
                                             *plan.variables[1:]))
            answer = self.execute(trial)
            if answer.status == "answered" and answer.total:
                note = (f"reading “{word}” as what the {self.lexicon[relation].label} of each "
                        f"says")
                return replace(answer, text=f"{answer.text} ({note})", language=language,
                               understanding=first.understanding)
        return None

    def _described(self, question: str, word: str, language: str) -> ExactAnswer | None:
        """"Which Mexican artist …", where no node is named so: the question without the
        word, its actors kept when their nationality (or, where the graph states it only in
        words, their biography) says it; None when the reading finds none."""
        text = " ".join(re.sub(rf"\b{re.escape(word)}\b", " ", question, count=1).split())
        return self._filtered(text, "Actor", word, ("nationality", "biography"), language)

    def _respelt(self, word: str) -> str | None:
        """The one class or type noun ``word`` is a slip of (an edit or a swap away:
        "exhibitons", "peices"), for long words."""
        if len(word) < MIN_SLIPPED or word in self.planner.nouns:
            return None
        known = {*self.planner.nouns, *COLLECTION_NOUNS} if len(word) >= MIN_MISSPELT \
            else set()  # "the colection"
        near = slips(word, known)
        if not near and word not in self.absence.common:  # "can you lsit X's works": one
            # word of the planner's, mistyped ("wall" is a word of its own, no "will")
            near = slips(word, self.planner.vocabulary, MIN_SLIPPED)
        return near[0] if len(near) == 1 else None

    @staticmethod
    def _fronted(asked: str) -> list[tuple[str, str]]:
        """A question whose question word comes last ("the maker of T died where?", "T was
        made when?") read with it first, judged on the words as asked."""
        match = _TRAILING_WH.match(asked.strip())
        if match is None:
            return []
        return [(f"{match.group('wh')} {match.group('x').strip(' :,-—')}?", "")]

    @staticmethod
    def _passives(asked: str) -> list[tuple[str, str]]:
        """A question asked as a passive with its agent left open ("Mowgli in the Jungle
        was painted by?", "the book worm: made by?") read as "who painted …"."""
        match = _PASSIVE.match(asked.strip())
        if match is None:
            return []
        return [(f"who {match.group('verb')} {match.group('x').strip(' :,-—')}", "")]

    def _place_questions(self, asked: str) -> list[tuple[str, str]]:
        """Readings that ask "where" for a question asking which place ("which country was
        the maker of T born in", "in which city did X die"), and that put a place for a
        place adjective before "-born" ("Hungarian-born artists": artists born in Hungary,
        the graph's place whose name the adjective begins like)."""
        out = []
        match = WHICH_PLACE.match(asked)
        if match and self.planner.noun_category(fold_name(match.group("noun"))) == "Place":
            out.append((f"where {match.group('rest').strip()}?",
                        f"reading “which {match.group('noun')}” as where"))
        for born in _BORN_COMPOUND.finditer(asked):
            place = self._place_like(fold_name(born.group("adj")))
            if place is not None:
                text = (asked[:born.start()] + f"{born.group('noun')} born in {place}"
                        + asked[born.end():])
                out.append((text, f"reading “{born.group('adj')}-born” as born in {place}"))
        return out

    def _of_kind(self, answer: ExactAnswer, noun: str) -> ExactAnswer:
        """A "where" answer with each place replaced by the place it falls within that the
        graph calls a ``noun`` (by its name or its type: "Limassol District" for a village
        of it); retrieval when no place on the way is one."""
        result = answer.result
        within = self.lexicon.get("place-within")
        if result is None or within is None:
            return answer
        kind = singularise(noun)
        if not self.executor.graph_types(kind):  # no place is typed a "country": not checked
            return replace(answer, text=f"{answer.text} (the graph types no place as a "
                                        f"{kind}: the place recorded is given)")
        found = False
        for item in result.items:
            kept: list[Value] = []
            for value in item.values:
                node = self.executor.node_id(value.node) if value.node else None
                if node is None:
                    continue
                walk = self.executor.walker.walk(within, np.asarray([node], dtype=np.int64))
                for at in [node, *walk.node.tolist()]:
                    labels = self.executor.walker.node_labels(int(at))
                    if any(kind in label.split() for label in labels):
                        kept.append(replace(value, text=self.executor.label(int(at)),
                                            node=self.executor.uri(int(at))))
                        break
            found |= bool(kept)
            item.values = kept
        if not found:
            return ExactAnswer("retrieval_only", "", plan=answer.plan,
                               plan_text=f"no place on the way is a {kind}: answered from "
                               f"retrieval", language=answer.language)
        return replace(answer, text=render(result, self.executor), result=result)

    def _place_like(self, adjective: str) -> str | None:
        """The one place of the graph whose name shares the adjective's first letters
        (all but its ending: "hungar|ian", "scot|tish", "canad|ian")."""
        stem = adjective[:max(MIN_PLACE_STEM, len(adjective) - 4)]
        found = {row.name for row in self._places() if fold_name(row.name).startswith(stem)
                 and " " not in fold_name(row.name).split(",")[0]}
        return found.pop() if len(found) == 1 else None

    def _places(self) -> list[Any]:
        if self._place_rows is None:
            self._place_rows = [r for r in self.names.rows if r.category == "Place"
                                and r.kind in {"label", "alt"}]
        return self._place_rows

    def _relative_clauses(self, asked: str) -> list[tuple[str, str]]:
        """Readings with a relative clause on a maker's noun made a genitive ("the artist
        who made T" → "the artist of T"), which the planner composes further ("where was
        … born")."""
        out = []
        for match in _RELATIVE.finditer(asked):
            noun, verb = fold_name(match.group(1)), fold_name(match.group(3))
            if self.planner.noun_category(noun) == "Actor" and verb in self.relation_verbs:
                text = asked[:match.start()] + f"{match.group(1)} of " + asked[match.end():]
                out.append((text, ""))
        return out

    def _two_kinds(self, asked: str, history: Sequence[tuple[str, str]],
                   language: str) -> ExactAnswer | None:
        """Two kinds the graph types joined by "and" or "or" ("which churches and
        monasteries are in X"): the question asked of the first, its members of either."""
        for match in _TWO_KINDS.finditer(asked):
            first, second = match.group(1), match.group(2)
            if not (self.executor.graph_types(singularise(fold_name(first))) and
                    self.executor.graph_types(singularise(fold_name(second)))):
                continue
            text = asked[:match.start()] + first + asked[match.end():]
            one = self._read(text, history, None, language, cover=text)
            plan = one.plan
            said = {singularise(fold_name(t)) for t in plan.variables[0].types} \
                if plan is not None else set()
            if one.status != "answered" or plan is None or \
                    singularise(fold_name(first)) not in said:
                continue
            var = plan.variables[0]
            other = singularise(fold_name(second))
            both = replace(plan, variables=(replace(var, types=(*var.types, other)),
                                            *plan.variables[1:]), question=asked)
            answer = self.execute(both)
            if answer.status == "answered":
                return replace(answer, text=f"{answer.text} (either {first} or {second})")
        return None

    def _either_way(self, asked: str, first: ExactAnswer, history: Sequence[tuple[str, str]],
                    language: str) -> ExactAnswer:
        """A person's name before "portraits" ("george washington portraits") read both as
        the portraits made by them and as those that depict them: the reading with more
        members answers, and the other is said with it."""
        tokens = Lexicon.tokens(asked, False)
        for start, end in self._names_in(asked, False):
            if end >= len(tokens) or fold_name(tokens[end]) not in PORTRAIT_NOUNS:
                continue
            name = " ".join(tokens[start:end])
            rest = tokens[:start] + tokens[end + 1:]
            text = re.sub(r"\s+([?!.,;:])", r"\1", " ".join(
                rest[:start] + [f"{tokens[end]} of {name}"] + rest[start:]))
            other = self._read(text, history, None, language)
            if other.status != "answered" or not other.total:
                return first
            if first.status != "answered" or not first.total:
                return replace(other, text=f"{other.text} (reading “{name} {tokens[end]}” as "
                                           f"{tokens[end]} of {name})")
            main, alt = (other, first) if other.total >= first.total else (first, other)
            return replace(main, text=f"{main.text} (read the other way: {alt.text})")
        return first

    def _apposed(self, asked: str) -> list[tuple[str, dict[str, str], str]]:
        """A class noun right before a name that nodes of several kinds carry, naming one
        of those kinds ("who portrayed the actor Paul Lukas": the person, not his
        portrait titled so): the question without the noun, the name settled on the one
        node of that kind it names best (none when two tie)."""
        tokens = Lexicon.tokens(asked, False)
        out = []
        for start, end in self._names_in(asked, False):
            if start < 1 or not tokens[start][:1].isupper():
                continue
            word = tokens[start - 1]
            noun = fold_name(word)
            category = self.planner.noun_category(noun)
            # "the singer Marian Anderson": a lowercase word of what a person is, whatever
            # surnames it also is
            said = category is None and word.isalpha() and word.islower() and start >= 2 \
                and fold_name(tokens[start - 2]) in DETERMINERS \
                and noun not in self.planner.vocabulary  # "the earliest Richard Avedon …"
            category = "Actor" if said else category
            name = " ".join(tokens[start:end])
            found = self.names.lookup(name)
            if category is None or not said and len({c.category for c in found}) < 2:
                continue
            kind = [c for c in found if c.category == category and c.how in CLOSE_LINKS]
            if not kind or len([c for c in kind if c.score == kind[0].score]) > 1:
                continue
            text = re.sub(r"\s+([?!.,;:])", r"\1", " ".join(tokens[:start - 1] + tokens[start:]))
            out.append((text, {fold_name(name): kind[0].node},
                        f"reading “{tokens[start - 1]} {name}” as the {noun} named so"))
        return out

    def _appositions(self, asked: str) -> list[tuple[str, str]]:
        """Readings without a class noun standing before a name ("the church Panagia
        Podithou": the church that *is* Panagia Podithou, not one of its parts)."""
        tokens = Lexicon.tokens(asked, False)
        out = []
        for start, end in self._names_in(asked, False):
            after = fold_name(tokens[end]) if end < len(tokens) else ""
            kinds = {c.category for c in self.names.lookup(" ".join(tokens[start:end]))} \
                if after else set()
            if after and (after in self.planner.words.event_nouns and "Event" in kinds
                          or self.planner.noun_category(after) in kinds - {"Actor"}):
                # not a person's noun: "roger fry photographer" asks for his photographer
                # "the Modern China exhibition", "the Pitsilia region": the one named so
                text = " ".join(tokens[:end] + tokens[end + 1:])
                typed = re.sub(r"\s+([?!.,;:])", r"\1", " ".join(tokens[start:end]))
                out.append((re.sub(r"\s+([?!.,;:])", r"\1", text),
                            f"reading “{typed} {tokens[end]}” as the {tokens[end]} named so"))
            quoted = int(start >= 2 and tokens[start - 1] in "“\"«‘")  # "the show “X”"
            kept = start - quoted
            before = kept - 1
            head = start + 1 if fold_name(tokens[start]) == "the" and end - start > 1 else start
            if before < 0 or not tokens[head][:1].isupper():
                continue
            # "the church of the Archangel Michael": the church named so, when it is one
            genitive = [i for i in (kept - 2, kept - 3) if i >= 0
                        and fold_name(tokens[i + 1]) == "of"
                        and all(fold_name(t) == "the" for t in tokens[i + 2:kept])]
            if genitive and self.planner.noun_category(fold_name(tokens[genitive[0]])) != \
                    "Actor":  # "the church of X" may be its name; "the director of X" never
                before = genitive[0]
            category = self.planner.noun_category(fold_name(tokens[before]))
            named = {c.category for c in self.names.lookup(" ".join(tokens[start:end]))}
            if category is None and "Actor" in named and tokens[before].isalpha() and \
                    tokens[before].islower() and before >= 1 and \
                    fold_name(tokens[before - 1]) in DETERMINERS:
                category = "Actor"  # "the poet Walt Whitman": a word of what a person is
            if category is not None and category in named:
                # a compound the graph names as a concept ("the wall paintings of T", where
                # "wall painting" is a technique): its first word goes with the noun
                compound = f"{tokens[before - 1]} {singularise(fold_name(tokens[before]))}" \
                    if before >= 1 else ""
                if compound and fold_name(tokens[before - 1]) not in DETERMINERS and any(
                        c.category == "Concept" for c in self.names.exact(compound, ["Concept"])):
                    before -= 1
                text = " ".join(tokens[:before] + tokens[kept:])
                noun = " ".join(t for t in tokens[before:kept] if fold_name(t) not in
                                {"of", "the"})
                out.append((re.sub(r"\s+([?!.,;:])", r"\1", text),
                            f"reading “{noun} {tokens[start]}…” as the {noun} named so"))
        return out


_TWO_KINDS = re.compile(r"\b([a-z]+s)\s+(?:and|or|&)\s+([a-z]+s)\b")
"""Two plural nouns joined ("churches and monasteries")."""
PORTRAIT_NOUNS = frozenset({"portrait", "portraits", "likeness", "likenesses"})
"""Nouns that after a person's name may mean the works depicting them or made by them."""


def _escaped(text: str) -> str:
    """``text`` as a literal replacement of :func:`re.sub`."""
    return text.replace("\\", "\\\\")


def typed_lower(question: str, text: str) -> bool:
    """Whether ``text`` is one word the question types in lower case (a common noun, not a
    name)."""
    words = fold_name(text).split()
    if len(words) != 1:
        return False
    return any(fold_name(t) == words[0] and t.islower()
               for t in Lexicon.tokens(question, False))


_PLURAL_WORKS = (r"(?:works|artworks|pictures|paintings|photographs|photos|prints|drawings|"
                 r"sculptures|images|pieces|objects|items|watercolou?rs|etchings|engravings)")


def subject_question(asked: str, name: str) -> str | None:
    """``asked`` with works "of" a name, or a name before works ("moose pictures"), put as
    works depicting it; None when it names no plural works so.

    >>> subject_question("how many moose pictures are there", "moose")
    'how many pictures depicting moose are there'
    >>> subject_question("how many pictures of the grand canyon are there", "the grand canyon")
    'how many pictures depicting the grand canyon are there'
    >>> subject_question("who painted Moose", "Moose") is None
    True
    """
    named = re.escape(name.strip())
    before = re.compile(rf"\b{named}\s+(?P<works>{_PLURAL_WORKS})\b", re.I)
    of = re.compile(rf"\b(?P<works>{_PLURAL_WORKS})\s+(?:of|about|showing|with)\s+"
                    rf"(?:the\s+)?{named}\b", re.I)
    for pattern in (of, before):
        found = pattern.search(asked)
        if found is not None:
            return f"{asked[:found.start()]}{found.group('works')} depicting " \
                f"{name.strip()}{asked[found.end():]}"
    return None
