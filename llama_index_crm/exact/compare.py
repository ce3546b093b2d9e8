"""Comparisons between two named nodes: "who was born first, A or B?", "which is older, X or
Y?", "who has more works here, A or B?", "did A or B direct more shows?".

A question holding two names of one kind joined by "or" and a comparative word (first,
earlier, older, later, younger, more, fewer, most…) is read as two questions the planner
already answers, one per name, with the other name and the comparative taken out: "when was
A born" (a date: first, earlier, later, last; older and younger read the kind's own date:
born, made, held) or "how many works by A" (a count: more, most, fewer, less, the noun after
the comparative counted). Both readings must cover their words, give the same plan for each
name and answer; the values are then compared: the earlier or later date, the larger or
smaller count, a tie said as a tie (both values given), and dates that overlap without
being the same (a year against a day of it) said not to settle it. Otherwise no comparison
is made: retrieval answers, with the reason. Names not found, or of two kinds, leave the
question to the other readings.

:class:`Comparisons` is a part of :class:`~.answerer.ExactAnswerer` (it reads through it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from llama_index_crm.exact.compare_many import knockout, listed_names
from llama_index_crm.exact.outcome import ExactAnswer
from llama_index_crm.exact.plan import Anchor, ExactPlan, Variable
from llama_index_crm.exact.understanding import Understanding, Word
from llama_index_crm.exact.values import BEGIN_PROPERTIES, END_PROPERTIES
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.execute import Executor
    from llama_index_crm.exact.linking import NameIndex
    from llama_index_crm.exact.parse import RulePlanner
    from llama_index_crm.exact.relations import RelationLexicon

__all__ = ["COMPARATIVES", "Compared", "Comparisons", "Side", "order", "shape"]

COMPARATIVES: dict[str, tuple[str, bool]] = {
    "first": ("date", False), "earlier": ("date", False), "earliest": ("date", False),
    "sooner": ("date", False), "later": ("date", True), "last": ("date", True),
    "latest": ("date", True),
    "older": ("age", False), "oldest": ("age", False), "elder": ("age", False),
    "younger": ("age", True), "youngest": ("age", True), "newer": ("age", True),
    "newest": ("age", True),
    "more": ("count", True), "most": ("count", True), "fewer": ("count", False),
    "fewest": ("count", False), "less": ("count", False), "least": ("count", False),
}
"""Comparative words: what they compare (a date, the kind's own date, a count) and whether
the later date or the larger count wins."""
RECENT = frozenset({"recent"})
""""more recent", "most recent": the later own date."""
QUESTION_WORDS = frozenset({"who", "which", "whose", "whom", "what"})
AUXILIARIES = frozenset({"was", "were", "is", "are", "did", "does", "do", "has", "have",
                         "had"})
POSSESSION = frozenset({"has", "have", "had", "does", "do", "did", "own", "owns", "hold",
                        "holds"})
"""Verbs of "who has more works": the works counted are the ones by each ("works by A")."""
NEUTRAL = frozenset({"is", "was", "are", "were", "be", "came", "come", "comes", "one"})
"""Words of "which is older", "which came first": the kind's own date is compared."""
BEFORE_NAMES = QUESTION_WORDS | AUXILIARIES | frozenset({"of", "one", "between"})
"""Words that may stand right before the first name (no "by" or "in": "works by A or B"
asks for a list, not a comparison)."""
OWN_DATE = {"Actor": "when was {} born", "Thing": "when was {} made",
            "Event": "when was {} held"}
"""The single question of a kind's own date."""
STRONG = 0.85
"""How well each of the two phrases must name a node (a surname alone, at least)."""
LOOSE = frozenset({"partial", "misspelling"})
MAX_NAME_WORDS = 12
MAX_LIST_NAME = 5
"""Words of one name of a list of three or more ("Anna Hyatt Huntington")."""
LISTED = 0.75
"""How well each name of such a list must name a node (a misspelling, at least)."""
_STOP = re.compile(r"[,;:?!()\[\]]")
_WORD = re.compile(r"[^\W_][\w'’\-.]*", re.UNICODE)
_OR = re.compile(r"\bor\b", re.IGNORECASE)
_ISO = re.compile(r"^\s*(-?)(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
                  r"(?:T[\d:.]*(?:Z|[+-]\d{2}:?\d{2})?)?\s*$")


@dataclass(frozen=True, slots=True)
class Compared:
    """A question read as a comparison: the two phrases naming nodes and the comparative.

    Attributes:
        names: the two phrases as typed, first as asked.
        kind: ``date``, ``age`` (the kind's own date) or ``count``.
        later: the later date or the larger count wins.
        words: the question's words with the indexes of the names, the comparative and
            the words the single questions leave out.
        rest: the words the single question keeps, in order (their indexes in ``words``).
        noun: the indexes of the counted noun's words (counts).
        after: the indexes of words after the noun ("here").
        dropped: the indexes of the question words and what goes with them ("which of the
            two", "which artist": ``classes``, a class noun of the names' kind).
    """

    names: tuple[str, str]
    kind: str
    later: bool
    words: tuple[str, ...]
    name_at: tuple[frozenset[int], frozenset[int]]
    comparative: frozenset[int]
    rest: tuple[int, ...]
    noun: tuple[int, ...]
    after: tuple[int, ...]
    dropped: frozenset[int] = frozenset()
    classes: frozenset[int] = frozenset()

    def singles(self, name: str, category: str) -> list[str]:
        """The single-name questions to try for ``name``, in order."""
        rest = [self.words[i] for i in self.rest]
        content = [w for w in rest if fold_name(w) not in NEUTRAL | POSSESSION]
        if self.kind == "age" or self.kind == "date" and not content:
            own = OWN_DATE.get(category)
            return [own.format(name)] if own is not None and not content else []
        if self.kind == "date":
            if fold_name(rest[0]) in AUXILIARIES:
                return [_join("when", rest[0], name, *rest[1:])]
            return [_join("when", name, *rest)]
        noun = [self.words[i] for i in self.noun]
        after = [self.words[i] for i in self.after]
        if not noun:
            return []
        if all(fold_name(w) in POSSESSION for w in rest):  # "who has more works here"
            return [_join("how many", *noun, "by", name, *after)]
        if fold_name(rest[0]) in AUXILIARIES:  # "was shown in", "did direct"
            return [_join("how many", *noun, rest[0], name, *rest[1:], *after)]
        return [_join("how many", *noun, name, *rest, *after)]


@dataclass(slots=True)
class Side:
    """One name's answer: its node, its value (a date span or a count), its sentence."""

    answer: ExactAnswer
    anchor: Anchor
    span: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
    count: int | None = None
    said: str = ""


class Comparisons:
    """The comparisons of :class:`~.answerer.ExactAnswerer`."""

    if TYPE_CHECKING:  # what the answerer provides
        names: NameIndex
        executor: Executor
        lexicon: RelationLexicon
        planner: RulePlanner

        def answer(self, question: str, history: Sequence[tuple[str, str]] = (),
                   plan: ExactPlan | None = None, llm: Any = None) -> ExactAnswer: ...

    def _compared(self, asked: str, language: str) -> ExactAnswer | None:
        """The answer to a comparison of two named nodes, or None when ``asked`` is none
        (or names something not found, or two kinds of node): the other readings then.
        Three names or more are compared two at a time (:mod:`.compare_many`)."""
        listed = listed_names(asked, self._listed_spans(asked)) if asked.count(",") else None
        if listed is not None:
            return knockout(asked, listed, lambda q: self._compared(q, language))
        found = self._comparison(asked)
        if found is None:
            return None
        compared, categories = found
        reasons: list[str] = []
        tried = False
        for category in categories:
            questions = [compared.singles(name, category) for name in compared.names]
            for first, second in zip(*questions, strict=False):
                tried = True
                answers = [self.answer(q) for q in (first, second)]  # in the planner's English
                sides = [self._side(a, compared, category) for a in answers]
                why = _unanswered(compared, [first, second], answers, sides)
                if why is None:
                    done = [s for s in sides if s is not None]
                    return self._comparing(asked, compared, done, language)
                reasons.append(why)
        if not tried:
            return None
        return ExactAnswer("retrieval_only", "", language=language,
                           plan_text=f"a comparison of “{compared.names[0]}” and "
                           f"“{compared.names[1]}”, not made: {'; '.join(reasons)}: "
                           f"answered from retrieval")

    def _comparison(self, asked: str) -> tuple[Compared, list[str]] | None:
        """``asked`` read as a comparison, with the kinds both names may be, or None."""
        ors = list(_OR.finditer(asked))
        if len(ors) != 1:
            return None
        cut = ors[0]
        left, right = asked[:cut.start()], asked[cut.end():]
        lefts = [(m.start(), m.end()) for m in _WORD.finditer(left)]
        rights = [(m.start() + cut.end(), m.end() + cut.end()) for m in _WORD.finditer(right)]
        first = self._named(asked, lefts, from_end=True)
        second = self._named(asked, rights, from_end=False)
        if first is None or second is None:
            return None
        (a_start, a_end, a_kinds), (b_start, b_end, b_kinds) = first, second
        kinds = [k for k in a_kinds if k in b_kinds]
        if not kinds:
            return None  # two kinds of node: no comparison
        spans = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(asked)]
        words = tuple(w for _, _, w in spans)
        name_a = frozenset(i for i, (s, e, _) in enumerate(spans) if s >= a_start and e <= a_end)
        name_b = frozenset(i for i, (s, e, _) in enumerate(spans) if s >= b_start and e <= b_end)
        or_at = next(i for i, (s, _, _) in enumerate(spans) if s == cut.start())
        before = min(name_a) - 1
        if before >= 0 and not _STOP.search(asked[spans[before][1]:a_start]) and \
                fold_name(words[before]) not in BEFORE_NAMES:
            return None  # "works by A or B": a list, not a comparison
        folded = [fold_name(w) for w in words]
        taken = name_a | name_b | {or_at}
        at = [i for i, w in enumerate(folded) if w in COMPARATIVES and i not in taken]
        if len(at) != 1 or at[0] + 1 < len(words) and folded[at[0] + 1] == "than":
            return None  # "older than 1900": a filter, not a comparison
        c = at[0]
        kind, later = COMPARATIVES[folded[c]]
        comparative = {c}
        if c > 0 and folded[c - 1] == "the" and c - 1 not in taken:
            comparative.add(c - 1)  # "the most", "the first"
        noun: list[int] = []
        if kind == "count" and c + 1 < len(words) and folded[c + 1] in RECENT:
            kind, later = "age", True
            comparative.add(c + 1)
        elif kind == "count":
            i = c + 1
            while i < len(words) and folded[i] in {"of", "the"} and i not in taken:
                comparative.add(i)  # "plus d'œuvres": "more of works"
                i += 1
            while i < len(words) and i not in taken and folded[i] not in _AFTER_NOUN:
                noun.append(i)
                i += 1
            if not noun:
                return None
        question = [i for i, w in enumerate(folded) if w in QUESTION_WORDS
                    and i not in taken and i < min(name_a)]
        dropped = set(question)
        classes: set[int] = set()
        for q in question:  # "which of the two", "which artist", "which of these works"
            i = q + 1
            while i < len(words) and i not in taken and i not in comparative:
                if folded[i] in _PLAIN_NOUNS and self.planner.noun_category(folded[i]) in kinds:
                    classes.add(i)
                elif folded[i] not in _ASKED_AMONG:
                    break
                dropped.add(i)
                i += 1
        if not question and folded[0] not in AUXILIARIES:
            return None  # no question of who or which
        skip = taken | comparative | set(noun) | dropped
        after = [i for i in range(len(words)) if i not in skip and noun and i > max(noun)
                 and i < or_at]
        rest = [i for i in range(len(words)) if i not in skip and i not in after]
        if kind == "count" and any(i > max(noun) for i in rest):
            return None  # words after the names: not read here
        names = (asked[a_start:a_end], asked[b_start:b_end])
        if rest and rest[0] == 0:  # "Did A or B …": no capital inside the single question
            words = (words[0].lower(), *words[1:])
        compared = Compared(names, kind, later, words, (name_a, name_b),
                            frozenset(comparative), tuple(rest), tuple(noun), tuple(after),
                            frozenset(dropped), frozenset(classes))
        if not rest and kind == "date":
            compared = replace(compared, kind="age")
        return compared, kinds

    def _listed_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the capitalised phrases of ``text`` that name people or
        works (a misspelling forgiven: "Charles Wilson Peale"), longest first."""
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(words):
            for size in range(min(len(words) - i, MAX_LIST_NAME), 0, -1):
                phrase = text[words[i][0]:words[i + size - 1][1]]
                if not phrase[:1].isupper() or phrase.split()[-1].islower() or \
                        re.search(r"[,;:?!()\[\]—–]", phrase) or \
                        fold_name(phrase) in QUESTION_WORDS or fold_name(phrase) in COMPARATIVES:
                    continue
                if any(c.score >= LISTED for c in self.names.lookup(phrase, ["Actor", "Thing"])):
                    spans.append((words[i][0], words[i + size - 1][1]))
                    i += size
                    break
            else:
                i += 1
        return spans

    def _named(self, text: str, words: list[tuple[int, int]],
               from_end: bool) -> tuple[int, int, list[str]] | None:
        """The longest run of ``words`` next to "or" that names nodes well (across commas:
        "Alfred H. Barr, Jr."): (start, end, the kinds of node it names, best first)."""
        for size in range(min(len(words), MAX_NAME_WORDS), 0, -1):
            run = words[-size:] if from_end else words[:size]
            phrase = text[run[0][0]:run[-1][1]]
            if re.search(r"[;:?!()\[\]]", phrase):
                continue
            if fold_name(phrase) in COMPARATIVES or fold_name(phrase) in BEFORE_NAMES:
                continue
            found = [c for c in self.names.lookup(phrase, fuzzy=False)
                     if c.score >= STRONG and c.how not in LOOSE]
            if found:
                kinds = list(dict.fromkeys(c.category for c in found))
                return run[0][0], run[-1][1], kinds
        return None

    def _side(self, answer: ExactAnswer, compared: Compared, category: str) -> Side | None:
        """One name's answered value, or None."""
        plan = answer.plan
        if answer.status != "answered" or plan is None or len(plan.anchors) != 1:
            return None
        anchor = plan.anchors[0]
        if anchor.category != category:
            return None
        if compared.kind == "count":
            if plan.operation != "count" or answer.count is None:
                return None
            counted = answer.plan_text.split("\n")[0].removeprefix("count:").strip()
            said = f"{counted}: {answer.count}" if counted else answer.text
            return Side(answer, anchor, count=answer.count, said=said)
        if plan.operation != "value" or answer.result is None or len(answer.result.items) != 1:
            return None
        item = answer.result.items[0]
        spans = [s for s in (self._span(v.node, v.text, v.years) for v in item.values
                             if v.relation in plan.attributes) if s is not None]
        if not spans:
            return None
        span = (min(b for b, _ in spans), max(e for _, e in spans))
        said, _ = _notes(answer.text)
        return Side(answer, anchor, span=span, said=said.rstrip("."))

    def _span(self, node: str | None, text: str, years: tuple[int, int] | None
              ) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """The first and last day a date value may be (its time-span's own dates, or the
        date it is, else its years)."""
        begins: list[tuple[int, int, int]] = []
        ends: list[tuple[int, int, int]] = []
        if node is None:  # a date literal ("1936-03-02")
            days = _days(text)
            begins += [days[0]] if days is not None else []
            ends += [days[1]] if days is not None else []
        at = self.executor.node_id(node) if node else None
        if at is not None:
            store = self.executor.store
            predicates, objects = store.out_ids(at)
            for p, o in zip(predicates.tolist(), objects.tolist(), strict=True):
                name = store.term(int(p)).rsplit("/", 1)[-1]
                if not store.is_literal[int(o)]:
                    continue
                days = _days(self.executor.values.label(int(o)))
                if days is not None and name in BEGIN_PROPERTIES:
                    begins.append(days[0])
                if days is not None and name in END_PROPERTIES:
                    ends.append(days[1])
        if begins and ends:
            return min(begins), max(ends)
        if years is None:
            return None
        return (years[0], 1, 1), (years[1], 12, 31)

    def _comparing(self, asked: str, compared: Compared, sides: list[Side],
                   language: str) -> ExactAnswer:
        """The comparison's answer from the two sides."""
        first, second = sides
        winner = order(compared, first, second)
        labels = [s.anchor.label for s in sides]
        said = ". ".join(s.said for s in sides) + "."
        if compared.kind == "count":
            said = "Counted: " + "; ".join(s.said for s in sides) + "."
            if winner is None:
                text = f"{labels[0]} and {labels[1]} are tied, with {first.count} each. {said}"
            else:
                won, lost = (first, second) if winner == 0 else (second, first)
                word = "more" if compared.later else "fewer"
                text = (f"{won.anchor.label}, with {word} ({won.count} against "
                        f"{lost.count} for {lost.anchor.label}). {said}")
        elif winner is None:
            same = first.span == second.span
            text = (f"{labels[0]} and {labels[1]} have the same date in the graph "
                    f"({_period(first.span)}): it does not tell which comes first. {said}"
                    if same else
                    f"The graph's dates of {labels[0]} ({_period(first.span)}) and "
                    f"{labels[1]} ({_period(second.span)}) overlap, so they do not tell "
                    f"which comes first. {said}")
        else:
            won = sides[winner]
            word = "later" if compared.later else "earlier"
            plan = won.answer.plan
            what = " or ".join(self.lexicon[r].label for r in plan.attributes
                               if r in self.lexicon) if plan is not None else ""
            text = f"{won.anchor.label}, with the {word} {what or 'date'}. {said}"
        items: list[dict[str, Any]] = []
        for side in sides:
            item: dict[str, Any] = dict(side.answer.items[0]) if compared.kind != "count" and \
                side.answer.items else {"uri": side.anchor.node, "label": side.anchor.label,
                                        "category": side.anchor.category, "values": [],
                                        "evidence": []}
            item.update(uri=side.anchor.node, label=side.anchor.label,
                        category=side.anchor.category, count=side.count)
            items.append(item)
        evidence = [f"{s.anchor.label}: {line}" for s in sides for line in s.answer.evidence]
        plan_text = "compare: " + " | ".join(
            f"{s.anchor.label}: {s.answer.plan_text}" for s in sides)
        notes = [n for side in sides for n in _notes(side.answer.text)[1]]
        if notes:  # "reading “Arnold Newman” as Arnold A. Newman", said as the side said it
            text = f"{text} ({'; '.join(dict.fromkeys(notes))})"
        return ExactAnswer("answered", text, None, items, 2, first.answer.plan, plan_text,
                           "\n\n".join(s.answer.sparql for s in sides), evidence,
                           result=first.answer.result, language=language,
                           understanding=_understanding(compared, sides, language),
                           backend=first.answer.backend)


