"""Roles a graph records, as relations of their own: "who directed E", "the curators of E".

Linked Art and other event-centred graphs say who took part in an activity, and as what,
through an attribute assignment: the exhibition → P9 → E13 → P12 → a set labelled with the
role ("Artist", "Director", "Assistant Curator") → P129 → the person (or the assignment is
typed with the role). The general relation ``had-in-role`` (the FR
``event-actor-had-in-a-role``) reaches every participant; :func:`role_relations` reads the
role labels the graph actually uses on those paths and makes one relation per role, the
same paths kept only through a node carrying that label (:attr:`Relation.via_labels`).
Each is named by the role's nouns ("director", "directors") and, for an agent noun, by its
verb ("directed", "curated", "organised"), so no role word is listed by hand and a graph
with other roles ("Lender", "Photographer") gets them too.

>>> role_verbs("Director"), role_verbs("Curator")[2:], role_verbs("Competition Judge")
(('directed', 'directing', 'direct', 'directs'), ('curate', 'curates'), ())
>>> role_verbs("Organizer")[4:6], role_verbs("Arranger")[2], role_verbs("Selector")[2]
(('organised', 'organising'), 'arrange', 'select')
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from llama_index_crm.exact.relations import Relation, RelationLexicon, RelationWalker
from llama_index_crm.exact.vocabulary import QuestionWords
from llama_index_crm.query.lexicon import pluralise
from llama_index_crm.storage.names import fold_name

__all__ = ["ROLE_RELATION", "role_relations", "role_verbs", "with_roles"]

ROLE_RELATION = "had-in-role"
"""The relation of ``config/exact/relations.json`` every role relation specialises."""

ROLE_WORDS = QuestionWords.load("en")
"""The planner's word tables (``role_verbs``: verbs of roles that are no agent nouns)."""
MAX_ROLE_WORDS = 3
"""Longer labels on the way are names, not roles."""


def role_verbs(label: str) -> tuple[str, ...]:
    """Verbs of a one-word agent-noun role: "Director" → directed, "Curator" → curated."""
    word = fold_name(label)
    if " " in word or not re.search(r"[a-z]{3,}(?:or|er)$", word):
        return ()
    stem = word[:-2]
    base = stem + "e" if re.search(r"(?:at|iz|is|ng|bl|ar|rv|ud|dg)$", stem) else stem
    forms = [stem + "ed", stem + "ing", base, base + "s"]
    if stem.endswith("iz"):  # organized / organised
        forms += [stem[:-1] + "sed", stem[:-1] + "sing", base[:-2] + "se", base[:-2] + "ses"]
    return tuple(forms)


def _is_role(label: str, skip: Callable[[str], bool]) -> bool:
    words = label.split()
    return bool(words) and len(words) <= MAX_ROLE_WORDS and not any(
        ch.isdigit() for ch in label) and not skip(label)


def role_relations(walker: RelationWalker, base: Relation, events: np.ndarray,
                   skip: Callable[[str], bool] = lambda _: False) -> list[Relation]:
    """One relation per role label on ``base``'s paths from ``events`` (most used first).

    Args:
        walker: the graph's relation walker.
        base: the general participation relation.
        events: the nodes to walk from (the graph's events).
        skip: labels that are not roles (class nouns such as "Exhibitions": the set a
            person's record lists their exhibitions in).
    """
    if not len(events):
        return []
    counts: Counter[str] = Counter()
    for node in walker.inner_reached(base, events).tolist():
        counts.update(walker.node_labels(node))
    found: list[Relation] = []
    for label, _ in counts.most_common():
        cleaned = fold_name(label.strip("[]() "))
        if not _is_role(cleaned, skip) or any(r.via_labels[0] == cleaned for r in found):
            continue
        nouns = tuple(dict.fromkeys((cleaned, pluralise(cleaned))))
        found.append(replace(
            base, id=f"{ROLE_RELATION}:{cleaned.replace(' ', '-')}", label=cleaned,
            verbs=(*role_verbs(cleaned), *ROLE_WORDS.role_verbs.get(cleaned, ())),
            nouns=nouns, crm_words=(),
            via_labels=tuple(dict.fromkeys((cleaned, fold_name(label))))))
    return found


def with_roles(lexicon: RelationLexicon, roles: Iterable[Relation]) -> RelationLexicon:
    """``lexicon`` and the graph's role relations after it (their words come last)."""
    roles = list(roles)
    if not roles:
        return lexicon
    return RelationLexicon([*lexicon.values(), *roles])
