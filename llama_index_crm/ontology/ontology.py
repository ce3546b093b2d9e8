"""The CIDOC-CRM vocabulary as one cheap-to-query object: :class:`Ontology`.

Everything comes from ``config/`` (written by ``scripts/build_ontology.py``): categories,
Fundamental Relationships, inverses, sub-properties, aliases, labels and weights. Every method
takes a full IRI in any recognised namespace, a CURIE or a bare local name; CRM 5.x/6.x names
are resolved through the aliases.

>>> onto = Ontology.default()
>>> onto.canonical("http://erlangen-crm.org/current/E22_Man-Made_Object")
'E22_Human-Made_Object'
>>> onto.class_category("E21_Person"), onto.inverse("P108_has_produced")
('Actor', 'P108i_was_produced_by')
>>> onto.is_subproperty("P108i_was_produced_by", "P92i_was_brought_into_existence_by")
True
>>> onto.label("P108i_was_produced_by"), onto.label("P999_foo_bar")
('was produced by', 'foo bar')
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .config_dir import find_config_dir
from .direct import direct_relationship
from .fr import FundamentalRelationship, Step, frs_from_json, step_from_json
from .hierarchy import ancestor_closure, invert_closure
from .namespaces import CRM, CRMDIG, CRMSCI, FRBROO, LA, SKOS, VIR
from .resolver import TermResolver
from .terms import CRM_CODE_RE, ClassInfo, PropertyInfo, humanize

__all__ = ["CATEGORIES", "CATEGORY_PRIORITY", "EXTERNAL_CLASS_CATEGORIES", "Ontology"]

CATEGORIES: tuple[str, ...] = ("Thing", "Actor", "Place", "Event", "Concept", "Time")
"""TR-429's fundamental categories."""

CATEGORY_PRIORITY: tuple[str, ...] = ("Actor", "Place", "Event", "Thing", "Concept", "Time")
"""Which category wins when an entity's classes map to several."""

EXTERNAL_CLASS_CATEGORIES: Mapping[str, str] = MappingProxyType(
    {SKOS + "Concept": "Concept", "skos:Concept": "Concept"})
"""Non-CRM classes with a category: vocabulary terms typed ``skos:Concept`` act as types."""

VOCABULARY_NAMESPACES: Mapping[str, str] = MappingProxyType({
    "crm": str(CRM), "crmsci": str(CRMSCI), "crmdig": str(CRMDIG), "vir": str(VIR),
    "frbroo": str(FRBROO), "la": str(LA)})
"""Canonical namespace per vocabulary, used by :meth:`Ontology.iri`."""

_EMPTY: frozenset[str] = frozenset()