_PLAIN_NOUNS = frozenset({"person", "people", "artist", "artists", "work", "works", "object",
                          "objects", "piece", "pieces", "exhibition", "exhibitions", "show",
                          "shows", "event", "events"})
"""Nouns after "which" that name no narrower class than the two named nodes' kind ("which
artist", not "which photographer": that one is not checked)."""
_ASKED_AMONG = frozenset({"of", "the", "these", "those", "them", "two", "both", "one"})
"""Words after "which" that say among what ("which of the two")."""
_AFTER_NOUN = frozenset({"here", "in", "at", "than", "or", "of", "by", "from", "for",
                         "there", "now", "today"})
"""Words that end the counted noun ("more works here", "more shows in total")."""


def order(compared: Compared, first: Side, second: Side) -> int | None:
    """Which side wins (0, 1), or None for a tie (or dates that overlap)."""
    later = compared.later  # the later date, the larger count
    if compared.kind == "count":
        a, b = first.count or 0, second.count or 0
        if a == b:
            return None
        return 0 if (a > b) == later else 1
    assert first.span is not None and second.span is not None
    if first.span[1] < second.span[0]:  # the first's date wholly before the second's
        return 1 if later else 0
    if second.span[1] < first.span[0]:
        return 0 if later else 1
    return None


