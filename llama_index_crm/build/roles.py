"""Roles and typed statements: the Linked Art patterns written as lines of a document.

Linked Art gives roles through attribute assignments. An exhibition has parts
(``P9_consists_of``) that are ``E13_Attribute_Assignment``; present at each
(``P12_occurred_in_the_presence_of``, or assigned by ``P141_assigned``) is a ``la:Set``
labelled with the role ("Artist", "Director") that is about (``P129_is_about``) the
people. An activity may also be attributed (``P140i``) an actor by an assignment classified
by the role (P14.1 in the role). The FR ``event-actor-had-in-a-role`` links the exhibition
and the people; this module writes the role itself::

    Director: Alfred H. Barr, Jr.
    Artist: Georges-Pierre Seurat; Paul Cézanne; Paul Gauguin; Vincent van Gogh

and, in the person's document, ``Director in (event): Cézanne, Gauguin, Seurat, Van Gogh
(Exhibiting, 1929-11-07 to 1929-12-07)``. The assignments and role sets are folded into
those documents (:func:`is_role_node`): they get no document of their own, but keep their
names in the name table.

A statement (``P67i_is_referred_to_by`` an ``E33_Linguistic_Object`` with a type and
``P190_has_symbolic_content``) is written as a fact of its parent, headed by its type:
``Biography Statement: German, 1891–1969``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from llama_index_crm.build.labels import DIRECT_LABELS, Labeller, best_literal, clip
from llama_index_crm.build.neighbourhood import Neighbourhood

ASSIGNMENT = "E13_Attribute_Assignment"
ROLE_SET = "Set"
"""``la:Set``, by its local name in the configuration."""
STATEMENT = "E33_Linguistic_Object"
_PARTS = frozenset({"P9_consists_of"})
_PART_OF = frozenset({"P9i_forms_part_of"})
_ATTRIBUTED_BY = frozenset({"P140i_was_attributed_by"})
_ATTRIBUTED_TO = frozenset({"P140_assigned_attribute_to"})
_PRESENT = frozenset({"P12_occurred_in_the_presence_of", "P141_assigned"})
_PRESENT_AT = frozenset({"P12i_was_present_at", "P141i_was_assigned_by"})
_ABOUT = frozenset({"P129_is_about"})
_SUBJECT_OF = frozenset({"P129i_is_subject_of"})
_REFERRED_BY = frozenset({"P67i_is_referred_to_by"})
_REFERS = frozenset({"P67_refers_to"})
_TYPE = frozenset({"P2_has_type"})
_CONTENT = ("P190_has_symbolic_content",)
MAX_STATEMENT = 1500
"""Characters of a statement's text written into its parent's document."""

Render = Callable[[Iterable[str]], str]
"""Names a list of nodes (``DocumentWriter._targets`` bound to a neighbourhood)."""


def _label(nb: Neighbourhood, node: str, lang: str) -> str:
    found = best_literal(nb.literal_values(node, DIRECT_LABELS), lang)
    return clip(found.value) if found else ""


def _type_labels(nb: Neighbourhood, lab: Labeller, node: str) -> list[str]:
    return [lab.name(t) for t in sorted(nb.objects(node, _TYPE)) if lab.has_label(t)]


def _linked(nb: Neighbourhood, node: str, forward: frozenset[str],
            backward: frozenset[str]) -> list[str]:
    """Nodes linked to ``node`` by ``forward`` edges, or by their inverses pointing at it."""
    return sorted({*nb.objects(node, forward), *nb.subjects(node, backward)})


def is_role_node(nb: Neighbourhood, node: str) -> bool:
    """An attribute assignment that gives roles through sets, or such a role set.

    Both are written into the documents of what they link (:func:`event_roles`,
    :func:`actor_roles`) and get no document of their own.
    """
    if not nb.require_described(node):
        return False
    if nb.is_a(node, ASSIGNMENT):
        return any(nb.require_described(s) and nb.is_a(s, ROLE_SET)
                   for s in _linked(nb, node, _PRESENT, _PRESENT_AT))
    if nb.is_a(node, ROLE_SET) and nb.require(node):
        return any(nb.require_described(a) and nb.is_a(a, ASSIGNMENT)
                   for a in _linked(nb, node, _PRESENT_AT, _PRESENT))
    return False


def event_roles(nb: Neighbourhood, lab: Labeller, entity: str, lang: str,
                seen: set[str]) -> dict[str, set[str]]:
    """Role → the actors an activity had in it (through its attribute assignments).

    The assignments and role sets passed through are added to ``seen``.
    """
    roles: dict[str, set[str]] = {}
    assignments = [*_linked(nb, entity, _PARTS, _PART_OF),
                   *_linked(nb, entity, _ATTRIBUTED_BY, _ATTRIBUTED_TO)]
    for a in assignments:
        if not (nb.require(a) and nb.is_a(a, ASSIGNMENT)):
            continue
        for s in _linked(nb, a, _PRESENT, _PRESENT_AT):
            if not nb.require_described(s):
                continue
            if nb.is_a(s, ROLE_SET):
                role = _label(nb, s, lang)
                members = _linked(nb, s, _ABOUT, _SUBJECT_OF)
            elif nb.category(s) == "Actor":  # assigned directly: the assignment's type
                role = "; ".join(_type_labels(nb, lab, a))
                members = [s]
            else:
                continue
            if role and members:
                roles.setdefault(role, set()).update(members)
                seen.update((a, s))
    return roles


def actor_roles(nb: Neighbourhood, entity: str, lang: str,
                seen: set[str]) -> dict[str, set[str]]:
    """Role → the activities an actor was in, in that role (the reverse of event_roles);
    the role sets passed through are added to ``seen``."""
    roles: dict[str, set[str]] = {}
    for s in _linked(nb, entity, _SUBJECT_OF, _ABOUT):
        if not (nb.require(s) and nb.is_a(s, ROLE_SET)):
            continue
        role = _label(nb, s, lang)
        for a in _linked(nb, s, _PRESENT_AT, _PRESENT):
            if not (nb.require(a) and nb.is_a(a, ASSIGNMENT)):
                continue
            events = [*_linked(nb, a, _PART_OF, _PARTS),
                      *_linked(nb, a, _ATTRIBUTED_TO, _ATTRIBUTED_BY)]
            if role and events:
                roles.setdefault(role, set()).update(events)
                seen.add(s)
    return roles


def role_lines(roles: dict[str, set[str]], render: Render, suffix: str = "") -> list[str]:
    """``Director: Alfred H. Barr, Jr.`` lines, the smallest roles first."""
    return [f"{role}{suffix}: {render(roles[role])}"
            for role in sorted(roles, key=lambda r: (len(roles[r]), r.casefold()))]


def statements(nb: Neighbourhood, lab: Labeller, entity: str) -> list[tuple[str, str, str]]:
    """``(statement node, its type, its text)`` of the typed statements about ``entity``."""
    out = []
    for node in _linked(nb, entity, _REFERRED_BY, _REFERS):
        if not (nb.require_described(node) and nb.is_a(node, STATEMENT)):
            continue
        kinds = _type_labels(nb, lab, node)
        texts = sorted({clip(lit.value, MAX_STATEMENT)
                        for lit in nb.literal_values(node, _CONTENT)})
        if kinds and texts:
            out.append((node, kinds[0], " / ".join(texts)))
    return out
