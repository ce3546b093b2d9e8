"""The rule-based planner: an English question to an :class:`~.plan.ExactPlan`.

Not one pattern per question template: the question is cut into *elements* and the plan is
composed from them.

1. Quoted titles and the time expression ("in the 1780s", "between 1750 and 1760", "the
   eighties") are taken out first.
2. Names: every run of words that names a graph node exactly is a *mention*
   (:meth:`NameIndex.scan`, longest first); words outside the question vocabulary that are
   left over form *runs*, looked up with surnames, misspellings and partial titles when
   they stand where a name is expected ("by …", "of …", "depicting …").
3. Vocabulary: question words, class nouns ("works", "paintings" — type words learnt from
   the graph —, "artists"), relation words (verbs and nouns of
   ``config/exact/relations.json``), operation words (how many, oldest, most, per decade).
4. Composition: the head (what is asked for: "who", "works", or a named node), then each
   relation word links the element before it to the element after it; the relation is the
   one the word names whose domain and range fit the two categories (``works`` by
   ``Valentine Green`` → Thing made by Actor). A link to a noun continues the chain from
   that noun ("works by artists born in London").

A name that links to nothing is reported, with the graph's closest names, so the answer can
say it is not there; several equally good nodes are reported as an ambiguity.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from llama_index_crm.exact.execute import GENDER_WORDS
from llama_index_crm.exact.linking import (
    EDIT_PENALTY,
    NAME_SUFFIXES,
    SCORES,
    STOP_WORDS,
    Candidate,
    Mention,
    Missing,
    NameIndex,
    TrialLink,
    Unresolved,
    link_name,
    max_edits,
    mentions_forms,
)
from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, ValueFilter, Variable
from llama_index_crm.exact.relations import Relation, RelationLexicon
from llama_index_crm.exact.roles import ROLE_RELATION
from llama_index_crm.query.conversation import quoted_titles, word_set
from llama_index_crm.query.lexicon import pluralise, singularise, word_stem
from llama_index_crm.query.temporal import find_time_range
from llama_index_crm.storage.names import fold_name

__all__ = ["Missing", "Parsed", "RulePlanner", "Unresolved", "link_name"]

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


@dataclass(slots=True)
class _El:
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
class _Slot:
    """A variable being built, or a named node."""

    category: str | None
    noun: str | None = None
    types: list[str] = field(default_factory=list)
    anchor: Anchor | None = None
    links: list[tuple[str, _Slot, bool, tuple[str, ...]]] = field(default_factory=list)
    filters: list[ValueFilter] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)


MEMBER_OF = "member-of"
"""The relation of an actor to a group it belongs to ("which artists are British")."""

class RulePlanner:
    """Compiles questions into :class:`ExactPlan` objects, English rules, no LLM.

    Args:
        names: the graph's name index.
        lexicon: the relations.
        type_nouns: type label (lower case) → category, learnt from the graph.
        trial: checks a candidate anchor gives a non-empty link (to settle ties by data).
        present: whether the graph holds a relation at all.
        holders: IRIs of the actors that acquired most of the graph's works (the museum
            whose collection it is): "works at the museum" means the whole collection.
    """

    def __init__(self, names: NameIndex, lexicon: RelationLexicon | None = None,
                 type_nouns: Mapping[str, str] | None = None, trial: TrialLink | None = None,
                 present: Callable[[str], bool] | None = None,
                 holders: Callable[[], frozenset[str]] | None = None) -> None:
        self.names = names
        self.lexicon = lexicon or RelationLexicon.default()
        self.trial = trial
        self.present = present or (lambda _: True)
        self.holders = holders or frozenset
        nouns = dict(CLASS_NOUNS)
        self.type_words: set[str] = set(THING_TYPE_WORDS)
        for label, category in (type_nouns or {}).items():
            # an AAT qualifier is no part of the noun: "bronzes (visual works)" → "bronzes"
            key = fold_name(re.sub(r"\([^()]*\)", " ", label)) or fold_name(label)
            if key and key not in nouns and len(key) >= 3 and not key.isdigit():
                for form in dict.fromkeys((key, pluralise(key), singularise(key))):
                    nouns.setdefault(form, category)
                self.type_words.add(singularise(key))
                self.type_words.add(key)
        # "exhibitions" for a graph whose exhibitions are typed "Exhibiting": one stem
        self.type_stems: dict[str, str] = {}
        for word in sorted(self.type_words):
            self.type_stems.setdefault(word_stem(word), word)
        for relation in self.lexicon.values():  # the graph's roles: "directors", "curators"
            if relation.via_labels:
                for noun in relation.nouns:
                    nouns.setdefault(noun, relation.range)
        for word in THING_TYPE_WORDS:
            nouns.setdefault(word, "Thing")
            nouns.setdefault(pluralise(word), "Thing")
        self.nouns = nouns
        self.relation_words = {fold_name(w) for r in self.lexicon.values() for w in r.words}
        self.vocabulary = (WH | AUX | DETERMINERS | IMPERATIVE | FILLER | COLLECTION
                           | HOLDING_VERBS | COUNT_WORDS | PREPOSITIONS | set(PRONOUNS)
                           | set(SUPERLATIVES) | set(NUMBERS) | set(nouns) | GROUP_WORDS
                           | set(GROUP_UNITS)
                           | {w for p in self.relation_words for w in p.split()}
                           | {"and", "or", "not", "no", "than", "as", "if", "whether", "did"}
                           | DESCRIBE_WORDS | RANKING_WORDS
                           | {w for x in EXCLUSIONS for w in x.split()})
        self._vocab_list = sorted(self.vocabulary)

    # -- entry point -----------------------------------------------------------------------
    def parse(self, question: str, focus: Sequence[Anchor] = (),
              chosen: Mapping[str, str] | None = None) -> Parsed:
        """Plan ``question``; ``focus``: what the previous turn was about (pronouns);
        ``chosen``: folded phrase → the node it names, where the question itself settles
        a tie ("self-portrait by george bellows")."""
        text = " ".join(unicodedata.normalize("NFKC", question).split())
        described = DESCRIBE_RE.match(text)
        elements, time = self._elements(text, focus)
        if not elements:
            return Parsed(reason="no words")
        for i, el in enumerate(elements):
            node = (chosen or {}).get(fold_name(el.text)) if el.mention is not None else None
            if node is not None and el.mention is not None:
                kept = tuple(c for c in el.mention.candidates if c.node == node)
                if kept:
                    elements[i] = replace(el, mention=replace(el.mention, candidates=kept))
        return _Builder(self, text, elements, time, bool(described)).build()

    # -- elements --------------------------------------------------------------------------
    def _elements(self, text: str,
                  focus: Sequence[Anchor]) -> tuple[list[_El], tuple[ValueFilter, bool] | None]:
        text = _CONTRACTIONS.sub(lambda m: m.group(1) + _CONTRACTED[m.group(2).lower()], text)
        titles = quoted_titles(text)
        bare = text
        for i, title in enumerate(titles):
            bare = re.sub(r"[\"“”‘’'«»]?" + re.escape(title) + r"[\"“”‘’'«»]?",
                          f" {QUOTE.format(i)} ", bare, count=1)
        bare = _BARE_CONTRACTIONS.sub(_expand_bare, bare)  # not inside quoted titles
        bare = _HOW_SIZE.sub(_size_question, bare)
        found = find_time_range(bare)
        spans = []  # every time expression: the first filters, the others are read past
        start = 0
        while True:
            more = find_time_range(bare[start:])
            if more is None:
                break
            spans.append((start + more.start, start + more.end))
            start += more.end
        elements: list[_El] = []
        for match in _TOKEN_RE.finditer(bare):
            raw = match.group()
            quote = re.fullmatch(r"⟦q(\d+)⟧", raw)
            if quote:
                elements.append(self._quoted(titles[int(quote.group(1))]))
                continue
            in_time = any(a <= match.start() < b for a, b in spans)
            possessive = bool(re.search(r"['’]s$", raw)) and len(raw) > 2
            core = raw[:-2] if possessive else raw.rstrip(".")
            parts = fold_name(core).split()
            for k, part in enumerate(parts):
                last = k == len(parts) - 1
                # "self-portrait" is two words, each its own text (not the whole twice)
                elements.append(_El("word", [part], core if len(parts) == 1 else part,
                                    possessive=possessive and last,
                                    alt=part + "s" if possessive and last else "",
                                    in_time=in_time))
        if focus:
            elements = self._pronouns(elements, focus)
        elements = self._mentions(elements)
        if focus and self._asks_about_nothing(elements):
            # "what year?", "who was the artist?": about what the last turn was about
            anchor = focus[0]
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0,
                                  "previous turn")
            elements += [_El("word", ["of"], "of"),
                         _El("mention", [fold_name(anchor.label)], anchor.label,
                             Mention(0, 0, anchor.label, (candidate,)))]
        time = None
        if found is not None and any(e.in_time for e in elements):
            # the expression was not part of a title: it becomes one time element
            kept: list[_El] = []
            for el in elements:
                if el.in_time:
                    if not kept or kept[-1].kind != "time":
                        kept.append(_El("time", [TIME], TIME))
                else:
                    kept.append(el)
            elements = kept
            time = (ValueFilter("creation-date", found.years, decade_guess=found.guess),
                    found.guess)
        return self._runs(elements), time

    def _asks_about_nothing(self, elements: Sequence[_El]) -> bool:
        """A question that names nothing but asks something (a question word or an
        attribute noun): a follow-up about the previous turn's subject."""
        if any(e.kind != "word" for e in elements):
            return False
        words = [e.word for e in elements]
        asks = any(w in WH for w in words) or any(
            self.lexicon.by_word(w) for w in words if w in self.nouns or w not in self.vocabulary)
        return asks and not all(w in IMPERATIVE | FILLER | DETERMINERS | {"and"} for w in words)

    def _quoted(self, title: str) -> _El:
        candidates = self.names.lookup(title, surname=False)
        mention = Mention(0, 0, title, tuple(candidates)) if candidates else None
        if mention is not None:
            return _El("mention", fold_name(title).split(), title, mention)
        return _El("run", fold_name(title).split(), title)

    def _pronouns(self, elements: list[_El], focus: Sequence[Anchor]) -> list[_El]:
        """Pronouns pointing back replaced by what the previous turn was about."""
        has_name = any(e.kind == "mention" for e in elements)
        out = []
        replaced = False
        for i, el in enumerate(elements):
            word = el.word
            prefers = PRONOUNS.get(word)
            points_back = prefers is not None and not has_name and not replaced and (
                word not in {"this", "that"} or i == len(elements) - 1
                or elements[i + 1].word not in self.nouns)
            if points_back:
                chosen = [a for a in focus if _prefers(prefers or "", a.category)] or list(focus)
                kinds = self._pronoun_kinds(elements, i)  # "who made it": a work
                anchor = ([a for a in chosen if a.category in kinds] or chosen)[0]
                candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0,
                                      "previous turn")
                out.append(_El("mention", [word], anchor.label,
                               Mention(0, 0, anchor.label, (candidate,)),
                               possessive=word in {"his", "her", "its", "their"}))
                replaced = True
            else:
                out.append(el)
        return out

    def _pronoun_kinds(self, elements: Sequence[_El], index: int) -> set[str]:
        """Categories the relations the question names need where its pronoun stands:
        the domain ("who made it": a Thing), the range after the relation's preposition
        ("which churches are in it": a Place)."""
        before = elements[index - 1].word if index else ""
        kinds: set[str] = set()
        for j, el in enumerate(elements):
            if j != index and el.kind == "word":
                for relation in self.lexicon.by_word(el.word):
                    kinds.add(relation.range if before in relation.prepositions
                              else relation.domain)
        return kinds

    def skip(self, span: Sequence[str]) -> bool:
        """Phrases that are question vocabulary, not names (but a title of four words or
        more may be made of them: "the artist and his family")."""
        if all(w in self.vocabulary or w.isdigit() for w in span) and (
                len(span) < MIN_VOCABULARY_TITLE or
                sum(w not in STOP_WORDS for w in span) < 2):
            return True
        return (span[0] in STOP_WORDS and span[0] not in {"the", "a", "an"}) or \
            span[-1] in STOP_WORDS or span[-1] == "s"

    def _mentions(self, elements: list[_El]) -> list[_El]:
        """Words grouped into mentions (exact names) and runs (unknown words)."""
        out: list[_El] = []
        i = 0
        while i < len(elements):
            if elements[i].kind != "word":
                out.append(elements[i])
                i += 1
                continue
            j = i
            while j < len(elements) and elements[j].kind == "word":
                j += 1
            block = elements[i:j]
            words = [e.alt or e.word for e in block]
            for m in self.names.scan(words, skip=self._capitalised_skip(block, i, elements)):
                if m.start > 0 or m.end < len(words):
                    pass
                block[m.start] = _El("mention", words[m.start:m.end],
                                     " ".join(e.text for e in block[m.start:m.end]), m,
                                     possessive=block[m.end - 1].possessive)
                for k in range(m.start + 1, m.end):
                    block[k] = _El("skip", [], "")
            out.extend(e for e in block if e.kind != "skip")
            i = j
        return out

    def _capitalised_skip(self, block: Sequence[_El], offset: int,
                          elements: Sequence[_El]) -> Callable[[Sequence[str]], bool]:
        """:meth:`skip`, except for words of the vocabulary written as a name: "who directed
        Three Painters", "exhibitions of Gallery One" (two words or more, each capitalised,
        not opening the question, in a question not written in title case)."""
        words = [e.alt or e.word for e in block]
        capital = [bool(e.text[:1].isupper()) and offset + k > 0 for k, e in enumerate(block)]
        # the other words of the question, its first left out: in title case, capitals
        # say nothing ("Who Directed Three Painters")
        others = [(offset + k, e.text) for k, e in enumerate(block) if e.text]

        def as_name(k: int, n: int) -> bool:
            rest = [t for at, t in others if at > 0 and not offset + k <= at < offset + k + n]
            return all(capital[k:k + n]) and (
                not rest or sum(t[:1].isupper() for t in rest) < 0.8 * len(rest))

        def skip(span: Sequence[str]) -> bool:
            if not self.skip(span):
                return False
            n = len(span)
            return n < 2 or not any(words[k:k + n] == list(span) and as_name(k, n)
                                    for k in range(len(words) - n + 1))
        return skip

    def _runs(self, elements: list[_El]) -> list[_El]:
        """Consecutive unknown words joined into runs; vocabulary typos corrected; name
        suffixes after a name ("… the younger", "… RA") dropped."""
        out: list[_El] = []
        for el in elements:
            if el.kind == "word" and _ORDINAL_RE.fullmatch(el.word):
                continue  # "the 18th, 19th and 20th centuries": read with the time
            if el.kind == "word" and el.word in NAME_NOUNS and out and out[-1].kind == "run":
                last = out[-1]  # "the Hopkins family", "the Smith Foundation"
                out[-1] = _El("run", [*last.words, el.word], f"{last.text} {el.text}",
                              possessive=el.possessive)
                continue
            if el.kind == "word" and el.word in NAME_SUFFIXES and el.word != "the":
                named = [e for e in out[-2:] if e.kind in {"mention", "run"}]
                if named and (out[-1].kind in {"mention", "run"} or out[-1].word == "the"):
                    if out[-1].word == "the":
                        out.pop()
                    continue
            if el.kind == "word" and el.word not in self.vocabulary and not el.word.isdigit():
                fixed = self._vocabulary_fix(el.word)
                if fixed is not None:
                    out.append(_El("word", [fixed], el.text, possessive=el.possessive))
                    continue
                if len(out) > 1 and out[-1].word == "and" and out[-2].kind == "run" and \
                        set(out[-2].words) <= HONORIFICS:  # "mr. and mrs. Austin Smithers"
                    out.pop()
                    first = out[-1]
                    out[-1] = _El("run", [*first.words, "and"], f"{first.text} and",
                                  possessive=False)
                if out and out[-1].kind == "run" and not out[-1].possessive:
                    last = out[-1]
                    out[-1] = _El("run", [*last.words, el.word], f"{last.text} {el.text}",
                                  possessive=el.possessive)
                else:
                    out.append(_El("run", [el.word], el.text, possessive=el.possessive))
            else:
                out.append(el)
        return out

    def _vocabulary_fix(self, word: str) -> str | None:
        """A misspelt question word ("paintigns" → "paintings"), unless it is a name."""
        if self.names.knows(word) or len(word) < MIN_FIXED_WORD:
            return None
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        hit = process.extractOne(word, self._vocab_list, scorer=Levenshtein.distance,
                                 score_cutoff=max_edits(word))
        return str(hit[0]) if hit else None

    # -- vocabulary look-ups ---------------------------------------------------------------
    def type_word(self, single: str) -> str:
        """The graph's type word for a noun's singular: itself when the graph has it, else a
        type word of the same stem ("exhibition" → "exhibiting")."""
        if single in self.type_words:
            return single
        return self.type_stems.get(word_stem(single), single)

    def relations_for(self, word: str) -> list[Relation]:
        """Relations a word names."""
        return self.lexicon.by_word(word)

    def noun_category(self, word: str) -> str | None:
        """The category a class noun names."""
        return self.nouns.get(word)