def shape(plan: ExactPlan) -> ExactPlan:
    """``plan`` with its named nodes left out: two plans of one shape ask one thing."""
    blank = Anchor("", "", "", "")

    def variable(v: Variable) -> Variable:
        return replace(v, anchor=blank if v.anchor is not None else None, links=tuple(
            replace(link, target=blank) if isinstance(link.target, Anchor) else link
            for link in v.links))

    return replace(plan, question="", notes=(), variables=tuple(
        variable(v) for v in plan.variables))


def _unanswered(compared: Compared, questions: Sequence[str],
                answers: Sequence[ExactAnswer], sides: Sequence[Side | None]) -> str | None:
    """Why the two single answers give no comparison, or None."""
    for question, answer, side in zip(questions, answers, sides, strict=True):
        if side is None:
            reason = answer.plan_text.split("\n")[0] if answer.status != "answered" else \
                "no single value of the kind compared"
            return f"“{question}”: {answer.status}, {reason or answer.text}"
    plans = [a.plan for a in answers]
    if plans[0] is None or plans[1] is None or shape(plans[0]) != shape(plans[1]):
        return f"“{questions[0]}” and “{questions[1]}” are planned differently"
    if sides[0] is not None and sides[1] is not None and \
            sides[0].anchor.node == sides[1].anchor.node:
        return f"“{compared.names[0]}” and “{compared.names[1]}” name one node"
    return None


