"""The rule planner's English words and word-level pieces: the question word tables (loaded
from ``config/lexicon/planner/en.json`` by :mod:`.vocabulary`), contractions, the elements
a question is cut into (:class:`Element`), the slots a plan is built of (:class:`Slot`),
small predicates on relations and categories, and the state the builder's parts share
(:class:`BuilderState`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from llama_index_crm.exact.linking import (
    Mention,
    Missing,
    NameIndex,
    TrialLink,
    Unresolved,
)
from llama_index_crm.exact.plan import Anchor, ExactPlan, ValueFilter
from llama_index_crm.exact.relations import Relation, RelationLexicon
from llama_index_crm.exact.vocabulary import QuestionWords

__all__ = ["BuilderState", "Element", "Parsed", "PlannerView", "Slot"]

WORDS = QuestionWords.load("en")
"""The English question words (``config/lexicon/planner/en.json``); the names below are
its tables, as the planner's modules use them."""

_CONTRACTED = WORDS.contracted
_CONTRACTIONS = re.compile(r"\b(what|who|where|when|how|which|it|that|there|i|you|we|they|"
                           r"he|she)['’](s|re|ve|ll|d|m)\b", re.I)
"""Contractions of question words ("what's" → "what is"), not possessives of names."""
_BARE_CONTRACTIONS = re.compile(
    r"\b(?:(what|who|where|when|how|that)s|(did|does|do|is|was|are|were|has|have|had|"
    r"can|could|should|would)nt|(wasn|isn|aren|weren|hasn|haven|hadn|couldn|shouldn|"
    r"wouldn|didn|doesn|don)t)\b", re.I)
"""The same typed without the apostrophe ("whats", "didnt", "dont")."""
_NEGATIVE = re.compile(r"\b(ca|wo|ai|[a-z]+)n['’]t\b", re.I)
"""A verb with "not" ("aren't", "didn't", "can't", "won't")."""


def _expand_negative(match: re.Match[str]) -> str:
    stem = match.group(1)
    return {"ca": "can", "wo": "will", "ai": "is"}.get(stem.lower(), stem) + " not"
_HOW_SIZE = re.compile(r"\bhow (big|large|small|tall|high|wide|long|heavy|deep)"
                       r"(?: (is|was|are|were))?\b", re.I)
""""How big is X" asks the size of X ("how tall" its height)."""
_SIZE_NOUNS = WORDS.size_nouns
_SHOW_ME = re.compile(r"(?:^|(?<=[:;] )|(?<= [-–—] ))\W*(?:(?:please|kindly|can you|could you)"
                      r"\s+)?(?:show|display|give|tell|find|get)\s+(?:me|us)\b", re.I)
""""Show me the churches": a request that opens the question, not a verb of depicting."""


def _size_question(match: re.Match[str]) -> str:
    return f"what {match.group(2) or 'is'} the {_SIZE_NOUNS[match.group(1).lower()]} of"


def _expand_bare(match: re.Match[str]) -> str:
    if match.group(1):
        return f"{match.group(1)} is"
    stem = match.group(2) or match.group(3)[:-1]
    return f"{'do' if stem.lower() == 'don' else stem} not"


QUOTE = "⟦q{}⟧"
_ORDINAL_RE = re.compile(r"\d+(?:st|nd|rd|th)")
TIME = "⟦t⟧"
_TOKEN_RE = re.compile(r"⟦q\d+⟧|⟦t⟧|[^\W_][\w'’.\-]*", re.UNICODE)

