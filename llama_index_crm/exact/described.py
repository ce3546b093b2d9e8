"""A node named by a description rather than by its name: a class noun with the words of its
name around it ("the church of the Archangel in Pedoulas", "the Archangel church at Pedoulas",
"the Transfiguration church in Palaichori" for "Church of the Archangel Michael, Pedoulas").

:class:`DescribedNames` finds the one node of the noun's kind whose names hold every other
word of such a phrase, a place word also standing for the place's own name ("Πεδουλά": the
village "Pedoulas", which the church's English name ends with). It reads nothing itself: the
answerer tries the question again with the phrase replaced by the node's name, as a reading
that is judged on its own words and whose empty result proves nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import NameRow, fold_name

__all__ = ["Described", "DescribedNames"]

PLACE_WORDS = frozenset({"in", "at", "near", "on", "a", "à"})
"""Words before the place a description ends with ("… in Pedoulas"); a word after one of
them must name a place."""
JOINERS = PLACE_WORDS | frozenset({"of", "the", "an", "de", "du", "des", "la", "le", "di",
                                   "del", "della", "von", "der"})
"""Words between the noun and the words of the name; never a word to be matched."""
MAX_BEFORE = 3
"""Words before the noun that may belong to the description ("the Holy Cross church")."""
MAX_AFTER = 8
"""Words after the noun that may belong to it ("church of the Holy Cross of Agiasmati")."""


@dataclass(frozen=True, slots=True)
class Described:
    """A phrase of a question (token span ``start``–``end``) and the node it describes."""

    start: int
    end: int
    node: str
    label: str


class DescribedNames:
    """The nodes whose names hold the words of a description (built on first use).

    Args:
        rows: every name of every node (:class:`~llama_index_crm.storage.names.NameRow`).
        variants: the forms a folded word may take in a name (singular, Greek cases).
        places: the labels of the places a folded word names exactly, else none.
    """

    def __init__(self, rows: Sequence[NameRow],
                 variants: Callable[[str], Collection[str]],
                 places: Callable[[str], Sequence[str]]) -> None:
        self.rows = rows
        self.variants = variants
        self.places = places
        self._nodes: dict[str, set[str]] | None = None
        self._words: dict[str, frozenset[str]] = {}
        self._labels: dict[str, str] = {}
        self._kinds: dict[str, str] = {}

    def _index(self) -> dict[str, set[str]]:
        if self._nodes is None:
            nodes: dict[str, set[str]] = {}
            words: dict[str, set[str]] = {}
            for row in self.rows:
                if row.kind == "identifier":
                    continue
                own = fold_name(row.name).split()
                words.setdefault(row.node, set()).update(own)
                for word in own:
                    nodes.setdefault(word, set()).add(row.node)
                self._kinds.setdefault(row.node, row.category)
                if row.kind == "label":
                    self._labels[row.node] = row.name
                else:
                    self._labels.setdefault(row.node, row.name)
            self._words = {n: frozenset(w) for n, w in words.items()}
            self._nodes = nodes
        return self._nodes

    def holding(self, word: str) -> set[str]:
        """Nodes one of whose names has ``word`` (folded) in one of its forms, or every
        word of the name of a place ``word`` names."""
        index = self._index()
        found: set[str] = set()
        for form in {word, singularise(word), *self.variants(word)}:
            found |= index.get(form, set())
        for place in self.places(word):
            words = fold_name(place).split()
            if words and word not in words:
                sets = [index.get(w, set()) for w in words]
                found |= set.intersection(*sets) if sets else set()
        return found

    def find(self, tokens: Sequence[str], noun_at: int, category: str,
             stop: Callable[[str], bool], typed: Callable[[str, str], bool]) -> Described | None:
        """The one node of ``category`` a description around the class noun
        ``tokens[noun_at]`` names: the longest phrase (noun, up to :data:`MAX_BEFORE` words
        before it, joiners and words after it, none a word ``stop`` says is the
        question's) all of whose other words its names hold, where one node typed by the
        noun, or named with it, is named after by the others that fit."""
        noun = fold_name(tokens[noun_at])
        first = noun_at
        while first > 0 and noun_at - first < MAX_BEFORE and _word(tokens[first - 1]) and \
                not stop(fold_name(tokens[first - 1])):
            first -= 1
        last = noun_at + 1
        while last < len(tokens) and last - noun_at <= MAX_AFTER and _word(tokens[last]) and (
                fold_name(tokens[last]) in JOINERS or not stop(fold_name(tokens[last]))):
            last += 1
        spans = sorted(((s, e) for s in range(first, noun_at + 1)
                        for e in range(noun_at + 1, last + 1)), key=lambda p: p[0] - p[1])
        for start, end in spans:
            if end > noun_at + 1 and fold_name(tokens[end - 1]) in JOINERS:
                continue
            words = [fold_name(t) for i, t in enumerate(tokens[start:end], start)
                     if i != noun_at and fold_name(t) not in JOINERS]
            placed = next((i for i in range(noun_at + 1, end)
                           if fold_name(tokens[i]) in PLACE_WORDS), end)
            named = [fold_name(t) for t in [*tokens[start:noun_at], *tokens[noun_at + 1:placed]]
                     if fold_name(t) not in JOINERS]
            where = [fold_name(t) for t in tokens[placed:end] if fold_name(t) not in JOINERS]
            if not named or not all(self.places(w) for w in where):
                continue  # "paintings at the Amon Carter": no place, no description
            found = self._described(words, noun, category, typed)
            if found is not None:
                return Described(start, end, found, self._labels.get(found, found))
        return None

    def _described(self, words: Sequence[str], noun: str, category: str,
                   typed: Callable[[str, str], bool]) -> str | None:
        fits = set.intersection(*(self.holding(w) for w in words))
        fits = {n for n in fits if self._kinds.get(n) == category}
        nouns = {noun, singularise(noun)}
        kept = [n for n in sorted(fits) if nouns & self._words.get(n, frozenset())
                or typed(n, singularise(noun))]
        folded = {n: f" {fold_name(self._labels.get(n, ''))} " for n in kept}
        after = [n for n in kept if all(folded[n] in f for m, f in folded.items() if m != n)]
        return after[0] if len(after) == 1 else None


def _word(token: str) -> bool:
    return token[:1].isalnum()