def _understanding(compared: Compared, sides: Sequence[Side], language: str) -> Understanding:
    """The comparison's words and their roles: the single question's roles for its words,
    the names, the comparative and "or" as the comparison's."""
    single = sides[0].answer.understanding
    roles: dict[str, str] = {}
    for known in single.words if single is not None else []:
        roles.setdefault(known.word, known.role)
    out: list[Word] = []
    for i, typed in enumerate(compared.words):
        folded = fold_name(typed)
        if not folded:
            continue
        if i in compared.name_at[0] or i in compared.name_at[1]:
            role = "name"
        elif i in compared.comparative or folded == "or":
            role = "operation"
        elif i in compared.classes:
            role = "class"
        elif i in compared.dropped:
            role = "question" if folded in QUESTION_WORDS else "grammar"
        elif i in compared.noun:
            role = roles.get(folded, "type")
        else:  # a word the single question holds in other words ("shows": exhibitions)
            role = roles.get(folded, "grammar" if folded in POSSESSION | NEUTRAL | AUXILIARIES
                             else "compared")
        out.extend(Word(w, role) for w in folded.split())
    return Understanding(out, language)


def _days(text: str) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """The first and last day a date literal may stand for: one day, a month or a year as
    written ("1900-05-03", "1900"); a literal of any other form (a museum's "1926\\n1928-
    31-12") every year written in it."""
    match = _ISO.match(text)
    if match is not None:
        year = int(match.group(2)) * (-1 if match.group(1) else 1)
        month = int(match.group(3)) if match.group(3) else None
        day = int(match.group(4)) if match.group(4) else None
        if (month is None or 1 <= month <= 12) and (day is None or 1 <= day <= 31):
            return ((year, month or 1, day or 1), (year, month or 12, day or 31))
    years = [int(y) for y in re.findall(r"(?<!\d)\d{4}(?!\d)", text)]
    if not years or re.search(r"-\d{4}|\bb\.?\s?c\b", text, re.IGNORECASE):
        # no year, or one before the common era written otherwise: not read
        return None
    return (min(years), 1, 1), (max(years), 12, 31)


def _notes(text: str) -> tuple[str, list[str]]:
    """A single answer's sentence and the notes in brackets at its end ("reading “whistlr”
    as James McNeill Whistler")."""
    notes: list[str] = []
    text = text.rstrip()
    while text.endswith(")"):
        depth = 0
        for at in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[at], 0)
            if depth == 0:
                break
        if depth or at == 0:
            break
        notes.insert(0, text[at + 1:-1])
        text = text[:at].rstrip()
    return text, notes


def _period(span: tuple[tuple[int, int, int], tuple[int, int, int]] | None) -> str:
    """A span of days as text: one day, one year, or its first and last day."""
    if span is None:
        return ""
    (y0, m0, d0), (y1, m1, d1) = span
    if span[0] == span[1]:
        return f"{y0:04d}-{m0:02d}-{d0:02d}"
    if (m0, d0, m1, d1) == (1, 1, 12, 31):  # whole years
        return str(y0) if y0 == y1 else f"{y0}–{y1}"
    return f"{y0:04d}-{m0:02d}-{d0:02d} to {y1:04d}-{m1:02d}-{d1:02d}"


def _join(*words: str) -> str:
    return " ".join(w for w in words if w)
