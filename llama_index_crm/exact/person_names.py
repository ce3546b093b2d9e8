"""How people's names are written and typed: surnames with their particles, generation
suffixes, given names and their everyday forms, initials. :func:`person_keys` gives the
keys a person's name is also known by (:class:`~.linking.NameIndex` indexes them)."""

from __future__ import annotations

import re

from rapidfuzz.distance import Levenshtein

from llama_index_crm.query.conversation import word_set
from llama_index_crm.storage.names import fold_name

__all__ = ["NAME_SUFFIXES", "PARTICLES", "QUALIFIERS", "generation_penalty", "max_edits",
           "person_keys", "qualified_penalty", "same_given_name", "surname_of"]

PAREN_GIVEN = re.compile(r"^\s*([^\W\d_]+)\s+\(([^\W\d_]+)\)\s+([^()]+?)\s*$")
"""A given name with another in brackets before the surname ("Jean (Hans) Arp")."""
SPELT_SUFFIXES = {"sr": "senior", "jr": "junior", "senior": "sr", "junior": "jr"}
"""A generation suffix and its other spelling ("William Jacob Hays Sr." typed "Senior")."""


MAX_INITIALED = 4
"""Words of a person's name from which on it is not also known by initials (a firm's)."""
MIN_SURNAME = 3
"""Letters the last name needs for a name to be known by its initials ("Azucena S.r.L.")."""
NAME_SUFFIXES = word_set("""
the younger elder jr sr junior senior ra ara pra rba rwa frs ii iii iv""")
"""Words after a surname ("Thomas Cadell the younger", "Francesco Bartolozzi RA")."""
PARTICLES = word_set("van von de der den da di del della du le la ter ten")
"""Particles that belong to a surname ("van Dyck", "de Loutherbourg")."""
QUALIFIERS = word_set("""
circle follower followers school workshop studio manner style after attributed copy
imitator pupil""")
"""First words of names that stand for someone near a person ("circle of Benjamin West"):
a lone surname prefers the person."""
QUALIFIED_PENALTY = 0.05
GENERATIONS = word_set("jr sr junior senior ii iii iv younger elder")
"""Suffixes that tell a person from a namesake of another generation ("Ulysses Simpson
Grant, Jr.", "… III"): a name typed without one prefers the namesake without one."""


def max_edits(word: str) -> int:
    """Edits a misspelt word may have: none under 5 letters, 1 from 5, 2 from 9.

    >>> max_edits("west"), max_edits("green"), max_edits("gainsborough")
    (0, 1, 2)
    """
    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2


NICKNAMES = {nick: full for full, nicks in {
    "james": "jim jimmy jamie", "william": "bill billy will willy", "thomas": "tom tommy",
    "robert": "bob bobby rob robbie bert", "richard": "dick rick ricky", "edward": "ned ted eddie",
    "john": "jack johnny", "henry": "harry hal hank", "margaret": "peggy maggie meg",
    "elizabeth": "betty beth liz lizzie bess", "charles": "charlie chuck", "frederick": "fred",
    "joseph": "joe", "samuel": "sam", "daniel": "dan danny", "anthony": "tony",
    "katherine": "kate kitty", "catherine": "kate kitty", "mary": "molly polly",
    "alexander": "alex sandy", "benjamin": "ben", "nicholas": "nick", "francis": "frank",
    "lawrence": "larry", "theodore": "ted teddy", "patrick": "pat", "susan": "sue",
    "dorothy": "dolly dot", "ann": "nancy", "anne": "nancy", "helen": "nell nellie",
}.items() for nick in nicks.split()}
"""Everyday forms of English first names ("jim whistler" names James McNeill Whistler)."""


def same_given_name(word: str, name: str) -> bool:
    """Whether ``word`` may be the first name of ``name``: one begins the other ("philip",
    "Philippos Goul"), it is an everyday form ("jim", "James") or it is misspelt ("jhon")."""
    given = fold_name(name.split(",", 1)[1] if "," in name else name).split()[:1]
    if not given or len(given[0]) < 3:
        return False
    other = given[0]
    return other.startswith(word) or word.startswith(other) or \
        NICKNAMES.get(word) == other or Levenshtein.distance(word, other) <= max_edits(other)


