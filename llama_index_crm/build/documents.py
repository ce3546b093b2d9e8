"""One readable document per entity, written from its FR walk and its folded-in satellites.

Layout (most identifying facts first, since embedding models read only the first ~256
tokens)::

    [Thing] Panagia Phorbiottissa
    Classes: Human-Made Object
    Type: church
    Names: Panagia Phorbiottissa (en); Παναγία Φορβιώτισσα (el)
    Created by (actor): Nikephoros Ischyrios (donor)
    Is/was located in (place): Nikitari; Nicosia; Cyprus
    ...
    Other relations:
    - is referred to by: ...

Satellites (appellations, types, time-spans, dimensions, rights) get no document of their
own: their content is written into the documents of the entities that use them.
"""

from __future__ import annotations

import heapq
import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from llama_index_crm.build.labels import (
    DIRECT_LABELS,
    SYMBOLIC_VALUES,
    Labeller,
    best_literal,
    clip,
    local_words,
    looks_like_iri,
)
from llama_index_crm.build.neighbourhood import Neighbourhood
from llama_index_crm.build.roles import (
    actor_roles,
    event_roles,
    is_role_node,
    role_lines,
    statements,
)
from llama_index_crm.build.traversal import Derivation, FRMatch, FRWalker
from llama_index_crm.ontology import Ontology, derivation_words
from llama_index_crm.rdf import RDF_VALUE, XSD, Literal

SATELLITE_CLASSES = frozenset(
    {"E41_Appellation", "E55_Type", "E52_Time-Span", "E54_Dimension", "E30_Right"}
)
"""Thin vocabulary nodes folded into the documents that use them."""

_TYPE = frozenset({"P2_has_type"})
_NAMES = frozenset({"P1_is_identified_by", "P102_has_title", "P48_has_preferred_identifier"})
_TIME = frozenset({"P4_has_time-span"})
_ASSIGNED = frozenset({"P42_assigned", "P141_assigned"})
_DIMENSIONS = frozenset({"P43_has_dimension"})
_RIGHTS = frozenset({"P104_is_subject_to", "P105_right_held_by"})
_FOLDED = _TYPE | _NAMES | _TIME | _DIMENSIONS | frozenset({"P104_is_subject_to"})
_TZ = r"(?:Z|[+-]\d{2}:\d{2})?"
_YEAR = r"-?\d{4,}"
_DAY = rf"{_YEAR}-\d{{2}}-\d{{2}}"
_XSD_TEMPORAL: dict[str, re.Pattern[str]] = {
    XSD + "date": re.compile(rf"{_DAY}{_TZ}"),
    XSD + "dateTime": re.compile(rf"{_DAY}T\d{{2}}:\d{{2}}:\d{{2}}(?:\.\d+)?{_TZ}"),
    XSD + "gYear": re.compile(rf"{_YEAR}{_TZ}"),
    XSD + "gYearMonth": re.compile(rf"{_YEAR}-\d{{2}}{_TZ}"),
}
"""The lexical forms of the XSD date datatypes (XSD 1.0 also refuses year 0000)."""
_YEAR_ZERO = re.compile(r"-?0000(?!\d)")
_BEGIN = ("P82a_begin_of_the_begin", "P81a_end_of_the_begin")
_END = ("P82b_end_of_the_end", "P81b_begin_of_the_end")
_WITHIN = ("P82_at_some_time_within", "P81_ongoing_throughout")
DERIVED_SEPARATOR = " — "
"""Between an FR's direct targets and each group of derived ones on its line."""
MAX_ITEMS = 200
"""Targets listed per relationship before "… and N more"."""
_NAMING_LINKS = 50
"""Neighbours looked at to name an unlabelled node (its strongest links first)."""

# FRs listed first, by category: what identifies a work, a person, a place or an event.
_FR_PRIORITY: dict[str, tuple[str, ...]] = {
    "Thing": ("created-by", "by", "created-in", "is-located-in", "from",
              "has-type", "is-made-of", "is-part-of", "has-part"),
    "Actor": ("from", "is-member-of", "is-generator-of", "is-origin-of", "has",
              "performed-action-at", "has-member", "has-type"),
    "Place": ("is-part-of", "has-part", "has-type", "is-origin-of"),
    "Event": ("created", "destroyed", "modified", "used", "by", "brought-into-existence",
              "took-out-of-existence", "from", "has-type", "is-part-of", "has-part"),
}
"""Specific FRs come first; a target is listed once, under the first FR that reaches it,
so the generic ones (has met, refers to, is referred to by) keep only what is left."""


