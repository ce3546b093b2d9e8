"""The rule planner's English words and word-level pieces: the question word tables (loaded
from ``config/lexicon/planner/en.json`` by :mod:`.vocabulary`), contractions, the elements
a question is cut into (:class:`Element`), the slots a plan is built of (:class:`Slot`),
small predicates on relations and categories, and the state the builder's parts share
(:class:`BuilderState`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
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
from llama_index_crm.query.conversation import word_set

__all__ = ["BuilderState", "Element", "Parsed", "PlannerView", "Slot"]

_CONTRACTED = {"s": " is", "re": " are", "ve": " have", "ll": " will", "d": " would",
               "m": " am"}
_CONTRACTIONS = re.compile(r"\b(what|who|where|when|how|which|it|that|there|i|you|we|they|"
                           r"he|she)['’](s|re|ve|ll|d|m)\b", re.I)
"""Contractions of question words ("what's" → "what is"), not possessives of names."""
_BARE_CONTRACTIONS = re.compile(
    r"\b(?:(what|who|where|when|how|that)s|(did|does|do|is|was|are|were|has|have|had|"
    r"can|could|should|would)nt|(wasn|isn|aren|weren|hasn|haven|hadn|couldn|shouldn|"
    r"wouldn|didn|doesn|don)t)\b", re.I)
"""The same typed without the apostrophe ("whats", "didnt", "dont")."""
_HOW_SIZE = re.compile(r"\bhow (big|large|small|tall|high|wide|long|heavy|deep)"
                       r"(?: (is|was|are|were))?\b", re.I)
""""How big is X" asks the size of X ("how tall" its height)."""
_SIZE_NOUNS = {"big": "size", "large": "size", "small": "size", "tall": "height",
               "high": "height", "wide": "width", "long": "length", "heavy": "weight",
               "deep": "depth"}


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

WH = word_set("who whom whose what which when where how why whoever whatever")
AUX = word_set("""
is are was were be been being do does did has have had can could will would may might
shall should""")
COPULA = word_set("is are was were be been")
DETERMINERS = word_set("""
the a an this that these those some any all every each its his her their our my your""")
PRONOUNS = {"he": "Actor", "him": "Actor", "his": "Actor", "she": "Actor", "her": "Actor",
            "it": "-Actor", "its": "-Actor", "this": "-Actor", "that": "-Actor", "they": "",
            "them": "", "their": ""}
"""Words that may point back to the previous turn, with the category they prefer."""
IMPERATIVE = word_set("""
list show give tell name find display enumerate get return count please me us i we you
want like know need would could can""")
FILLER = word_set("""
there also please currently ever exactly approximately really actually now still known
recorded listed exist exists existing total overall altogether more about any kind sort
of the same one ones thing things made away on""") - {
    "of", "about", "made", "on"}
COLLECTION = word_set("""
collection collections museum museums gallery galleries holdings archive archives
database graph dataset catalogue catalog""")
HOLDING_VERBS = word_set("""
hold holds held have has own owns kept keep contain contains include includes feature
features""")
_TYPE_SYNONYMS = {"photo": "photograph", "pic": "picture", "snapshot": "photograph",
                  "etching": "etching", "painted": "painting", "oil": "painting"}
"""Everyday words for type labels ("photos" are typed "photograph")."""
GENERIC_THINGS = word_set("""
work works artwork artworks object objects item items piece pieces thing things artefact
artefacts artifact artifacts holding holdings record records everything anything something
stuff""")
COUNT_WORDS = word_set("many number count total")
SUPERLATIVES: dict[str, tuple[str, bool]] = {
    "oldest": ("time", False), "earliest": ("time", False), "first": ("time", False),
    "latest": ("time", True), "newest": ("time", True), "youngest": ("time", True),
    "recent": ("time", True), "last": ("time", True), "most recent": ("time", True),
    "largest": ("size", True), "biggest": ("size", True), "tallest": ("size", True),
    "widest": ("size", True), "longest": ("size", True), "heaviest": ("size", True),
    "smallest": ("size", False), "shortest": ("size", False), "narrowest": ("size", False),
    "most": ("count", True), "fewest": ("count", False), "least": ("count", False),
}
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "dozen": 12, "twenty": 20}
GROUP_UNITS = {"decade": "decade", "decades": "decade", "century": "century",
               "centuries": "century", "year": "year", "years": "year"}
GROUP_WORDS = word_set("per each every by")
SUPERLATIVE_PHRASES: dict[str, tuple[str, bool]] = {
    "most recent": ("time", True), "most common": ("count", True),
    "most frequent": ("count", True), "most popular": ("count", True),
    "most prolific": ("count", True), "most represented": ("count", True),
    "least represented": ("count", False), "commonest": ("count", True),
    "top": ("count", True), "most works": ("count", True), "fewest works": ("count", False),
    "most often": ("count", True), "most frequently": ("count", True)}
"""Phrases that rank (checked before single superlative words)."""
ACQUISITION_NOUNS = word_set("acquisition acquisitions purchase purchases accession "
                             "accessions gift gifts")
DIMENSION_WORDS = {"tallest": "height", "highest": "height", "shortest": "height",
                   "widest": "width", "narrowest": "width", "longest": "length",
                   "heaviest": "weight", "lightest": "weight", "deepest": "depth"}
"""Superlatives of one dimension; "largest" and "smallest" rank by area."""
ORDINAL_RANKS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5}
ACQUISITION_VERBS = word_set("acquired acquire acquires bought buy purchased purchase "
                             "accessioned received obtained")
"""Verbs that ask about the acquisition itself, not only about holding a work."""
NAME_NOUNS = word_set("family foundation estate trust fund company society")
"""Nouns that end the name of a donor ("the Hopkins family")."""
TITLE_RELATION = "title"
GROUPABLE = frozenset({"credit-line", "has-type", "made-of", "medium-statement", "nationality",
                       "technique"})
"""Attributes whose values a ranking may group by ("which credit line appears most")."""
TITLE_VERBS = word_set("titled entitled called named")
HONORIFICS = word_set("mr mrs ms miss dr sir lady lord rev mme mlle")
MIN_FIXED_WORD = 6
"""Shorter unknown words are not corrected into question words ("apart" is not "part")."""
TITLE_JOINERS = word_set("with a an the of and in on at to for from")
"""Small words inside titles ("Girl with a Pearl Earring")."""
HOW_MEASURES = ("how many", "how much", "how old", "how big", "how large", "how tall",
                "how long", "how wide", "how heavy")
""""How" questions that ask for a number; other "how" questions (manner) are not compiled."""
GENERIC_TIME_NOUNS = word_set("year years date dates time decade century period when")
"""Nouns that ask for a date without saying which: the verb decides (acquired, born…)."""
NOUNS_OF = {"Thing": "works", "Actor": "actors", "Place": "places", "Concept": "terms",
            "Event": "events"}
"""A plain noun for a variable of a category the question does not name."""
GENDER_NOUNS = word_set("woman women female females man men male males")
"""Nouns that put a gender on the actor noun after them ("women artists")."""
COLLECTION_TAIL = word_set("in the collection graph museum here of all time ever ?")
"""Words that may end a question after its head noun ("… photographer in the collection")."""
AGENT_WORKS = {"painter": "painting", "photographer": "photograph", "sculptor": "sculpture",
               "engraver": "engraving", "etcher": "etching", "printmaker": "print",
               "draughtsman": "drawing", "draftsman": "drawing", "illustrator": "illustration",
               "lithographer": "lithograph", "potter": "ceramic", "weaver": "textile"}
"""Makers named by what they make: "photographers" are the actors who made photographs (when
the graph types its works so; occupations are rarely recorded)."""
MIN_VOCABULARY_TITLE = 4
"""Words a name made only of question vocabulary must have to be read as a name."""
ATTRIBUTE_RELATIONS = frozenset({
    "nationality", "has-type", "made-of", "technique", "medium-statement", "located-in",
    "birth-place", "death-place", "creation-place", "residence", "took-place-at"})
"""Relations whose nouns ask for a value ("what nationality", "the medium of X")."""
EXCLUSIONS = ("aside from", "apart from", "other than", "except for", "except", "excluding",
              "besides", "not counting", "but not", "leaving out")
PREPOSITIONS = word_set("""
by of in at from about with on for within near into to during under among amongst""")
RANKING_WORDS = word_set("""
centuries decades top prolific represented common commonest frequent popular break down
breakdown split distribution grouped area height width x by second third fourth fifth
ranking rank ranked biggest often frequently appears appear occurs occur""")
"""Words of rankings and break-downs ("top 3", "break down by century")."""
DESCRIBE_WORDS = word_set("info information details detail describe description tell know "
                          "learn hear more something everything")
DESCRIBE_RE = re.compile(
    r"^\s*(?:(?:please\s+)?(?:tell|teach)\s+(?:me|us)\s+(?:more\s+)?about|describe|"
    r"(?:i'?d|i would|i want|we'?d)\s+(?:like\s+)?(?:to\s+)?(?:know|learn|hear)\s+"
    r"(?:more\s+)?about|what (?:do|can) you (?:know|tell me) about|"
    r"(?:more\s+)?info(?:rmation)?\s+(?:on|about)|details (?:of|on|about))\s+", re.I)
CLASS_NOUNS: dict[str, str] = {
    **dict.fromkeys(GENERIC_THINGS, "Thing"),
    **dict.fromkeys(word_set("""
