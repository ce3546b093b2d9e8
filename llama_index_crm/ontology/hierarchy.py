"""Closures of a ``subClassOf`` / ``subPropertyOf`` graph, computed once.

>>> up = {"E22": ["E19", "E24"], "E19": ["E18"], "E24": ["E18"], "E18": []}
>>> sorted(ancestor_closure(up)["E22"])
['E18', 'E19', 'E22', 'E24']
>>> sorted(invert_closure(ancestor_closure(up))["E18"])
['E18', 'E19', 'E22', 'E24']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

__all__ = ["ancestor_closure", "invert_closure"]


def ancestor_closure(parents: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Reflexive-transitive ancestors of every node.

    Args:
        parents: node -> its direct parents (super-classes or super-properties). Parents
            that are not keys themselves are treated as roots. Cycles are tolerated.

    Returns:
        node -> every ancestor, the node itself included.
    """
    graph = {node: tuple(ps) for node, ps in parents.items()}
    done: dict[str, frozenset[str]] = {}
    for start in graph:
        if start in done:
            continue
        seen = {start}
        todo = [start]
        while todo:
            node = todo.pop()
            if node in done and node != start:
                seen |= done[node]
                continue
            for parent in graph.get(node, ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        done[start] = frozenset(seen)
    return done


def invert_closure(closure: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Turn node -> ancestors into node -> descendants (reflexive as well)."""
    down: dict[str, set[str]] = defaultdict(set)
    for node, ancestors in closure.items():
        down[node].add(node)
        for ancestor in ancestors:
            down[ancestor].add(node)
    return {node: frozenset(nodes) for node, nodes in down.items()}