FRTargets = tuple[dict[str, set[str]], dict[str, set[str]]]
"""An entity's FR targets and its direct targets, each ``fr id → targets``."""
KnownFRs = tuple[str, list[tuple[str, str, bool, str | None, str | None]]]
"""An entity's category and its FR edges as an earlier write of it gave them, in their
order: (fr id, target, direct, widened_by, via) (rows of ``fr_edges.parquet``)."""


@dataclass(frozen=True, slots=True)
class FREdge:
    """One FR match: a row of ``fr_edges.parquet`` (with the entity as ``s``).

    Attributes:
        fr: the FR id.
        o: the target.
        direct: reached by the core of the FR's paths.
        widened_by: for a derived target, the property of the widening step
            (``P107i_is_current_or_former_member_of``); None when direct or not known.
        via: for a derived target, the direct target it was reached through (None when
            direct, or reached through a part or a whole of the entity).
    """

    fr: str
    o: str
    direct: bool = True
    widened_by: str | None = None
    via: str | None = None


@dataclass(slots=True)
class EntityDocument:
    """A built document before embedding: text plus the metadata LlamaIndex carries."""

    uri: str
    label: str
    category: str
    classes: list[str]
    text: str
    chained_from: list[str] = field(default_factory=list)
    satellites: list[str] = field(default_factory=list)
    fr_edges: list[FREdge] = field(default_factory=list)
    """Every FR match of the entity, before display de-duplication. Filled when the
    document is written; a build keeps them in ``fr_edges.parquet`` (rows s, fr, o,
    direct, widened_by, via), not in the documents it returns."""
    named: bool = True
    """False when the label was made up ("Production of …") because the data has none."""


def _fr_rank(fr_id: str, category: str) -> int:
    order = _FR_PRIORITY.get(category, ())
    for i, suffix in enumerate(order):
        if fr_id.endswith("-" + suffix):
            return i
    return len(order)


def _date(literal: Literal) -> str | None:
    """``1765-01-01T00:00:00`` → ``1765-01-01``; other values unchanged.

    ``None`` for an ill-typed date (an XSD date or time datatype whose lexical form is not
    one, or year 0000): servers rewrite those as they please (Virtuoso reads
    ``"-01-01"^^xsd:date`` as ``0000-01-01``), so they are not shown.

    >>> _date(Literal("1765-01-01T00:00:00", None, XSD + "dateTime"))
    '1765-01-01'
    >>> _date(Literal("-01-01", None, XSD + "date")), _date(Literal("ca. 1500"))
    (None, 'ca. 1500')
    """
    value = literal.value
    pattern = _XSD_TEMPORAL.get(literal.datatype or "")
    if pattern is not None and (not pattern.fullmatch(value) or _YEAR_ZERO.match(value)):
        return None
    return value.split("T", 1)[0] if len(value) > 10 and value[4:5] == "-" else value


def _literal_text(lit: Literal) -> str:
    text = clip(lit.value, 1000)
    return f"{text} ({lit.lang})" if lit.lang else text


