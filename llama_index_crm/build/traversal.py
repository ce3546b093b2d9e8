"""Walking the Fundamental Relationships of TR-429 over a :class:`Neighbourhood`.

Pure and in memory: a step on property ``p`` follows the outgoing edges labelled with ``p``
or any of its sub-properties, and the incoming edges labelled with the inverse of ``p`` or
its sub-properties (``P108i_was_produced_by`` matches ``production P108_has_produced
thing`` read backwards). Repeated steps are transitive closures, optional steps may be
skipped, class constraints are checked on the nodes before / after a step, and the last node
of a path must belong to the relationship's range category. The walk is set-based
(the reference semantics of ``config/fundamental_relationships.json``); nodes it reaches
before they are fetched are recorded by the neighbourhood and the builder walks again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.ontology import FundamentalRelationship, Ontology, Step

_MAX_REPEAT = 12
"""Longest chain followed by a repeated step (part-of and falls-within chains are short)."""


@dataclass(frozen=True, slots=True)
class _Edge:
    """A compiled property step: the predicate keys to follow in each direction."""

    forward: frozenset[str]
    backward: frozenset[str]


@dataclass(slots=True)
class FRMatch:
    """The targets an entity reaches through one Fundamental Relationship."""

    fr: FundamentalRelationship
    targets: list[str] = field(default_factory=list)


class FRWalker:
    """Compiles the FRs of an ontology once and walks them from any entity.

    Args:
        ontology: the CRM vocabulary (FRs, inverses, sub-properties, categories).
    """

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self._edges: dict[str, _Edge] = {}
        self._by_category: dict[str, tuple[FundamentalRelationship, ...]] = {}
        for fr in ontology.fundamental_relationships():
            self._by_category.setdefault(fr.domain, ())
            self._by_category[fr.domain] += (fr,)
        # A specialisation's targets are not repeated under its parent.
        self._parent = {
            fr.id: fr.specialization_of
            for fr in ontology.fundamental_relationships()
            if fr.specialization_of
        }

    def relationships(self, category: str) -> tuple[FundamentalRelationship, ...]:
        """The FRs whose domain is ``category``."""
        return self._by_category.get(category, ())

    def parent(self, fr_id: str) -> str | None:
        """The general FR a specialisation refines."""
        return self._parent.get(fr_id)

    def _edge(self, prop: str) -> _Edge:
        edge = self._edges.get(prop)
        if edge is None:
            onto = self.ontology
            inverse = onto.inverse(prop)
            edge = _Edge(
                forward=frozenset(onto.subproperties(prop)),
                backward=frozenset(onto.subproperties(inverse)) if inverse else frozenset(),
            )
            self._edges[prop] = edge
        return edge

    def _one_property(self, nb: Neighbourhood, nodes: Iterable[str], prop: str,
                      symmetric: bool) -> set[str]:
        edge = self._edge(prop)
        out: set[str] = set()
        for n in nodes:
            if not nb.require(n):
                continue
            out.update(nb.objects(n, edge.forward))
            out.update(nb.subjects(n, edge.backward))
            if symmetric:
                out.update(nb.subjects(n, edge.forward))
                out.update(nb.objects(n, edge.backward))
        return out

    def _one(self, nb: Neighbourhood, nodes: set[str], step: Step) -> set[str]:
        if step.kind == "property":
            assert step.property is not None
            return self._one_property(nb, nodes, step.property, step.symmetric)
        if step.kind == "any_of":
            out: set[str] = set()
            for child in step.children:
                out |= self.follow(nb, nodes, child)
            return out
        if step.kind == "sequence":
            current = nodes
            for child in step.children:
                current = self.follow(nb, current, child)
                if not current:
                    break
            return current
        # all_of: every listed property must link the two nodes
        result: set[str] | None = None
        for prop in step.all_of:
            reached = self._one_property(nb, nodes, prop, False)
            result = reached if result is None else result & reached
        return result or set()

    def follow(self, nb: Neighbourhood, nodes: set[str], step: Step) -> set[str]:
        """The nodes reached from ``nodes`` by one (possibly repeated/optional) step."""
        if step.from_class:
            nodes = {n for n in nodes if nb.require_described(n) and nb.is_a(n, step.from_class)}
        out = self._one(nb, nodes, step) if nodes else set()
        if step.repeat and out:
            frontier = set(out)
            for _ in range(_MAX_REPEAT):
                nxt = self._one(nb, frontier, step) - out
                if not nxt:
                    break
                out |= nxt
                frontier = nxt
        if step.optional:
            out |= nodes
        if step.via_class:
            out = {n for n in out if nb.require_described(n) and nb.is_a(n, step.via_class)}
        return out

    def walk(self, nb: Neighbourhood, entity: str, category: str) -> list[FRMatch]:
        """Every FR of ``category`` walked from ``entity``; targets sorted, self excluded.

        A target found through a specialisation is not repeated under its general FR.
        """
        matches: list[FRMatch] = []
        for fr in self.relationships(category):
            found: set[str] = set()
            for path in fr.paths:
                current = {entity}
                for step in path.steps:
                    current = self.follow(nb, current, step)
                    if not current:
                        break
                for node in current:
                    if node == entity or not nb.require_described(node):
                        continue
                    if path.ends_at_type:
                        if nb.is_a(node, "E55_Type"):
                            found.add(node)
                    elif nb.category(node) == fr.range:
                        found.add(node)
            if found:
                matches.append(FRMatch(fr, sorted(found)))
        specialised: dict[str, set[str]] = {}
        for m in matches:
            parent = self._parent.get(m.fr.id)
            if parent:
                specialised.setdefault(parent, set()).update(m.targets)
        for m in matches:
            drop = specialised.get(m.fr.id)
            if drop:
                m.targets = [t for t in m.targets if t not in drop]
        return [m for m in matches if m.targets]