def surname_of(key: str, inverted: bool) -> str | None:
    """A person's surname from a folded name key ("thomas cadell the younger" → "cadell")."""
    words = key.split()
    if inverted:  # "larrabee constance stuart" was "Larrabee, Constance Stuart"
        words = words[:1]
    while len(words) > 1 and words[-1] in NAME_SUFFIXES:
        words.pop()
    if (len(words) < 2 and not inverted) or not words or len(words[-1]) < 3:
        return None
    if len(words) > 2 and words[-2] in PARTICLES:
        return " ".join(words[-2:])
    return words[-1]


def person_keys(name: str, key: str, how: str) -> tuple[str | None, list[tuple[str, str]]]:
    """The surname of a person's name (``key``, folded, matched ``how``) and the other
    keys it is known by, each with how it matches: without suffixes, first and last
    name, initials."""
    keys: list[tuple[str, str]] = []
    inverted = how == "inverted"
    surname = surname_of(key if not inverted else fold_name(
        name.split(",")[0]), inverted)
    other = PAREN_GIVEN.match(name)  # "Jean (Hans) Arp": "hans arp" too
    if other is not None and how == "exact":
        for given in other.group(1, 2):
            keys.append((fold_name(f"{given} {other.group(3)}"), "stripped"))
    words = key.split()
    if len(words) > 2 and words[-1] in SPELT_SUFFIXES:  # "hays sr": "hays senior"
        keys.append((" ".join([*words[:-1], SPELT_SUFFIXES[words[-1]]]), "stripped"))
    while len(words) > 2 and words[-1] in NAME_SUFFIXES:
        words.pop()
    if len(words) >= 2 and " ".join(words) != key:
        keys.append((" ".join(words), "stripped"))
    if len(words) >= 3 and words[0] not in QUALIFIERS:
        last = surname or words[-1]
        keys.append((f"{words[0]} {last}", "short name"))
        if len(words) == 3 and len(words[1]) > 1:  # "louis i kahn": Louis Isadore Kahn
            keys.append((f"{words[0]} {words[1][0]} {words[2]}", "short name"))
    last = surname if surname and " ".join(words).endswith(f" {surname}") else \
        words[-1] if len(words) >= 2 else ""
    given = words[:len(words) - len(last.split())] if last else []
    if given and words[0] not in QUALIFIERS and len(words) > MAX_INITIALED and \
            len(last) >= MIN_SURNAME and all(w.isalpha() for w in words):
        # "w de la montagne cary": the first given name's initial, the rest as written
        keys.append((" ".join([given[0][0], *given[1:], last]), "initials"))
    if given and words[0] not in QUALIFIERS and len(words) <= MAX_INITIALED and \
            len(last) >= MIN_SURNAME and all(w.isalpha() for w in words):
        # "j s copley", "e mcknight kauffer"; no firm's name ("A. L. Hirsch and Co.")
        keys.append((" ".join([*(w[0] for w in given), last]), "initials"))
        if len(given) >= 2:  # "e mcknight kauffer", "w leigh"
            keys.append((" ".join([given[0][0], *given[1:], last]), "initials"))
            keys.append((f"{given[0][0]} {last}", "initials"))
    return surname, keys


def generation_penalty(name: str, key: str) -> float:
    """A penalty for a name whose generation suffix the key lacks ("ulysses s grant"
    names Ulysses Simpson Grant before his son, "… Grant, Jr.")."""
    words = fold_name(name).split()
    last = words[-1] if words else ""
    return QUALIFIED_PENALTY if last in GENERATIONS and last not in key.split() else 0.0


def qualified_penalty(name: str) -> float:
    """A penalty for a name that stands for someone near a person ("circle of …")."""
    first = fold_name(name).split()[:1]
    return QUALIFIED_PENALTY if first and first[0] in QUALIFIERS else 0.0
