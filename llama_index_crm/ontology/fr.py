"""Fundamental Relationships (TR-429) as walkable CIDOC-CRM property paths.

A :class:`FundamentalRelationship` links a domain category to a range category through
alternative :class:`FRPath` objects; a path is a tuple of :class:`Step` values walked left to
right. The JSON form is ``config/fundamental_relationships.json`` (see its ``step_schema``).

>>> step = step_from_json({"property": "P89i_contains", "repeat": True, "optional": True})
>>> step.kind, step.property, step.repeat, step.optional
('property', 'P89i_contains', True, True)
>>> step_from_json({"any_of": [{"property": "P46_is_composed_of"}]}).children[0].property
'P46_is_composed_of'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

__all__ = [
    "FRPath",
    "FundamentalRelationship",
    "Step",
    "StepKind",
    "frs_from_json",
    "iter_step_classes",
    "iter_step_properties",
    "step_from_json",
]

StepKind = Literal["property", "any_of", "all_of", "sequence"]
_KINDS: tuple[StepKind, ...] = ("property", "any_of", "all_of", "sequence")


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a path: a property, a union, an intersection or a sub-path.

    Attributes:
        kind: which of ``property`` / ``any_of`` / ``all_of`` / ``sequence`` this step is.
        property: canonical local name when ``kind == "property"`` (inverse direction uses
            CRM's inverse name, ``P108i_was_produced_by``).
        children: the alternatives (``any_of``) or the sub-path (``sequence``).
        all_of: property names that must all link the two nodes (``all_of``).
        repeat: the step may be taken one or more times in the same direction.
        optional: the step may be skipped (with ``repeat``: the report's ``[0,n]``).
        symmetric: follow the property in both directions (P121, P122, L54).
        from_class: the node before the step must be an instance of this class.
        via_class: the node after the step must be an instance of this class.
    """

    kind: StepKind
    property: str | None = None
    children: tuple[Step, ...] = ()
    all_of: tuple[str, ...] = ()
    repeat: bool = False
    optional: bool = False
    symmetric: bool = False
    from_class: str | None = None
    via_class: str | None = None


@dataclass(frozen=True, slots=True)
class FRPath:
    """One alternative path of a relationship.

    Attributes:
        id: ``<relationship id>/<n>``.
        steps: walked left to right from an instance of the domain category.
        type_suffix: the report allows ``--P2_has_type--> E55_Type`` at the end.
        ends_at_type: the path ends at an ``E55_Type`` standing for the range category.
    """

    id: str
    steps: tuple[Step, ...]
    type_suffix: bool = False
    ends_at_type: bool = False


@dataclass(frozen=True, slots=True)
class FundamentalRelationship:
    """A TR-429 relationship between two fundamental categories.

    Attributes:
        id: e.g. ``thing-place-refers-to``.
        label: e.g. ``refers to or is about``.
        domain: category the paths start from (``Thing``, ``Actor``, ...).
        range: category the paths end in.
        paths: the alternative property paths.
        specialization_of: id of the general relationship this one narrows, if any.
        profile: ``linked-art`` for the relationships of the Linked Art profile
            (``scripts/linked_art_profile.json``); None for TR-429's own.
    """

    id: str
    label: str
    domain: str
    range: str
    paths: tuple[FRPath, ...]
    specialization_of: str | None = None
    profile: str | None = None


def step_from_json(obj: Mapping[str, Any]) -> Step:
    """Build a :class:`Step` from its JSON form.

    Args:
        obj: a step object with exactly one of ``property``, ``any_of``, ``all_of``,
            ``sequence`` and optional modifiers.

    Raises:
        ValueError: when the object has none or several of the step kinds.
    """
    kinds = [k for k in _KINDS if k in obj]
    if len(kinds) != 1:
        raise ValueError(f"a step needs exactly one of {', '.join(_KINDS)}: {dict(obj)!r}")
    kind = kinds[0]
    children: Sequence[Mapping[str, Any]] = obj.get("any_of") or obj.get("sequence") or ()
    return Step(
        kind=kind,
        property=cast("str | None", obj.get("property")),
        children=tuple(step_from_json(c) for c in children),
        all_of=tuple(obj.get("all_of", ())),
        repeat=bool(obj.get("repeat", False)),
        optional=bool(obj.get("optional", False)),
        symmetric=bool(obj.get("symmetric", False)),
        from_class=obj.get("from_class"),
        via_class=obj.get("via_class"),
    )


def _path_from_json(obj: Mapping[str, Any]) -> FRPath:
    return FRPath(
        id=str(obj["id"]),
        steps=tuple(step_from_json(s) for s in obj["steps"]),
        type_suffix=bool(obj.get("type_suffix", False)),
        ends_at_type=bool(obj.get("ends_at_type", False)),
    )


def frs_from_json(data: Mapping[str, Any]) -> tuple[FundamentalRelationship, ...]:
    """All relationships of a parsed ``fundamental_relationships.json``, in file order.

    Args:
        data: the parsed file (its ``relationships`` list is read).
    """
    return tuple(
        FundamentalRelationship(
            id=str(fr["id"]),
            label=str(fr["label"]),
            domain=str(fr["domain"]),
            range=str(fr["range"]),
            paths=tuple(_path_from_json(p) for p in fr["paths"]),
            specialization_of=fr.get("specialization_of"),
            profile=fr.get("profile"),
        )
        for fr in data["relationships"]
    )


def iter_step_properties(step: Step) -> Iterator[str]:
    """Every property name a step mentions (children included), in order.

    >>> list(iter_step_properties(step_from_json({"all_of": ["P176_x", "P185_y"]})))
    ['P176_x', 'P185_y']
    """
    if step.property:
        yield step.property
    yield from step.all_of
    for child in step.children:
        yield from iter_step_properties(child)


def iter_step_classes(step: Step) -> Iterator[str]:
    """Every ``from_class`` / ``via_class`` a step mentions (children included)."""
    for name in (step.from_class, step.via_class):
        if name:
            yield name
    for child in step.children:
        yield from iter_step_classes(child)