WH = WORDS.wh
AUX = WORDS.aux
DATING_WORDS = WORDS.dating_words
COPULA = WORDS.copula
DETERMINERS = WORDS.determiners
PRONOUNS = WORDS.pronouns
"""Words that may point back to the previous turn, with the category they prefer."""
IMPERATIVE = WORDS.imperative
FILLER = WORDS.filler
OTHERNESS = WORDS.otherness
"""Words asking for others than the one named ("what else did the painter of T make")."""
COLLECTION = WORDS.collection
HOLDING_VERBS = WORDS.holding_verbs
_TYPE_SYNONYMS = WORDS.type_synonyms
"""Everyday words for type labels ("photos" are typed "photograph")."""
GENERIC_THINGS = WORDS.generic_things
COUNT_WORDS = WORDS.count_words
SUPERLATIVES = WORDS.superlatives
NUMBERS = WORDS.numbers
GROUP_UNITS = WORDS.group_units
GROUP_WORDS = WORDS.group_words
SUPERLATIVE_PHRASES = WORDS.superlative_phrases
"""Phrases that rank (checked before single superlative words)."""
ACQUISITION_NOUNS = WORDS.acquisition_nouns
DIMENSION_WORDS = WORDS.dimension_words
"""Superlatives of one dimension; "largest" and "smallest" rank by area."""
ORDINAL_RANKS = WORDS.ordinal_ranks
ACQUISITION_VERBS = WORDS.acquisition_verbs
"""Verbs that ask about the acquisition itself, not only about holding a work."""
NAME_NOUNS = WORDS.name_nouns
"""Nouns that end the name of a donor ("the Hopkins family")."""
TITLE_RELATION = "title"
GROUPABLE = frozenset({"credit-line", "has-type", "made-of", "medium-statement", "nationality",
                       "technique"})
"""Attributes whose values a ranking may group by ("which credit line appears most")."""
TITLE_VERBS = WORDS.title_verbs
HONORIFICS = WORDS.honorifics
MIN_FIXED_WORD = 6
"""Shorter unknown words are not corrected into question words ("apart" is not "part")."""
TITLE_JOINERS = WORDS.title_joiners
"""Small words inside titles ("Girl with a Pearl Earring")."""
HOW_MEASURES = WORDS.how_measures
""""How" questions that ask for a number; other "how" questions (manner) are not compiled."""
GENERIC_TIME_NOUNS = WORDS.generic_time_nouns
"""Nouns that ask for a date without saying which: the verb decides (acquired, born…)."""
NOUNS_OF = WORDS.nouns_of
"""A plain noun for a variable of a category the question does not name."""
GENDER_NOUNS = WORDS.gender_nouns
"""Nouns that put a gender on the actor noun after them ("women artists")."""
COLLECTION_TAIL = WORDS.collection_tail
"""Words that may end a question after its head noun ("… photographer in the collection")."""
AGENT_WORKS = WORDS.agent_works
"""Makers named by what they make: "photographers" are the actors who made photographs (when
the graph types its works so; occupations are rarely recorded)."""
MIN_VOCABULARY_TITLE = 4
"""Words a name made only of question vocabulary must have to be read as a name."""
ATTRIBUTE_RELATIONS = frozenset({
    "nationality", "has-type", "made-of", "technique", "medium-statement", "located-in",
    "birth-place", "death-place", "creation-place", "residence", "took-place-at"})
"""Relations whose nouns ask for a value ("what nationality", "the medium of X")."""
EXCLUSIONS = WORDS.exclusions
PREPOSITIONS = WORDS.prepositions
RANKING_WORDS = WORDS.ranking_words
"""Words of rankings and break-downs ("top 3", "break down by century")."""
DESCRIBE_WORDS = WORDS.describe_words
DESCRIBE_RE = re.compile(
    r"^\s*(?:(?:please\s+)?(?:tell|teach)\s+(?:me|us)\s+(?:more\s+)?about|describe|"
    r"(?:i'?d|i would|i want|we'?d)\s+(?:like\s+)?(?:to\s+)?(?:know|learn|hear)\s+"
    r"(?:more\s+)?about|what (?:do|can) you (?:know|tell me) about|"
    r"(?:more\s+)?info(?:rmation)?\s+(?:on|about)|details (?:of|on|about))\s+", re.I)
CLASS_NOUNS = WORDS.class_nouns
"""Nouns naming what a variable holds; the graph's own type labels add more."""
THING_TYPE_WORDS = WORDS.thing_type_words
"""Thing nouns that also filter by type ("paintings" → typed "painting")."""


