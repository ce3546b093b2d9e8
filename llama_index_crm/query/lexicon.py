"""The English vocabulary of the rule-based analyzer: nouns by category and function words.

Word lists (answer nouns by category, question words, auxiliaries, prepositions, creation
and life verbs...), naive English :func:`pluralise` / :func:`singularise`, and
:func:`vocabulary_from_labels`, which turns a dataset's type labels into more nouns.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from llama_index_crm.ontology.ontology import CATEGORIES, CATEGORY_PRIORITY
from llama_index_crm.query.conversation import word_set

__all__ = ["DOCUMENT_CATEGORIES", "pluralise", "singularise", "vocabulary_from_labels", "word_stem"]

DOCUMENT_CATEGORIES: tuple[str, ...] = tuple(c for c in CATEGORIES if c != "Time")
"""Categories that documents have: time-spans are folded into the documents they date."""

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


_STEM_ENDINGS = ("ations", "ation", "ions", "ion", "ings", "ing", "ors", "or",
                 "ers", "er", "ed", "es", "s", "e")


def slips(word: str, candidates: Iterable[str], min_letters: int = 0) -> list[str]:
    """The ``candidates`` (of ``min_letters`` letters or more) that ``word`` is one slip of a
    key from: one letter added, dropped, changed, or two swapped ("lsit" → "list")."""
    from rapidfuzz.distance import OSA

    return [c for c in candidates if len(c) >= min_letters and abs(len(c) - len(word)) <= 1
            and OSA.distance(word, c) == 1]


def word_stem(word: str) -> str:
    """A crude English stem, for telling that two forms of one word name one thing: a role
    ("Director") and its verb ("directed"), a type ("Exhibiting") and its noun
    ("exhibitions"). Only the last word of a phrase is cut; a stem keeps 4 letters.

    >>> [word_stem(w) for w in ("exhibition", "exhibitions", "exhibiting", "exhibited")]
    ['exhibit', 'exhibit', 'exhibit', 'exhibit']
    >>> [word_stem(w) for w in ("director", "directed", "curator", "curated", "organizer")]
    ['direct', 'direct', 'curat', 'curat', 'organiz']
    >>> word_stem("organised") == word_stem("organized"), word_stem("painter"), word_stem("art")
    (True, 'paint', 'art')
    """
    *first, last = word.lower().split(" ") or [""]
    last = last.replace("is", "iz") if re.search(r"is(?:e|ed|er|ers|es|ing|ation)$", last) \
        else last
    for ending in _STEM_ENDINGS:
        if last.endswith(ending) and len(last) - len(ending) >= 4:
            last = last[:-len(ending)]
            break
    if last.endswith("e") and len(last) > 4:
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