def _read(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


class Ontology:
    """CIDOC-CRM 7.1.3 (+ CRMsci, CRMdig, VIR, FRBRoo) classes, properties and TR-429 FRs.

    Build it with :meth:`default` (cached) or :meth:`from_config_dir`; the constructor takes
    the parsed config files. Look-ups are dictionary hits on tables precomputed here.

    Args:
        classes: parsed ``classes.json``.
        properties: parsed ``properties.json``.
        categories: parsed ``categories.json``.
        aliases: parsed ``aliases.json``.
        weights: parsed ``relationship_weights.json``.
        relationships: parsed ``fundamental_relationships.json``.
        config_dir: where the files came from (informational).
    """

    def __init__(
        self,
        *,
        classes: Mapping[str, Any],
        properties: Mapping[str, Any],
        categories: Mapping[str, Any],
        aliases: Mapping[str, Any],
        weights: Mapping[str, Any],
        relationships: Mapping[str, Any],
        config_dir: Path | None = None,
    ) -> None:
        """Precompute every look-up table."""
        self.config_dir = config_dir
        self._classes = {n: ClassInfo.from_json(n, o) for n, o in classes["classes"].items()}
        self._props = {n: PropertyInfo.from_json(n, o)
                       for n, o in properties["properties"].items()}
        self._categories: dict[str, str] = dict(categories["classes"])
        members: dict[str, set[str]] = {c: set() for c in CATEGORIES}
        for cls, cat in self._categories.items():
            members.setdefault(cat, set()).add(cls)
        self._members = {c: frozenset(m) for c, m in members.items()}
        self._class_up = ancestor_closure({n: c.superclasses for n, c in self._classes.items()})
        self._class_down = invert_closure(self._class_up)
        self._prop_up = ancestor_closure(
            {n: p.superproperties for n, p in self._props.items()})
        self._prop_down = invert_closure(self._prop_up)
        by_vocab: dict[str, set[str]] = {}
        for vocab, name in [*((c.vocab, c.name) for c in self._classes.values()),
                            *((p.vocab, p.name) for p in self._props.values())]:
            by_vocab.setdefault(vocab, set()).add(name)
        self._vocab_terms = {vocab: frozenset(names) for vocab, names in by_vocab.items()}
        self._all_of: dict[str, tuple[str, ...]] = {}
        renames: dict[str, str] = {}
        dropped: set[str] = set()
        for section in ("classes", "properties"):
            for old, spec in aliases.get(section, {}).items():
                target = spec.get("target")
                if spec.get("target_all_of"):
                    self._all_of[old] = tuple(spec["target_all_of"])
                elif target and (target in self._classes or target in self._props):
                    renames[old] = target
                else:
                    dropped.add(old)
        variants = [ns for spec in aliases.get("namespaces", {}).values()
                    for ns in (spec["canonical"], *spec.get("variants", ()))]
        self._resolver = TermResolver(self._classes.keys() | self._props.keys(), renames,
                                      self._all_of, dropped, variants)
        self._deprecated_inverse = self._pair_by_code(self._all_of)
        self._default_weight = float(weights.get("default", 0.5))
        self._weights: dict[str, float] = {
            n: float(w) for n, w in weights.get("properties", {}).items()}
        self._frs = frs_from_json(relationships)
        self._frs_by_id = {fr.id: fr for fr in self._frs}
        self._direct = tuple(direct_relationship(fr) for fr in self._frs)
        self._frs_by_domain = {c: tuple(fr for fr in self._frs if fr.domain == c)
                               for c in CATEGORIES}
        self._rules: Mapping[str, Any] = MappingProxyType(dict(relationships.get("rules", {})))
        self._rule_steps = {name: tuple(step_from_json(s) for s in rule.get("steps", ()))
                            for name, rule in self._rules.items()}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_config_dir(cls, path: str | Path) -> Ontology:
        """Load the six JSON files of a config folder.

        Args:
            path: a folder written by ``scripts/build_ontology.py``.
        """
        folder = Path(path)
        return cls(
            classes=_read(folder / "classes.json"),
            properties=_read(folder / "properties.json"),
            categories=_read(folder / "categories.json"),
            aliases=_read(folder / "aliases.json"),
            weights=_read(folder / "relationship_weights.json"),
            relationships=_read(folder / "fundamental_relationships.json"),
            config_dir=folder,
        )

    @classmethod
    def default(cls) -> Ontology:
        """The ontology of the packaged config (see :func:`find_config_dir`), loaded once."""
        return _default_ontology()

    @staticmethod
    def _pair_by_code(names: Iterable[str]) -> dict[str, str]:
        """``P117_occurs_during`` <-> ``P117i_includes`` by CRM's naming convention."""
        by_code: dict[tuple[str, bool], list[str]] = {}
        for name in names:
            code = CRM_CODE_RE.match(name)
            if code:
                stem = code.group(0).rstrip("_")
                key = (stem.rstrip("i"), stem.endswith("i"))
                by_code.setdefault(key, []).append(name)
        pairs: dict[str, str] = {}
        for (stem, inverse), found in by_code.items():
            other = by_code.get((stem, not inverse), [])
            if len(found) == 1 and len(other) == 1:
                pairs[found[0]] = other[0]
        return pairs

    def __repr__(self) -> str:
        """Sizes and origin."""
        return (f"Ontology({len(self._classes)} classes, {len(self._props)} properties, "
                f"{len(self._frs)} FRs, config_dir={str(self.config_dir)!r})")

    # ------------------------------------------------------------------ terms
    def canonical(self, term: str) -> str | None:
        """Canonical local name of an IRI, CURIE or local name; None outside the CRM family.

        Old names resolve through the aliases (``P131_is_identified_by`` ->
        ``P1_is_identified_by``); an IRI in an unknown namespace whose local name looks like
        a CRM term is resolved by that local name. Deprecated Allen relations (``P117``) keep
        their name (see :meth:`alias_all_of`); primitive-value classes (``E62_String``) give
        None.
        """
        return self._resolver.canonical(term)

    def is_ontology_iri(self, iri: str) -> bool:
        """True when ``iri`` is in a CRM-family namespace (any canonical or variant form)."""
        return self._resolver.is_ontology_iri(iri)

    def is_class(self, term: str) -> bool:
        """True when ``term`` names a known class."""
        return self.canonical(term) in self._classes

    def is_property(self, term: str) -> bool:
        """True when ``term`` names a known property."""
        return self.canonical(term) in self._props

    def class_info(self, term: str) -> ClassInfo | None:
        """The :class:`ClassInfo` record of a class, or None."""
        return self._classes.get(self.canonical(term) or "")

    def property_info(self, term: str) -> PropertyInfo | None:
        """The :class:`PropertyInfo` record (domain, range, ...) of a property, or None."""
        return self._props.get(self.canonical(term) or "")

    def iri(self, term: str) -> str | None:
        """Full IRI of a term in its vocabulary's canonical namespace, or None if unknown."""
        name = self.canonical(term)
        info = self._classes.get(name or "") or self._props.get(name or "")
        return VOCABULARY_NAMESPACES.get(info.vocab, "") + info.name if info else None

    def terms_of(self, vocab: str) -> frozenset[str]:
        """Every local name of one vocabulary (``crm``, ``crmsci``, ``crmdig``, ``vir``,
        ``frbroo``)."""
        return self._vocab_terms.get(vocab, _EMPTY)

    def label(self, term: str) -> str:
        """English label (``was produced by``); a humanised local name for unknown terms."""
        name = self.canonical(term)
        info = self._classes.get(name or "") or self._props.get(name or "")
        if info:
            return info.label
        return humanize(name or term)

    def alias_all_of(self, term: str) -> tuple[str, ...]:
        """7.1.3 properties whose conjunction replaces a deprecated Allen relation.

        ``P117_occurs_during`` -> ``("P176i_starts_after_the_start_of",
        "P185_ends_before_the_end_of")``; empty for every other term.
        """
        return self._all_of.get(self.canonical(term) or "", ())

    # ------------------------------------------------------------------ categories
    def class_category(self, cls: str) -> str | None:
        """Fundamental category of one class (``E22_Human-Made_Object`` -> ``Thing``)."""
        if cls in EXTERNAL_CLASS_CATEGORIES:
            return EXTERNAL_CLASS_CATEGORIES[cls]
        return self._categories.get(self.canonical(cls) or "")

    def category(self, classes: Iterable[str]) -> str | None:
        """Category of an entity typed with ``classes``; by :data:`CATEGORY_PRIORITY` when
        they disagree, None when no class has one (a single string counts as one class)."""
        found = {self.class_category(c)
                 for c in ((classes,) if isinstance(classes, str) else classes)}
        return next((c for c in CATEGORY_PRIORITY if c in found), None)

    def classes_in_category(self, category: str) -> frozenset[str]:
        """Every class (local name) whose category is ``category``."""
        return self._members.get(category, _EMPTY)

    # ------------------------------------------------------------------ hierarchy
    def superclasses(self, cls: str) -> frozenset[str]:
        """Reflexive-transitive superclasses (local names); empty for non-CRM terms."""
        name = self.canonical(cls)
        return self._class_up.get(name, frozenset({name})) if name else _EMPTY

    def subclasses(self, cls: str) -> frozenset[str]:
        """Reflexive-transitive subclasses (local names); empty for non-CRM terms."""
        name = self.canonical(cls)
        return self._class_down.get(name, frozenset({name})) if name else _EMPTY

    def is_subclass(self, cls: str, other: str) -> bool:
        """True when ``cls`` equals or specialises ``other``."""
        name = self.canonical(other)
        return name is not None and name in self.superclasses(cls)

    def superproperties(self, prop: str) -> frozenset[str]:
        """Reflexive-transitive super-properties (local names)."""
        name = self.canonical(prop)
        return self._prop_up.get(name, frozenset({name})) if name else _EMPTY

    def subproperties(self, prop: str) -> frozenset[str]:
        """Reflexive-transitive sub-properties: what a step on ``prop`` must also follow
        (``P92i_was_brought_into_existence_by`` includes ``P108i_was_produced_by``)."""
        name = self.canonical(prop)
        return self._prop_down.get(name, frozenset({name})) if name else _EMPTY

    def is_subproperty(self, prop: str, other: str) -> bool:
        """True when ``prop`` equals or specialises ``other``."""
        name = self.canonical(other)
        return name is not None and name in self.superproperties(prop)

    def inverse(self, prop: str) -> str | None:
        """The other direction (``P108_has_produced`` <-> ``P108i_was_produced_by``); the
        property itself when symmetric; None for literal-valued and unknown properties."""
        name = self.canonical(prop)
        if name is None:
            return None
        info = self._props.get(name)
        return info.inverse if info else self._deprecated_inverse.get(name)

    def weight(self, prop: str) -> float:
        """How much a property matters when ranking triples (0-1; the default when unlisted)."""
        return self._weights.get(self.canonical(prop) or "", self._default_weight)

    # ------------------------------------------------------------------ FRs
    def fundamental_relationships(self) -> tuple[FundamentalRelationship, ...]:
        """All TR-429 relationships in file order."""
        return self._frs

    def direct_relationships(self) -> tuple[FundamentalRelationship, ...]:
        """Every relationship with the core of its paths only (same ids, same order): what
        reaches its *direct* targets (:mod:`llama_index_crm.ontology.direct`)."""
        return self._direct

    def fundamental_relationship(self, fr_id: str) -> FundamentalRelationship:
        """One relationship by id.

        Raises:
            KeyError: for an unknown id.
        """
        return self._frs_by_id[fr_id]

    def frs_from(self, category: str) -> tuple[FundamentalRelationship, ...]:
        """Relationships whose domain is ``category`` (none for ``Time``: see the rule
        ``time_to_event``).

        Raises:
            ValueError: when ``category`` is not one of :data:`CATEGORIES`.
        """
        if category not in self._frs_by_domain:
            raise ValueError(f"unknown category {category!r}; expected one of {CATEGORIES}")
        return self._frs_by_domain[category]

    def frs_between(self, domain: str, range_: str) -> tuple[FundamentalRelationship, ...]:
        """Relationships from ``domain`` to ``range_``."""
        return tuple(fr for fr in self.frs_from(domain) if fr.range == range_)

    @property
    def rules(self) -> Mapping[str, Any]:
        """Walking rules (``event_to_time``, ``time_to_event``, ``range_by_type``,
        ``inference``, ``end_node``) as in the config; read-only."""
        return self._rules

    def rule_steps(self, rule: str) -> tuple[Step, ...]:
        """The steps a rule appends or prepends (``event_to_time`` -> ``P4_has_time-span``)."""
        return self._rule_steps.get(rule, ())


@functools.cache
def _default_ontology() -> Ontology:
    return Ontology.from_config_dir(find_config_dir())
