"""Query analysis: what a question asks for, as a :class:`~.plan.QueryPlan`, before retrieval.

Two analyzers share one interface, :class:`QueryAnalyzer`: :class:`RuleBasedAnalyzer` (English
patterns, no LLM, the default) and :class:`~.llm_analysis.LLMAnalyzer` (structured output
through LlamaIndex, falling back to the rules). Both contextualise follow-ups with
:func:`~.conversation.contextualise` and cache their plans, so that every retrieval stage
can ask :meth:`QueryAnalyzer.plan_for` for the plan of the query it was handed. The rules'
vocabulary lives in :mod:`.lexicon` and the time-expression parser in :mod:`.temporal`; both
are re-exported here.

>>> plan = RuleBasedAnalyzer().analyze("How many works did Valentine Green make in the 1780s?")
>>> plan.type, plan.k, plan.target_categories, plan.context_categories, plan.time_range
('aggregation', 25, ('Thing',), ('Actor',), (1780, 1789))
>>> parse_time_range("between 1760 and 1770"), parse_time_range("the 12th century")
((1760, 1770), (1100, 1199))
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from llama_index_crm.query.conversation import (
    Turn,
    clip,
    contextualise,
    name_spans,
    quoted_titles,
    resolve_reference,
    strip_quoted,
)
from llama_index_crm.query.lexicon import (
    _ATTR,
    _AUX,
    _CREATION,
    _DEPICT,
    _DETERMINERS,
    _ENGLISH,
    _HEAD_STOP,
    _IMPERATIVE,
    _INSTITUTION,
    _LEADING,
    _LEXICON_WORDS,
    _LIFE,
    _LIFE_WORDS,
    _NAME,
    _PERSON_TITLES,
    _PHRASES,
    _PLACE_PREPOSITIONS,
    _PREPOSITIONS,
    _SINGULAR_S,
    _TIME,
    _WH,
    DOCUMENT_CATEGORIES,
    pluralise,
    singularise,
    vocabulary_from_labels,
)
from llama_index_crm.query.plan import TOP_K, QueryPlan, QueryType
from llama_index_crm.query.temporal import CIRCA_YEARS, MAX_YEAR, MIN_YEAR, parse_time_range
from llama_index_crm.query.turns import TurnReading, read_turn
from llama_index_crm.rdf import fold_label

__all__ = [
    "CIRCA_YEARS",
    "DEFAULT_CACHE_SIZE",
    "DOCUMENT_CATEGORIES",
    "MAX_YEAR",
    "MIN_YEAR",
    "QueryAnalyzer",
    "RuleBasedAnalyzer",
    "parse_time_range",
    "pluralise",
    "singularise",
    "vocabulary_from_labels",
]

logger = logging.getLogger(__name__)

DEFAULT_CACHE_SIZE = 256
"""Plans kept per analyzer (several retrieval stages ask for the same plan)."""
VAGUE_REWRITE = "Tell me more about"
"""A vague follow-up ("And?") is analysed as this, followed by the previous turn's subject."""

_AGGREGATION_RE = re.compile(
    r"\bhow many\b|\b(?:the|what|which|total|overall)\s+(?:total\s+)?number\s+of\b"
    r"|\bin total\b|\btotal count\b|^number of\b")
_COUNT_START_RE = re.compile(r"\W*count\s+(?:the|all|every|how|up)\b", re.IGNORECASE)
_COUNTED_RE = re.compile(r"\b(?:how many|number of)\s")
_LIST_RE = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:list|enumerate)\b|(?:show|give|name|find|display|get|return|tell)\s+(?:me\s+|us\s+)?"
    r"(?:all|every|each|a\s+list)\b)|\ba list of\b|\blist of\b")
_WHO_FILTER_RE = re.compile(
    r"(?:\w+ )?who (?:was |were |has been |have been )?(?:born|died|lived|worked|active)"
    r" (?:in|at|near|during|between|before|after|from)\b")
"""People picked by a filter ("Who was born in Boston?"): a list."""
_TITLE_TOKEN = "titleref"
_TOKEN_RE = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


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
            reading = read_turn(text, turns)
            asked = reading.question
            if reading.kind == "vague":
                subject = resolve_reference(text, turns)
                asked = f"{VAGUE_REWRITE} {subject[0]}" if subject else text
            query = contextualise(asked, turns)
        except Exception:  # noqa: BLE001 - a question must never break retrieval
            logger.exception("contextualising %r failed", text[:80])
            reading, asked, query = TurnReading("standalone", text), text, text
        try:
            plan = self._analyze(asked, query, turns)
        except Exception:  # noqa: BLE001
            logger.exception("%s analysis of %r failed; using a specific plan", self.name,
                             text[:80])
            plan = self.default_plan(asked, query)
        lead = (self.analyze(*turns[-1][:1], turns[:-1]).query,) \
            if reading.kind == "vague" else ()
        plan = replace(plan, turn=reading.kind, excluded=reading.excluded, lead=lead)
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
            key = fold_label(str(raw))
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
