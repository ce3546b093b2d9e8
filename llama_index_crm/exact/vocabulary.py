"""The rule planner's question words, as data: ``config/lexicon/planner/<lang>.json``.

The English planner (:mod:`.parse`) reads its word tables — question words, auxiliaries,
determiners, pronouns, superlatives, numbers, class nouns… — from
``config/lexicon/planner/en.json``, found like every config file (:func:`find_config_dir`:
``$LLAMA_INDEX_CRM_CONFIG``, the wheel's ``llama_index_crm/_config``, the checkout's
``config/``). Word sets are stored as sorted lists, pairs as two-item lists; ``notes``
says what each table is for.

>>> words = QuestionWords.load("en")
>>> "who" in words.wh, words.numbers["three"], words.superlatives["oldest"]
(True, 3, ('time', False))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from llama_index_crm.ontology import find_config_dir

__all__ = ["PLANNER_DIR", "QuestionWords"]

PLANNER_DIR = Path("lexicon") / "planner"
"""The folder of the planner's word tables, inside the config folder."""

_KINDS = {
    "contracted": "dict[str, str]",
    "size_nouns": "dict[str, str]",
    "wh": "frozenset[str]",
    "aux": "frozenset[str]",
    "copula": "frozenset[str]",
    "determiners": "frozenset[str]",
    "pronouns": "dict[str, str]",
    "imperative": "frozenset[str]",
    "filler": "frozenset[str]",
    "otherness": "frozenset[str]",
    "collection": "frozenset[str]",
    "holding_verbs": "frozenset[str]",
    "type_synonyms": "dict[str, str]",
    "generic_things": "frozenset[str]",
    "count_words": "frozenset[str]",
    "superlatives": "dict[str, tuple[str, bool]]",
    "numbers": "dict[str, int]",
    "group_units": "dict[str, str]",
    "group_words": "frozenset[str]",
    "superlative_phrases": "dict[str, tuple[str, bool]]",
    "acquisition_nouns": "frozenset[str]",
    "dimension_words": "dict[str, str]",
    "ordinal_ranks": "dict[str, int]",
    "acquisition_verbs": "frozenset[str]",
    "name_nouns": "frozenset[str]",
    "title_verbs": "frozenset[str]",
    "honorifics": "frozenset[str]",
    "title_joiners": "frozenset[str]",
    "how_measures": "tuple[str, ...]",
    "generic_time_nouns": "frozenset[str]",
    "nouns_of": "dict[str, str]",
    "gender_nouns": "frozenset[str]",
    "collection_tail": "frozenset[str]",
    "agent_works": "dict[str, str]",
    "exclusions": "tuple[str, ...]",
    "prepositions": "frozenset[str]",
    "ranking_words": "frozenset[str]",
    "describe_words": "frozenset[str]",
    "class_nouns": "dict[str, str]",
    "thing_type_words": "frozenset[str]",
    "connectives": "frozenset[str]",
    "possessive_pronouns": "frozenset[str]",
    "demonstratives": "frozenset[str]",
    "articles": "frozenset[str]",
    "person_wh": "frozenset[str]",
    "kind_nouns": "frozenset[str]",
    "title_nouns": "frozenset[str]",
    "time_ends": "frozenset[str]",
    "clause_openers": "frozenset[str]",
    "work_nouns": "frozenset[str]",
    "event_nouns": "frozenset[str]",
    "role_verbs": "dict[str, list[str]]",
    "dating_words": "frozenset[str]",
}
"""How each table is stored in memory (a JSON list → a frozenset or a tuple)."""


def _table(kind: str, value: Any) -> Any:
    if kind == "frozenset[str]":
        return frozenset(value)
    if kind == "tuple[str, ...]":
        return tuple(value)
    if kind == "dict[str, tuple[str, bool]]":
        return MappingProxyType({k: (str(v[0]), bool(v[1])) for k, v in value.items()})
    return MappingProxyType(dict(value))


@dataclass(frozen=True, slots=True)
class QuestionWords:
    """The word tables of the rule planner, one field a table (see the file's ``notes``)."""

    contracted: Mapping[str, str]
    size_nouns: Mapping[str, str]
    wh: frozenset[str]
    aux: frozenset[str]
    copula: frozenset[str]
    determiners: frozenset[str]
    pronouns: Mapping[str, str]
    imperative: frozenset[str]
    filler: frozenset[str]
    otherness: frozenset[str]
    collection: frozenset[str]
    holding_verbs: frozenset[str]
    type_synonyms: Mapping[str, str]
    generic_things: frozenset[str]
    count_words: frozenset[str]
    superlatives: Mapping[str, tuple[str, bool]]
    numbers: Mapping[str, int]
    group_units: Mapping[str, str]
    group_words: frozenset[str]
    superlative_phrases: Mapping[str, tuple[str, bool]]
    acquisition_nouns: frozenset[str]
    dimension_words: Mapping[str, str]
    ordinal_ranks: Mapping[str, int]
    acquisition_verbs: frozenset[str]
    name_nouns: frozenset[str]
    title_verbs: frozenset[str]
    honorifics: frozenset[str]
    title_joiners: frozenset[str]
    how_measures: tuple[str, ...]
    generic_time_nouns: frozenset[str]
    nouns_of: Mapping[str, str]
    gender_nouns: frozenset[str]
    collection_tail: frozenset[str]
    agent_works: Mapping[str, str]
    exclusions: tuple[str, ...]
    prepositions: frozenset[str]
    ranking_words: frozenset[str]
    describe_words: frozenset[str]
    class_nouns: Mapping[str, str]
    thing_type_words: frozenset[str]
    connectives: frozenset[str]
    possessive_pronouns: frozenset[str]
    demonstratives: frozenset[str]
    articles: frozenset[str]
    person_wh: frozenset[str]
    kind_nouns: frozenset[str]
    title_nouns: frozenset[str]
    time_ends: frozenset[str]
    clause_openers: frozenset[str]
    work_nouns: frozenset[str]
    event_nouns: frozenset[str]
    role_verbs: Mapping[str, Sequence[str]]
    dating_words: frozenset[str]

    @classmethod
    def from_file(cls, path: Path) -> QuestionWords:
        """The tables of one file; every field must be there, and nothing else."""
        words = json.loads(path.read_text(encoding="utf-8"))["words"]
        names = {f.name for f in fields(cls)}
        if set(words) != names:
            raise ValueError(f"{path}: tables missing {sorted(names - set(words))}, "
                             f"unknown {sorted(set(words) - names)}")
        return cls(**{name: _table(_KINDS[name], words[name]) for name in names})

    @staticmethod
    @cache
    def load(lang: str = "en") -> QuestionWords:
        """The tables of one language (``config/lexicon/planner/<lang>.json``), read once."""
        return QuestionWords.from_file(find_config_dir() / PLANNER_DIR / f"{lang}.json")
