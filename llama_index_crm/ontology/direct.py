"""Direct and derived FR targets: the core of each FR path and the steps that widen it.

A TR-429 path usually begins and ends with optional, repeated steps that *widen* the
relationship: ``thing-actor-created-by`` is "parts of the thing [0,n] → brought into
existence by → carried out by → member of [0,n]", so a work made by Bart Walter is, for
recall, also "created by" American, the group Bart Walter is a member of. A target reached
by the path without its leading and trailing optional steps (the *core*) is **direct**;
any other target is **derived**, through the widening steps.

>>> from llama_index_crm.ontology.fr import FRPath, step_from_json
>>> path = FRPath("x/1", tuple(step_from_json(s) for s in (
...     {"property": "P46i_forms_part_of", "optional": True, "repeat": True},
...     {"property": "P53_has_former_or_current_location"},
...     {"property": "P89_falls_within", "optional": True, "repeat": True})))
>>> split = split_path(path)
>>> [s.property for s in split.lead], [s.property for s in split.core]
(['P46i_forms_part_of'], ['P53_has_former_or_current_location'])
>>> derivation_words("P89_falls_within"), derivation_words("P107i_is_current_or_former_member_of")
('within', 'by membership')

A path of optional steps only (``place-place-is-part-of``: falls within [0,n]) has the
step taken once as its core, and the repetition as its trail: Nikitari falls within Nicosia
District directly, and within Cyprus through Nicosia District.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from llama_index_crm.ontology.fr import (
    FRPath,
    FundamentalRelationship,
    Step,
    iter_step_properties,
)

__all__ = [
    "DERIVATION_WORDS",
    "PathSplit",
    "derivation_words",
    "direct_relationship",
    "is_optional",
    "split_path",
    "widening_properties",
]

DERIVATION_WORDS: dict[str, str] = {
    "P107i_is_current_or_former_member_of": "by membership",
    "P107_has_current_or_former_member": "via members",
    "P89_falls_within": "within",
    "P10_falls_within": "within",
    "P89i_contains": "within it",
    "P10i_contains": "within it",
    "P46i_forms_part_of": "via the whole",
    "P106i_forms_part_of": "via the whole",
    "P148i_is_component_of": "via the whole",
    "P9i_forms_part_of": "via the whole",
    "P46_is_composed_of": "via parts",
    "P106_is_composed_of": "via parts",
    "P148_has_component": "via parts",
    "P9_consists_of": "via parts",
    "P127_has_broader_term": "broader",
    "P2_has_type": "broader",
    "P127i_has_narrower_term": "narrower",
    "P2i_is_type_of": "narrower",
    "P130_shows_features_of": "via similar things",
    "P130i_features_are_also_found_on": "via similar things",
    "L21_used_as_derivation_source": "via derivation",
    "L22i_was_derivative_created_by": "via derivation",
}
"""How a document names the targets reached through a widening step on this property."""
INDIRECT = "indirectly"
"""The words for a derived target whose widening step is not known."""


@dataclass(frozen=True, slots=True)
class PathSplit:
    """An FR path cut into its widening prefix, its core and its widening suffix.

    Attributes:
        lead: leading optional steps (parts or wholes of the start, groups it belongs to).
        core: the direct relationship.
        trail: trailing optional steps (the target's groups, broader places or types).
    """

    lead: tuple[Step, ...]
    core: tuple[Step, ...]
    trail: tuple[Step, ...]


def is_optional(step: Step) -> bool:
    """Whether a step may be skipped: itself optional, or a union of optional steps."""
    return step.optional or (step.kind == "any_of" and bool(step.children)
                             and all(map(is_optional, step.children)))


def _once(step: Step) -> Step:
    """The step taken exactly once (its alternatives too)."""
    return replace(step, optional=False, repeat=False,
                   children=tuple(map(_once, step.children)) if step.kind == "any_of"
                   else step.children)


def split_path(path: FRPath) -> PathSplit:
    """The widening prefix, the core and the widening suffix of ``path``.

    Args:
        path: an FR path.
    """
    steps = path.steps
    start = 0
    while start < len(steps) and is_optional(steps[start]):
        start += 1
    if start == len(steps):  # optional steps only: the first taken once, its repetition
        return PathSplit((), (_once(steps[0]),), steps)
    end = len(steps)
    while end > start and is_optional(steps[end - 1]):
        end -= 1
    return PathSplit(steps[:start], steps[start:end], steps[end:])


def direct_relationship(fr: FundamentalRelationship) -> FundamentalRelationship:
    """``fr`` with the core of each path (equal cores once): what reaches direct targets."""
    paths: dict[tuple[tuple[Step, ...], bool], FRPath] = {}
    for path in fr.paths:
        core = split_path(path).core
        paths.setdefault((core, path.ends_at_type),
                         replace(path, id=path.id + "/direct", steps=core))
    return replace(fr, paths=tuple(paths.values()))


def _properties(steps: Iterable[Step]) -> Iterator[str]:
    for step in steps:
        yield from iter_step_properties(step)


def widening_properties(fr: FundamentalRelationship) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The properties of ``fr``'s leading and of its trailing widening steps, in path order.

    >>> from llama_index_crm.ontology import Ontology
    >>> fr = Ontology.default().fundamental_relationship("thing-actor-created-by")
    >>> lead, trail = widening_properties(fr)
    >>> lead[0], trail
    ('P46_is_composed_of', ('P107i_is_current_or_former_member_of',))
    """
    splits = [split_path(p) for p in fr.paths]
    lead = dict.fromkeys(_properties(s for sp in splits for s in sp.lead))
    trail = dict.fromkeys(_properties(s for sp in splits for s in sp.trail))
    return tuple(lead), tuple(trail)


def derivation_words(prop: str | None) -> str:
    """How a document names targets reached through a widening step on ``prop``."""
    return DERIVATION_WORDS.get(prop or "", INDIRECT)
