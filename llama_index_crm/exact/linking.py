"""Names in a question linked to graph nodes, with scores; ties stay an ambiguity.

:class:`NameIndex` is built from the name table (``names.parquet``: labels, appellations,
identifiers of every categorised node). A phrase is compared with every name through keys:

=================  =====  ==============================================================
how                score  example
=================  =====  ==============================================================
``exact``          1.00   "benjamin west" ↔ "Benjamin West" (case, accents, punctuation)
``stripped``       0.98   "panagia phorbiottissa" ↔ "Panagia Phorbiottissa (Asinou)"
``inverted``       0.98   "constance stuart larrabee" ↔ "Larrabee, Constance Stuart"
``stop-words``     0.95   "battle at la hogue" ↔ "The Battle at La Hogue"
``inflected``      0.95   "σολέας" ↔ "Σολέα" (a Greek name in another case: genitive,
                          accusative)
``short name``     0.90   "constance larrabee" ↔ "Constance Stuart Larrabee" (first and last)
``surname``        0.85   "gainsborough" ↔ "Thomas Gainsborough" (a person's last name)
``given name``     0.85   "philip goul" ↔ "Philippos Goul" (surname, a first name it begins)
``acronym``        0.85   "ycba" ↔ "Yale Center for British Art" (an organisation's initials)
``qualifier``      0.85   "asinou" ↔ "Panagia Phorbiottissa (Asinou)" (a proper name in brackets)
``misspelling``    0.80   "whistlr" ↔ "Whistler" (edit distance ≤ 1 from 5 letters, ≤ 2
                          from 9), less 0.05 an edit
``partial``        0.75   "the urns casting big shells" ↔ a longer title it begins or ends
=================  =====  ==============================================================

Several nodes with the best score make an ambiguity; the caller decides (a chat asks back).

>>> from llama_index_crm.storage.names import NameRow
>>> index = NameIndex([NameRow("ex:w", "West, Benjamin", "appellation", "Actor"),
...                    NameRow("ex:t", "The Battle at La Hogue", "label", "Thing")])
>>> [(c.node, c.how) for c in index.lookup("benjamin west")]
[('ex:w', 'inverted')]
>>> [(c.node, c.how, c.score) for c in index.lookup("Wset")]
[]
>>> [(c.node, c.how) for c in index.lookup("west")]
[('ex:w', 'surname')]
>>> [(c.node, c.how) for c in index.lookup("battle at la hoge")]
[('ex:t', 'misspelling')]
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Levenshtein

from llama_index_crm.exact.person_names import (
    NAME_SUFFIXES,
    generation_penalty,
    max_edits,
    person_keys,
    qualified_penalty,
    same_given_name,
)
from llama_index_crm.exact.plan import Anchor
from llama_index_crm.query.conversation import word_set
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import NameRow, fold_name

__all__ = ["MAX_SPAN", "VOCABULARY_CATEGORIES", "Candidate", "Mention", "Missing", "NameIndex",
           "TrialLink", "Unresolved", "content_key", "link_name", "max_edits", "mentions",
           "mentions_forms"]

_GREEK_ENDINGS = (("ασ", ("α",)), ("ησ", ("η",)), ("ου", ("οσ", "ο")), ("ο", ("οσ",)),
                  ("η", ("ησ",)), ("α", ("ασ",)), ("ων", ("εσ", "οι", "α")))
"""Folded Greek case endings and the endings of the forms names are labelled in (the
genitive "Σολέας" of "Σολέα", "Αγίου" of "Άγιος")."""


def greek_cases(key: str, most: int = 16) -> list[str]:
    """Other case forms of a folded name written in Greek letters (each word's ending
    swapped for the nominative's); [] for other scripts.

    >>> greek_cases("σολεασ")
    ['σολεα']
    >>> "αγιοσ νικολαοσ" in greek_cases("αγιου νικολαου")
    True
    """
    words = key.split()
    if not words or not any("\u0370" <= ch <= "\u03ff" for ch in key):
        return []
    options = []
    for word in words:
        forms = [word]
        for ending, others in _GREEK_ENDINGS:
            if word.endswith(ending) and len(word) > len(ending) + 2:
                forms += [word[:-len(ending)] + o for o in others]
                break
        options.append(forms)
    out: list[str] = []
    for combo in itertools.product(*options):
        form = " ".join(combo)
        if form != key:
            out.append(form)
        if len(out) >= most:
            break
    return out


SCORES = {"exact": 1.0, "stripped": 0.98, "inverted": 0.98, "stop-words": 0.95, "inflected": 0.95,
          "short name": 0.9, "initials": 0.88, "surname": 0.85, "given name": 0.85, "acronym": 0.85,
          "qualifier": 0.85, "misspelling": 0.80, "partial": 0.75, "word": 0.7}
"""Score of a candidate by how its name matched."""
EDIT_PENALTY = 0.05

"""Subtracted from the misspelling score per edit."""
MAX_SPAN = 24
"""Longest phrase (in words) the scan compares with names."""
MIN_PARTIAL_WORDS = 3
"""A partial title match needs at least this many content words."""
MIN_ACRONYM_WORDS = 3
"""Names of at least this many words are also known by their initials."""
SHARED_NAME_NODES = 3
"""Nodes of one kind bearing exactly one name, from which on they are read as one name
recorded in many records (two are two people who share a name: asked which)."""
RARE_WORD_NODES = 3
"""A lone word may name a node when it is a word of the names of at most this many nodes
(of the categories asked for), or of one name that all the others contain ("podithou" →
Panagia Podithou, after which its frescoes are named); "church" names none."""
MIN_WORD_CHARS = 5
STOP_WORDS = word_set("the a an of and in on at to for with by from or")
"""Words a title may gain or lose ("Battle at La Hogue" ↔ "The Battle at La Hogue")."""
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_LIFE_DATES = re.compile(r",?\s*(?:b\.|d\.|active|fl\.|born|died)?\s*\d{3,4}\s*[-–]\s*\d{0,4}\s*$")


def content_key(key: str) -> str:
    """A folded key without stop words ("the battle at la hogue" → "battle la hogue")."""
    return " ".join(w for w in key.split() if w not in STOP_WORDS)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A node a phrase may name.

    Attributes:
        node: the node's IRI.
        name: the name of the node that matched, as written in the graph.
        category: the node's fundamental category.
        score: how well it matched (see the module table).
        how: which key matched.
    """

    node: str
    name: str
    category: str
    score: float
    how: str


@dataclass(frozen=True, slots=True)
class Mention:
    """A phrase of a question that names nodes.

    Attributes:
        start / end: token positions (end exclusive) in the tokens scanned.
        text: the phrase as written.
        candidates: best first.
    """

    start: int
    end: int
    text: str
    candidates: tuple[Candidate, ...]

    @property
    def score(self) -> float:
        """The best candidate's score."""
        return self.candidates[0].score if self.candidates else 0.0


def _variants(row: NameRow) -> Iterable[tuple[str, str]]:
    """(key, how) for one name."""
    full = fold_name(row.name)
    yield full, "exact"
    stripped = fold_name(_LIFE_DATES.sub("", _PARENTHESES.sub(" ", row.name)))
    if stripped and stripped != full:
        yield stripped, "stripped"
    for inner in _PARENTHESES.findall(row.name):
        words = inner[1:-1].split()
        # a proper name in brackets names the node too ("Panagia Phorbiottissa (Asinou)"),
        # a note in brackets does not ("(detail)", "(recto)", "(1820)")
        if words and all(w[:1].isupper() for w in words if len(w) > 3) and \
                any(len(w) > 3 and w[:1].isalpha() for w in words):
            yield fold_name(inner), "qualifier"
    if row.category == "Place":  # "St. Louis, Missouri", "London, England": "st louis"
        head = fold_name(_PARENTHESES.sub(" ", row.name).split(",")[0])
        if head and head != full:
            yield head, "qualifier"
        return
    inverted = _inverted(row.name)
    if inverted:
        yield inverted, "inverted"


def _inverted(name: str) -> str | None:
    """The folded key of "Surname, Given Names" read in order ("Wilson, Charles Banks" →
    "charles banks wilson"); None when the name is not written that way ("Thomas Cadell,
    the younger" has a suffix after its comma)."""
    parts = [p.strip() for p in _PARENTHESES.sub(" ", name).split(",")]
    if len(parts) != 2 or not all(parts) or any(len(p.split()) > 4 for p in parts):
        return None
    if set(fold_name(parts[1]).split()) <= NAME_SUFFIXES:
        return None
    return fold_name(f"{parts[1]} {parts[0]}")


class NameIndex:
    """Every name of the graph's nodes, by key, for linking phrases of questions.

    Args:
        rows: the name table.
        person: whether a node is a person-like actor whose surname may stand alone
            (default: every Actor).
    """

    def __init__(self, rows: Sequence[NameRow],
                 person: Callable[[NameRow], bool] | None = None) -> None:
        self.rows = list(rows)
        is_person = person or (lambda r: r.category == "Actor")
        self._labelled: set[str] = set()
        self._acronyms: dict[str, set[int]] = {}
        self._keys: dict[str, list[tuple[int, str]]] = {}
        self._added: set[tuple[str, int]] = set()
        self._surnames: dict[str, set[int]] = {}
        for i, row in enumerate(self.rows):
            a_person = is_person(row)
            # "Wilson, Charles Banks": its surname and short name come from the name read
            # in order, not from the last word as written ("banks")
            in_order = a_person and _inverted(row.name) is not None
            for key, how in _variants(row):
                if not key:
                    continue
                self._add(key, i, how)
                content = content_key(key)
                if content and content != key:
                    self._add(content, i, "stop-words")
                if a_person:
                    if not in_order or how in {"inverted", "qualifier"}:
                        self._person_keys(i, key, how)
                    self._acronym_keys(i, key)
        self._display: dict[str, str] = {}
        self._labels: dict[str, int] = {}
        for row in self.rows:  # a node's own label, else its first name
            if row.kind == "label" and row.node not in self._labelled:
                self._display[row.node] = row.name
                self._labelled.add(row.node)
            if row.kind == "label":
                self._labels[row.node] = self._labels.get(row.node, 0) + 1
            self._display.setdefault(row.node, row.name)
        self._added.clear()
        # initials ("j s copley") are looked up exactly, never compared as spellings
        self._sorted = sorted(k for k, entries in self._keys.items()
                              if any(how != "initials" for _, how in entries))
        self._by_category: dict[str | None, list[str]] = {}
        self._vocabulary = sorted({w for k in self._sorted for w in k.split()})
        self._vocab_set = frozenset(self._vocabulary)
        self._words: dict[str, set[int]] | None = None

    def _person_keys(self, row: int, key: str, how: str) -> None:
        """Surname, name without suffixes, first and last name of a person."""
        surname, keys = person_keys(self.rows[row].name, key, how)
        if surname:
            self._surnames.setdefault(surname, set()).add(row)
        for other, kind in keys:
            self._add(other, row, kind)

    def _acronym_keys(self, row: int, key: str) -> None:
        """Initials of a name of three words or more, with and without its stop words
        ("ycfba", "ycba" for Yale Center for British Art); not for persons' names."""
        words = key.split()
        if len(words) < MIN_ACRONYM_WORDS or self.rows[row].kind not in {"label", "alt"}:
            return
        for kept in (words, [w for w in words if w not in STOP_WORDS],
                     words[1:] if words[0] in {"the", "a", "an"} else words):  # "moma"
            initials = "".join(w[0] for w in kept)
            if len(initials) >= MIN_ACRONYM_WORDS and initials not in self._keys:
                self._acronyms.setdefault(initials, set()).add(row)

    def _add(self, key: str, row: int, how: str) -> None:
        if (key, row) not in self._added:  # a set: a name shared by 10,000 rows stays linear
            self._added.add((key, row))
            self._keys.setdefault(key, []).append((row, how))

    # -- look-ups --------------------------------------------------------------------------
    def knows(self, word: str) -> bool:
        """Whether a folded word occurs in some name."""
        return word in self._vocab_set

    def exact(self, phrase: str, categories: Collection[str] | None = None) -> list[Candidate]:
        """Candidates whose name matches ``phrase`` by a key (no surname, no misspelling)."""
        key = fold_name(phrase)
        found = self._from_keys([key, content_key(key)], categories)
        return found

    def lookup(self, phrase: str, categories: Collection[str] | None = None, *,
               surname: bool = True, fuzzy: bool = True,
               partial: bool = True) -> list[Candidate]:
        """Candidates for a phrase, best first; the best tier only is kept when it is exact.

        Args:
            phrase: words of a question.
            categories: only nodes of these categories.
            surname: a lone surname may name a person.
            fuzzy: small misspellings are forgiven.
            partial: a phrase may be the start or end of a longer title.
        """
        key = fold_name(phrase)
        if not key:
            return []
        found = self._from_keys([key, content_key(key)], categories)
        if found:
            return found
        found = self._inflected(key, categories)
        if found:
            return found
        if surname:
            found = self._surname(key, categories)
            if found:
                return found
            if " " not in key:
                found = self._candidates(((r, "acronym", SCORES["acronym"])
                                          for r in self._acronyms.get(key, ())), categories)
                if found:
                    return found
        if fuzzy:
            found = self._fuzzy(key, categories, surname)
            if found:
                return found
        if not partial:
            return []
        return self._partial(key, categories) or self._word(key, categories)

    def _word(self, key: str, categories: Collection[str] | None) -> list[Candidate]:
        """The nodes whose names have the lone word ``key``, when they are few."""
        if " " in key or len(key) < MIN_WORD_CHARS or key in STOP_WORDS:
            return []
        if self._words is None:  # made on the first lone word: most questions never need it
            words: dict[str, set[int]] = {}  # whole before it is seen (other threads read it)
            for name_key, pairs in self._keys.items():
                for word in set(name_key.split()):
                    words.setdefault(word, set()).update(r for r, _ in pairs)
            self._words = words
        found = self._candidates(((r, "word", SCORES["word"])
                                  for r in sorted(self._words.get(key, ()))), categories)
        if len({c.node for c in found}) <= RARE_WORD_NODES:
            return found
        # many names have the word because they are named after one of them ("Communion of
        # the Apostles in the apse of the Panagia Podithou"): that one is meant
        keys = {c.node: f" {fold_name(c.name)} " for c in found}
        named_after = [c for c in found
                       if all(keys[c.node] in k for n, k in keys.items() if n != c.node)]
        return named_after if len(named_after) == 1 else []

    def _candidates(self, pairs: Iterable[tuple[int, str, float]],
                    categories: Collection[str] | None) -> list[Candidate]:
        best: dict[str, Candidate] = {}
        for row_id, how, score in pairs:
            row = self.rows[row_id]
            if categories is not None and row.category not in categories:
                continue
            old = best.get(row.node)
            if old is None or score > old.score:
                best[row.node] = Candidate(row.node, row.name, row.category, round(score, 4),
                                           how)
        return sorted(best.values(), key=lambda c: (-c.score, c.name, c.node))

    def _inflected(self, key: str, categories: Collection[str] | None) -> list[Candidate]:
        """Candidates whose name is ``key`` (folded, Greek) in another case."""
        return self._candidates(((r, "inflected", SCORES["inflected"])
                                 for form in greek_cases(key)
                                 for r, _ in self._keys.get(form, ())), categories)

    def _from_keys(self, keys: Iterable[str],
                   categories: Collection[str] | None) -> list[Candidate]:
        pairs = []
        for n, key in enumerate(dict.fromkeys(k for k in keys if k)):
            for row_id, how in self._keys.get(key, ()):
                score = SCORES[how] if n == 0 else min(SCORES[how], SCORES["stop-words"])
                pairs.append((row_id, how if n == 0 else "stop-words",
                              score - self._generation(row_id, key)))
        return self._candidates(pairs, categories)

    def _surname(self, key: str, categories: Collection[str] | None) -> list[Candidate]:
        first, _, rest = key.partition(" ")
        if rest and len(first) >= 3:  # "philip goul": a surname after a first name variant
            found = self._candidates(((r, "given name", SCORES["given name"])
                                      for r in self._surnames.get(rest, ())
                                      if same_given_name(first, self.rows[r].name)),
                                     categories)
            if found:
                return found
        rows = self._surnames.get(key, ())
        if not rows and key.endswith("s") and len(key) > 4:  # "whistlers": his works
            rows = self._surnames.get(key[:-1], ())
        return self._candidates(((r, "surname", SCORES["surname"] - self._qualified(r))
                                 for r in rows), categories)

    def _generation(self, row: int, key: str) -> float:
        return generation_penalty(self.rows[row].name, key)

    def _qualified(self, row: int) -> float:
        return qualified_penalty(self.rows[row].name)

    def corrections(self, word: str) -> list[tuple[str, int]]:
        """Words of the graph's names within :func:`max_edits` of ``word``, nearest first."""
        limit = max_edits(word)
        if not limit or word in self._vocab_set or word.isdigit():
            return []
        hits = process.extract(word, self._vocabulary, scorer=Levenshtein.distance,
                               score_cutoff=limit, limit=8)
        return sorted(((str(w), int(d)) for w, d, _ in hits), key=lambda x: (x[1], x[0]))

    def _fuzzy(self, key: str, categories: Collection[str] | None,
               surname: bool) -> list[Candidate]:
        words = key.split()
        options = []
        for word in words:
            fixes = self.corrections(word)
            options.append([(word, 0)] + fixes[:3])
        pairs: list[tuple[int, str, float]] = []
        for combo in itertools.islice(itertools.product(*options), 64):
            edits = sum(d for _, d in combo)
            if not edits:
                continue
            fixed = " ".join(w for w, _ in combo)
            score = SCORES["misspelling"] - EDIT_PENALTY * (edits - 1)
            for row_id, _ in [*self._keys.get(fixed, ()),
                              *self._keys.get(content_key(fixed), ())]:
                pairs.append((row_id, "misspelling", score))
            if surname and len(combo) <= 2:
                for row_id in self._surnames.get(fixed, ()):
                    pairs.append((row_id, "misspelling", score - EDIT_PENALTY))
        found = self._candidates(pairs, categories)
        if found or len(key) < 5:
            return found
        # a misspelling inside one long word of a multi-word name: compare whole keys
        for probe in dict.fromkeys([key, content_key(key)]):
            hits = process.extract(probe, self._sorted, scorer=Levenshtein.distance,
                                   score_cutoff=max_edits(probe.replace(" ", "")), limit=8)
            for hit, distance, _ in hits:
                score = SCORES["misspelling"] - EDIT_PENALTY * (int(distance) - 1)
                pairs += [(r, "misspelling", score) for r, _ in self._keys.get(str(hit), ())]
        return self._candidates(pairs, categories)

    def _partial(self, key: str, categories: Collection[str] | None) -> list[Candidate]:
        content = content_key(key)
        if len(content.split()) < MIN_PARTIAL_WORDS:
            return []
        pairs = []
        start = bisect.bisect_left(self._sorted, content)
        for candidate in self._sorted[start:start + 200]:
            if not candidate.startswith(content):
                break
            if candidate.startswith(content + " "):
                pairs += [(r, "partial", SCORES["partial"]) for r, _ in self._keys[candidate]]
        if not pairs:
            suffix = " " + content
            pairs = [(r, "partial", SCORES["partial"]) for k in self._sorted
                     if k.endswith(suffix) for r, _ in self._keys[k]]
        return self._candidates(pairs, categories)

    def closest(self, phrase: str, categories: Collection[str] | None = None,
                n: int = 3) -> list[str]:
        """Names of the graph nearest to ``phrase`` (for "not found; closest names: …"),
        among nodes of the first of ``categories`` that has any."""
        key = fold_name(phrase)
        if not key:
            return []
        for category in [*(categories or ()), None][:2 if categories else 1]:
            keys = self._category_keys(category)
            names: list[str] = []
            for hit, _, _ in process.extract(key, keys, scorer=fuzz.ratio, limit=40):
                for row_id, _ in self._keys.get(str(hit), ()):
                    row = self.rows[row_id]
                    shown = self.display(row.node)
                    if (category is None or row.category == category) and shown not in names:
                        names.append(shown)
                if len(names) >= n:
                    break
            if names:
                return names[:n]
        return []

    def display(self, node: str) -> str:
        """The name to show for a node: its label, else its first name."""
        return self._display.get(node, node)

    def _category_keys(self, category: str | None) -> list[str]:
        found = self._by_category.get(category)
        if found is None:
            found = sorted({k for k, entries in self._keys.items()
                            if any(how != "initials" for _, how in entries) and (
                                category is None or any(self.rows[r].category == category
                                                        for r, _ in entries))})
            self._by_category[category] = found
        return found

    def containing(self, phrase: str, limit: int = 3) -> list[Candidate]:
        """Nodes whose name contains ``phrase`` as whole words ("Joshua Reynolds" in the
        title "Sir Joshua Reynolds and His Sister")."""
        words = fold_name(phrase).split()
        for probe in dict.fromkeys([" ".join(words), words[-1] if words else ""]):
            if len(probe) < 4:
                continue
            key = f" {probe} "
            pairs = [(r, "partial", SCORES["partial"]) for k in self._sorted
                     if key in f" {k} " for r, _ in self._keys[k]]
            if pairs:
                return self._candidates(pairs, None)[:limit]
        return []

    @property
    def keys(self) -> list[str]:
        """Every folded name, sorted."""
        return self._sorted

    @property
    def vocabulary(self) -> list[str]:
        """Every word of every folded name, sorted."""
        return self._vocabulary

    # -- scanning a question ---------------------------------------------------------------
    def scan(self, words: Sequence[str], skip: Callable[[Sequence[str]], bool] | None = None,
             max_span: int = MAX_SPAN) -> list[Mention]:
        """Non-overlapping phrases of ``words`` (folded tokens) that name nodes exactly.

        Longer phrases win over shorter ones of equal score; ``skip`` rejects phrases made
        only of question vocabulary ("works", "the artist").
        """
        found: list[Mention] = []
        greek = bool(greek_cases(" ".join(words), most=1))
        for i in range(len(words)):
            for j in range(min(len(words), i + max_span), i, -1):
                span = words[i:j]
                if skip is not None and skip(span):
                    continue
                candidates = self.exact(" ".join(span)) or (
                    self._inflected(" ".join(span), None) if greek else [])  # "της Σολέας"
                if candidates:
                    found.append(Mention(i, j, " ".join(span), tuple(candidates)))
        found.sort(key=lambda m: (-(m.end - m.start), -m.score, m.start))
        chosen: list[Mention] = []
        taken: set[int] = set()
        for mention in found:
            positions = set(range(mention.start, mention.end))
            if positions & taken:
                continue
            chosen.append(mention)
            taken |= positions
        return sorted(chosen, key=lambda m: m.start)


def mentions(text: str, name: str) -> bool:
    """Whether a folded text names a folded name: its words in order, others between
    ("dr roland and florence lamb" names "roland lamb").

    >>> mentions("gift of dr roland and florence lamb", "roland lamb"), mentions("x", "y")
    (True, False)
    """
    if f" {name} " in f" {text} ":
        return True
    words = iter(text.split())
    return all(any(w == part for w in words) for part in name.split())


def mentions_forms(text: str, name: str) -> bool:
    """:func:`mentions`, singular and plural alike ("lions" in "boone and mountain lion").

    >>> mentions_forms("boone and mountain lion", "lions"), mentions("grizzlies", "grizzly")
    (True, False)
    """
    stems = [singularise(w) for w in name.split()]
    if not all((stem[:-1] if len(stem) > 3 else stem) in text for stem in stems):
        return False  # a word's stem is not even in the text: no need to cut its words
    return mentions(" ".join(map(singularise, text.split())), " ".join(stems))


# -- linking outcomes (the planners' names to nodes) ----------------------------------
VOCABULARY_CATEGORIES = frozenset({"Place", "Concept"})
CLOSE_LINKS = frozenset({"exact", "stripped", "inverted", "stop-words", "short name", "qualifier"})
"""Matches that hold the whole name asked (no surname alone, no misspelling, no part)."""
"""Kinds of node a vocabulary often holds twice under one name (a Getty city and its
department, both "Paris"): a name that links to several such nodes takes them together."""


@dataclass(frozen=True, slots=True)
class Missing:
    """Words that should name a node but name none.

    Attributes:
        text: the words.
        expected: the categories a node there would have.
        closest: the graph's nearest names.
        elsewhere: candidates of other categories (the name exists, as something else).
    """

    text: str
    expected: tuple[str, ...]
    closest: tuple[str, ...] = ()
    elsewhere: tuple[Candidate, ...] = ()


@dataclass(frozen=True, slots=True)
class Unresolved:
    """Words that name several nodes equally well."""

    text: str
    candidates: tuple[Candidate, ...]


TrialLink = Callable[[str, str | None, bool, Candidate], bool]
"""(relation id, category of the other side, inverse, candidate) → the link has members."""


def _titled_after(best: Sequence[Candidate], fitting: Sequence[Candidate], text: str,
                  prefer: Sequence[str]) -> list[Candidate]:
    """Works that all carry one title, and the one person (or place) of the kind the
    question asks about whose fuller name holds every word of it: that person ("where was
    Mathew Brady born": Mathew B. Brady, not the three portraits titled "Mathew Brady").
    Empty when there is no such reading."""
    if {c.category for c in best} != {"Thing"} or len({fold_name(c.name) for c in best}) > 1:
        return []
    wanted = next((p for p in prefer if p != "Any"), None)
    if wanted is None or wanted == "Thing":
        return []
    words = set(fold_name(text).split()) - STOP_WORDS

    def holds(name: str) -> bool:  # each word of the title, or its initial ("Louis I. Kahn")
        own = fold_name(name).replace(",", " ").split()
        return all(w in own or len(w) == 1 and any(o.startswith(w) for o in own)
                   for w in words)

    named = [c for c in fitting if c.category == wanted and c.how in CLOSE_LINKS
             and holds(c.name)]
    return named if len({c.node for c in named}) == 1 else []


def link_name(names: NameIndex, text: str, expected: Sequence[str] | None,
              candidates: Sequence[Candidate] | None = None, *, exact: bool = False,
              trial: TrialLink | None = None, relation: str | None = None,
              inverse: bool = False, other: str | None = None,
              prefer: Sequence[str] = ()) -> Anchor | Missing | Unresolved:
    """The node words name, of the kind expected there; or why there is none.

    Args:
        names: the name index.
        text: the words.
        expected: categories a node there may have (None: any).
        candidates: candidates found already (an exact mention); else looked up.
        exact: ``candidates`` came from an exact name (a looser match of the expected kind
            is then tried when none fits).
        trial / relation / inverse / other: settle a tie by data: keep the candidates
            through which ``relation`` finds something.
        prefer: categories, best first, that settle a tie between nodes of several kinds
            ("when was Alice Neel born": the person, not the portraits titled so).
    """
    if candidates is None:
        candidates = names.lookup(text)
    if not candidates:
        return Missing(text, tuple(expected or ()), tuple(names.closest(text, expected or None)),
                       tuple(names.containing(text)))
    fitting = [c for c in candidates if not expected or c.category in expected]
    if not fitting and candidates[0].how != "previous turn":
        # a name of another kind: the expected kind may be a looser match
        fitting = [c for c in names.lookup(text, expected) if c.how != "partial"]
    if not fitting:
        plain = [c for c in candidates if c.how not in {"misspelling", "partial"}]
        return Missing(text, tuple(expected or ()), tuple(names.closest(text, expected or None)),
                       tuple(plain[:5]) or tuple(names.containing(text)))
    best = [c for c in fitting if c.score == fitting[0].score]
    if len(best) > 1 and relation and trial is not None:
        best = [c for c in best if trial(relation, other, inverse, c)] or best
    named = [c for c in best if c.category != "Thing"]
    if len({c.node for c in named}) == 1 and len(best) > 2 and prefer[:1] != ["Thing"] and \
            len({fold_name(c.name) for c in best}) == 1:
        best = named  # works titled after one place or person ("pictures of Brighton")
    if len({c.node for c in best}) > 1 and len({c.category for c in best}) > 1:
        for category in prefer:  # the kind the question asks about
            kept = [c for c in best if c.category == category]
            if kept:
                best = kept
                break
        else:  # works titled after one person or place: the person or place is meant
            named = [c for c in best if c.category != "Thing"]
            if len({c.node for c in named}) == 1:
                best = named
    if len({c.node for c in best}) > 1:
        # the others are named after one of them ("apse of Panagia Phorbiottissa (Asinou)")
        base = [c for c in best if all(fold_name(c.name) in fold_name(o.name) for o in best)]
        best = base if len({c.node for c in base}) == 1 else best
    if len({c.node for c in best}) > 1:
        best = _titled_after(best, fitting, text, prefer) or best
    nodes = list(dict.fromkeys(c.node for c in best))
    same_name = len({fold_name(c.name) for c in best}) == 1 and {
        c.category for c in best} == {"Actor"} and len(nodes) >= SHARED_NAME_NODES
    portraits = len(nodes) > 1 and {c.category for c in best} == {"Thing"} and len(
        {fold_name(c.name) for c in best}) == 1 and bool(names.exact(text, ["Actor"]))
    if len(nodes) > 1 and (same_name or portraits or all(
            c.category in VOCABULARY_CATEGORIES and c.how in {"exact", "stripped"}
            for c in best)):
        # places or terms of one name, or one name recorded again in every record ("The
        # Museum of Modern Art" as the organiser of each of 754 exhibitions): together
        chosen = best[0]  # places or terms of one name: taken together, and said
        return Anchor(text, chosen.node, names.display(chosen.node), chosen.category,
                      "together", tuple(nodes[1:]))
    if len(nodes) > 1:
        return Unresolved(text, tuple(best))
    chosen = best[0]
    return Anchor(text, chosen.node, names.display(chosen.node), chosen.category, chosen.how)