artist artists maker makers creator creators painter painters photographer
photographers sculptor sculptors engraver engravers printmaker printmakers architect
architects author authors designer designers illustrator illustrators draughtsman
draftsman etcher etchers printer printers person persons people man men woman women
individual individuals actor actors group groups institution institutions
organisation organisations organization organizations who whom donor donors owner
owners collector collectors founder founders builder builders nationality
nationalities"""), "Actor"),
    **dict.fromkeys(word_set("""
place places city cities town towns village villages country countries region
regions location locations site sites area areas district districts where"""), "Place"),
    **dict.fromkeys(word_set("""
event events exhibition exhibitions production productions acquisition acquisitions
campaign campaigns"""), "Event"),
    **dict.fromkeys(word_set("""
subject subjects theme themes concept concepts material materials medium media
technique techniques"""), "Concept"),
}
CLASS_NOUNS.update(dict.fromkeys(word_set("family families dynasty"), "Actor"))
"""Nouns naming what a variable holds; the graph's own type labels add more."""
THING_TYPE_WORDS = word_set("""
painting drawing print photograph photo sculpture statue bust watercolour watercolor
etching engraving lithograph woodcut mezzotint manuscript book poster building monument
fresco icon mural portrait landscape map coin vase textile carving miniature sketch
relief medal tapestry church chapel""")
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
    notes: list[str]
    words: list[str]
    verbs: list[str]