class DocumentWriter:
    """Writes entity documents from a neighbourhood.

    Args:
        ontology: the CRM vocabulary.
        walker: the compiled FR walker.
        lang: preferred language of names.
    """

    def __init__(self, ontology: Ontology, walker: FRWalker, lang: str = "en") -> None:
        self.ontology = ontology
        self.walker = walker
        self.lang = lang
        sub = ontology.subproperties
        self._existence_keys = (
            ("Beginning of existence", sub("P92i_was_brought_into_existence_by"),
             sub("P92_brought_into_existence")),
            ("End of existence", sub("P93i_was_taken_out_of_existence_by"),
             sub("P93_took_out_of_existence")),
        )

    # -- classification ----------------------------------------------------------------
    @staticmethod
    def is_satellite(nb: Neighbourhood, node: str) -> bool:
        """True for appellations, types, time-spans, dimensions and rights."""
        return bool(nb.superclasses(node) & SATELLITE_CLASSES)

    def is_folded(self, nb: Neighbourhood, node: str) -> bool:
        """True for satellites and for Linked Art's role assignments and role sets: nodes
        written into the documents of others, with none of their own."""
        return self.is_satellite(nb, node) or is_role_node(nb, node)

    def class_names(self, nb: Neighbourhood, node: str) -> list[str]:
        """English labels of the node's classes, sorted."""
        return sorted({self.ontology.label(t) for t in nb.types.get(node, ())})

    # -- small renderers ---------------------------------------------------------------
    def timespan(self, nb: Neighbourhood, lab: Labeller, ts: str) -> str:
        """A time-span as text: its label and its dates (``1105–1106 (1105 to 1106)``)."""
        if not nb.require_described(ts):
            return ""
        label = best_literal(nb.literal_values(ts, DIRECT_LABELS), self.lang)
        begin, end, within = (sorted(d for d in map(_date, nb.literal_values(ts, keys)) if d)
                              for keys in (_BEGIN, _END, _WITHIN))
        dates = ""
        if begin or end:
            b, e = (begin[0] if begin else "?"), (end[-1] if end else "?")
            dates = b if b == e else f"{b} to {e}"
        elif within:
            dates = within[0]
        years = {d[:4] for d in (*begin, *end, *within)}
        if label and dates and not all(y in label.value for y in years):
            return f"{clip(label.value)} ({dates})"
        return clip(label.value) if label else dates

    def event_date(self, nb: Neighbourhood, lab: Labeller, event: str) -> str:
        """The dates of an event through ``P4_has_time-span``."""
        if not nb.require_described(event):
            return ""
        parts = [self.timespan(nb, lab, ts) for ts in sorted(nb.objects(event, _TIME))]
        return "; ".join(p for p in parts if p)

    def annotation(self, nb: Neighbourhood, lab: Labeller, node: str) -> str:
        """Inline facts after a target's name: its types, and its date for events."""
        if not nb.require_described(node):
            return ""
        bits = [lab.name(t) for t in sorted(nb.objects(node, _TYPE)) if lab.has_label(t)][:3]
        # what an attribute or type assignment assigned ("Type Assignment (painting)")
        bits += [lab.name(t) for t in sorted(nb.objects(node, _ASSIGNED)) if lab.has_label(t)]
        if nb.category(node) == "Event":
            date = self.event_date(nb, lab, node)
            if date:
                bits.append(date)
        return ", ".join(b for b in bits if b)

    def target(self, nb: Neighbourhood, lab: Labeller, node: str) -> str:
        """A target as ``Name (annotation)``; an unlabelled one by its class name."""
        text = lab.rendered.get(node)
        if text is None:
            outer, nb.missed = nb.missed, False
            text = self._target(nb, lab, node)
            if not nb.missed:
                lab.rendered[node] = text
            nb.missed = outer or nb.missed
        return text

    def _target(self, nb: Neighbourhood, lab: Labeller, node: str) -> str:
        name, real = lab.resolve(node)  # asks for the node's outgoing triples
        # An unlabelled node is named after its neighbours ("Production of X"), which needs
        # all of them; but a shared vocabulary term (an unlabelled Getty AAT concept with
        # 40,000 users) keeps its marked stand-in name ("aat 300026687 (unlabelled)"), not
        # "Type of <one of its users>". Being a type is known once the node is described.
        described = node in nb.described
        if not real and not (described and nb.is_a(node, "E55_Type")):
            if described and nb.require(node):
                name = self.entity_label(nb, lab, node)
            else:
                classes = self.class_names(nb, node)
                name = classes[0] if classes else name
        note = self.annotation(nb, lab, node)
        return f"{name} ({note})" if note else name

    def entity_label(self, nb: Neighbourhood, lab: Labeller, node: str) -> str:
        """The entity's own name; an unlabelled one is named after what it is linked to.

        ``Production of Panagia Phorbiottissa`` rather than ``production 1 (unlabelled)``.
        """
        name, real = lab.resolve(node)
        if real:
            return name
        classes = self.class_names(nb, node)
        if not classes:
            return name
        cached = lab.derived.get(node)
        if cached is not None:
            if node in lab.incomplete:
                nb.missed = True
            return cached
        outer, nb.missed = nb.missed, False
        weighted = [(-self.ontology.weight(p), nodes)
                    for edges in (nb.out.get(node, {}), nb.inc.get(node, {}))
                    for p, nodes in edges.items()]
        # the strongest links first; a hub's thousands of links are not all sorted
        links = heapq.nsmallest(_NAMING_LINKS, ((w, n) for w, nodes in weighted for n in nodes))
        best: tuple[float, str] | None = None
        for weight, n in links:
            if lab.has_label(n) and not self.is_satellite(nb, n):
                cand = (weight, lab.name(n))
                best = cand if best is None or cand < best else best
        derived = f"{classes[0]} of {best[1]}" if best else name
        lab.derived[node] = derived
        if nb.missed:  # to be named again once what it needs is fetched
            lab.incomplete.add(node)
        nb.missed = outer or nb.missed
        return derived

    def _names(self, nb: Neighbourhood, lab: Labeller, node: str,
               identifiers: bool = False) -> list[str]:
        """Appellation values with language and type; identifiers (E42) apart."""
        out: list[str] = []
        for app in sorted(nb.objects(node, _NAMES)):
            if not nb.require_described(app):
                continue
            if nb.is_a(app, "E42_Identifier") != identifiers:
                continue
            values = nb.literal_values(app, (*SYMBOLIC_VALUES[:2], *DIRECT_LABELS))
            kinds = [lab.name(t) for t in sorted(nb.objects(app, _TYPE)) if lab.has_label(t)]
            for lit in sorted(values):
                if looks_like_iri(lit.value) and not identifiers:
                    continue
                text = clip(lit.value)
                extra = [x for x in (lit.lang, *kinds) if x]
                out.append(f"{text} ({', '.join(extra)})" if extra else text)
        return list(dict.fromkeys(out))

    def _dimensions(self, nb: Neighbourhood, lab: Labeller, node: str) -> list[str]:
        out: list[str] = []
        for dim in sorted(nb.objects(node, _DIMENSIONS)):
            if not nb.require_described(dim):
                continue
            values = sorted(x.value for x in nb.literal_values(dim, ("P90_has_value", RDF_VALUE)))
            units = [lab.name(u) for u in sorted(nb.objects(dim, frozenset({"P91_has_unit"})))]
            kinds = [lab.name(t) for t in sorted(nb.objects(dim, _TYPE))]
            text = " ".join([*values, *units]) or lab.name(dim)
            out.append(f"{kinds[0]}: {text}" if kinds else text)
        return out

    def _existence(self, nb: Neighbourhood, lab: Labeller, node: str) -> list[str]:
        """``Beginning of existence: 1738`` lines (births, foundings, productions)."""
        out = []
        for head, forward, backward in self._existence_keys:
            events = sorted(set(nb.objects(node, forward) + nb.subjects(node, backward)))
            dates = [d for d in (self.event_date(nb, lab, e) for e in events) if d]
            if dates:
                out.append(f"{head}: " + "; ".join(dict.fromkeys(dates)))
        return out

    # -- the document ------------------------------------------------------------------
    def write(self, nb: Neighbourhood, lab: Labeller, entity: str,
              fr_targets: FRTargets | None = None,
              walk_frs: Collection[str] = (), known: KnownFRs | None = None
              ) -> EntityDocument | None:
        """The document of ``entity``, or None for satellites and uncategorised nodes.

        Args:
            nb: the chunk's neighbourhood.
            lab: its labeller.
            entity: the entity IRI.
            fr_targets: the entity's FR targets and direct targets (each ``fr id →
                targets``) when computed elsewhere (SPARQL property paths); walked through
                ``nb`` when None.
            walk_frs: FRs walked through ``nb`` even when ``fr_targets`` is given (their
                queries were rejected by the server).
            known: the entity's FR edges as an earlier write gave them (an update, for an
                entity whose walk meets no change): used as they are when the entity is
                of the same category, instead of walking and deriving again.
        """
        category = nb.category(entity)
        if category is None or self.is_satellite(nb, entity) or is_role_node(nb, entity):
            return None
        given = self._known_matches(category, known) if known is not None else None
        if given is not None:
            matches, derivations = given
        elif fr_targets is None:
            matches = self.walker.walk(nb, entity, category)
        else:
            found, direct = fr_targets
            if walk_frs:
                walked, walked_direct = self.walker.walk_targets(nb, entity, category)
                found = {**found, **{fr: t for fr, t in walked.items() if fr in walk_frs}}
                direct = {**direct,
                          **{fr: t for fr, t in walked_direct.items() if fr in walk_frs}}
            matches = self.walker.matches_from(category, found, direct)
        label = self.entity_label(nb, lab, entity)
        classes = self.class_names(nb, entity)
        lines = [f"[{category}] {label}"]
        if classes:
            lines.append("Classes: " + ", ".join(classes))
        types = [self.target(nb, lab, t) for t in sorted(nb.objects(entity, _TYPE))]
        if types:
            lines.append("Type: " + "; ".join(types))
        names = self._names(nb, lab, entity)
        if names:
            lines.append("Names: " + "; ".join(names))
        date = self.event_date(nb, lab, entity)
        if date:
            lines.append("Date: " + date)
        lines.extend(self._existence(nb, lab, entity))
        dims = self._dimensions(nb, lab, entity)
        if dims:
            lines.append("Dimensions: " + "; ".join(dims))
        shown: set[str] = set(nb.objects(entity, _TYPE))
        for node, kind, text in statements(nb, lab, entity):
            lines.append(f"{kind}: {text}")
            shown.add(node)
        lines.extend(self._role_lines(nb, lab, entity, category, shown))
        if given is None:
            derivations = {m.fr.id: self.walker.derivations(nb, entity, m) for m in matches}
        lines.extend(self._fr_lines(nb, lab, matches, derivations, shown))
        ids = self._names(nb, lab, entity, identifiers=True)
        if ids:
            lines.append("Identifiers: " + "; ".join(ids))
        lines.extend(self._literal_lines(nb, entity, label))
        lines.extend(self._other_lines(nb, lab, entity, shown))
        satellites = sorted(
            {o for objs in nb.out.get(entity, {}).values() for o in objs
             if self.is_satellite(nb, o)}
        )
        return EntityDocument(
            uri=entity,
            label=label,
            category=category,
            classes=classes,
            text="\n".join(lines),
            satellites=satellites,
            fr_edges=_fr_edges(matches, derivations),
            named=lab.has_label(entity),
        )

    def _known_matches(self, category: str, known: KnownFRs
                       ) -> tuple[list[FRMatch], dict[str, dict[str, Derivation]]] | None:
        """The FR matches and derivations that gave the edges ``known`` (what
        :func:`_fr_edges` turns back into them), or None when the entity was of another
        category or an FR is not one of this category's."""
        was, edges = known
        if was != category:
            return None
        frs = {fr.id: fr for fr in self.walker.relationships(category)}
        matches: dict[str, FRMatch] = {}
        derivations: dict[str, dict[str, Derivation]] = {}
        direct: dict[str, set[str]] = {}
        for fr_id, target, is_direct, widened_by, via in edges:
            fr = frs.get(fr_id)
            if fr is None:
                return None
            m = matches.get(fr_id)
            if m is None:
                m = matches[fr_id] = FRMatch(fr)
                derivations[fr_id], direct[fr_id] = {}, set()
            m.targets.append(target)
            if is_direct:
                direct[fr_id].add(target)
            else:
                derivations[fr_id][target] = Derivation(widened_by, via)
        for fr_id, m in matches.items():
            m.direct = frozenset(direct[fr_id])
        return list(matches.values()), derivations

    def _role_lines(self, nb: Neighbourhood, lab: Labeller, entity: str, category: str,
                    shown: set[str]) -> list[str]:
        """``Director: Alfred H. Barr, Jr.`` (an activity), ``Director in (event): …`` (an
        actor): Linked Art roles (:mod:`~llama_index_crm.build.roles`); what they name is
        added to ``shown``."""
        if category == "Event":
            roles, suffix = event_roles(nb, lab, entity, self.lang, shown), ""
        elif category == "Actor":
            roles, suffix = actor_roles(nb, entity, self.lang, shown), " in (event)"
        else:
            return []
        for members in roles.values():
            shown.update(members)
        shown.update(n for n in _linked_role_nodes(nb, entity) if is_role_node(nb, n))
        return role_lines(roles, lambda nodes: self._targets(nb, lab, nodes), suffix)

    def _fr_lines(self, nb: Neighbourhood, lab: Labeller, matches: list[FRMatch],
                  derivations: dict[str, dict[str, Derivation]], shown: set[str]) -> list[str]:
        """One line per FR: its direct targets, then each kind of derived ones apart
        (``Created by (actor): Bart Walter — by membership: American``).

        A target is listed once, under the first FR that reaches it (directly or not).
        """
        lines: list[str] = []
        for m in sorted(matches, key=lambda m: (_fr_rank(m.fr.id, m.fr.domain), m.fr.id)):
            targets = [t for t in m.targets if t not in shown]
            shown.update(targets)
            direct = [t for t in targets if t in m.direct]
            groups: dict[str, list[str]] = {}
            how = derivations[m.fr.id]
            for t in targets:
                if t not in m.direct:
                    groups.setdefault(derivation_words(how[t].widened_by), []).append(t)
            parts = [self._targets(nb, lab, direct)] if direct else []
            parts += [f"{words}: {self._targets(nb, lab, groups[words])}"
                      for words in sorted(groups)]
            if parts:
                head = f"{m.fr.label[:1].upper()}{m.fr.label[1:]} ({m.fr.range.lower()}): "
                lines.append(head + DERIVED_SEPARATOR.join(parts))
        return lines

    def _literal_lines(self, nb: Neighbourhood, entity: str, label: str) -> list[str]:
        by_pred: dict[str, list[str]] = defaultdict(list)
        for p, lit in nb.literals.get(entity, ()):
            text = _literal_text(lit)
            if clip(lit.value) == label and p in DIRECT_LABELS:
                continue
            by_pred[self._predicate_label(nb, p)].append(text)
        out = []
        for pred in sorted(by_pred, key=lambda k: (len(max(by_pred[k], key=len)) > 200, k)):
            out.append(f"{pred[:1].upper()}{pred[1:]}: " + _join(sorted(set(by_pred[pred]))))
        return out

    def _predicate_label(self, nb: Neighbourhood, p: str) -> str:
        key = nb.predicate_key(p)
        return self.ontology.label(key) if key != p else local_words(p)

    def _other_lines(self, nb: Neighbourhood, lab: Labeller, entity: str,
                     shown: set[str]) -> list[str]:
        rel: dict[str, set[str]] = defaultdict(set)
        for p, objs in nb.out.get(entity, {}).items():
            if p in _FOLDED:
                continue
            for o in objs:
                if o not in shown and o != entity:
                    rel[self._predicate_label(nb, p)].add(o)
        for p, subs in nb.inc.get(entity, {}).items():
            inverse = self.ontology.inverse(p) if "://" not in p else None
            name = self.ontology.label(inverse) if inverse else f"is {local_words(p)} of"
            for s in subs:
                if s not in shown and s != entity and not self.is_satellite(nb, s):
                    rel[name].add(s)
        if not rel:
            return []
        lines = ["Other relations:"]
        for pred in sorted(rel):
            lines.append(f"- {pred}: " + self._targets(nb, lab, rel[pred]))
        return lines

    def _targets(self, nb: Neighbourhood, lab: Labeller, nodes: Iterable[str]) -> str:
        """Targets as text; past MAX_ITEMS only a count (their names are not fetched)."""
        ordered = sorted(nodes)
        items = sorted({self.target(nb, lab, n) for n in ordered[:MAX_ITEMS]})
        rest = len(ordered) - MAX_ITEMS
        return _join(items) + (f"; … and {rest} more" if rest > 0 else "")


_ROLE_LINKS = frozenset({"P9_consists_of", "P140i_was_attributed_by", "P141i_was_assigned_by",
                         "P12i_was_present_at", "P129i_is_subject_of"})
_ROLE_LINKS_IN = frozenset({"P9i_forms_part_of", "P140_assigned_attribute_to", "P141_assigned",
                            "P12_occurred_in_the_presence_of", "P129_is_about"})


def _linked_role_nodes(nb: Neighbourhood, entity: str) -> set[str]:
    """Neighbours of ``entity`` that may be attribute assignments or role sets."""
    return {*nb.objects(entity, _ROLE_LINKS), *nb.subjects(entity, _ROLE_LINKS_IN)}


def _fr_edges(matches: list[FRMatch],
              derivations: dict[str, dict[str, Derivation]]) -> list[FREdge]:
    edges: list[FREdge] = []
    for m in matches:
        how = derivations[m.fr.id]
        for t in m.targets:
            d = how.get(t)
            edges.append(FREdge(m.fr.id, t) if d is None
                         else FREdge(m.fr.id, t, False, d.widened_by, d.via))
    return edges


def _join(items: Iterable[str]) -> str:
    return "; ".join(dict.fromkeys(items))
