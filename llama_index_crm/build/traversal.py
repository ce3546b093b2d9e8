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
from llama_index_crm.ontology import FundamentalRelationship, Ontology, Step, widening_properties

_MAX_REPEAT = 12
"""Longest chain followed by a repeated step (part-of and falls-within chains are short)."""


@dataclass(frozen=True, slots=True)
class _Edge:
    """A compiled property step: the predicate keys to follow in each direction."""

    forward: frozenset[str]
    backward: frozenset[str]


@dataclass(frozen=True, slots=True, eq=False)
class _Compiled:
    """A step ready to walk: predicate keys resolved, children compiled, a memo id."""

    sid: int
    kind: str
    edge: _Edge
    symmetric: bool
    children: tuple[_Compiled, ...]
    all_of: tuple[_Edge, ...]
    repeat: bool
    optional: bool
    from_class: str | None
    via_class: str | None


@dataclass(slots=True)
class _TrieNode:
    """A step shared by paths with the same prefix; ``ends``: (FR index, ends_at_type)."""

    step: _Compiled | None
    children: dict[int, _TrieNode] = field(default_factory=dict)
    ends: list[tuple[int, bool]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Derivation:
    """How a derived target was reached (:mod:`llama_index_crm.ontology.direct`).

    Attributes:
        widened_by: the property of the widening step (``P107i_is_current_or_former_member_of``),
            or None when not known.
        via: the direct target the widening step started from (Bart Walter for American);
            None when the target was reached through a part or a whole of the entity.
    """

    widened_by: str | None
    via: str | None


@dataclass(slots=True)
class FRMatch:
    """The targets an entity reaches through one Fundamental Relationship.

    Attributes:
        fr: the relationship.
        targets: every target, sorted.
        direct: the nodes its paths reach without their widening steps (those a
            specialisation took too: derived targets may have been reached through them).
    """

    fr: FundamentalRelationship
    targets: list[str] = field(default_factory=list)
    direct: frozenset[str] = frozenset()

    @property
    def derived(self) -> list[str]:
        """The targets reached only through widening steps, sorted."""
        return [t for t in self.targets if t not in self.direct]


class FRWalker:
    """Compiles the FRs of an ontology once and walks them from any entity.

    Args:
        ontology: the CRM vocabulary (FRs, inverses, sub-properties, categories).
    """

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self._edges: dict[str, _Edge] = {}
        # Equal steps (the part-whole prefix shared by dozens of paths) share memo entries.
        self._compiled: dict[Step, _Compiled] = {}
        self._tries: dict[tuple[str, bool], _TrieNode] = {}
        self._by_category: dict[str, tuple[FundamentalRelationship, ...]] = {}
        for fr in ontology.fundamental_relationships():
            self._by_category.setdefault(fr.domain, ())
            self._by_category[fr.domain] += (fr,)
        self._direct_by_category: dict[str, tuple[FundamentalRelationship, ...]] = {}
        for fr in ontology.direct_relationships():  # same ids, same order
            self._direct_by_category.setdefault(fr.domain, ())
            self._direct_by_category[fr.domain] += (fr,)
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

    def compile(self, step: Step) -> _Compiled:
        """The compiled form of ``step``; equal steps share one (and one memo entry)."""
        compiled = self._compiled.get(step)
        if compiled is None:
            edge = self._edge(step.property) if step.property else _Edge(frozenset(), frozenset())
            children = tuple(self.compile(c) for c in step.children)  # before taking an id
            compiled = _Compiled(
                sid=len(self._compiled),
                kind=step.kind,
                edge=edge,
                symmetric=step.symmetric,
                children=children,
                all_of=tuple(self._edge(p) for p in step.all_of),
                repeat=step.repeat,
                optional=step.optional,
                from_class=step.from_class,
                via_class=step.via_class,
            )
            self._compiled[step] = compiled
        return compiled

    @staticmethod
    def _one_edge(nb: Neighbourhood, node: str, edge: _Edge, symmetric: bool) -> set[str]:
        if not nb.require(node):
            return set()
        out = set(nb.objects(node, edge.forward))
        out.update(nb.subjects(node, edge.backward))
        if symmetric:
            out.update(nb.subjects(node, edge.forward))
            out.update(nb.objects(node, edge.backward))
        return out

    def _one(self, nb: Neighbourhood, node: str, c: _Compiled) -> set[str]:
        """One application of a step (no repetition, no skipping) from one node."""
        if c.kind == "property":
            return self._one_edge(nb, node, c.edge, c.symmetric)
        if c.kind == "any_of":
            out: set[str] = set()
            for child in c.children:
                out |= self.follow(nb, (node,), child)
            return out
        if c.kind == "sequence":
            current: set[str] = {node}
            for child in c.children:
                current = self.follow(nb, current, child)
                if not current:
                    break
            return current
        # all_of: every listed property must link the two nodes
        result: set[str] | None = None
        for edge in c.all_of:
            reached = self._one_edge(nb, node, edge, False)
            result = reached if result is None else result & reached
        return result or set()

    def _follow_node(self, nb: Neighbourhood, node: str, c: _Compiled) -> frozenset[str]:
        if c.from_class and not (nb.require_described(node) and nb.is_a(node, c.from_class)):
            return frozenset()
        out = self._one(nb, node, c)
        if c.repeat and out:
            frontier = set(out)
            for _ in range(_MAX_REPEAT):
                nxt: set[str] = set()
                for n in frontier:
                    nxt |= self._one(nb, n, c)
                nxt -= out
                if not nxt:
                    break
                out |= nxt
                frontier = nxt
        if c.optional:
            out.add(node)
        if c.via_class:
            out = {n for n in out if nb.require_described(n) and nb.is_a(n, c.via_class)}
        return frozenset(out)

    def follow(self, nb: Neighbourhood, nodes: Iterable[str], c: _Compiled) -> set[str]:
        """The nodes reached from any of ``nodes`` by one (repeated/optional) step.

        Results are memoised per (node, step) in the neighbourhood (cleared whenever it
        grows); a result that met a node not fetched yet is remembered as incomplete, so
        that every walk relying on it is walked again after the next fetch.
        """
        memo = nb.memo
        out: set[str] = set()
        for node in nodes:
            key = (node, c.sid)
            cached = memo.get(key)
            if cached is None:
                outer = nb.missed
                nb.missed = False
                result = self._follow_node(nb, node, c)
                cached = memo[key] = (result, nb.missed)
                nb.missed = outer or nb.missed
            elif cached[1]:
                nb.missed = True
            out |= cached[0]
        return out

    def _trie(self, category: str, direct: bool = False) -> _TrieNode:
        """All paths of the category's FRs (their cores when ``direct``) as a prefix tree of
        equal steps."""
        trie = self._tries.get((category, direct))
        if trie is None:
            trie = _TrieNode(None)
            frs = (self._direct_by_category if direct else self._by_category).get(category, ())
            for index, fr in enumerate(frs):
                for path in fr.paths:
                    node = trie
                    for step in path.steps:
                        c = self.compile(step)
                        child = node.children.get(c.sid)
                        if child is None:
                            child = node.children[c.sid] = _TrieNode(c)
                        node = child
                    node.ends.append((index, path.ends_at_type))
            self._tries[(category, direct)] = trie
        return trie

    def walk(self, nb: Neighbourhood, entity: str, category: str) -> list[FRMatch]:
        """Every FR of ``category`` walked from ``entity``; targets sorted, self excluded,
        the direct ones marked.

        Paths sharing a prefix share its walk. A target found through a specialisation is
        not repeated under its general FR.
        """
        return self._matches(self.relationships(category), self._found(nb, entity, category),
                             self._found(nb, entity, category, direct=True))

    def walk_targets(self, nb: Neighbourhood, entity: str, category: str
                     ) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
        """The walk's targets and direct targets by FR id (``fr id → targets``), before any
        is dropped for a specialisation: what :meth:`matches_from` takes."""
        frs = self.relationships(category)
        return ({frs[i].id: t for i, t in self._found(nb, entity, category).items()},
                {frs[i].id: t for i, t in self._found(nb, entity, category, True).items()})

    def _found(self, nb: Neighbourhood, entity: str, category: str,
               direct: bool = False) -> dict[int, set[str]]:
        frs = self.relationships(category)
        found: dict[int, set[str]] = {}
        stack: list[tuple[_TrieNode, set[str]]] = [(self._trie(category, direct), {entity})]
        while stack:
            trie, current = stack.pop()
            for child in trie.children.values():
                assert child.step is not None
                reached = self.follow(nb, current, child.step)
                if not reached:
                    continue
                for index, ends_at_type in child.ends:
                    fr = frs[index]
                    for node in reached:
                        if node == entity or not nb.require_described(node):
                            continue
                        if (nb.is_a(node, "E55_Type") if ends_at_type
                                else nb.category(node) == fr.range):
                            found.setdefault(index, set()).add(node)
                if child.children:
                    stack.append((child, reached))
        return found

    def matches_from(self, category: str, found: dict[str, set[str]],
                     direct: dict[str, set[str]] | None = None) -> list[FRMatch]:
        """The :meth:`walk` result for FR targets found elsewhere (``fr id → targets``).

        Used with targets computed by SPARQL property paths
        (:func:`llama_index_crm.sources.fr_sparql.fr_matches`, once over the FRs and once
        over their cores for ``direct``): same order, same rules.
        """
        frs = self.relationships(category)
        index = {fr.id: i for i, fr in enumerate(frs)}

        def by_index(given: dict[str, set[str]]) -> dict[int, set[str]]:
            return {index[fr_id]: set(targets) for fr_id, targets in given.items()
                    if fr_id in index and targets}

        return self._matches(frs, by_index(found), by_index(direct or {}))

    def _matches(self, frs: tuple[FundamentalRelationship, ...], found: dict[int, set[str]],
                 direct: dict[int, set[str]]) -> list[FRMatch]:
        # a core's targets are targets of the whole path: direct ⊆ found before any drop
        matches = [FRMatch(frs[i], sorted(found[i]), frozenset(direct.get(i, ())))
                   for i in sorted(found)]
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

    def _has_edge(self, nb: Neighbourhood, node: str, prop: str) -> bool:
        edge = self._edge(prop)
        return bool(nb.objects(node, edge.forward) or nb.subjects(node, edge.backward))

    def derivations(self, nb: Neighbourhood, entity: str,
                    match: FRMatch) -> dict[str, Derivation]:
        """How each derived target of ``match`` was reached.

        The trailing widening steps of the FR (membership, falls within, broader terms) are
        followed from the direct targets, through the match's targets only, over triples
        already fetched (every target's own triples are: the walk and the SPARQL queries
        give the same answer); the first direct target in sorted order that leads to a
        target is its ``via``. A target no direct one leads to was reached through the
        leading steps (a part or a whole of the entity): the first of their properties the
        entity has an edge on names it (the entity's own triples are all fetched).
        """
        derived = match.derived
        if not derived:
            return {}
        lead, trail = widening_properties(match.fr)
        allowed = set(match.targets) | match.direct
        found: dict[str, Derivation] = {}
        origin = {d: Derivation(None, d) for d in sorted(match.direct)}
        frontier = sorted(match.direct)
        while frontier and len(found) < len(derived):
            nxt: list[str] = []
            for node in frontier:
                came = origin[node]
                for prop in trail:
                    edge = self._edge(prop)
                    for n in sorted({*nb.objects(node, edge.forward),
                                     *nb.subjects(node, edge.backward)}):
                        if n in allowed and n not in origin:
                            origin[n] = found[n] = Derivation(came.widened_by or prop, came.via)
                            nxt.append(n)
            frontier = nxt
        first = next((p for p in lead if self._has_edge(nb, entity, p)),
                     lead[0] if lead else (trail[0] if trail else None))
        return {t: found.get(t) or Derivation(first, None) for t in derived}
