"""Query analysis: what a question asks for, as a :class:`~.plan.QueryPlan`, before retrieval.

Two analyzers share one interface, :class:`QueryAnalyzer`: :class:`RuleBasedAnalyzer` (English
patterns, no LLM, the default) and :class:`LLMAnalyzer` (structured output through LlamaIndex,
falling back to the rules). Both contextualise follow-ups with
:func:`~.conversation.contextualise` and cache their plans, so that every retrieval stage
can ask :meth:`QueryAnalyzer.plan_for` for the plan of the query it was handed.

>>> plan = RuleBasedAnalyzer().analyze("How many works did Valentine Green make in the 1780s?")
>>> plan.type, plan.k, plan.target_categories, plan.context_categories, plan.time_range
('aggregation', 25, ('Thing',), ('Actor',), (1780, 1789))
>>> parse_time_range("between 1760 and 1770"), parse_time_range("the 12th century")
((1760, 1770), (1101, 1200))
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from llama_index_crm.ontology.ontology import CATEGORIES, CATEGORY_PRIORITY
from llama_index_crm.query.conversation import (
    Turn,
    clip,
    contextualise,
    name_spans,
    quoted_titles,
    resolve_reference,
    strip_quoted,
    word_set,
)
from llama_index_crm.query.plan import TOP_K, QueryPlan, QueryType

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

__all__ = [
    "DOCUMENT_CATEGORIES",
    "LLMAnalyzer",
    "PlanOutput",
    "QueryAnalyzer",
    "RuleBasedAnalyzer",
    "parse_time_range",
    "pluralise",
    "singularise",
    "vocabulary_from_labels",
]

logger = logging.getLogger(__name__)

DOCUMENT_CATEGORIES: tuple[str, ...] = tuple(c for c in CATEGORIES if c != "Time")
"""Categories that documents have: time-spans are folded into the documents they date."""

DEFAULT_CACHE_SIZE = 256
"""Plans kept per analyzer (several retrieval stages ask for the same plan)."""

CIRCA_YEARS = 5
"""Half-width of the range for "circa 1765" / "around 1765"."""

MIN_YEAR, MAX_YEAR = -9999, 9999
"""Open ends of "before 1800" / "after 1900"."""

_ATTR, _TIME, _LIFE, _NAME = "attribute", "time", "life", "name"
"""Markers: a fact folded into a thing; a date; a fact of a life (-> Actor); look past "of"."""

_LEXICON_WORDS: dict[str, str] = {
    "Thing": "work artwork object item piece painting drawing print photograph photo picture "
             "sculpture statue bust watercolour watercolor etching engraving lithograph woodcut "
             "mezzotint manuscript book poster artefact artifact building monument fresco icon "
             "mural portrait landscape map coin vase textile carving miniature sketch relief "
             "medal tapestry image church chapel",
    "Actor": "artist painter maker creator author photographer sculptor engraver printmaker "
             "draughtsman draftsman architect designer donor owner collector patron person man "
             "woman child group family institution organisation organization publisher printer "
             "dealer benefactor founder sitter craftsman illustrator etcher",
    "Place": "place location city town village country region area site continent island "
             "county province district street parish settlement locality birthplace",
    "Event": "event exhibition production acquisition excavation restoration conservation "
             "purchase sale auction performance commission donation",
    "Concept": "concept subject theme genre style movement keyword topic motif iconography "
               "term category",
    _ATTR: "type kind sort material medium technique dimension size height width depth "
           "length weight diameter credit inscription title signature mark caption "
           "description classification condition format support shape colour color "
           "identifier",
    _TIME: "year date century decade period time era",
    _LIFE: "birth death nationality birthday lifetime age biography",
    _NAME: "name list set",
}
_PHRASES: dict[str, str] = {
    "work of art": "Thing", "credit line": _ATTR, "accession number": _ATTR,
    "object number": _ATTR, "inventory number": _ATTR, "birth year": _LIFE,
    "death year": _LIFE, "date of birth": _LIFE, "date of death": _LIFE,
    "place of birth": "Place", "place of death": "Place"}
_IRREGULAR = {"person": "people", "man": "men", "woman": "women", "child": "children",
              "medium": "media", "criterion": "criteria", "phenomenon": "phenomena"}
_SINGULAR_S = word_set("""
is was has does this its his hers us yes news series species canvas atlas gas lens status
corpus chaos means happens shows depicts represents contains includes holds owns belongs
remains exists comes goes makes looks seems gives paints whereabouts analysis basis""")

_WH = word_set("who whom whose what which when where how")
_AUX = word_set("is are was were be been do does did has have had can could will would "
                "should may might must")
_DETERMINERS = word_set("the a an some any all every each other different of these those "
                        "his her their its this that")
_HEAD_STOP = _AUX | word_set("""
of by in on at from for with about to that which who whom whose what when where how and or
than as into during between made make created painted produced used it he she they there""")
_LEADING = word_set("in at for by of from to with during on and so but then ok okay please "
                    "also now")
"""Words that may precede the question word ("In which year", "And who")."""
_IMPERATIVE = word_set("list enumerate show give name find display get return tell count please me "
                      "us")
_PREPOSITIONS = word_set("in at near from around across throughout within by of for with to")
_PLACE_PREPOSITIONS = word_set("in at near from around across throughout within to")
_DEPICT = word_set("""depict depicts depicting depicted show shows showing shown represent
represents representing represented portray portrays portraying portrayed""")
_LIFE_WORDS = word_set("""born birth die died dies death dead pass passed lived live living
active flourished baptised baptized buried married nationality birthplace age""")
_CREATION = word_set("""make made makes making create created creates paint painted paints
draw drew drawn produce produced photograph photographed engrave engraved etch etched print
printed sculpt sculpted carve carved design designed build built construct constructed write
wrote written publish published cast decorate decorated""")
_INSTITUTION = word_set("""museum center centre gallery collection academy society university
college institute institution library foundation company trust council school""")
_PERSON_TITLES = word_set("sir lady lord king queen prince princess duke duchess earl count "
                          "countess mr mrs miss dr saint st captain general president emperor")
_ENGLISH = word_set("""the what who whom whose which when where why how of and did does were
have has list show tell many made painted created about any all with from this that there
work works artist artists year number count these those""")
_AGGREGATION_RE = re.compile(
    r"\bhow many\b|\b(?:the|what|which|total|overall)\s+(?:total\s+)?number\s+of\b"
    r"|\bin total\b|\btotal count\b|^number of\b")
_COUNT_START_RE = re.compile(r"\W*count\s+(?:the|all|every|how|up)\b", re.IGNORECASE)
_COUNTED_RE = re.compile(r"\b(?:how many|number of)\s")
_LIST_RE = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:list|enumerate)\b|(?:show|give|name|find|display|get|return|tell)\s+(?:me\s+|us\s+)?"
    r"(?:all|every|each|a\s+list)\b)|\ba list of\b|\blist of\b")
_ORDINALS = {w: i + 1 for i, w in enumerate((
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth", "twenty-first"))}
_YEAR = r"(1\d{3}|20\d{2})"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)|(" + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + ")"
_SPAN_RE = re.compile(
    r"\b(?:between|from)\s+(?:the\s+)?" + _YEAR + r"(s?)\s+(?:and|to|until|till|through|-|–)\s+"
    r"(?:the\s+)?" + _YEAR + r"(s?)\b|\b" + _YEAR + r"\s*[-–]\s*" + _YEAR + r"\b")
_CENTURY_RE = re.compile(
    r"(?:\b(early|mid|middle|late|first half of|second half of)[\s-]+(?:the\s+)?)?(?:\b"
    + _ORD + r")[\s-]+century(?:\s+(bc|bce|b\.c\.))?")
_DECADE_RE = re.compile(r"\b(1\d{2}0|20\d0)['’]?s\b")
_SINGLE_RE = re.compile(
    r"(?:\b(before|until|till|after|since|circa|around|about|c\.|ca\.)\s+)?(?<![\d.,/-])"
    + _YEAR + r"(?!\w|['’]s|[.,/-]\d)")
_WHO_FILTER_RE = re.compile(
    r"(?:\w+ )?who (?:was |were |has been |have been )?(?:born|died|lived|worked|active)"
    r" (?:in|at|near|during|between|before|after|from)\b")
"""People picked by a filter ("Who was born in Boston?"): a list."""
_TITLE_TOKEN = "titleref"
_TOKEN_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def pluralise(word: str) -> str:
    """Naive English plural of a noun or noun phrase ("church" -> "churches").

    >>> pluralise("church"), pluralise("village"), pluralise("model of a church")
    ('churches', 'villages', 'models of a church')
    """
    head, sep, rest = word.partition(" of ")
    if sep:
        return f"{pluralise(head)}{sep}{rest}"
    *first, last = word.split(" ")
    if last in _IRREGULAR:
        plural = _IRREGULAR[last]
    elif re.search(r"[^aeiou]y$", last):
        plural = last[:-1] + "ies"
    elif re.search(r"(?:s|x|z|ch|sh)$", last):
        plural = last + "es"
    else:
        plural = last + "s"
    return " ".join([*first, plural])


def singularise(word: str) -> str:
    """Naive English singular ("churches" -> "church"); words that are not plural stay.

    >>> singularise("churches"), singularise("galleries"), singularise("glass")
    ('church', 'gallery', 'glass')
    """
    head, sep, rest = word.partition(" of ")
    if sep:
        return f"{singularise(head)}{sep}{rest}"
    *first, last = word.split(" ")
    irregular = {plural: single for single, plural in _IRREGULAR.items()}
    if last in irregular:
        last = irregular[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif re.search(r"(?:ss|x|z|ch|sh)es$", last):
        last = last[:-2]
    elif last.endswith("s") and not re.search(r"(?:ss|us|is)$", last) and len(last) > 3:
        last = last[:-1]
    return " ".join([*first, last])


def vocabulary_from_labels(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """A vocabulary (lower-case label -> category) from ``(type label, category)`` pairs.

    Labels are lower-cased and given their naive plural and singular; a label seen with
    several categories takes the most frequent (ties by ``CATEGORY_PRIORITY``). Labels of
    unknown categories, with digits, or shorter than 3 / longer than 40 characters are
    skipped; forms derived by pluralising never override a label seen as such.

    >>> vocabulary_from_labels([("church", "Thing"), ("Village", "Place")])["churches"]
    'Thing'
    """
    canonical = {c.lower(): c for c in DOCUMENT_CATEGORIES}
    votes: dict[str, Counter[str]] = {}
    for label, category in pairs:
        key = " ".join(str(label).lower().split()).strip(" .,;:!?\"'()[]")
        cat = canonical.get(str(category).strip().lower())
        if cat is None or not 3 <= len(key) <= 40 or any(ch.isdigit() for ch in key):
            continue
        votes.setdefault(key, Counter())[cat] += 1
    seen = {key: _majority(counter) for key, counter in votes.items()}
    vocabulary = dict(seen)
    for key, category in seen.items():
        for form in (pluralise(key), singularise(key)):
            vocabulary.setdefault(form, category)
    return vocabulary


def _majority(counter: Counter[str]) -> str:
    return max(counter, key=lambda c: (counter[c], -CATEGORY_PRIORITY.index(c)))


def parse_time_range(text: str) -> tuple[int, int] | None:
    """Inclusive years named in ``text``: decades, centuries, single years and spans.

    A decade is its ten years ("the 1790s" -> 1790-1799) and "the 1800s" is 1800-1899. A
    century follows the strict definition, the 12th century being 1101-1200 (data often
    writes 1100-1200 or 1100-1199, so compare ranges by overlap); early/mid/late take a
    third of it, first/second half a half. "circa 1765" widens by :data:`CIRCA_YEARS`;
    "before"/"after"/"since"/"until" open the range. The first expression found wins.

    >>> parse_time_range("works from the 1790s"), parse_time_range("in the 1800s")
    ((1790, 1799), (1800, 1899))
    >>> parse_time_range("late eighteenth-century"), parse_time_range("5th century BC")
    ((1767, 1800), (-500, -401))
    >>> parse_time_range("before 1800"), parse_time_range("in 1765"), parse_time_range("no")
    ((-9999, 1799), (1765, 1765), None)
    """
    lowered = text.lower()
    span = _SPAN_RE.search(lowered)
    if span:
        if span.group(1):
            start, start_s, end, end_s = span.group(1, 2, 3, 4)
            low = int(start)
            high = int(end) + (_decade_width(int(end)) if end_s else 0)
        else:
            low, high = int(span.group(5)), int(span.group(6))
        return (low, high) if low <= high else None
    found: list[tuple[int, tuple[int, int]]] = []
    for match in _CENTURY_RE.finditer(lowered):
        number = int(match.group(2)) if match.group(2) else _ORDINALS[match.group(3)]
        if 0 < number <= 21:
            found.append((match.start(), _century(number, match.group(1), bool(match.group(4)))))
    for match in _DECADE_RE.finditer(lowered):
        start = int(match.group(1))
        found.append((match.start(), (start, start + _decade_width(start))))
    for match in _SINGLE_RE.finditer(lowered):
        found.append((match.start(), _single_year(int(match.group(2)), match.group(1))))
    return min(found)[1] if found else None


def _decade_width(start: int) -> int:
    return 99 if start % 100 == 0 else 9


def _century(number: int, part: str | None, bc: bool) -> tuple[int, int]:
    start, end = (number - 1) * 100 + 1, number * 100
    if part in {"early"}:
        end = start + 32
    elif part in {"mid", "middle"}:
        start, end = start + 33, start + 65
    elif part == "late":
        start = start + 66
    elif part == "first half of":
        end = start + 49
    elif part == "second half of":
        start = start + 50
    return (-end, -start) if bc else (start, end)


def _single_year(year: int, word: str | None) -> tuple[int, int]:
    if word in {"before"}:
        return MIN_YEAR, year - 1
    if word in {"until", "till"}:
        return MIN_YEAR, year
    if word == "after":
        return year + 1, MAX_YEAR
    if word == "since":
        return year, MAX_YEAR
    if word in {"circa", "around", "about", "c.", "ca."}:
        return year - CIRCA_YEARS, year + CIRCA_YEARS
    return year, year


def _history(history: Sequence[tuple[str, str]] | None) -> tuple[Turn, ...]:
    """Earlier turns as ``(str, str)`` pairs; malformed entries are skipped."""
    turns: list[Turn] = []
    try:
        for item in history or ():
            try:
                question, answer = item
            except (TypeError, ValueError):
                continue
            turns.append((str(question or ""), str(answer or "")))
    except TypeError:
        return ()
    return tuple(turns)


class QueryAnalyzer(ABC):
    """Turns a question (and the conversation so far) into a :class:`QueryPlan`.

    Subclasses implement :meth:`_analyze`; :meth:`analyze` adds the follow-up
    contextualisation, a small LRU cache and the guarantee never to raise on any text.

    Args:
        top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
        cache_size: plans kept (0 disables the cache).
    """

    name: str = "base"
    """Recorded in :attr:`QueryPlan.analyzer`."""

    def __init__(self, *, top_k: Mapping[str, int] | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        self.top_k: dict[str, int] = {**TOP_K, **dict(top_k or {})}
        self._cache_size = max(0, int(cache_size))
        self._cache: OrderedDict[tuple[str, tuple[Turn, ...]], QueryPlan] = OrderedDict()
        self._lock = threading.Lock()

    def analyze(self, question: str,
                history: Sequence[tuple[str, str]] | None = None) -> QueryPlan:
        """The plan of ``question``, given earlier ``(question, answer-or-top-label)`` turns.

        Args:
            question: the question as asked (any text; never raises).
            history: earlier turns of the conversation, oldest first.

        Returns:
            The plan; its ``query`` carries the earlier subject for a follow-up.
        """
        text = question if isinstance(question, str) else str(question or "")
        turns = _history(history)
        key = (text, turns)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        try:
            query = contextualise(text, turns)
        except Exception:  # noqa: BLE001 - a question must never break retrieval
            logger.exception("contextualising %r failed", text[:80])
            query = text
        try:
            plan = self._analyze(text, query, turns)
        except Exception:  # noqa: BLE001
            logger.exception("%s analysis of %r failed; using a specific plan", self.name,
                             text[:80])
            plan = self.default_plan(text, query)
        self._remember(key, plan)
        return plan

    def plan_for(self, query_str: str) -> QueryPlan:
        """The cached plan whose ``query`` (or question) is ``query_str``, else a new one.

        Retrieval stages only see the query string; this hands them the plan the
        conversation produced for it without analysing twice.
        """
        with self._lock:
            for plan in reversed(self._cache.values()):
                if plan.query == query_str:
                    return plan
            for plan in reversed(self._cache.values()):
                if plan.question == query_str:
                    return plan
        return self.analyze(query_str)

    def clear_cache(self) -> None:
        """Forget every cached plan."""
        with self._lock:
            self._cache.clear()

    def default_plan(self, question: str, query: str | None = None) -> QueryPlan:
        """A ``specific`` plan with no categories: what unreadable input gets."""
        return QueryPlan(question=question, query=question if query is None else query,
                         type="specific", k=self.top_k["specific"],
                         anchors=tuple(quoted_titles(question)), analyzer=self.name)

    def _remember(self, key: tuple[str, tuple[Turn, ...]], plan: QueryPlan) -> None:
        if not self._cache_size:
            return
        with self._lock:
            self._cache[key] = plan
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    @abstractmethod
    def _analyze(self, question: str, query: str, history: tuple[Turn, ...]) -> QueryPlan:
        """Analyse one question; ``query`` is its contextualised retrieval text."""


class RuleBasedAnalyzer(QueryAnalyzer):
    """English question patterns; no LLM. The default analyzer.

    Type: counting phrases ("how many", "the number of", "count") make an aggregation;
    list verbs ("list", "show me all", "name all"), quantifiers ("all/every/any <noun>") and
    a plural answer noun ("which churches", "what works") make an enumeration; the rest is
    specific. Targets come from the question word and the answer noun ("who" -> Actor,
    "where" -> Place, "when" -> the dated thing plus Event, or Actor for births and deaths;
    type/material/medium -> Thing). Contexts come from what the question names: quoted
    titles (Thing), names after "by" or before "make"/"born" (Actor), names after "in"/"depict"
    (Place). Text that is empty, not English or not in Latin script gets a specific plan
    with no categories.

    Args:
        vocabulary: lower-case type label -> category learnt from the dataset (see
            :meth:`from_labels`); built-in English nouns take precedence.
        top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
        cache_size: plans kept (0 disables the cache).
    """

    name = "rules"

    def __init__(self, vocabulary: Mapping[str, str] | None = None, *,
                 top_k: Mapping[str, int] | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        super().__init__(top_k=top_k, cache_size=cache_size)
        lexicon: dict[str, str] = {}
        plurals: set[str] = set()
        entries = [(w, c) for c, words in _LEXICON_WORDS.items() for w in words.split()]
        for word, category in [*entries, *_PHRASES.items()]:
            lexicon[word] = category
            plural = pluralise(word)
            lexicon.setdefault(plural, category)
            plurals.add(plural)
        canonical = {c.lower(): c for c in DOCUMENT_CATEGORIES}
        for raw, raw_category in (vocabulary or {}).items():
            key = " ".join(str(raw).lower().split())
            learnt = canonical.get(str(raw_category).strip().lower())
            if learnt is None or not key or key in lexicon or key in _HEAD_STOP:
                continue
            lexicon[key] = learnt
            if key not in _SINGULAR_S and singularise(key) != key:
                plurals.add(key)
        self._lexicon = lexicon
        self._plurals = frozenset(plurals)
        self._starters = frozenset(k for k in lexicon if " " not in k)
        self._longest = min(4, max(len(k.split()) for k in lexicon))

    @classmethod
    def from_labels(cls, pairs: Iterable[tuple[str, str]], *,
                    top_k: Mapping[str, int] | None = None,
                    cache_size: int = DEFAULT_CACHE_SIZE) -> RuleBasedAnalyzer:
        """An analyzer whose vocabulary comes from ``(type label, category)`` pairs.

        Args:
            pairs: e.g. ``("church", "Thing")``, ``("village", "Place")`` from the index;
                see :func:`vocabulary_from_labels`.
            top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
            cache_size: plans kept (0 disables the cache).

        >>> analyzer = RuleBasedAnalyzer.from_labels([("church", "Thing")])
        >>> analyzer.analyze("Which churches have frescoes?").target_categories
        ('Thing',)
        """
        return cls(vocabulary_from_labels(pairs), top_k=top_k, cache_size=cache_size)

    @classmethod
    def for_index(cls, index: object, *, top_k: Mapping[str, int] | None = None,
                  cache_size: int = DEFAULT_CACHE_SIZE) -> RuleBasedAnalyzer:
        """An analyzer with the vocabulary of an index's type labels.

        Args:
            index: anything with ``type_labels()`` (or a ``type_labels`` attribute) giving
                ``(label, category)`` pairs; without it, the built-in nouns only.
            top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
            cache_size: plans kept (0 disables the cache).
        """
        source = getattr(index, "type_labels", None)
        try:
            pairs = list(source() if callable(source) else source or ())
        except Exception:  # noqa: BLE001 - a vocabulary is an optional help
            logger.exception("reading the index's type labels failed; built-in nouns only")
            pairs = []
        if not pairs:
            logger.debug("no type labels on %s; the analyzer uses built-in nouns only",
                         type(index).__name__)
        return cls.from_labels(pairs, top_k=top_k, cache_size=cache_size)

    @property
    def vocabulary(self) -> Mapping[str, str]:
        """Every known noun (built-in and learnt) -> category or marker."""
        return dict(self._lexicon)

    # -- analysis ------------------------------------------------------------------------

    def _analyze(self, question: str, query: str, history: tuple[Turn, ...]) -> QueryPlan:
        text = " ".join(unicodedata.normalize("NFKC", clip(question)).split())
        bare = strip_quoted(text, f" {_TITLE_TOKEN} ")
        originals = _TOKEN_RE.findall(bare)
        words = [w.lower().replace("’", "'") for w in originals]
        if not _is_english(text, words):
            return self.default_plan(question, query)
        titles = quoted_titles(text)
        spans = name_spans(text, ignore=self._starters)
        wh_pos, wh = _question_word(words)
        start = wh_pos + 1 if wh else _after_imperative(words)
        counted = _COUNTED_RE.search(" ".join(words))
        head = self._head(words, originals, _index_after(words, counted) if counted else start)
        if head[0] is None:
            head = self._quantified(words) or head
        qtype = self._type(bare, words, wh, head, bool(titles or spans))
        targets = self._targets(qtype, wh, head, words, bool(titles))
        contexts = self._contexts(words, spans, head, targets, qtype == "specific")
        anchors = [*titles, *spans]
        reference = resolve_reference(question, history)
        if reference is not None:
            anchors.append(reference[0])
            if reference[1]:
                contexts = (*contexts, "Thing") if "Thing" not in contexts else contexts
        return QueryPlan(
            question=question, query=query, type=qtype, k=self.top_k[qtype],
            target_categories=targets, context_categories=contexts,
            time_range=parse_time_range(bare), anchors=tuple(dict.fromkeys(anchors)),
            analyzer=self.name)

    def _lookup(self, words: Sequence[str], i: int) -> tuple[str, str, int] | None:
        """Longest lexicon phrase starting at ``words[i]``: (category, phrase, length)."""
        for length in range(min(self._longest, len(words) - i), 0, -1):
            phrase = " ".join(words[i:i + length])
            if phrase in self._lexicon:
                return self._lexicon[phrase], phrase, length
        return None

    def _is_plural(self, word: str) -> bool:
        if word in self._plurals:
            return True
        if word in self._lexicon or word in _SINGULAR_S:
            return False
        return (len(word) > 3 and word.endswith("s")
                and not re.search(r"(?:ss|us|is|'s)$", word))

    def _head(self, words: Sequence[str], originals: Sequence[str],
              start: int) -> tuple[str | None, bool, int]:
        """The answer noun after ``start``: (category or marker, plural, position)."""
        i, n = start, len(words)
        while i < n and (words[i] in _AUX or words[i] in _DETERMINERS):
            i += 1
        first_unknown = -1
        for j in range(i, min(n, i + 4)):
            if words[j] in _HEAD_STOP or words[j] == _TITLE_TOKEN:
                break
            found = self._lookup(words, j)
            if found:
                category, phrase, length = found
                if category == _NAME and j + length < n and words[j + length] == "of":
                    return self._head(words, originals, j + length + 1)
                return category, self._is_plural(phrase.split(" of ")[0].split()[-1]), j
            if first_unknown < 0:
                first_unknown = j
        if first_unknown >= 0 and self._is_plural(words[first_unknown]):
            nxt = originals[first_unknown + 1] if first_unknown + 1 < n else ""
            lower = nxt.lower()
            if lower in _AUX or lower in _PREPOSITIONS or (
                    nxt[:1].islower() and not lower.endswith("s")):
                return None, True, first_unknown
        return None, False, -1

    def _type(self, bare: str, words: Sequence[str], wh: str | None,
              head: tuple[str | None, bool, int], anchored: bool) -> QueryType:
        joined = " ".join(words)
        if _AGGREGATION_RE.search(joined) or _counts(bare):
            return "aggregation"
        if _LIST_RE.search(joined):
            return "enumeration"
        category, plural, _ = head
        marker = category in {_ATTR, _TIME, _LIFE}
        if plural and wh in {"what", "which", "who", None} and not (marker and anchored):
            return "enumeration"
        if self._quantified(words) is not None or _WHO_FILTER_RE.match(joined):
            return "enumeration"
        if wh == "what" and len(words) > 2 and words[1] in {"did", "has", "have", "had"}:
            verbs = [k for k, w in enumerate(words) if w in _CREATION]
            tail = words[verbs[-1] + 1:] if verbs else [_TITLE_TOKEN]
            if verbs and not any(w == _TITLE_TOKEN or w in self._lexicon for w in tail):
                return "enumeration"
        return "specific"

    def _quantified(self, words: Sequence[str]) -> tuple[str | None, bool, int] | None:
        """``all/every/each/any/other/several <noun>``: a list is asked for; that noun."""
        for i, word in enumerate(words):
            if word not in {"all", "every", "each", "any", "other", "several"}:
                continue
            j = i + 1
            while j < len(words) and words[j] in {"of", "the", "his", "her", "their", "its"}:
                j += 1
            found = self._lookup(words, j) if j < len(words) else None
            if found and found[0] in DOCUMENT_CATEGORIES and (
                    word in {"every", "each"} or self._is_plural(found[1].split()[-1])):
                return found[0], True, j
        return None

    def _targets(self, qtype: QueryType, wh: str | None, head: tuple[str | None, bool, int],
                 words: Sequence[str], titled: bool) -> tuple[str, ...]:
        category = head[0]
        life = category == _LIFE or any(w in _LIFE_WORDS for w in words)
        if wh in {"who", "whom", "whose"}:
            return ("Actor",)
        if qtype != "specific":
            mapped = {_LIFE: "Actor", _ATTR: "Concept"}.get(category or "", category)
            if mapped in DOCUMENT_CATEGORIES:
                return (mapped,)
            if wh == "where":
                return ("Place",)
            return ("Thing",) if wh == "what" and any(w in _CREATION for w in words) else ()
        if wh == "where" or category == "Place":
            return ("Place",)
        if wh == "when" or category == _TIME:
            if life:
                return ("Actor",)
            if any(self._lexicon.get(w) == "Event" for w in words):
                return ("Event",)
            return ("Thing", "Event")
        if category == _LIFE:
            return ("Actor",)
        if category == _ATTR:
            return ("Thing",)
        if category in DOCUMENT_CATEGORIES:
            return (category,)
        if life:
            return ("Actor",)
        return ("Thing",) if titled else ()

    def _contexts(self, words: Sequence[str], spans: Sequence[str],
                  head: tuple[str | None, bool, int], targets: tuple[str, ...],
                  specific: bool) -> tuple[str, ...]:
        found: list[str] = []
        for i, word in enumerate(words):
            prev = words[i - 1] if i else ""
            if word == _TITLE_TOKEN:
                found.append("Event" if self._lexicon.get(prev) == "Event" else "Thing")
        life = head[0] == _LIFE or any(w in _LIFE_WORDS for w in words)
        who = bool(words) and words[0] in {"who", "whom", "whose"}
        about_thing = head[0] == _ATTR or (specific and targets == ("Actor",) and not life)
        for span in spans:
            category = _span_category(span, words, life, about_thing, who)
            if category:
                found.append(category)
        for i, word in enumerate(words):
            category = self._lexicon.get(word, "")
            if i == head[2] or category not in DOCUMENT_CATEGORIES:
                continue
            prev, prev2 = (words[i - 1] if i else ""), (words[i - 2] if i > 1 else "")
            if prev in _PREPOSITIONS or (prev in _DETERMINERS and prev2 in _PREPOSITIONS):
                found.append(category)
        return tuple(dict.fromkeys(found))


def _is_english(text: str, words: Sequence[str]) -> bool:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    latin = sum(1 for c in letters if "LATIN" in unicodedata.name(c, ""))
    if latin * 2 < len(letters):
        return False
    return len(words) < 3 or any(w in _ENGLISH for w in words)


def _counts(text: str) -> bool:
    """"count" as a verb or noun, not as a title ("Count Rumford")."""
    return bool(re.search(r"\bcount\b", text) or _COUNT_START_RE.match(text))


def _question_word(words: Sequence[str]) -> tuple[int, str | None]:
    """The leading question word ("In which year..." -> which), if any."""
    for i, word in enumerate(words[:4]):
        if word in _WH:
            return i, word
        if word not in _LEADING:
            break
    return -1, None


def _after_imperative(words: Sequence[str]) -> int:
    i = 0
    while i < len(words) and (words[i] in _IMPERATIVE or words[i] in {"can", "could", "you"}):
        i += 1
    return i


def _index_after(words: Sequence[str], match: re.Match[str]) -> int:
    """Word index following a match over ``" ".join(words)``."""
    return len(" ".join(words)[:match.end()].split())


def _span_category(span: str, words: Sequence[str], life: bool, about_thing: bool,
                   who: bool) -> str | None:
    """Category of a named anchor from the words around it."""
    tokens = [t.lower().replace("’", "'") for t in _TOKEN_RE.findall(span)]
    if not tokens:
        return None
    n = len(tokens)
    bare = [w[:-2] if w.endswith("'s") else w for w in words]
    at = next((i for i in range(len(bare) - n + 1) if list(bare[i:i + n]) == tokens), -1)
    if at < 0:
        return None
    before = [w for w in words[:at] if w not in {"the", "a", "an"}]
    prev = before[-1] if before else ""
    ahead = words[at + n:at + n + 3] if prev in _AUX else words[at + n:at + n + 1]
    if (set(tokens) & _INSTITUTION or prev == "by" or words[at + n - 1].endswith("'s")
            or any(w in _LIFE_WORDS or w in _CREATION for w in ahead)):
        return "Actor"
    if about_thing and (prev in {"of", "for", "in", "about"} or prev in _CREATION):
        return "Thing"
    if (life and prev in {"of", "for", "about", "was", "is", "did"}) or (
            who and prev in {"is", "was"}):
        return "Actor"
    if prev in _PLACE_PREPOSITIONS or prev in _DEPICT:
        return "Actor" if tokens[0] in _PERSON_TITLES else "Place"
    return None


class PlanOutput(BaseModel):
    """How a question about a CIDOC-CRM museum graph should be answered."""

    type: Literal["specific", "enumeration", "aggregation"] = Field(
        description="specific (one fact), enumeration (a list) or aggregation (a number)")
    target_categories: list[str] = Field(
        default_factory=list, description="categories of the answer's entities")
    context_categories: list[str] = Field(
        default_factory=list, description="categories of what the question names as filter")
    start_year: int | None = Field(default=None, description="first year allowed, or null")
    end_year: int | None = Field(default=None, description="last year allowed, or null")
    anchors: list[str] = Field(
        default_factory=list, description="titles and names copied verbatim from the question")


LLM_PROMPT = """\
You analyse questions about a museum collection described with CIDOC-CRM, before retrieval.
Every entity belongs to one of six categories:
- Thing: works, objects, buildings; their type, material, medium and credit line are part of it.
- Actor: people, groups, institutions; their nationality, birth and death are part of it.
- Place: places, cities, countries, villages.
- Event: productions, acquisitions, exhibitions and other events.
- Concept: types, subjects, vocabulary terms.
- Time: time-spans. Never a target: for a "when" question give the category of the dated \
entity plus Event (Actor alone for births and deaths).
A question is of one of three types:
- specific, e.g. "Who painted 'Battersea Reach'?": type specific, target_categories [Actor], \
context_categories [Thing], anchors ["Battersea Reach"].
- enumeration, e.g. "Which works by Mary Cassatt show Paris?": type enumeration, \
target_categories [Thing], context_categories [Actor, Place], anchors ["Mary Cassatt", "Paris"].
- aggregation, e.g. "How many works did Turner make in the 1830s?": type aggregation, \
target_categories [Thing], context_categories [Actor], start_year 1830, end_year 1839, \
anchors ["Turner"].
target_categories: the categories of the answer. context_categories: the categories of what \
the question names as a filter or anchor. start_year/end_year: inclusive years the answer must \
fall in, or null. anchors: titles and names copied verbatim from the question.
{history}Question: {question}
"""
"""The analysis prompt; ``{history}`` and ``{question}`` are filled in."""


class LLMAnalyzer(QueryAnalyzer):
    """Structured-output analysis by an LLM, with the rules as fallback.

    The LLM fills a :class:`PlanOutput` through ``llm.structured_predict`` (function calling
    where the model supports it, a JSON completion parsed by pydantic otherwise). When the
    call raises, the output does not parse, or it names an unknown category, the fallback
    analyses the question instead and the reason is logged.

    Args:
        llm: any LlamaIndex LLM (``Settings`` is never read).
        fallback: the analyzer used when the LLM fails (rules by default).
        prompt: the prompt text, with ``{history}`` and ``{question}``.
        top_k: documents per query type, overriding :data:`~.plan.TOP_K` entries.
        cache_size: plans kept (0 disables the cache).
    """

    name = "llm"

    def __init__(self, llm: LLM, fallback: QueryAnalyzer | None = None, *,
                 prompt: str = LLM_PROMPT, top_k: Mapping[str, int] | None = None,
                 cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        super().__init__(top_k=top_k, cache_size=cache_size)
        from llama_index.core.prompts import PromptTemplate

        self.llm = llm
        self.fallback = fallback if fallback is not None else RuleBasedAnalyzer(
            top_k=top_k, cache_size=0)
        self._prompt = PromptTemplate(prompt)

    def _analyze(self, question: str, query: str, history: tuple[Turn, ...]) -> QueryPlan:
        if not any(c.isalnum() for c in question):
            return self.fallback.analyze(question, history)
        try:
            output = self.llm.structured_predict(
                PlanOutput, self._prompt, question=clip(question),
                history=_format_history(history))
            if not isinstance(output, PlanOutput):
                raise TypeError(f"expected PlanOutput, got {type(output).__name__}")
            return self._plan(output, question, query, history)
        except Exception as error:  # noqa: BLE001 - any LLM failure falls back
            logger.warning("LLM query analysis failed (%s: %s); falling back to %s rules",
                           type(error).__name__, str(error)[:200], self.fallback.name)
            return self.fallback.analyze(question, history)

    def _plan(self, output: PlanOutput, question: str, query: str,
              history: tuple[Turn, ...]) -> QueryPlan:
        targets = _known_categories(output.target_categories)
        contexts = _known_categories(output.context_categories)
        if not targets and any(str(c).strip().lower() == "time"
                               for c in output.target_categories):
            targets = self.fallback.analyze(question, history).target_categories
        time_range: tuple[int, int] | None = None
        if output.start_year is not None or output.end_year is not None:
            low = MIN_YEAR if output.start_year is None else output.start_year
            high = MAX_YEAR if output.end_year is None else output.end_year
            time_range = (min(low, high), max(low, high))
        haystack = f"{question}\n{query}".lower()
        anchors = [a.strip() for a in output.anchors
                   if a.strip() and a.strip().lower() in haystack]
        if not anchors:
            anchors = [*quoted_titles(question), *name_spans(question)]
        reference = resolve_reference(question, history)
        if reference is not None:
            anchors.append(reference[0])
        return QueryPlan(
            question=question, query=query, type=output.type, k=self.top_k[output.type],
            target_categories=targets, context_categories=contexts, time_range=time_range,
            anchors=tuple(dict.fromkeys(anchors)), analyzer=self.name)


def _known_categories(names: Iterable[str]) -> tuple[str, ...]:
    """Canonical document categories; raises on a name that is no category at all."""
    canonical = {c.lower(): c for c in CATEGORIES}
    found: list[str] = []
    for name in names:
        category = canonical.get(str(name).strip().lower())
        if category is None:
            raise ValueError(f"unknown category {name!r}")
        if category in DOCUMENT_CATEGORIES and category not in found:
            found.append(category)
    return tuple(found)


def _format_history(history: Sequence[Turn]) -> str:
    if not history:
        return ""
    lines = ["Earlier turns of the conversation:"]
    for question, answer in history[-3:]:
        lines.append(f"Q: {question[:300]}")
        if answer:
            lines.append(f"A: {answer[:300]}")
    return "\n".join(lines) + "\n"
