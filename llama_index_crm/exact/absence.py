"""Absence is proven, not assumed: when words that link to no node may be reported missing.

"No artist named X in this graph" is believed, so it is said only when

1. the words are *name-shaped*: quoted, capitalised (beyond a sentence's first word), standing
   where a name is expected (after "by", "of", "named", before "'s"), or holding a word that is
   not a common word of the language (typed names in lower case: "bateman", "podithou");
   an ordinary word ("open", "directed", "here", "else") is never reported as a missing name;
2. and retrieval finds no document whose label is close to them (a spelling the name index
   does not forgive, another transliteration).

Otherwise the question is answered from retrieval (``retrieval_only``).

>>> check = AbsenceCheck(None)
>>> check.name_shaped("bateman", "how many works by bateman")
True
>>> check.name_shaped("directed", "who directed the show")
False
>>> check.name_shaped("Machine Art", "when did Machine Art open")
True
>>> check.name_shaped("open", "when did the exhibition open")
False
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from llama_index_crm.exact.crosslingual import CrossLingualNames, inflected, romanised, sound_key
from llama_index_crm.exact.language import common_words
from llama_index_crm.exact.name_span import (
    NAME_JOINERS,
    PLACE_WORDS,
    agrees,
    at_edge,
    every_word_near,
    holds_most,
    latin_words,
    name_span,
    name_window,
    person_shaped,
    replace_words,
    standing_alone,
    typed_lower_word,
)
from llama_index_crm.exact.name_span import find_words as _find
from llama_index_crm.exact.parse_words import THING_TYPE_WORDS
from llama_index_crm.exact.statements import stated_texts, stating
from llama_index_crm.query.conversation import quoted_titles
from llama_index_crm.query.lexicon import singularise, slips
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.linking import Candidate, NameIndex
    from llama_index_crm.graph.data import GraphData

__all__ = ["AbsenceCheck", "Proof"]


logger = logging.getLogger(__name__)

NAME_CUES = frozenset({"by", "of", "named", "called", "titled", "entitled", "about", "from",
                       "depicting", "depicts", "showing", "mr", "mrs", "ms", "dr", "sir",
                       "saint", "st"})
"""Words after which a name is expected."""
STRONG_CUES = frozenset({"by", "named", "called", "titled", "entitled", "mr", "mrs", "ms",
                         "dr", "sir", "saint", "st"})
"""Of those, the ones after which even an ordinary word is a name ("works by open"); after
the others ("from", "of", "about") an ordinary word in lower case is none ("come from
originally")."""
FOREIGN_CUES = frozenset({"von", "vom", "namens", "genannt", "de", "du", "di", "del", "della"})
"""The same in the other languages of the lexicons."""
CLOSE_RATIO = 88
"""rapidfuzz ratio (0–100) from which a retrieved label is the same name spelt otherwise."""
CLOSE_WORD_RATIO = 80
"""The same for one typed word against one word of a label."""
CLOSE_FOREIGN_RATIO = 85
"""The same for each word of a name in a translated question ("Nikosia", "Nicosia")."""
CAPITALISED_NOUNS = frozenset({"de"})
"""Languages that write every noun with a capital: one capitalised word is no sign of a name."""
PARTICIPLE = re.compile(r"(?:ed|made|built|drawn|taken|done|written|shot|cast|born)$")
"""A verb form a title stands before ("the fighting temeraire painted"), not a noun
("jury members") or a gerund ("retrospective: opening year")."""
SUBJECT_AUX = frozenset({"did", "does", "do", "has", "have", "had", "was", "were", "is",
                         "are", "will", "would", "can", "could"})
"""Auxiliaries a question's subject follows ("how many churches did picasso paint")."""
EXISTING = frozenset({"exact", "stripped", "inverted", "stop-words", "acronym"})
"""Ways a name matches that say the node is there (as another kind than asked)."""
RARE_OPENER = 5
"""Names a word may open and still single one out ("Enkleistra …", not "Panagia …")."""
CONTINUED_RATIO = 65
"""rapidfuzz ratio from which the words after such a word are the name's, spelt otherwise
("san neofito" for "saint neophytos": 69; "st neophytos": 89)."""
RARE_WORD_RATIO = 70
"""rapidfuzz ratio from which a typed rare word is a word of a name spelt otherwise."""
AUXILIARIES = frozenset({"am", "is", "are", "was", "were", "be", "been", "do", "does"})
"""Verbs a contraction opens with ("I'm" → "I am"): no name begins so."""
OWNERS = frozenset({"my", "your", "our", "his", "her", "their", "its"})
"""Possessive determiners: an ordinary word after one is a common noun."""
MIN_NAME = 3
MIN_EDGED = 3
"""Words a missing name needs before one at its edge may be another language's."""
"""Letters a lone word needs to be read as a name ("se", "s" are not)."""
MIN_WORD = 5
"""Letters a single word needs for that comparison."""
FIRST_NAME_KEYS = 50
"""Names looked at after a first name for one of a person (the rest are of works)."""
RETRIEVED = 10
"""Documents of each channel whose labels are compared."""
SLIP_LETTERS = 4
"""Letters a planner's word needs for a one-key slip of it to be read as it ("ther")."""
SPAN_NAMES = 20
"""Names looked up to find one that holds a whole name read with a word spelt otherwise."""
ADVERB = re.compile(r"^[a-z]{4,}ly$")
"""An adverb in lower case ("originally", "recently"): no name after a preposition."""
_WORD = re.compile(r"[^\W_][\w'’\-]*", re.UNICODE)
_POSSESSIVE_END = re.compile(r"['’]s?$")
MIN_ROMANISED = 6
"""Letters a word needs to say, romanised, that the graph names the same thing."""


@dataclass(frozen=True, slots=True)
class Proof:
    """Whether words are proven absent, and why not when they are not."""

    text: str
    proven: bool
    reason: str = ""
    close: str | None = None
    named: bool = False
    """The words name a node of another kind than the reading expected."""
    describes: bool = False
    """The word describes the actor noun after it ("which Mexican artist")."""
    ordinary: bool = False
    """The words are no name at all (an ordinary word, a describing word, the noun counted)."""


class AbsenceCheck:
    """Decides whether missing words are a name the graph lacks.

    Args:
        data: the loaded index whose BM25 and vectors are searched (None: names only).
    """

    def __init__(self, data: GraphData | None, names: NameIndex | None = None) -> None:
        self.data = data
        self.names = names
        self.common = common_words()
        self.crosslingual = CrossLingualNames(names) if names is not None else None
        self._statements: list[str] | None = None
        self._sound_keys: dict[str, str] | None = None

    def _listed(self, text: str, question: str) -> str | None:
        """Why ``text`` is no one name: a comma in the question parts its words, and
        each part names nodes of the graph ("Heade, Durrie": two painters), if so."""
        words = [re.escape(w) for w in text.split()]
        if len(words) < 2 or self.names is None:
            return None
        typed = re.search(r"[\s,;]+".join(words), question, re.IGNORECASE)
        if typed is None or "," not in typed.group() and ";" not in typed.group():
            return None
        parts = [p.strip() for p in re.split(r"[,;]", typed.group()) if p.strip()]
        if len(parts) > 1 and all(self.names.lookup(p, partial=False) for p in parts):
            return f"“{text}” is a list of names ({'; '.join(parts)}), not one"
        return None

    def check(self, text: str, question: str, vocabulary: frozenset[str] | set[str] = frozenset(),
              *, foreign: bool = False, verbs: frozenset[str] = frozenset(),
              elsewhere: Sequence[Candidate] = (),
              nouns: frozenset[str] = frozenset(), language: str = "en",
              actors: frozenset[str] = frozenset(), expected: Sequence[str] = ()) -> Proof:
        """Whether ``text`` (words of ``question`` that link to nothing) is a name proven
        absent; ``vocabulary``: the question words of the planner (never names);
        ``foreign``: the question was translated (an untranslated word is no name for being
        rare in English, and a name may be spelt the language's way: each of its words is
        compared with the graph's names); ``verbs``: relation verbs, next to which a name is
        expected ("when was edward moran born", "who painted the nightmare")."""
        opening = fold_name(text).split()[:1]
        if opening and opening[0] in QUANTIFIERS and len(fold_name(text).split()) > 1 and \
                typed_lower_word(question, opening[0]):
            return Proof(text, False, f"“{text}” opens with “{opening[0]}”, which no name "
                         f"of a question does")  # "how many shows included both hopper …"
        listed = self._listed(text, question)
        if listed is not None:  # "Heade, Durrie or Peter Moran: who was born first?"
            return Proof(text, False, listed)
        typed = self._type_tail(text, question)
        if typed is not None:  # "Andy Warhol Marilyn screenprints": works of a type
            return Proof(text, False, typed)
        if self.modifier(text, question, nouns, actors):
            return Proof(text, False, f"“{text}” describes the noun after it (“the Russian "
                                      f"artist”), it does not name a node", describes=True,
                         ordinary=True)
        if self.counted_noun(text, question, nouns):
            return Proof(text, False, f"“{text}” is the noun the question counts, not a name",
                         ordinary=True)
        if not self.name_shaped(text, question, vocabulary, foreign=foreign, verbs=verbs,
                                language=language, nouns=nouns):
            continued = self._continued_proof(text, question)  # "de saint Néophyte"
            return continued or Proof(text, False, f"“{text}” is not a name (an ordinary "
                                                   f"word)", ordinary=True)
        whole = next((c.name for c in elsewhere if c.how == "partial" and
                      holds_most(question, c.name)), None)
        if whole is not None:  # a title cut short by its quotes; "the Holy Cross church"
            window = name_window(question, text, whole)
            return Proof(window, False, f"“{text}” is part of the name “{whole}”, which the "
                         f"question holds", whole if window != whole else None, named=True)
        # a firm's first words ("Nagel & Weingaertner"), a term's in lower case ("single
        # aisled"); never a title's ("Mona Lisa" of "Mona Lisa and little girls")
        edge = next((c.name for c in elsewhere if c.how == "partial" and (
            c.category == "Actor" and "Actor" in expected
            or c.category == "Concept" and text.islower())
            and at_edge(text, c.name)), None)  # "single aisled": a term, in lower case
        if edge is not None:  # "by Nagel & Weingaertner": the lithography company so named
            return Proof(text, False, f"“{text}” begins or ends the name “{edge}”", edge,
                         named=True)
        span = name_span(question, text)  # "Starry" of "The Starry Night"
        named = next((c for c in elsewhere if c.how in EXISTING
                      and (span is None or agrees(span, c.name))), None)
        widened = named is None and any(c.how in EXISTING for c in elsewhere)
        if named is not None:  # "Mowgli in the Jungle was painted by?": the work is there
            return Proof(text, False, f"“{text}” names a {named.category.lower()} of the "
                         f"graph, not the kind the reading expected", named=True)
        completed = self.completed(text, question)
        if completed is not None:  # "authors of the u.s.": a title, read in part as a class
            return Proof(text, False, f"“{text}” ends the name “{completed}” with the words "
                         f"before it")
        continued = self._continued_proof(text, question)
        if continued is not None:  # "the Enkleistra di San Neofito", "… of St Neophytos"
            return continued
        trimmed = self.trimmed(text, question, vocabulary)
        if trimmed is not None:  # "times moynihan": an ordinary word stuck to a name
            return Proof(text, False, f"“{text}” holds the name “{trimmed}” beside "
                         f"ordinary words")
        beside = self._beside_name(text, question) if foreign else None
        if beside is not None:  # "Cabo Cañaveral": Cape Canaveral, its first word translated
            return Proof(text, False, f"“{text}” stands beside “{beside[0]}”, a word of "
                         f"the name “{beside[1]}”, in a translated question")
        edged = self._edged(text)
        if edged is not None:  # "Lionel Feininger Geburtsjahr": a word of another language
            return Proof(text, False, f"“{text}” holds “{edged[0]}”, close to “{edged[1]}”, "
                         f"beside a word no name of the graph has")  # no reading: a
            # "Lionel Feininger Smithsonsky" may be another person
        close = self.close_name(text, foreign) or self.close_document(text, foreign) or \
            (self._first_name(text) if standing_alone(question, text) else None)
        if close is not None and span is not None and not self._agreeing(span, text, close):
            # "Starry" is close to "Starr", and no name of the graph holds "The Starry Night"
            close, widened = None, True
        if close is not None:
            return Proof(text, False, f"“{text}” is close to “{close}”, found by retrieval",
                         close)
        if foreign and self.crosslingual is not None:  # "San Nicola del Tetto"
            named_so = self.crosslingual.match(text)
            if named_so is not None and fold_name(named_so) != fold_name(text):
                return Proof(text, False, f"“{text}” is read as “{named_so}”, the graph's "
                             f"name in another language", named_so)
            near = [k for k in (self.crosslingual.candidates(text, strict=True)
                                if latin_words(text) else [])
                    if self._all_rare_words(span or text, self.crosslingual.shown(k))
                    and self._of_kind(k, expected)
                    and not (person_shaped(text)
                             and not every_word_near(text, self.crosslingual.shown(k)))]
            if near:  # "saint Néophyte": no one name is clear, but the graph has the word
                shown = ", ".join(dict.fromkeys(self.crosslingual.shown(k) for k in near[:5]))
                return Proof(text, False, f"“{text}” shares a rare word with names of the "
                             f"graph ({shown})")
            held = self._romanised_word(text)
            if held is not None:  # "Παναγία Αρακιώτισσα": the graph's "Virgin Arakiotissa"
                return Proof(text, False, f"“{text}” in Latin letters holds “{held}”, a "
                             f"word of names of the graph")
        spelt_so = self._spelt_so(text) if foreign and len(text.split()) == 1 else None
        if spelt_so is not None:  # "Neófito": one word, spelt the asker's way
            return Proof(text, False, f"“{text}” may be “{spelt_so}” spelt the way of the "
                         f"question's language")
        if foreign:  # a name spelt the language's way: no proof, and no reading either
            longs = [w for w in text.split() if len(w) >= MIN_WORD]
            spelt = [c for w in longs if (c := self.close_name(w, True))]
            # a word of a place's or a work's name may be translated ("Sainte-Croix"); a
            # person's name is spelt, each word of it ("Berthe Morisot" is no Bertha Lum)
            if spelt and all(map(self._personal, spelt)) and person_shaped(text) and \
                    self.names is not None and not any(
                        every_word_near(text, c.name) for c in self.names.lookup(text)):
                # "Eva Hesse": an "Eva" and a "Hess" in the graph, no one named both
                return self._unstated(text)
            if spelt and person_shaped(text) and self._unknown_word(text.split()[-1]):
                # "Tomas Ekwall": a "Thomas" in the graph, and no name spelt near "Ekwall"
                return self._unstated(text)
            if spelt and (len(spelt) == len(longs) or not all(map(self._personal, spelt))):
                return Proof(text, False, f"“{text}” may be spelt “{' '.join(spelt)}” in the "
                                          f"graph")
        return self._unstated(span if widened and span else text)

    def _beside_name(self, text: str, question: str) -> tuple[str, str] | None:
        """A word typed next to ``text`` (one word) that is one of the two words of a name
        ("Cabo" before "Cañaveral": "Canaveral, Cape"), if any: (the word, the name)."""
        if " " in text.strip() or self.names is None:
            return None
        word = r"([^\W\d_][\w'’-]*)"
        for pattern in (rf"\b{re.escape(text)}\s+{word}", rf"{word}\s+{re.escape(text)}\b"):
            match = re.search(pattern, question)
            if match is None:
                continue
            other = fold_name(match.group(1))
            for c in self.names.lookup(match.group(1), fuzzy=False, partial=False):
                words = fold_name(c.name).split()
                if len(words) == 2 and other in words:  # "Canaveral, Cape" as well
                    return match.group(1), c.name
        return None

    def _edged(self, text: str) -> tuple[str, str] | None:
        """The words of ``text`` but a first or last one no name of the graph has, when
        they are close to a name (the words, the name)."""
        words = text.split()
        if len(words) < MIN_EDGED or self.names is None:
            return None
        for rest, edge in ((words[:-1], words[-1]), (words[1:], words[0])):
            close = self.close_name(" ".join(rest)) if self.unheard(edge) else None
            if close is not None:
                return " ".join(rest), close
        return None

    def _unknown_word(self, word: str) -> bool:
        """Whether no name of the graph holds ``word`` or a spelling near it (a surname)."""
        folded = fold_name(word)
        return self.names is not None and len(folded) >= MIN_WORD and \
            not _in_sorted(self.names.vocabulary, folded) and \
            self.close_name(folded, True) is None

    def _agreeing(self, span: str, text: str, close: str) -> bool:
        """Whether a name of the graph holds the whole name ``span`` once ``text`` is read as
        ``close`` (a word or a name near it)."""
        if agrees(span, close) or self.names is None:
            return True
        respelt = replace_words(span, text, close)
        return any(agrees(respelt, c.name) for c in self.names.lookup(respelt)[:SPAN_NAMES])

    def _spelt_so(self, word: str) -> str | None:
        """A word of the graph's names that ``word`` may be in another spelling: the same
        once both are written plainly (:func:`sound_key`: "Neófito", "Neophytos")."""
        if self.names is None:
            return None
        if self._sound_keys is None:
            self._sound_keys = {}
            for known in self.names.vocabulary:
                if len(known) >= MIN_WORD:
                    self._sound_keys.setdefault(sound_key(known), known)
        key = sound_key(fold_name(word))
        return self._sound_keys.get(key) if len(key) >= 4 else None

    def _first_name(self, text: str) -> str | None:
        """A person's name that ``text`` (one capitalised word) opens: a saint, a monk or
        a sitter named by the first word of the name ("Neophytos" for "Neophytos the
        Recluse")."""
        wanted = fold_name(text)
        if self.names is None or " " in wanted or len(wanted) < MIN_WORD:
            return None
        keys = self.names.keys
        first = bisect.bisect_left(keys, f"{wanted} ")
        for at in range(first, min(first + FIRST_NAME_KEYS, len(keys))):
            if not keys[at].startswith(f"{wanted} "):
                break
            found = [c for c in self.names.exact(keys[at]) if c.category == "Actor"]
            if found:
                return found[0].name
        return None

    def _unstated(self, text: str) -> Proof:
        """Absent, unless a statement of the graph writes the name (a credit line's "Gift
        of Ruth Carter Stevenson"): then the graph knows it, though no node is named so."""
        words = fold_name(text).split()
        if self.data is not None and (len(words) > 1 or words and words[0] not in self.common):
            # one everyday word ("Girl") in a statement ("gift of the Girl Scouts") says nothing
            if self._statements is None:
                self._statements = stated_texts(self.data.triples)
            stated = stating(self._statements, text)
            if stated is not None:
                return Proof(text, False, f"“{text}” names no node, but the graph's statements "
                             f"write it (“{stated[:80]}”)")
        return Proof(text, True)

    def _continued_proof(self, text: str, question: str) -> Proof | None:
        """:meth:`continued` as a proof with its reading (the rest of the graph's name)."""
        continued = self.continued(text, question)
        if continued is None:
            return None
        found = self.names.exact(continued) if self.names is not None else []
        label = found[0].name if found else continued
        rest = label.split()[1:]
        while rest and fold_name(rest[0]) in NAME_JOINERS:
            rest.pop(0)
        return Proof(text, False, f"“{text}” may end the name “{label}”, spelt otherwise, "
                     f"with the word before it", " ".join(rest) or None)

    def counted_noun(self, text: str, question: str, nouns: frozenset[str]) -> bool:
        """One word in lower case where a count puts its noun ("how many peices by X",
        "number of photogravures"), a slip of a noun of the planner or a word the graph's
        documents hold: the thing counted, not a name ("how many vermeers" stays one)."""
        tokens = [m.group() for m in _WORD.finditer(question)]
        keys = [fold_name(t) for t in tokens]
        words = fold_name(text).split()
        start = _find(keys, words)
        if start is None or len(words) != 1 or not tokens[start].islower() or \
                not _counted_noun(keys, start):
            return False
        word = words[0]
        if slips(word, nouns):
            return True
        return self._in_documents(singularise(word))

    def _in_documents(self, word: str) -> bool:
        """Whether a retrieved document's text holds ``word`` (as a word or its plural)."""
        data = self.data
        if data is None:
            return False
        pattern = re.compile(rf"\b{re.escape(word)}(?:s|es)?\b", re.IGNORECASE)
        for row, _ in data.lexical.search(word, RETRIEVED):
            if pattern.search(data.node(data.doc_ids[row]).get_content()):
                return True
        return False

    def _personal(self, word: str) -> bool:
        """Whether the names holding ``word`` are all actors' (a first name, a surname)."""
        if self.names is None:
            return False
        found = self.names.lookup(word)
        return bool(found) and all(c.category == "Actor" for c in found)

    def _romanised_word(self, text: str) -> str | None:
        """A long word of ``text`` in another script that, in Latin letters, is a word of
        a name of the graph (the graph names it only in English), or None."""
        if latin_words(text) or self.names is None:
            return None
        for word in romanised(text).split():
            if len(word) >= MIN_ROMANISED and word not in self.common and any(
                    word in fold_name(c.name).split() for c in self.names.lookup(word)):
                return word
        return None

    def _all_rare_words(self, text: str, name: str) -> bool:
        """Whether ``name`` holds a near form of each rare word of ``text`` when it has two
        or more ("Berthe Morisot" shares one with "Bubba Morrison, Oil Field Worker": no
        reading; "saint Néophyte" has one rare word, which "Saint Neophytos" holds)."""
        from rapidfuzz import fuzz

        rare = [w for w in fold_name(text).split()
                if len(w) >= MIN_WORD and w not in self.common and w not in NAME_JOINERS]
        if len(rare) < 2:
            return True
        words = fold_name(name).split()
        return all(any(fuzz.ratio(w, v) >= RARE_WORD_RATIO for v in words) for w in rare)

    def _of_kind(self, key: str, expected: Sequence[str]) -> bool:
        """Whether a name of the graph names a node of a kind the reading expected (any,
        when it expected none)."""
        if not expected or self.names is None:
            return True
        return any(c.category in expected for c in self.names.exact(key))

    def completed(self, text: str, question: str) -> str | None:
        """A name of the graph made of ``text`` and up to four words before it in the
        question ("authors of the" + "u s"), if any."""
        if self.names is None:
            return None
        keys = [fold_name(m.group()) for m in _WORD.finditer(question)]
        keys = " ".join(keys).split()  # "u.s." folds to two words
        words = fold_name(text).split()
        start = _find(keys, words)
        if start is None:
            return None
        for before in range(1, min(4, start) + 1):
            phrase = " ".join(keys[start - before:start + len(words)])
            found = self.names.exact(phrase)
            if found:
                return found[0].name
        return None

    def continued(self, text: str, question: str) -> str | None:
        """A name of the graph that a rare word before ``text`` opens and whose other words
        are ``text`` spelt otherwise ("Enkleistra di San Neofito" for "Enkleistra of Saint
        Neophytos", "St" for "Saint"), if any."""
        if self.names is None:
            return None
        from rapidfuzz import fuzz

        keys = " ".join(fold_name(m.group()) for m in _WORD.finditer(question)).split()
        words = fold_name(text).split()
        start = _find(keys, words)
        if start is None:
            return None
        before = [k for k in keys[max(0, start - 3):start] if len(k) >= MIN_WORD]
        if not before:
            return None
        opener = before[-1]
        opened = [k for k in self.names.keys if k.startswith(opener + " ")][:RARE_OPENER + 1]
        if not 0 < len(opened) <= RARE_OPENER:
            return None
        wanted = " ".join(w for w in words if w not in NAME_JOINERS)
        for name in opened:
            rest = " ".join(w for w in name[len(opener) + 1:].split() if w not in NAME_JOINERS)
            if rest and fuzz.ratio(rest, wanted) >= CONTINUED_RATIO:
                return name
        return None

    def trimmed(self, text: str, question: str,
                vocabulary: frozenset[str] | set[str] = frozenset()) -> str | None:
        """``text`` without ordinary words in lower case at its edges, when what is left
        names a node ("number of times moynihan was portrayed" → "moynihan"; "can you lsit
        Paul Colin's works": a slip of "list")."""
        if self.names is None:
            return None
        tokens = [m.group() for m in _WORD.finditer(question)]
        keys = [fold_name(t) for t in tokens]
        words = fold_name(text).split()
        start = _find(keys, words)
        if start is None or len(words) < 2:
            return None
        typed = tokens[start:start + len(words)]
        if [fold_name(t) for t in typed] != words:  # typed otherwise than folded ("o'keeffe")
            return None

        def ordinary(i: int) -> bool:
            return typed[i].islower() and (words[i] in self.common or
                                           self.slip(words[i], vocabulary) is not None)

        first, last = 0, len(words)
        while first < last and ordinary(first):
            first += 1
        while last > first and ordinary(last - 1):
            last -= 1
        if (first, last) == (0, len(words)) or first == last:
            return None
        rest = " ".join(typed[first:last])
        return rest if self.names.lookup(rest, fuzzy=False) else None

    def slip(self, word: str, vocabulary: frozenset[str] | set[str]) -> str | None:
        """The word of the planner's ``vocabulary`` that ``word`` (typed in lower case, no
        word of the graph's names nor a common word) is one slip of a key away from ("ther"
        for "there", "lsit" for "list"), or None: a typing slip is no name."""
        if len(word) < MIN_NAME or word in self.common or word in vocabulary or \
                self.names is not None and _in_sorted(self.names.vocabulary, word):
            return None
        return min(slips(word, vocabulary, SLIP_LETTERS), default=None)

    @staticmethod
    def modifier(text: str, question: str, nouns: frozenset[str],
                 actors: frozenset[str] = frozenset()) -> bool:
        """One word between an article and a noun of the planner ("the Russian artist", "a
        Dutch painter"), or between a question word and a noun of ``actors`` ("which
        Mexican artist": a nationality; "how many Vermeer paintings" names a maker): an
        adjective, not a missing name, unless quoted."""
        folded = fold_name(text).split()
        if len(folded) != 1 or not nouns or any(
                fold_name(t) == folded[0] for t in quoted_titles(question)):
            return False
        tokens = [m.group() for m in _WORD.finditer(question)]
        keys = [fold_name(t) for t in tokens]
        at = _find(keys, folded)
        following = keys[at + 1] if at is not None and at + 1 < len(keys) else ""
        before = keys[at - 1] if at is not None and at > 0 else ""
        if not following:
            return False
        assert at is not None
        if tokens[at + 1][:1].isupper() and sum(t[:1].isupper() for t in tokens) < \
                0.8 * len(tokens):  # "the Kykkos Monastery": a name and its noun, written so
            return False
        if before in {"the", "a", "an"}:
            return following in nouns or singularise(following) in nouns
        return (before in MODIFIED_AFTER or at == 0) and (
            following in actors or singularise(following) in actors)

    @cached_property
    def _types(self) -> frozenset[str]:
        """The graph's type labels and the planner's words of work types, folded, without
        spaces, singular."""
        labels = [label for label, _ in self.data.type_labels()] if self.data else []
        return frozenset(singularise(fold_name(label).replace(" ", ""))
                         for label in (*labels, *THING_TYPE_WORDS))

    def _type_tail(self, text: str, question: str) -> str | None:
        """Why ``text`` is no missing name when it ends with a type of the graph written
        in lower case and its other words name nodes ("Marilyn screenprints"), else None."""
        words = text.split()
        if len(words) < 2 or not words[-1].islower() or self.names is None:
            return None
        last = singularise(fold_name(words[-1]).replace("-", ""))
        rest = " ".join(words[:-1])
        vocabulary = self.names.vocabulary
        known = all(_in_sorted(vocabulary, w) for w in fold_name(rest).split())
        after = re.search(re.escape(text) + r"\s+([^\W\d_][\w-]*)", question)
        # "kitaj planographic prints": the type's first word closes the span
        joined = f"{words[-1]} {singularise(after.group(1))}" \
            if after is not None and after.group(1).islower() else ""
        if not known or not any(last.endswith(t) for t in self._types if len(t) >= 4) and \
                not (joined and self.names.exact(joined, ["Concept"])):
            return None  # "screenprint": a print
        return f"“{words[-1]}” is a type of works of the graph, and the words of “{rest}” are " \
            f"words of its names"

    def unheard(self, text: str) -> bool:
        """Whether a name holds a word no name of the graph has ("Sozomenos", not "World
        Heritage" or "Starry Night", words of other names)."""
        vocabulary = self.names.vocabulary if self.names is not None else []
        return any(len(w) > 3 and not _in_sorted(vocabulary, w)
                   for w in fold_name(text).split())

    def plain_english(self, text: str, question: str) -> bool:
        """Whether ``text`` stands in ``question`` (translated to English) as common English
        words in lower case ("wall" of "peintures murales"): translated or typed so, not an
        untranslated noun of the question's language."""
        words = text.split()
        return bool(words) and text in question and all(
            w.islower() and w in self.common for w in words)

    def name_shaped(self, text: str, question: str,
                    vocabulary: frozenset[str] | set[str] = frozenset(), *,
                    foreign: bool = False, verbs: frozenset[str] = frozenset(),
                    language: str = "en", nouns: frozenset[str] = frozenset()) -> bool:
        """Whether ``text`` stands in ``question`` as a name would (``nouns``: the class
        nouns of the planner, after which a capitalised word names one: "the monastery
        Kykkos")."""
        folded = fold_name(text).split()
        if not folded or len(folded) == 1 and len(folded[0]) < MIN_NAME:
            return False
        if any(fold_name(t) == " ".join(folded) for t in quoted_titles(question)):
            return True
        tokens = [m.group() for m in _WORD.finditer(question)]
        keys = [fold_name(_POSSESSIVE_END.sub("", t)) for t in tokens]  # "Sherman's"
        start = _find(keys, folded)
        if start is None and folded[0] in AUXILIARIES:
            return False  # "I'm researching interwar advertising": "am …" names nothing
        if start is None:  # rewritten words (a contraction): judged by the words alone
            return not foreign and any(w not in self.common and w not in vocabulary
                                       and len(w) > 2 for w in folded)
        span = tokens[start:start + len(folded)]
        first = start == 0
        if len(span) == 1 and span[0].islower() and self.slip(folded[0], vocabulary):
            return False  # "how many posters are ther": a slip of "there"
        if foreign and (not any(t[:1].isupper() for t in span) or first and len(span) == 1
                        or any(t.islower() and len(t) > 3 for t in span)):
            # names are written with capitals in every language with a lexicon: a word in
            # lower case is one the lexicon lacks ("τοιχογραφιών", "erfassten Bildszenen"),
            # and a capital opening the question is the sentence's ("Qual è …")
            return False
        ordinary = len(span) == 1 and span[0].islower() and (
            folded[0] in self.common or singularise(folded[0]) in self.common)
        if ordinary and start > 0 and keys[start - 1] in {"the", "a", "an"} \
                and (start < 2 or keys[start - 2] not in STRONG_CUES):
            # one ordinary word after an article ("does the center hold"): a common noun
            return False
        if ordinary and start > 0 and keys[start - 1] in OWNERS:
            return False  # "my uncle collected …": a common noun of the asker's
        if language in CAPITALISED_NOUNS and len(span) == 1 and before_cue(keys, start) is None \
                and not (start > 0 and (keys[start - 1] in PLACE_WORDS or
                                        singularise(keys[start - 1]) in nouns)):
            # German writes every noun with a capital ("Wie viele Aquarelle …"); one the
            # lexicon turned into English stands before a name ("das Kloster Kykkos": "the
            # monastery Kykkos"), as does "in" ("in Kiti")
            return False
        # in a question typed in title case or capitals, capitals say nothing
        capitals = len(tokens) < 3 or sum(t[:1].isupper() for t in tokens) < 0.8 * len(tokens)
        if capitals and any(t[:1].isupper() for t in span[1 if first else 0:]):
            return True
        if first and span[0][:1].isupper() and folded[0] not in self.common:
            return True
        before = keys[start - 1] if start > 0 else ""
        if before in {"the", "a", "an"} and start > 1:
            before = keys[start - 2]
        after = keys[start + len(folded)] if start + len(folded) < len(keys) else ""
        if ordinary and before in NAME_CUES - STRONG_CUES and ADVERB.search(folded[0]):
            return False  # "come from originally" (but "portraits of picasso")
        if before in NAME_CUES or not foreign and (before in verbs and not ordinary
                                                   or after in verbs and (
                                                       not ordinary or before in SUBJECT_AUX
                                                       or PARTICIPLE.search(after))):
            # "did picasso paint": a subject between an auxiliary and its verb, even a word
            # of the dictionary; "jury members of", "retrospective: opening": no subject
            # after a verb, an ordinary word is the verb's ("held here", "painted sunflowers")
            return True
        last = span[-1]
        if re.search(r"['’]s?$", last) and len(last) > 2 and not foreign:
            return True
        return not foreign and any(w not in self.common and w not in vocabulary and not w.isdigit()
                                   and len(w) > 2 for w in folded)

    def close_name(self, text: str, foreign: bool = False) -> str | None:
        """A name of the name table close to ``text`` (a spelling beyond one edit, another
        transliteration: "Nikosia" for "Nicosia")."""
        if self.names is None:
            return None
        from rapidfuzz import fuzz, process

        wanted = fold_name(text)
        single = " " not in wanted and len(wanted) >= MIN_WORD and (
            foreign or wanted not in self.common)  # "mother" is no misspelt "mothers"
        choices = self.names.vocabulary if single else self.names.keys
        cutoff = (CLOSE_FOREIGN_RATIO if foreign else CLOSE_WORD_RATIO) if single \
            else CLOSE_RATIO
        hits = process.extract(wanted, choices, scorer=fuzz.ratio, score_cutoff=cutoff,
                               limit=2)
        # the word itself is known: the planner saw it and found it of another kind
        found = next((str(h[0]) for h in hits if h[0] != wanted), None)
        if found is None and single and foreign:
            found = inflected(wanted, self.names.vocabulary)
        return found

    def close_document(self, text: str, foreign: bool = False) -> str | None:
        """The label of a retrieved document close to ``text``, if any."""
        data = self.data
        if data is None:
            return None
        from rapidfuzz import fuzz

        wanted = fold_name(text)
        rows: list[int] = [r for r, _ in data.lexical.search(text, RETRIEVED)]
        try:
            rows += [r for r, _ in data.dense.search(data.embed_query(text), RETRIEVED)]
        except Exception as exc:  # noqa: BLE001 - no model here: the lexical channel alone
            logger.debug("dense search for %r failed (%s); lexical only", text, exc)
        single = " " not in wanted and len(wanted) >= MIN_WORD and (
            foreign or wanted not in self.common)
        word_ratio = CLOSE_FOREIGN_RATIO if foreign else CLOSE_WORD_RATIO
        for row in dict.fromkeys(rows):
            label = data.meta.labels[row]
            forms = _forms(label)
            if any(fuzz.ratio(wanted, form) >= CLOSE_RATIO and form != wanted
                   for form in forms):
                return label
            # the typed words ending a person's longer name ("mies van der rohe" in
            # "Ludwig Mies van der Rohe"): the graph has the person (a name inside a title,
            # a credit line or an event's label stays absent, and the answer says where)
            if len(wanted.split()) >= 2 and data.meta.categories[row] == "Actor" and any(
                    f" {form}".endswith(f" {wanted}") for form in forms):
                return label
            # one word: another spelling of a word of the label ("Nikosia", "Nicosia")
            if single and any(fuzz.ratio(wanted, word) >= word_ratio and word != wanted
                              for form in forms for word in form.split()):
                return label
        return None


def _forms(label: str) -> list[str]:
    """A label and its main part (before a bracket or a comma)."""
    folded = fold_name(label)
    head = fold_name(re.split(r"[(,;:]", label, maxsplit=1)[0])
    return list(dict.fromkeys(f for f in (folded, head) if f))


QUANTIFIERS = frozenset({"both", "either", "neither", "each", "every", "all"})


MODIFIED_AFTER = frozenset({"the", "a", "an", "which", "what", "many", "any", "all", "some",
                            "other", "those", "these"})
"""Words after which one word before a noun describes it ("which Mexican artist")."""
COUNTED = (("how", "many"), ("number", "of"), ("count", "of"), ("total", "of"))
"""Words before the noun a question counts."""


COUNTED_THEN = frozenset({"", "by", "in", "of", "are", "is", "were", "was", "from", "there",
                          "made", "did", "does", "do", "have", "has", "on", "at", "with",
                          "for", "held", "shown", "created", "painted"})
"""Words after a counted noun ("how many peices by X"); another noun after it makes it a
modifier ("how many kandinsky works": a name)."""


def _counted_noun(keys: Sequence[str], start: int) -> bool:
    """Whether ``keys[start]`` is the noun a count asks for ("how many peices")."""
    after = keys[start + 1] if start + 1 < len(keys) else ""
    return start >= 2 and tuple(keys[start - 2:start]) in COUNTED and after in COUNTED_THEN


def before_cue(keys: Sequence[str], start: int) -> str | None:
    """The cue word ("by", "von", "named") standing before ``keys[start]``, past an article."""
    before = keys[start - 1] if start > 0 else ""
    if before in {"the", "a", "an", "der", "die", "das", "dem", "den"} and start > 1:
        before = keys[start - 2]
    return before if before in NAME_CUES or before in FOREIGN_CUES else None


def _in_sorted(words: Sequence[str], word: str) -> bool:
    """Whether ``word`` is in the sorted list ``words``."""
    at = bisect.bisect_left(words, word)
    return at < len(words) and words[at] == word