class _Builder:
    """Composes one question's elements into a plan."""

    def __init__(self, planner: RulePlanner, text: str, elements: list[_El],
                 time: tuple[ValueFilter, bool] | None, described: bool) -> None:
        self.p = planner
        self.text = text
        self.els = elements
        self.time = time
        self.periods = sum(1 for e in elements if e.kind == "time")
        self.described = described
        self.value_domains: list[str] = []
        """Kinds of node the asked attributes describe, first asked first."""
        self.roles: dict[tuple[int, int], str] = {}
        """Links (ids of their slots) to or from makers named by what they make: the word
        the made things' types (or their making events' types) hold."""
        self.missing: list[Missing] = []
        self.ambiguous: list[Unresolved] = []
        self.notes: list[str] = []
        self.words = [e.word for e in elements]
        self.verbs = [w for e in elements if e.kind == "word" for w in e.words]

    # -- helpers ---------------------------------------------------------------------------
    def _number_of(self) -> bool:
        """"the number of works", not "the accession number of X" (an attribute)."""
        words = self.words
        return any(w == "number" and words[i + 1:i + 2] == ["of"] and not (
            i and any(r.value == "text" for r in self.p.relations_for(f"{words[i - 1]} number")))
            for i, w in enumerate(words))

    def _has(self, *phrases: str) -> bool:
        joined = f" {' '.join(self.words)} "
        return any(f" {p} " in joined for p in phrases)

    def _anchor(self, el: _El, expected: Sequence[str] | None,
                relation: str | None = None, inverse: bool = False,
                other: str | None = None, prefer: Sequence[str] = ()) -> Anchor | None:
        """The node an element names, checked against the categories expected there."""
        candidates = el.mention.candidates if el.mention is not None else None
        prefer = list(prefer) or [c for c in (expected or ()) if c != "Any"] or \
            self.value_domains
        found = link_name(self.p.names, el.text, expected, candidates,
                          exact=el.kind == "mention", trial=self.p.trial, relation=relation,
                          inverse=inverse, other=other, prefer=prefer)
        if isinstance(found, Missing):
            self.missing.append(found)
            return None
        if isinstance(found, Unresolved):
            self.ambiguous.append(found)
            return None
        return found

    def _relation(self, cue_words: Sequence[str], left: str | None, right: str | None,
                  default: bool = True,
                  anchor: Anchor | None = None) -> tuple[Relation, bool] | None:
        """The relation cue words name between categories ``left`` and ``right``:
        (relation, inverse) where inverse means right —relation→ left. Between several
        that fit, with ``anchor`` on the right, the first through which the graph links
        something ("bronze sculptures": made of bronze, not typed or depicting it)."""
        candidates = self._cued(cue_words, left)
        if default:
            candidates += [r for r in self._defaults(left, right) if r not in candidates]
        fitting: list[tuple[Relation, bool]] = []
        for relation in candidates:
            if relation.value == "time" or relation.range in {"Text", "Dimension"}:
                continue
            if _fits(relation.domain, left) and _fits(relation.range, right):
                fitting.append((relation, False))
            elif _fits(relation.domain, right) and _fits(relation.range, left):
                fitting.append((relation, True))
        if len(fitting) > 1 and anchor is not None and self.p.trial is not None:
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
            useful = [f for f in fitting if self.p.trial(f[0].id, left, f[1], candidate)]
            fitting = useful or fitting
        return fitting[0] if fitting else None

    def _defaults(self, left: str | None, right: str | None) -> list[Relation]:
        """Relations between two categories when no word names one ("Whistler etchings")."""
        pairs = {("Thing", "Actor"): ["created-by"], ("Thing", "Place"): ["depicts", "located-in"],
                 ("Actor", "Actor"): ["member-of"],
                 ("Event", "Actor"): ["carried-out-by", "had-in-role"],
                 ("Event", "Place"): ["took-place-at"], ("Place", "Place"): ["place-within"],
                 ("Thing", "Concept"): ["made-of", "has-type", "depicts"],
                 ("Thing", "Thing"): ["part-of"],
                 ("Actor", "Place"): ["birth-place", "residence"]}
        ids = pairs.get((left or "", right or ""), []) + pairs.get((right or "", left or ""), [])
        return [self.p.lexicon[i] for i in ids if i in self.p.lexicon]

    # -- the plan --------------------------------------------------------------------------
    def build(self) -> Parsed:
        words = self.words
        first = next((i for i, w in enumerate(words[:4]) if w in WH), None)
        wh = words[first] if first is not None else None
        if wh == "how" and first is not None and first + 1 < len(words) and \
                words[first + 1] in {"many", "much"}:
            wh = "how many"
        excluded = self._take_exclusions()
        titled = self._take_title_words()
        if self._yes_no():
            return self._yes_no_plan()
        operation, order, limit, group = self._operation(wh)
        head, rest = self._head(wh, operation)
        if head is None and titled is not None:
            head = _Slot("Thing", "works")
        if head is not None and titled is not None:
            head.filters.append(ValueFilter(TITLE_RELATION, contains=titled))
        if head is None and operation in {"list", "count", "superlative", "group"} and \
                wh in {None, "what", "which", "whatever", "how many"} and (
                    operation in {"superlative", "group"} or any(
                        e.kind in {"mention", "run"} for e in rest)):
            head = _Slot("Thing", "works")  # "what did Maria Turner make?"
        if head is not None and excluded:
            self._exclude(head, excluded)
        if self._dangling_pronoun():
            return self._done(None, "a pronoun with nothing before it to point to")
        if wh == "why" or (wh == "how" and not self._has(*HOW_MEASURES)):
            return self._done(None, "a how or why question: no fact of the graph answers it")
        if head is None and operation not in {"value", "describe"}:
            return self._done(None, "no subject")
        slots: list[_Slot] = [head] if head is not None else []
        if operation == "value":  # a name of several kinds: the kind the attribute needs
            asked = sorted(self._attributes(wh, operation), key=lambda r: not self._verb_in(r))
            self.value_domains = list(dict.fromkeys(r.domain for r in asked
                                                    if r.domain != "Any"))
        anchors = self._chain(head, rest, slots)
        if self.missing or self.ambiguous:
            return self._done(None, "names")
        if head is not None and operation in {"list", "count"} and not head.links and \
                not head.filters and head.anchor is None and not self.notes:
            self._existential(head, slots)
        if operation in {"value", "describe"} and not self._titles_hold():
            return self._done(None, "names")
        attributes = [r for r in self._attributes(wh, operation)
                      if head is None or head.noun not in r.nouns]
        if operation in {"value", "describe"}:
            return self._value_plan(head, anchors, attributes, operation, slots)
        assert head is not None
        head = self._acquisitions(head, slots)
        counted = None
        if order is not None and order[0] == "count":
            counted = self._counted(head)
            if counted is None:
                return self._done(None, "nothing counted")
            slots.append(counted)
        self._time(head, slots, grouped=group is not None)
        if order is not None:
            return self._superlative(head, slots, order, limit, counted)
        if group is not None:
            return self._group(head, slots, group, limit if operation == "group" else None)
        return self._done(self._plan(slots, operation))

    def _existential(self, head: _Slot, slots: list[_Slot]) -> None:
        """A relation verb with nothing after it: "how many women are depicted" are those
        depicted in something, "works that were donated" those given by someone."""
        for word in self.words:
            if word in HOLDING_VERBS or word in AUX or word == head.noun:
                continue
            for relation in self.p.relations_for(word):
                if word not in relation.verbs or relation.value != "node":
                    continue
                if _fits(relation.domain, head.category):
                    other, inverse = relation.range, False
                elif _fits(relation.range, head.category):
                    other, inverse = relation.domain, True
                else:
                    continue
                slot = _Slot(None if other == "Any" else other, NOUNS_OF.get(other))
                head.links.append((relation.id, slot, inverse, ()))
                slots.append(slot)
                return

    def _done(self, plan: ExactPlan | None, reason: str = "") -> Parsed:
        named = plan is not None and plan.operation in {"value", "describe"} and \
            bool(plan.variables) and plan.variables[0].anchor is not None
        if plan is not None and not named and not self.missing and not self.ambiguous:
            unused = self._unused_names(plan)
            if unused:  # never answer for the whole graph what was asked of a name
                return Parsed(None, [], [], f"names not used by any plan: {', '.join(unused)}")
        return Parsed(plan, self.missing, self.ambiguous, reason if plan is None else "")

    def _unused_names(self, plan: ExactPlan) -> list[str]:
        """Names of the question (exact mentions) that the plan neither links, filters by,
        keeps out nor notes."""
        said = [fold_name(a.text) for a in plan.anchors] + [
            fold_name(f.contains) for v in plan.variables for f in v.filters if f.contains]
        said += [fold_name(n) for n in (*self.notes, *plan.notes)]
        kept_out = bool(plan.variables) and bool(plan.variables[0].exclude)
        unused = []
        for el in self.els:
            if el.kind != "mention" or el.mention is None:
                continue
            text = fold_name(el.text)
            if kept_out or not text or any(text in s or s in text for s in said if s):
                continue
            unused.append(el.text)
        return unused

    def _operation(self, wh: str | None) -> tuple[str, tuple[str, bool] | None, int | None,
                                                   str | None]:
        words = self.words
        order = None
        for phrase, value in SUPERLATIVE_PHRASES.items():
            if self._has(phrase):
                order = value
                break
        for w in words:
            if order is None and w in SUPERLATIVES and not (
                    w in {"first", "last", "least"} and not self._superlative_noun(w)):
                order = SUPERLATIVES[w]
        if order is None and words and words[-1] in {"first", "last", "earliest", "latest"}:
            order = ("time", words[-1] in {"last", "latest"})  # "which artist was born first"
        limit = None
        for i, w in enumerate(words):
            if w in NUMBERS and not (i + 1 < len(words) and words[i + 1] in {"of", "in"}):
                limit = NUMBERS[w]
            elif w.isdigit() and int(w) < 100:
                limit = int(w)
            elif w in ORDINAL_RANKS and i + 1 < len(words) and words[i + 1] in {
                    "most", "largest", "oldest", "latest", "biggest", "earliest", "newest"}:
                limit = ORDINAL_RANKS[w]  # "the second most prolific": the first two
        group = None
        for i, w in enumerate(words[:-1]):
            unit = words[i + 1]
            if w in GROUP_WORDS and (unit in GROUP_UNITS or (
                    unit in self.p.nouns and unit not in GENERIC_THINGS and w != "by")
                    or (w == "by" and unit in {"decade", "century", "year", "type", "artist",
                                               "nationality", "maker"})):
                group = unit
        if order is not None and order[0] == "count":
            ranked = self._ranked_group()
            if ranked is not None:  # "which decade has the most works", "most common type"
                return "group", None, limit or 1, ranked
        counting = wh == "how many" or self._has("how many", "how much", "count of",
                                                 "total of") or self._number_of() or (
            bool(words) and words[0] == "count")
        if counting and group is None and (order is None or wh == "how many"):
            return "count", None, None, None
        if order is not None:
            return "superlative", order, limit, None
        if group is not None:
            return "group", None, None, group
        if self.described or self._names_only(wh):
            return "describe", None, None, None
        if wh in {"when", "where", "whose"} or self._asks_value():
            return "value", None, None, None
        return "list", None, limit, None

    def _names_only(self, wh: str | None) -> bool:
        """"Who was X?", "What is X?", "X?": a name and nothing else to go on."""
        content = [e for e in self.els if e.kind != "word" or e.word not in
                   (WH | AUX | DETERMINERS | IMPERATIVE | FILLER | {"?"})]
        return len(content) == 1 and content[0].kind == "mention" and wh in {
            None, "who", "what"}

    def _asked_nouns(self) -> list[str]:
        """Attribute noun phrases standing where the asked thing stands (see
        :meth:`_asks_value`), first first."""
        words = self.words
        found: list[str] = []
        for i in range(len(words)):
            for n in (3, 2, 1):
                phrase = " ".join(words[i:i + n])
                if not self.p.relations_for(phrase):
                    continue
                before = [w for w in words[:i] if w not in DETERMINERS]
                after = words[i + n] if i + n < len(words) else ""
                owner = i and self.els[i - 1].possessive
                named = i and self.els[i - 1].kind in {"mention", "run"}  # "X birth year"
                if not before or before[-1] in WH or before[-1] in AUX or owner or named or \
                        after in {"of", "for"} or before[-1] in IMPERATIVE:
                    found.append(phrase)
        return found

    def _asks_value(self) -> bool:
        """Whether an attribute noun is what is asked: right after the question word
        ("what year", "what nationality", "which technique"), before "of" ("the date of
        X"), after a possessive ("X's birth year") or first ("birth year of X")."""
        words = self.words
        for i in range(len(words)):
            for n in (3, 2, 1):
                phrase = " ".join(words[i:i + n])
                if not any(r.value in {"time", "text", "dimension"} or
                           r.id in ATTRIBUTE_RELATIONS
                           for r in self.p.relations_for(phrase) if phrase in r.nouns):
                    continue
                before = [w for w in words[:i] if w not in DETERMINERS]
                after = words[i + n] if i + n < len(words) else ""
                owner = i and self.els[i - 1].possessive
                named = i and self.els[i - 1].kind in {"mention", "run"}
                last = i + n == len(words)
                if not before or before[-1] in WH or before[-1] in AUX or owner or named \
                        or last or after in {"of", "for"} or before[-1] in IMPERATIVE:
                    return True
        # "what is X made of / with": a statement or material named by a verb phrase
        lead = [w for w in words[:3] if w not in {"and", "so", "then", "also"}]
        return bool(lead) and lead[0] == "what" and any(
            r.value == "text" or r.id in ATTRIBUTE_RELATIONS
            for i in range(len(words) - 1)
            for r in self.p.relations_for(f"{words[i]} {words[i + 1]}"))

    def _ranked_group(self) -> str | None:
        """The group a count superlative ranks, when it ranks groups rather than members:
        a time unit asked for ("which decade has the most works"), or the attribute
        after "most common" ("most common type", "most common credit line")."""
        words = self.words
        for i, w in enumerate(words):
            if w in GROUP_UNITS and (i == 0 or words[i - 1] in WH | {"the"}):
                return w
        if words and words[0] == "where":  # "where were most works made": by the place
            places = [r for r in self.p.lexicon.values() if r.range == "Place" and
                      r.value == "node" and self._verb_in(r)]
            if places:
                return places[0].nouns[0] if places[0].nouns else None
        for i, w in enumerate(words[:-1]):  # "which credit line appears most often"
            if w in {"which", "what"}:
                for n in (3, 2, 1):
                    noun = " ".join(words[i + 1:i + 1 + n])
                    if any(noun in r.nouns and r.value in {"text", "node"} and
                           r.id in GROUPABLE for r in self.p.relations_for(noun)):
                        return noun
        for phrase in ("most common", "commonest", "most frequent", "most popular"):
            if self._has(phrase):
                start = " ".join(words).index(phrase) + len(phrase)
                rest = " ".join(words)[start:].split()
                for n in (3, 2, 1):
                    noun = " ".join(rest[:n])
                    if any(noun in r.nouns for r in self.p.relations_for(noun)):
                        return noun
        return None

    def _superlative_noun(self, word: str) -> bool:
        i = self.words.index(word)
        nxt = self.words[i + 1] if i + 1 < len(self.words) else ""
        return nxt in self.p.nouns or nxt in {"work", "works"}

    def _head(self, wh: str | None, operation: str) -> tuple[_Slot | None, list[_El]]:
        """What is asked for, and the elements to link to it: those after it, and names
        before it ("harry lyman - how many works?", "smibert paintings") with a default
        relation ("Whistler etchings": made by; "British artists": members of)."""
        els = self.els
        gender: list[str] = []
        for i, el in enumerate(els):
            if el.kind != "word":
                continue
            w = el.word
            if w in {"who", "whom", "whoever"} and i < 4:
                rest = [e.word for e in els[i + 2:] if e.kind == "word"]
                actors = [k for k, x in enumerate(rest) if self.p.nouns.get(x) == "Actor"
                          and x not in {"who", "whom"}]
                if i + 1 < len(els) and els[i + 1].word in COPULA and actors and all(
                        x in COLLECTION_TAIL for x in rest[actors[-1] + 1:]) and \
                        len(rest) == len(els) - i - 2:
                    continue  # "who is the most prolific photographer": the photographer
                return _Slot("Actor", "who"), self._before(els[:i]) + els[i + 1:]
            compound = i + 1 < len(els) and els[i + 1].word in GENERIC_TIME_NOUNS and bool(
                self.p.relations_for(w))  # "acquisition date", "birth year"
            if w in self.p.nouns and self._modifier(i):
                continue  # "american painters": the painters, members of American
            nxt = els[i + 1].word if i + 1 < len(els) and els[i + 1].kind == "word" else ""
            if w in GENDER_NOUNS and self.p.nouns.get(nxt) == "Actor" and nxt not in {
                    "who", "whom"}:
                gender.append(w)  # "women artists": artists, women
                continue
            if w in self.p.nouns and not compound and (
                    w in ACQUISITION_NOUNS or not self._is_attribute_noun(i)) \
                    and w not in {"where"}:
                category = self.p.nouns[w]
                slot = _Slot(category, w, types=list(gender))
                single = _TYPE_SYNONYMS.get(singularise(w), singularise(w))
                if category == "Thing" and w not in GENERIC_THINGS:
                    typed = self.p.type_word(single)
                    slot.types.append(typed if typed in self.p.type_words else w)
                elif category in {"Place", "Event", "Concept"} and w not in {
                        "place", "places", "location", "locations", "event", "events",
                        "concept", "concepts", "subject", "subjects"}:
                    slot.types.append(self.p.type_word(single))
                return slot, self._before(els[:i]) + els[i + 1:]
        return None, list(els)

    def _modifier(self, i: int) -> bool:
        """Whether the noun at ``i`` modifies an actor noun right after it and names a node
        ("american painters"); it then becomes a name, linked to that noun."""
        els = self.els
        nxt = els[i + 1] if i + 1 < len(els) else None
        if nxt is None or nxt.kind != "word" or self.p.nouns.get(nxt.word) != "Actor" or \
                self.p.nouns.get(els[i].word) == "Actor" or els[i].possessive:
            return False
        candidates = self.p.names.exact(els[i].text, ["Actor", "Place", "Concept"])
        if not candidates:
            return False
        self.els[i] = _El("mention", [els[i].word], els[i].text,
                          Mention(0, 1, els[i].text, tuple(candidates)))
        return True

    def _before(self, els: list[_El]) -> list[_El]:
        """Names before the head, each with the relation words between it and the head
        ("did monet paint anything": painted), else the default cue of an adjective or an
        owner ("Whistler etchings", "Kauffer's posters")."""
        out: list[_El] = []
        for k, el in enumerate(els):
            if el.kind not in {"mention", "run"}:
                continue
            between = [e.word for e in els[k + 1:] if e.kind == "word" and any(
                e.word in r.verbs for r in self.p.relations_for(e.word))]
            if between and not el.possessive:
                out += [_El("word", [w], w) for w in between] + [el]
                continue
            marker = "⟨poss⟩" if el.possessive else "⟨adj⟩"
            out += [_El("word", [marker], ""), el]
        return out

    def _is_attribute_noun(self, i: int) -> bool:
        """A noun that names an attribute of something named after it ("date of X",
        "artist of X", "nationality of the artist")."""
        w = self.words[i]
        nxt = self.words[i + 1] if i + 1 < len(self.words) else ""
        if w in {"who", "whom", "where"}:
            return False
        relations = self.p.relations_for(w)
        if not relations:
            return False
        del nxt
        return any(r.value in {"time", "text"} or r.id in ATTRIBUTE_RELATIONS
                   for r in relations if w in r.nouns)

    def _chain(self, head: _Slot | None, rest: list[_El], slots: list[_Slot]) -> list[_Slot]:
        """Links from cue words between the head (or the noun last linked) and what follows."""
        current = head
        anchors: list[_Slot] = []
        cue: list[str] = []
        i = 0
        while i < len(rest):
            el = rest[i]
            if el.kind == "word":
                w = el.word
                if w in GENDER_WORDS and i and rest[i - 1].word in COPULA and \
                        head is not None and current is head and head.category == "Actor":
                    head.types.append(w)  # "which artists are female"
                elif w == "⟨adj⟩" or w == "⟨poss⟩":
                    cue = [w]
                elif w in self.p.nouns and w not in COLLECTION:
                    nxt = rest[i + 1].word if i + 1 < len(rest) else ""
                    if nxt == "of" and self.p.relations_for(w) and not (
                            current is not None and cue and w in self.p.nouns and
                            self.p.nouns[w] != current.category):  # "the artist of X"
                        cue.append(w)
                    elif current is not None and cue:
                        slot = self._noun_slot(w)
                        if self._link(current, slot, cue):
                            slots.append(slot)
                            current = slot
                        cue = []
                elif w in AUX:
                    pass
                elif w in DETERMINERS:
                    pass  # "the" of a CRM label ("occurred in the presence of") cues nothing
                elif w in self.p.relation_words or w in PREPOSITIONS or \
                        any(w in r.split() for r in self.p.relation_words):
                    cue.append(w)
                elif w in COLLECTION:
                    cue = []
                i += 1
                continue
            if el.kind == "time":
                cue = []
                i += 1
                continue
            if el.kind == "run":
                widened = self._widen(rest, i, current, cue)
                if widened is not None:
                    el, cue = widened
            # a name: the object of the cue before it, or the agent of a verb after it
            after = [e.word for e in rest[i + 1:i + 3] if e.kind == "word"
                     and e.word not in PREPOSITIONS and self.p.relations_for(e.word)]
            phrase = " ".join(e.word for e in rest[i + 1:i + 3] if e.kind == "word")
            if " " in phrase and self.p.relations_for(phrase):
                after = [phrase]  # "did X take part in": the phrase, not "take" alone
            # "which exhibitions was X in": a stranded preposition is the cue, no copula
            tail = [e.word for e in rest[i + 1:]]
            stranded = tail if tail and all(w in PREPOSITIONS for w in tail) else []
            words = cue or after[:1] or stranded
            apposition = cue == ["⟨adj⟩"] and current is head and head is not None and \
                head.noun in GENERIC_THINGS and not head.links and head.anchor is None and \
                el.mention is not None and el.mention.candidates[0].category == "Thing" and \
                not any(c.category == "Actor" for c in el.mention.candidates
                        if c.score == el.mention.score)  # "andy warhol works": his
            # "which exhibitions was X shown (in)": a relation verb after the name, no copula
            copula = bool(not cue and i and rest[i - 1].word in COPULA) and not stranded \
                and not (after and head is not None and head.category != "Actor")
            bare_head = head is not None and current is head and not head.links and \
                head.anchor is None
            if copula and bare_head and head is not None and head.category == "Actor" and \
                    fold_name(el.text) in GENDER_WORDS:  # "which artists are female"
                head.types.append(fold_name(el.text))
                i += 1
                continue
            # "who is John Smibert": about him (but "who is in X" has a cue)
            who_is = copula and head is not None and head.noun in {"who", "whom"} and \
                i == len(rest) - 1
            if (apposition or copula) and bare_head and head is not None and \
                    (head.noun not in {"who", "whom"} or who_is):
                anchor = self._anchor(el, ["Actor"] if who_is else
                                      [head.category] if head.category else None)
                if anchor is not None and head.category == anchor.category == "Actor" and \
                        not who_is and head.noun and singularise(head.noun) != head.noun \
                        and MEMBER_OF in self.p.lexicon:  # "which artists are british"
                    probe = _Slot(anchor.category, anchor=anchor)
                    head.links.append((MEMBER_OF, probe, False, ()))
                    anchors.append(probe)
                elif anchor is not None:  # "what type of artwork is X": the head is X
                    head.anchor = anchor
                    anchors.append(_Slot(anchor.category, anchor=anchor))
                i += 1
                continue
            target = self._target(el, current, words)
            if target is not None:
                anchors.append(target)
            cue = []
            i += 1
        return anchors

    def _widen(self, rest: list[_El], i: int, current: _Slot | None,
               cue: list[str]) -> tuple[_El, list[str]] | None:
        """A run that names nothing, taken with the question words before it when
        together they name a node ("return to tillbury" → "Return to Tilbury")."""
        run = rest[i]
        if self.p.names.lookup(run.text, surname=True, fuzzy=False, partial=False):
            return None
        expected = [c for c, _, _ in self._expected(current, cue)] if current else None
        for n in (3, 2, 1):
            if i - n < 0 or any(e.kind != "word" or e.word.startswith("⟨") or e.word in WH
                                or e.word in AUX for e in rest[i - n:i]):
                continue
            words = [e.word for e in rest[i - n:i]] + run.words
            if words[0] in STOP_WORDS and words[0] not in {"the", "a", "an"}:
                continue
            found = [c for c in self.p.names.lookup(" ".join(words), expected or None,
                                                    surname=False, partial=False)
                     if c.score >= SCORES["misspelling"] - EDIT_PENALTY]
            if found:
                text = " ".join(e.text for e in rest[i - n:i + 1])
                widened = _El("mention", words, text, Mention(0, 0, text, tuple(found)))
                used = {e.word for e in rest[i - n:i]}
                return widened, [w for w in cue if w not in used]
        return None

    def _is_attribute_noun_el(self, rest: list[_El], i: int) -> bool:
        w = rest[i].word
        return any(r.value in {"time", "text"} for r in self.p.relations_for(w)) and \
            w not in self.p.nouns

    def _titles_hold(self) -> bool:
        """Names joined only by "with", "a", "of"… ("girl with a pearl earring") read as one
        title: it must name a work, else it is reported missing (not its pieces)."""
        els = self.els
        i = 0
        while i < len(els):
            if els[i].kind not in {"mention", "run"}:
                i += 1
                continue
            j = i + 1
            while j < len(els) and (els[j].kind in {"mention", "run"} or (
                    els[j].kind == "word" and els[j].word in TITLE_JOINERS)):
                j += 1
            while j > i + 1 and els[j - 1].kind == "word":
                j -= 1
            pieces = els[i:j]
            joined = any(e.kind == "word" for e in pieces)
            if (joined and sum(e.kind in {"mention", "run"} for e in pieces) > 1) or (
                    len(pieces) == 1 and pieces[0].kind == "run" and any(
                        e.kind == "mention" and e.mention and
                        e.mention.candidates[0].category == "Concept" for e in pieces)):
                text = " ".join(e.text for e in pieces)
                found = self.p.names.lookup(text, ["Thing"], surname=False)
                named = [e for e in pieces if e.kind in {"mention", "run"}]
                if not found and any(e.kind == "run" or (e.mention is not None and e.mention
                                     .candidates[0].category == "Concept") for e in named):
                    self.missing.append(Missing(text, ("Thing",), tuple(
                        self.p.names.closest(text, ["Thing"])), tuple(
                        self.p.names.containing(text))))
                    return False
            i = j
        return True

    def _yes_no(self) -> bool:
        """"Is X a painting?", "Was X made by Whistler?": a copula, then a name."""
        els = [e for e in self.els if not (e.kind == "word" and e.word in DETERMINERS)]
        return len(els) > 2 and els[0].kind == "word" and els[0].word in COPULA | {
            "did", "does", "do", "has", "have"} and els[1].kind == "mention"

    def _yes_no_plan(self) -> Parsed:
        """A yes/no question answered with the facts it asks about: the named node's
        types for a type noun, its makers for a maker, else a description."""
        els = [e for e in self.els if not (e.kind == "word" and e.word in DETERMINERS)]
        subject_el = els[1]
        anchor = self._anchor(subject_el, None)
        if anchor is None:
            return self._done(None, "names")
        subject = _Slot(anchor.category, anchor=anchor)
        words = [e.word for e in els[2:] if e.kind == "word"]
        attribute = None
        if any(w in self.p.type_words or singularise(w) in self.p.type_words
               or w in {"type", "kind", "sort"} for w in words):
            attribute = "has-type"
        elif any(r.id == "created-by" for w in words for r in self.p.relations_for(w)) or (
                "by" in words and anchor.category == "Thing"):
            attribute = "created-by"
        if attribute is None:
            return self._done(self._plan([subject], "describe"))
        return self._done(self._plan([subject], "value", attributes=(attribute,)))

    def _dangling_pronoun(self) -> bool:
        """"Which churches did he found?" with no earlier turn: nobody to point to."""
        named = any(e.kind in {"mention", "run"} for e in self.els)
        return not named and any(e.kind == "word" and e.word in {"he", "she", "him", "it",
                                                                  "they", "them"}
                                 for e in self.els)

    def _take_title_words(self) -> str | None:
        """"with grizzly in the title", "titled Dawn", "called …": words a name must
        contain (taken out of the elements; returned folded)."""
        els = self.els
        for i, el in enumerate(els):
            if el.kind != "word":
                continue
            if el.word in TITLE_VERBS and i + 1 < len(els) and els[i + 1].kind != "word":
                found = els[i + 1].text
                self._drop(i, i + 2)
                return fold_name(found)
            if el.word in {"title", "titles", "name", "names"} and i >= 3 and \
                    els[i - 2].word == "in" and els[i - 1].word in {"the", "their", "its", "a"}:
                start = i - 3
                while start > 0 and els[start - 1].kind != "word":
                    start -= 1
                words = [e.text for e in els[start:i - 2]]
                if words and all(e.kind != "word" or e.word not in WH for e in els[start:i - 2]):
                    self._drop(start, i + 1)
                    return fold_name(" ".join(words))
        return None

    def _drop(self, start: int, end: int) -> None:
        self.els = self.els[:start] + self.els[end:]
        self.words = [e.word for e in self.els]

    def _take_exclusions(self) -> list[_El]:
        """Remove "aside from X", "other than X", "except X"… from the elements; the
        names they exclude are returned."""
        found: list[_El] = []
        kept: list[_El] = []
        i = 0
        els = self.els
        while i < len(els):
            n = next((len(x.split()) for x in EXCLUSIONS
                      if " ".join(e.word for e in els[i:i + len(x.split())]) == x), 0)
            if n and i + n < len(els) and els[i + n].kind in {"mention", "run"}:
                found.append(els[i + n])
                i += n + 1
                continue
            kept.append(els[i])
            i += 1
        self.els = kept
        self.words = [e.word for e in kept]
        return found

    def _exclude(self, head: _Slot, names: list[_El]) -> None:
        """Exclusions as the head's nodes: those the words name, or whose names contain
        them ("aside from Asinou": the church "Panagia Phorbiottissa (Asinou)")."""
        wanted = [head.category] if head.category else None
        for el in names:
            found = [c for c in self.p.names.lookup(el.text, wanted) if c.how != "partial"]
            found += [c for c in self.p.names.containing(el.text, limit=20)
                      if wanted is None or c.category in wanted]
            head.exclude.extend(dict.fromkeys(c.node for c in found))

    def _noun_slot(self, word: str) -> _Slot:
        category = self.p.nouns[word]
        slot = _Slot(category, word)
        if category == "Thing" and word not in GENERIC_THINGS:
            single = self.p.type_word(singularise(word))
            slot.types.append(single if single in self.p.type_words else word)
        return slot

    def _agent(self, slot: _Slot, variables: Sequence[_Slot]) -> None:
        """"Photographers": the actors who made photographs, when the graph has that type
        (not "the painter of X", who is whoever made X)."""
        kind = AGENT_WORKS.get(singularise(slot.noun or ""))
        if kind is None or kind not in self.p.type_words or "created-by" not in self.p.lexicon \
                or slot.category != "Actor" or slot.anchor is not None or any(
                    link[0] == "created-by" and link[2] for link in slot.links):
            return
        for other in variables:  # "the most prolific sculptor": the works counted are his
            if any(link[0] == "created-by" and link[1] is slot and not link[2]
                   for link in other.links):
                self.roles[id(other), id(slot)] = kind
                return
        works = _Slot("Thing", pluralise(kind))
        slot.links.append(("created-by", works, True, ()))
        self.roles[id(slot), id(works)] = kind

    def _link(self, left: _Slot, right: _Slot, cue: Sequence[str],
              hints: tuple[str, ...] = ()) -> bool:
        found = self._relation_between(left, right, cue)
        if found is None:
            return False
        relation, inverse = found
        relation = self._role_named(relation, left if inverse else right)
        plain = all(w in PREPOSITIONS or w.startswith("⟨") for w in cue)
        if (relation.id == "acquired-by" or plain) and right.anchor is not None and \
                right.anchor.node in self.p.holders() and not any(
                    w in ACQUISITION_VERBS for w in cue):
            # "works at the YCBA", "does the museum have": the graph's own collection
            self.notes.append(f"{right.anchor.label} holds the whole collection")
            return True
        left.links.append((relation.id, right, inverse, hints or self._hints(relation, cue)))
        if left.noun and singularise(left.noun) in relation.nouns and not inverse:
            left.types.clear()  # "portraits of X": works depicting X, whatever their type
        return True

    def _role_named(self, relation: Relation, actor: _Slot) -> Relation:
        """"the artists featured in E": not everyone taking part, those in the role the
        noun names, when the graph records such a role."""
        noun = singularise(actor.noun or "")
        if relation.id != ROLE_RELATION or not noun or actor.anchor is not None:
            return relation
        return next((r for r in self.p.relations_for(noun) if r.via_labels and noun in r.nouns
                     and r.fr == relation.fr), relation)

    def _relation_between(self, left: _Slot, right: _Slot,
                          cue: Sequence[str]) -> tuple[Relation, bool] | None:
        words = [w for w in cue if w not in {"⟨adj⟩", "⟨poss⟩"} and w not in DETERMINERS]
        verbs = [w for w in words if w not in PREPOSITIONS]
        found = None
        noun = singularise(left.noun or "")
        if not verbs and noun:  # "portraits of X": the noun names the relation (depicts)
            named = [(r, inverse) for r in self.p.relations_for(noun) if noun in r.nouns
                     and r.value == "node" and (not words or any(
                         w in r.prepositions for w in words))
                     for inverse in (False, True)
                     if _fits(r.domain, left.category if not inverse else right.category) and
                     _fits(r.range, right.category if not inverse else left.category)]
            if named:  # "portraits of X"; inverse: "the artists in exhibition E" (its roles)
                return named[0]
        other = singularise(right.noun or "")
        if not verbs and other and right.anchor is None:  # "the exhibition with most artists"
            named = [(r, False) for r in self.p.relations_for(other) if other in r.nouns
                     and r.value == "node" and r.via_labels and _fits(r.domain, left.category)
                     and _fits(r.range, right.category)]
            if named:
                return named[0]
        if verbs:  # the verb decides ("acquired by" is not "made by")
            found = self.p_relation(verbs + [" ".join(words)], left.category, right.category,
                                    default=False, anchor=right.anchor)
        if found is None:
            found = self.p_relation(words, left.category, right.category,
                                    default=not verbs or not self._verb_relations(verbs),
                                    anchor=right.anchor)
        return found

    def _verb_relations(self, verbs: Sequence[str]) -> bool:
        return any(self.p.relations_for(v) for v in verbs)

    def p_relation(self, words: Sequence[str], left: str | None, right: str | None,
                   default: bool, anchor: Anchor | None = None) -> tuple[Relation, bool] | None:
        words = list(words)
        if "of" in words and left == "Thing" and right == "Actor" and not any(
                w in {"portrait", "portraits", "picture", "pictures", "image", "images",
                      "view", "views", "depiction", "depictions"} for w in self.verbs):
            words = [w for w in words if w != "of"] + ["by"]
        if words == ["with"] and left == "Actor" and right == "Thing":
            words, default = [], True  # "the artist with the most works": who made them
        if words and set(words) <= {"in", "on"} and left == "Actor" and right == "Thing":
            words = ["depicted"]  # "who is in it": people are in a picture
        return self._relation(words, left, right, default, anchor)

    def _hints(self, relation: Relation, cue: Sequence[str]) -> tuple[str, ...]:
        found: list[str] = []
        for word in [*cue, *self.verbs]:
            for stem, hints in relation.event_hints.items():
                if word.startswith(stem):
                    found += [h for h in hints if h not in found]
        return tuple(found)

    def _target(self, el: _El, current: _Slot | None, cue: Sequence[str]) -> _Slot | None:
        """Link the head (or current noun) to the node an element names."""
        if current is None:
            anchor = self._anchor(el, None)
            return _Slot(anchor.category, anchor=anchor) if anchor else None
        probe = _Slot(None)
        options = self._expected(current, cue)
        if not options and not cue:
            options = self._expected(current, ["⟨adj⟩"])
        if not options:
            anchor = self._anchor(el, None)
            if anchor is None:
                return None
            slot = _Slot(anchor.category, anchor=anchor)
            if not self._link(current, slot, cue):
                return slot  # named, but no relation to the subject: the answer uses it
            return slot
        expected = list(dict.fromkeys(c for c, _, _ in options))
        relation, inverse = options[0][1], options[0][2]
        kinds = {c.category for c in el.mention.candidates} if el.mention is not None else set()
        if kinds and options[0][0] not in kinds:  # the option of the kind the name is of
            relation, inverse = next(((r, inv) for c, r, inv in options if c in kinds),
                                     (relation, inverse))
        if self._unrecorded_instead(el, current, options, cue):
            return None
        anchor = self._anchor(el, expected if "Any" not in expected else None, relation.id,
                              inverse, current.category,
                              prefer=[c for c in expected if c != "Any"])
        if anchor is None:
            other = self._other_kind(el, current)
            if other is not None:
                return other
            if not self._title_instead(el, current, options, cue):
                self._statement_instead(el, current, options, cue)
            return None
        probe = _Slot(anchor.category, anchor=anchor)
        if not self._link(current, probe, cue):
            current.links.append((relation.id, probe, inverse, self._hints(relation, cue)))
        return probe

    def _other_kind(self, el: _El, current: _Slot) -> _Slot | None:
        """A name of another kind than the cue expects, linked by the relation the graph
        has between the two kinds: "exhibitions held at the Reuben Gallery", where the
        gallery is the organiser (an actor), not a place. Only an exact name of one kind,
        and only a relation through which the graph links it to something; the coverage
        of the question is checked on the plan as usual."""
        missing = self.missing[-1] if self.missing else None
        if missing is None or missing.text != el.text or not missing.elsewhere or \
                current.category not in {"Event", "Thing"}:
            return None
        kinds = {c.category for c in missing.elsewhere}
        if len(kinds) != 1 or any(c.how not in {"exact", "stripped", "stop-words"}
                                  for c in missing.elsewhere):
            return None
        kind = kinds.pop()
        anchor = link_name(self.p.names, el.text, [kind])
        if not isinstance(anchor, Anchor):
            return None
        for relation in self._defaults(current.category, kind):
            inverse = not _fits(relation.domain, current.category)
            candidate = Candidate(anchor.node, anchor.label, anchor.category, 1.0, anchor.how)
            if self.p.trial is None or self.p.trial(relation.id, current.category, inverse,
                                                    candidate):
                self.missing.pop()
                probe = _Slot(anchor.category, anchor=anchor)
                current.links.append((relation.id, probe, inverse, ()))
                kind_asked = missing.expected[0].lower() if missing.expected else "node"
                self.notes.append(f"{anchor.label} is no {kind_asked} of this graph; read "
                                  f"as linked to it by “{relation.label}”")
                return probe
        return None

    def _unrecorded_instead(self, el: _El, current: _Slot,
                            options: Sequence[tuple[str, Relation, bool]],
                            cue: Sequence[str]) -> bool:
        """A relation the graph never records, with a text that stands in for it: "paintings
        of lions" in a graph without subjects are those with lions in their titles. It is
        taken when the cue names it first, or when the words name only nodes of the kind
        of the subject ("sculptures of bison", where "Bison" is a title)."""
        names_like = el.mention is not None and all(
            c.category == current.category for c in el.mention.candidates)
        # "works by Ansel Adams", where only a photograph is named so: "by" names the maker
        # first, not the credit line
        first_cued = bool(options) and _cued_only(options[0][1], cue)
        relation = next((r for n, (_, r, inverse) in enumerate(options)
                         if (n == 0 or (names_like and not first_cued)) and not inverse
                         and r.fallback
                         and _cued_only(r, cue)
                         and r.fallback in self.p.lexicon and not self.p.present(r.id)
                         and (r.fallback == TITLE_RELATION or self.p.present(r.fallback))
                         and _fits(r.domain, current.category)), None)
        if relation is None or relation.fallback is None:
            return False
        fallback = relation.fallback
        words = [w for w in fold_name(el.text).split() if w not in DETERMINERS]
        if not words:
            return False
        self._read_instead(current, fallback, words,
                           f"this graph records no “{relation.label}”")
        return True

    def _read_instead(self, current: _Slot, fallback: str, words: Sequence[str],
                      why: str) -> None:
        """Keep the members whose ``fallback`` text (a title, a credit line) holds
        ``words`` (a title: in any word form), and say why."""
        current.filters.append(ValueFilter(fallback, contains=" ".join(words),
                                           forms=fallback == TITLE_RELATION))
        self.notes.append(f"{why}; read in the {self.p.lexicon[fallback].label}")

    def _title_instead(self, el: _El, current: _Slot,
                       options: Sequence[tuple[str, Relation, bool]],
                       cue: Sequence[str]) -> bool:
        """Words no node is named, found only inside names of nodes of the subject's kind,
        after a cue that may mean what they show: "churches of the holy cross" are those
        with "holy cross" in their names."""
        missing = self.missing[-1] if self.missing else None
        fallback = next((r.fallback for _, r, inverse in options
                         if r.fallback == TITLE_RELATION and not inverse and _cued_only(r, cue)),
                        None)
        if fallback is None or missing is None or missing.text != el.text or \
                not missing.elsewhere or current.category is None or \
                any(c.how != "partial" or c.category != current.category
                    for c in missing.elsewhere):
            return False
        words = [w for w in fold_name(el.text).split() if w not in DETERMINERS]
        if not words or not all(mentions_forms(fold_name(c.name), " ".join(words))
                                for c in missing.elsewhere):
            return False  # "stubbs horse": only "horse" is in the titles
        self.missing.pop()
        self._read_instead(current, fallback, words, f"“{el.text}” is no name of this graph")
        return True

    def _statement_instead(self, el: _El, current: _Slot,
                           options: Sequence[tuple[str, Relation, bool]],
                           cue: Sequence[str]) -> None:
        """A name no node bears, after a verb of a relation that reads a statement when
        nodes are missing: "works given by Dr. Roland Lamb" are those whose credit line
        names him (but "works by Gainsborough" stays not found)."""
        fallback = next((r.fallback for _, r, inverse in options if r.fallback and not inverse
                         and _fits(r.domain, current.category)
                         and any(w in r.verbs for w in cue)), None)
        if fallback is None or not self.missing or self.missing[-1].text != el.text or \
                el.kind != "run":
            return
        self.missing.pop()
        words = fold_name(el.text).split()
        while len(words) > 1 and (words[0] in HONORIFICS or words[0] in {"the", "and"}):
            words.pop(0)  # "Dr. Roland Lamb": credit lines may name him without the title
        self._read_instead(current, fallback, words, f"“{el.text}” is no name of this graph")

    def _expected(self, current: _Slot, cue: Sequence[str]) -> list[tuple[str, Relation, bool]]:
        """(category, relation, inverse) of what may follow ``current`` after ``cue``."""
        words = [w for w in cue if w not in {"⟨adj⟩", "⟨poss⟩"}]
        options = []
        for relation in self._cued(words, current.category):
            if relation.value == "time" or relation.range in {"Text", "Dimension"}:
                continue
            if _fits(relation.domain, current.category):
                options.append((relation.range, relation, False))
            elif _fits(relation.range, current.category):
                options.append((relation.domain, relation, True))
        return options

    def _cued(self, words: Sequence[str], category: str | None) -> list[Relation]:
        """Relations cue words name for a ``category`` node, in order of preference: those
        of the verbs that accept the preposition, then those of the preposition alone,
        then the defaults between categories."""
        preps = [w for w in words if w in PREPOSITIONS]
        verbs = [w for w in words if w not in PREPOSITIONS]

        def fitting(found: Sequence[Relation]) -> list[Relation]:
            return [r for r in found if _fits(r.domain, category) or _fits(r.range, category)]

        relations: list[Relation] = []
        for word in [*verbs, " ".join(words)]:
            relations += [r for r in self.p.relations_for(word) if r not in relations]
        relations = fitting(relations)
        if preps and relations:
            accepting = [r for r in relations if set(preps) & set(r.prepositions)]
            relations = accepting or ([] if verbs else relations)
        if not relations:
            if "of" in preps and category == "Thing":
                relations.append(self.p.lexicon["created-by"])
            for prep in preps:
                relations += fitting([r for r in self.p.lexicon.values()
                                      if prep in r.prepositions and r not in relations])
        if not words:
            relations += [r for other in ("Actor", "Place", "Concept", "Thing")
                          for r in self._defaults(category, other) if r not in relations]
        return relations

    # -- attributes and values -------------------------------------------------------------
    def _attributes(self, wh: str | None, operation: str) -> list[Relation]:
        """Relations whose values the question asks for, most specific first."""
        found: list[Relation] = []
        words = self.words
        phrases = [" ".join(words[i:i + n]) for n in (3, 2) for i in range(len(words))]
        for phrase in [*phrases, *words]:
            for relation in self.p.relations_for(phrase):
                if relation.value in {"time", "text", "node", "dimension"} and \
                        relation not in found and self._asks_for(relation, phrase, wh):
                    found.append(relation)
        if wh == "when" or any(w in GENERIC_TIME_NOUNS for w in words):
            found += [r for r in self.p.lexicon.values()
                      if r.value == "time" and r not in found and self._verb_in(r)]
            found += [self.p.lexicon[i] for i in ("creation-date", "event-date", "birth-date",
                                                  "death-date") if self.p.lexicon[i] not in found]
        if wh == "where":
            found += [r for r in self.p.lexicon.values() if r.range == "Place" and
                      r.value == "node" and self._verb_in(r) and r not in found]
            found += [self.p.lexicon[i] for i in ("located-in", "took-place-at", "birth-place",
                                                  "residence", "place-within")
                      if self.p.lexicon[i] not in found]
        if wh == "whose":
            found += [self.p.lexicon[i] for i in ("credit-line", "acquired-from")
                      if self.p.lexicon[i] not in found]
        if wh in {"who", "whom"} and not found:
            found += [r for r in self.p.lexicon.values()
                      if r.range == "Actor" and self._verb_in(r) and r not in found]
        kind = {"when": lambda r: r.value == "time",
                "where": lambda r: r.range == "Place",
                "whose": lambda r: r.id in {"credit-line", "acquired-from", "acquired-by",
                                            "created-by"}}.get(wh or "")
        return [r for r in found if kind(r)] if kind else found

    def _asks_for(self, relation: Relation, phrase: str, wh: str | None) -> bool:
        """Whether a relation word names what is asked, rather than a link."""
        if relation.value in {"time", "text", "dimension"}:
            return phrase in relation.nouns or wh in {"when", "whose"} or (
                relation.value == "text" and phrase in relation.verbs and wh == "what")
        if wh == "what" and " " in phrase and phrase in relation.verbs and \
                relation.id in ATTRIBUTE_RELATIONS:  # "what is X made of"
            return True
        return phrase in relation.nouns and relation.id in {
            "nationality", "has-type", "made-of", "technique", "located-in", "birth-place",
            "death-place", "creation-place", "residence", "took-place-at", "member-of",
            "acquired-by", "acquired-from", "created-by", "carried-out-by"}

    def _verb_in(self, relation: Relation) -> bool:
        return any(w in relation.verbs for w in self.verbs)

    def _value_plan(self, head: _Slot | None, anchors: list[_Slot],
                    attributes: list[Relation], operation: str,
                    slots: list[_Slot]) -> Parsed:
        """Value questions: the attribute of a named node, or of the head."""
        subjects = [head] if head is not None and (head.links or head.anchor) else []
        subjects += [s for s in anchors if s.anchor is not None and s not in subjects]
        if not subjects:
            return self._done(None, "nothing named")

        def ordered(subject: _Slot) -> list[_Slot]:
            return [subject, *[s for s in slots if s is not subject]]

        if operation == "describe" or (not attributes and self.described):
            return self._done(self._plan(ordered(subjects[0]), "describe"))
        best: tuple[float, Relation, _Slot] | None = None
        asked_nouns = self._asked_nouns()
        for rank, relation in enumerate(attributes):
            specific = [n for n in relation.nouns if n in asked_nouns[:1] and not (
                relation.value == "time" and n in GENERIC_TIME_NOUNS)]
            asked = 4.0 * bool(specific) + 2.0 * self._verb_in(relation) + 1.0 * any(
                n in self.words or n in self.text.lower() for n in relation.nouns)
            for order, subject in enumerate(subjects):
                category = subject.anchor.category if subject.anchor else subject.category
                if not _fits(relation.domain, category):
                    continue
                score = asked - 0.01 * rank - 0.001 * order
                if best is None or score > best[0]:
                    best = (score, relation, subject)
        if best is None and self._relink(subjects, attributes):
            # "when was Asinou built": the place's name also names a church, in brackets
            return self._value_plan(head, anchors, attributes, operation, slots)
        if best is None:
            if head is not None and head.links:
                return self._done(self._plan(ordered(head), "list"))
            return self._done(self._plan(ordered(subjects[0]), "describe"))
        _, relation, subject = best
        wanted = next((r for r in attributes if any(
            n in asked_nouns[:1] and not (r.value == "time" and n in GENERIC_TIME_NOUNS)
            for n in r.nouns)), None)
        if wanted is not None and wanted is not relation and subject.anchor is not None and \
                not any(_fits(wanted.domain, s.anchor.category if s.anchor else s.category)
                        for s in subjects):
            if self._relink(subjects, [wanted]):  # "mary cassatt": Mary Stevenson Cassatt
                return self._value_plan(head, anchors, attributes, operation, slots)
            # "Paul Mellon's birth year": a birth needs a person, the name is a work's
            self.missing.append(Missing(subject.anchor.text, (wanted.domain,), tuple(
                self.p.names.closest(subject.anchor.text, [wanted.domain])), (Candidate(
                    subject.anchor.node, subject.anchor.label, subject.anchor.category, 1.0,
                    "exact"),)))
            return self._done(None, "names")
        group = _attribute_group([relation, *[r for r in attributes if r is not relation]])
        hints: tuple[str, ...] = ()
        for r in group:
            hints += self._hints(r, self.verbs)
        plan = self._plan(ordered(subject), "value", attributes=tuple(r.id for r in group),
                          hints=hints)
        return self._done(plan)

    def _relink(self, subjects: Sequence[_Slot], attributes: Sequence[Relation]) -> bool:
        """Link the first named subject again, to a node of the kind an asked attribute
        needs (a looser name: "Asinou" in "Panagia Phorbiottissa (Asinou)"), of which the
        graph records that attribute; whether one was found."""
        for subject in subjects:
            anchor = subject.anchor
            if anchor is None:
                continue
            for relation in attributes:
                if relation.domain in {"Any", anchor.category}:
                    continue
                found = link_name(self.p.names, anchor.text, [relation.domain],
                                  trial=self.p.trial, relation=relation.id)
                if isinstance(found, Anchor):
                    subject.anchor, subject.category = found, found.category
                    return True
        return False

    def _time(self, head: _Slot, slots: list[_Slot], grouped: bool = False) -> None:
        """The time expression, as a filter on the relation of the verb before it (not
        when the question lists periods to break a count down by)."""
        if self.time is None or (grouped and self.periods > 1):
            return
        condition, _ = self.time
        idx = self.words.index(TIME) if TIME in self.words else len(self.words)
        before = [w for w in self.words[:idx]]
        relation = "creation-date"
        target = head
        for word in reversed(before):
            found = [r for r in self.p.relations_for(word) if r.value == "time"]
            if found:
                fitting = [r for r in found for s in slots if _fits(r.domain, s.category)]
                if fitting:
                    relation = fitting[0].id
                    target = next(s for s in slots if _fits(fitting[0].domain, s.category))
                break
        domain = self.p.lexicon[relation].domain
        if not _fits(domain, target.category):
            target = next((s for s in slots if _fits(domain, s.category)), head)
            if not _fits(domain, target.category):
                relation = {"Actor": "birth-date", "Event": "event-date"}.get(
                    target.category or "", "creation-date")
        through = None
        if relation == "creation-date" and any(
                link[0] == "created-by" and not link[2] for link in target.links):
            through = "created-by"  # the maker's own production carries the date
        target.filters.append(replace(condition, relation=relation, through=through))

    def _superlative(self, head: _Slot, slots: list[_Slot], order: tuple[str, bool],
                     limit: int | None, counted: _Slot | None) -> Parsed:
        kind, descending = order
        if kind == "count":
            plan = self._plan(slots, "superlative", order_by="count", descending=descending,
                              limit=limit or 1)
            return self._done(plan)
        extra: tuple[str, ...] = ()
        ranked = self._ranked_noun(head)
        if ranked is not None and ranked is not head:
            # "who made the newest work": the newest work, with its makers
            slots = [ranked, *[s for s in slots if s is not ranked and s is not head]]
            if head.category == "Actor":
                extra = ("created-by",)
            head = ranked
        if kind == "size":
            relation = "dimension"
            measure = next((DIMENSION_WORDS[w] for w in self.words if w in DIMENSION_WORDS),
                           None)
            if measure:
                relation = f"dimension:{measure}"
        else:
            relation = self._time_relation(head)
        name = relation.split(":")[0]
        plan = self._plan(slots, "superlative", order_by=relation, descending=descending,
                          limit=limit or 1, attributes=(name, *extra))
        return self._done(plan)

    def _time_relation(self, slot: _Slot) -> str:
        """The date a slot is ranked or grouped by: of its acquisition when the question
        speaks of acquiring, of the verb's event, else its own kind of date."""
        if slot.category == "Thing" and self._has(*sorted(ACQUISITION_VERBS), "acquisition",
                                                  "acquisitions", "enter", "entered"):
            return "acquisition-date"
        for w in self.verbs:
            for r in self.p.relations_for(w):
                if r.value == "time" and _fits(r.domain, slot.category) and w in r.verbs:
                    return r.id
        return {"Actor": "birth-date", "Event": "event-date"}.get(slot.category or "",
                                                                  "creation-date")

    def _ranked_noun(self, head: _Slot) -> _Slot | None:
        """The noun a superlative word stands before ("the newest work")."""
        for i, w in enumerate(self.words):
            if w in SUPERLATIVES or w in {"recent"}:
                for nxt in self.words[i + 1:i + 3]:
                    if nxt == head.noun or nxt in ACQUISITION_NOUNS:
                        return head
                    if nxt in self.p.nouns:
                        return self._noun_slot(nxt)
        return None

    def _acquisitions(self, head: _Slot, slots: list[_Slot]) -> _Slot:
        """"The most recent acquisition": the works, ranked by their acquisition."""
        if head.noun in ACQUISITION_NOUNS:
            thing = _Slot("Thing", "works", links=head.links, filters=head.filters,
                          exclude=head.exclude)
            slots[:] = [thing if s is head else s for s in slots]
            return thing
        return head

    def _counted(self, head: _Slot) -> _Slot | None:
        """For "who made the most works": the works, linked to the head."""
        ranking = set(SUPERLATIVES) | {w for p in SUPERLATIVE_PHRASES for w in p.split()}
        at = next((i for i, w in enumerate(self.words) if w in ranking), -1)
        after = self.words[at + 1:]
        noun = next((w for w in after if w in self.p.nouns and w != head.noun), None)
        if noun is None:
            noun = "works"
        slot = self._noun_slot(noun) if noun in self.p.nouns else _Slot("Thing", "works")
        for k, (relation_id, other, inverse, hints) in enumerate(head.links):
            if other.anchor is None and other.noun == slot.noun:
                # "who made the most works in the 1840s": the works the question linked
                del head.links[k]
                other.links.append((relation_id, head, not inverse, hints))
                return other
        verbs = [w for w in self.verbs if self.p.relations_for(w) and w not in HOLDING_VERBS
                 and w not in ranking]
        found = self._relation_between(slot, head, verbs) if verbs else None
        found = found or self._relation_between(slot, head, ["by"])
        if found is None:
            return None
        relation, inverse = found
        slot.links.append((relation.id, head, inverse, ()))
        return slot

    def _group(self, head: _Slot, slots: list[_Slot], unit: str,
               limit: int | None = None) -> Parsed:
        """Counts per value of a unit or attribute; ``limit``: only the largest groups."""
        if unit in GROUP_UNITS:
            key = f"{self._time_relation(head)}:{GROUP_UNITS[unit]}"
        elif any(unit in r.nouns for r in self.p.relations_for(unit)):
            found = [r for r in self.p.relations_for(unit)
                     if unit in r.nouns and _fits(r.domain, head.category)]
            if not found:
                return self._done(None, "group key")
            key = found[0].id
        else:
            other = self._noun_slot(unit) if unit in self.p.nouns else None
            relation = self._relation(["by", unit], head.category,
                                      other.category if other else None) if other else None
            if relation is None or relation[1]:
                return self._done(None, "group key")
            key = relation[0].id
        return self._done(self._plan(slots, "group", group_by=key, limit=limit))

    # -- slots to plan ---------------------------------------------------------------------
    def _plan(self, slots: list[_Slot], operation: str, **kwargs: object) -> ExactPlan:
        """Variables from slots (anchors fold into the links that name them)."""
        variables: list[_Slot] = []

        def index(slot: _Slot) -> int:
            if slot not in variables:
                variables.append(slot)
            return variables.index(slot)

        index(slots[0])
        for slot in slots:
            if slot.anchor is None or slot is slots[0]:
                index(slot)
        for slot in list(variables):
            self._agent(slot, variables)
        built: dict[int, Variable] = {}
        k = 0
        while k < len(variables):
            slot = variables[k]
            links = []
            for relation, other, inverse, hints in slot.links:
                target: Anchor | int
                if other.anchor is not None and not other.links and not other.filters:
                    target = other.anchor
                else:
                    target = index(other)
                links.append(Link(relation, target, inverse, hints,
                                  self.roles.get((id(slot), id(other)))))
            built[k] = Variable(slot.category if slot.anchor is None else slot.anchor.category,
                                slot.noun, tuple(slot.types), tuple(links),
                                tuple(slot.filters), slot.anchor, tuple(slot.exclude))
            k += 1
        attributes = kwargs.pop("attributes", ())
        plan = ExactPlan(self.text, tuple(built[i] for i in range(len(variables))),
                         operation,  # type: ignore[arg-type]
                         attributes=tuple(attributes),  # type: ignore[arg-type]
                         notes=tuple(self.notes), **kwargs)  # type: ignore[arg-type]
        return plan


def _prefers(wanted: str, category: str) -> bool:
    """Whether a pronoun's preference ("Actor", "-Actor": not an actor, "": any) fits."""
    if not wanted:
        return True
    return category != wanted[1:] if wanted.startswith("-") else category == wanted


def _cued_only(relation: Relation, cue: Sequence[str]) -> bool:
    """Whether every word of a cue may name ``relation`` ("showing", "of"; not "by members
    of", which names other relations)."""
    words = [w for w in cue if not w.startswith("⟨")]
    return bool(words) and all(w in relation.verbs or w in relation.prepositions or
                               w in relation.nouns for w in words)


def _fits(side: str, category: str | None) -> bool:
    """Whether a node of ``category`` may stand on a relation side."""
    if category is None:
        return True
    return side in {"Any", category}


def _attribute_group(relations: Sequence[Relation]) -> list[Relation]:
    """The first relation and those answering the same kind of question with it (medium:
    the statement, the materials and the technique)."""
    first = relations[0]
    families = [{"medium-statement", "made-of", "technique"},
                {"credit-line", "acquired-from"}]
    for family in families:
        if first.id in family:
            return [r for r in relations if r.id in family] or [first]
    return [first]