@dataclass(slots=True)
class Element:
    """One element of a question: a word, a mention, a run of unknown words, the time."""

    kind: str  # word | mention | run | time
    words: list[str]
    text: str
    mention: Mention | None = None
    possessive: bool = False
    alt: str = ""  # a possessive's form with its s ("artist's" → "artists", as in titles)
    in_time: bool = False  # part of the question's time expression

    @property
    def word(self) -> str:
        return " ".join(self.words)


@dataclass(slots=True)
class Slot:
    """A variable being built, or a named node."""

    category: str | None
    noun: str | None = None
    types: list[str] = field(default_factory=list)
    anchor: Anchor | None = None
    links: list[tuple[str, Slot, bool, tuple[str, ...]]] = field(default_factory=list)
    filters: list[ValueFilter] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)


MEMBER_OF = "member-of"
"""The relation of an actor to a group it belongs to ("which artists are British")."""

def pronoun_fits(wanted: str, category: str) -> bool:
    """Whether a pronoun's preference ("Actor", "-Actor": not an actor, "": any) fits."""
    if not wanted:
        return True
    return category != wanted[1:] if wanted.startswith("-") else category == wanted


def cued_only(relation: Relation, cue: Sequence[str]) -> bool:
    """Whether every word of a cue may name ``relation`` ("showing", "of"; not "by members
    of", which names other relations)."""
    words = [w for w in cue if not w.startswith("⟨")]
    return bool(words) and all(w in relation.verbs or w in relation.prepositions or
                               w in relation.nouns for w in words)


def fits(side: str, category: str | None) -> bool:
    """Whether a node of ``category`` may stand on a relation side."""
    if category is None:
        return True
    return side in {"Any", category}


def attribute_group(relations: Sequence[Relation]) -> list[Relation]:
    """The first relation and those answering the same kind of question with it (medium:
    the statement, the materials and the technique)."""
    first = relations[0]
    families = [{"medium-statement", "made-of", "technique"},
                {"credit-line", "acquired-from"}]
    for family in families:
        if first.id in family:
            return [r for r in relations if r.id in family] or [first]
    return [first]


@dataclass(slots=True)
class Parsed:
    """What the planner made of a question.

    Attributes:
        plan: the plan (None when the question could not be compiled).
        missing: names that link to nothing (the answer is ``not_found``).
        ambiguous: names with several equally good nodes (``ambiguous``).
        reason: why there is no plan.
    """

    plan: ExactPlan | None = None
    missing: list[Missing] = field(default_factory=list)
    ambiguous: list[Unresolved] = field(default_factory=list)
    reason: str = ""


class PlannerView(Protocol):
    """What the plan builder reads of its planner (:class:`~.parse.RulePlanner`)."""

    @property
    def names(self) -> NameIndex: ...
    @property
    def lexicon(self) -> RelationLexicon: ...
    @property
    def nouns(self) -> dict[str, str]: ...
    @property
    def relation_words(self) -> set[str]: ...
    @property
    def type_words(self) -> set[str]: ...
    @property
    def trial(self) -> TrialLink | None: ...
    @property
    def present(self) -> Callable[[str], bool]: ...
    @property
    def holders(self) -> Callable[[], frozenset[str]]: ...
    def type_word(self, single: str) -> str: ...
    def relations_for(self, word: str) -> list[Relation]: ...
    def time_verb(self, word: str) -> bool: ...


class BuilderState:
    """The state of one question's plan being built, shared by the builder's parts
    (:mod:`.parse_links`, :mod:`.parse_ops`, :class:`~.parse.RulePlanner`'s builder)."""

    p: PlannerView
    text: str
    els: list[Element]
    time: tuple[ValueFilter, bool] | None
    periods: int
    described: bool
    value_domains: list[str]
    roles: dict[tuple[int, int], str]
    missing: list[Missing]
    ambiguous: list[Unresolved]
    chosen: Mapping[str, str]
    notes: list[str]
    words: list[str]
    verbs: list[str]
