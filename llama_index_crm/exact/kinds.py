"""Words that say what kind of thing a named node is ("the Pitsilia region", "the village
of Pelendri", "Asinou church"): the node's own types name them, so they explain
themselves beside its name and ask for nothing more.

>>> kind_words_beside("which churches are in the pitsilia region", "pitsilia",
...                   {"region"}, ["region"])
['region']
>>> kind_words_beside("which churches are in pitsilia and any region", "pitsilia",
...                   {"region"}, ["region"])
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from llama_index_crm.exact.plan import ExactPlan
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.execute import Executor
    from llama_index_crm.exact.relations import RelationLexicon

__all__ = ["collection_types", "every_member_has", "kind_words_beside", "kinds_named",
           "participles", "said_by_nodes"]

_NEAR = 2  # words between the name and its kind word at most ("the village of Pelendri")
_JOINERS = frozenset({"of", "the", "a", "an", "de", "du", "des", "la", "le", "di", "del",
                      "von", "der", "die", "das"})


def kind_words_beside(question: str, name: str, kinds: set[str],
                      words: Iterable[str]) -> list[str]:
    """The ``words`` that are kind words of a node named ``name`` and stand right beside
    that name in ``question`` (folded text), with at most joiners between them."""
    tokens = fold_name(question).split()
    named = fold_name(name).split()
    if not named:
        return []
    spans = [i for i in range(len(tokens) - len(named) + 1)
             if tokens[i:i + len(named)] == named]
    found: list[str] = []
    for word in words:
        if word not in kinds and singularise(word) not in kinds:
            continue
        for start in spans:
            end = start + len(named)
            after = tokens[end:end + _NEAR + 1]
            before = tokens[max(0, start - _NEAR - 1):start][::-1]
            if any(_next_is(side, word) for side in (after, before)):
                found.append(word)
                break
    return found


def _next_is(side: Sequence[str], word: str) -> bool:
    for token in side:
        if token == word:
            return True
        if token not in _JOINERS:
            return False
    return False


def kinds_named(executor: Executor, lexicon: RelationLexicon, plan: ExactPlan,
                question: str, words: Sequence[str]) -> list[str]:
    """Of the unexplained ``words``, those naming the type of a node the plan links to,
    beside its name; [] when none does."""
    relation = lexicon.get("has-type")
    if relation is None or not words:
        return []
    found: list[str] = []
    for anchor in plan.anchors:
        ids = [n for n in (executor.node_id(u) for u in anchor.nodes) if n is not None]
        if not ids:
            continue
        walk = executor.walker.walk(relation, np.asarray(ids, dtype=np.int64))
        kinds = {w for n in set(walk.node.tolist())
                 for w in fold_name(executor.label(int(n))).split()}
        kinds |= {singularise(w) for w in kinds}
        found += kind_words_beside(question, anchor.text, kinds,
                                   [w for w in words if w not in found])
    return found


def participles(lexicon: RelationLexicon, plan: ExactPlan, question: str,
                words: Sequence[str]) -> dict[str, str]:
    """Of ``words``, the verbs of a relation of the asked members' kind standing right
    before the noun that names them ("the painted churches", "printed books"): word →
    relation id. Such a word describes every member only if each one has that relation
    (:func:`every_member_has`)."""
    if not plan.variables or not words:
        return {}
    head = plan.variables[0]
    nouns = {w for text in (head.noun or "", *head.types) for w in fold_name(text).split()}
    nouns |= {singularise(w) for w in nouns}
    tokens = fold_name(question).split()
    found: dict[str, str] = {}
    for i, token in enumerate(tokens[:-1]):
        if token not in words or (tokens[i + 1] not in nouns
                                  and singularise(tokens[i + 1]) not in nouns):
            continue
        for relation in lexicon.values():
            if relation.domain == head.category and token in relation.verbs and \
                    relation.value == "node":
                found[token] = relation.id
                break
    return found


def every_member_has(executor: Executor, lexicon: RelationLexicon, relation: str,
                     nodes: Sequence[int]) -> bool:
    """Whether each of ``nodes`` (term ids) reaches something through ``relation``."""
    if not nodes:
        return False
    starts = np.asarray(sorted(set(nodes)), dtype=np.int64)
    walk = executor.walker.walk(lexicon[relation], starts)
    return len(set(walk.start.tolist())) == len(starts)


def said_by_nodes(executor: Executor, lexicon: RelationLexicon, plan: ExactPlan,
                  question: str, words: Sequence[str]) -> list[str]:
    """Of the unexplained ``words``, those the graph's nodes explain: a named node's kind
    beside its name (:func:`kinds_named`), then, when only they are left, verbs before the
    members' noun that hold of every member the plan finds (:func:`participles`)."""
    found = kinds_named(executor, lexicon, plan, question, words)
    left = [w for w in words if w not in found]
    described = participles(lexicon, plan, question, left)
    if not described or set(described) != set(left):
        return found
    nodes = [item.node for item in executor.run(plan).items]
    if all(every_member_has(executor, lexicon, r, nodes) for r in set(described.values())):
        found += list(described)
    return found


def collection_types(plan: ExactPlan, institution: frozenset[str]) -> ExactPlan:
    """``plan`` without the works' types the institution's own name gives every work of it
    ("portraits" in a portrait gallery: all its works, not those a type calls portraits).

    >>> from llama_index_crm.exact.plan import Variable
    >>> plan = ExactPlan("count", (Variable("Thing", "portraits", ("portrait",)),))
    >>> collection_types(plan, frozenset({"national", "portrait", "gallery"})).variables[0].types
    ()
    """
    changed = False
    variables = []
    for var in plan.variables:
        kept = tuple(t for t in var.types if var.category != "Thing" or (
            fold_name(t) not in institution and singularise(fold_name(t)) not in institution))
        changed |= kept != var.types
        variables.append(replace(var, types=kept) if kept != var.types else var)
    return replace(plan, variables=tuple(variables)) if changed else plan
