"""Exact plans run on the user's SPARQL endpoint (``--exact-backend sparql --endpoint URL``).

For graphs that stay in a server (Virtuoso, QLever, Oxigraph…), the set a plan asks for is
computed there: the plan is compiled to SPARQL (:func:`~.sparql.plan_sparql`, the query an
answer shows) and sent to the endpoint, and its members are the answer. Everything before
that is unchanged: names are linked over the index's name table, relations and classes are
compiled to the IRIs the index recorded of the graph, and the planner's checks (coverage,
absences, the FR graph) read the index.

Only plan shapes whose SPARQL means what the executor computes are sent
(:func:`uncompiled` says why another is not): lists and counts of members linked by
relations, restricted by category, class nouns the graph types with, dates and exclusions.
Every other plan (values, rankings, groups, readings through parts, hinted events, texts
matched by folded words…) runs over the index's triples, and its answer says so in a note
and in :attr:`~.results.ExactResult.backend`; so does one the endpoint failed to answer.
An answer never differs silently from the one the index's triples give.

Members the endpoint returns that the index does not know (the graph grew since the build)
are named by their ``rdfs:label`` on the endpoint. Members carry no witness triples: the
query is the evidence.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace

from llama_index_crm.errors import SourceError
from llama_index_crm.exact.execute import (
    GENDER_WORDS,
    GROUP_NOUNS,
    MAKER_NOUNS,
    PERSON_NOUNS,
    TITLE_RELATION,
    UNTYPED_STATEMENTS,
    Executor,
)
from llama_index_crm.exact.linking import mentions, mentions_forms
from llama_index_crm.exact.plan import ExactPlan, ValueFilter, Variable
from llama_index_crm.exact.plan_endpoint import PlanEndpoint, Row, Span, batches, endpoint_year
from llama_index_crm.exact.ranking import is_placeholder
from llama_index_crm.exact.relations import Relation, RelationLexicon, type_label_names
from llama_index_crm.exact.results import ExactResult, Item, Value, extreme
from llama_index_crm.exact.sparql import (
    MAX_EXCEPTIONS,
    DeferredValue,
    bound,
    category_exceptions,
    filtered_sparql,
    linked_sparql,
    members_sparql,
    relation_path,
    step_path,
    values_of_sparql,
)
from llama_index_crm.exact.values import month_of, within, years_text
from llama_index_crm.exact.wholes import BROADER_STEP, WHOLE_STEP
from llama_index_crm.ontology import Ontology, Step
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.rdf import RDF_TYPE, Literal
from llama_index_crm.storage.names import fold_name
from llama_index_crm.storage.triples import TripleStore

__all__ = ["BACKENDS", "EndpointExecutor", "PlanEndpoint", "plan_endpoint", "uncompiled"]

logger = logging.getLogger(__name__)

BACKENDS = ("parquet", "sparql")
"""Where exact plans run: the index's triples, or the user's endpoint."""
COMPILED_OPERATIONS = frozenset({"list", "count", "value", "superlative", "group"})
"""Operations the endpoint answers: the member set, the values of its members, and
rankings by date and groups by value over them (ranked by the executor's own code)."""
VALUE_KINDS = frozenset({"node", "time", "text"})
"""Values read off the endpoint as the executor reads them off the index."""
_TIME_OF_DAY = re.compile(r"T\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?$")


def _typed(labels: Sequence[str], words: Sequence[str]) -> bool:
    """Whether one of a node's folded type labels is of the kind a folded word names
    (:meth:`Executor._typed`)."""
    return any(type_label_names(label, word) for word in words for label in labels)


def _time_value(label: str, span: tuple[int, int] | None, uri: str | None) -> Value:
    """A date's value as :meth:`Executor._value` makes it: its label, else its years."""
    text = label if label and not label.endswith("(unlabelled)") else years_text(span)
    if span is not None and not any(ch.isdigit() for ch in text):
        text = f"{text} ({years_text(span)})"
    return Value(text, uri, span)


def _in_period(term: object, spans: Mapping[str, Span], dated: DeferredValue) -> bool:
    """Whether a projected date (a time-span IRI or a date literal) falls in its period, as
    :meth:`Executor._value_filter` judges it."""
    condition = dated.condition
    assert condition is not None and condition.years is not None
    if isinstance(term, Literal):
        year = endpoint_year(term.value)
        span, month = ((year, year) if year is not None else None), month_of(term.value)
    elif isinstance(term, str):
        span, month = spans.get(term, (None, None))
    else:
        return False
    if span is not None and dated.relation.domain == "Event":
        span = (span[0], span[0])  # an exhibition of 1941 is one opened in 1941
    if span is None or not within(span, condition.years, condition.begins):
        return False
    if condition.months is not None:
        low, high = condition.years
        return month is not None and low <= month[0] <= high and \
            condition.months[0] <= month[1] <= condition.months[1]
    return True


def _property_steps(steps: Sequence[Step]) -> list[str]:
    out: list[str] = []
    for step in steps:
        if step.property is not None:
            out.append(step.property)
        out.extend(step.all_of)
        out += _property_steps(step.children)
    return out


def _attributed(relation: Relation, executor: Executor) -> bool:
    """Whether the graph records attributions (E13) of a property of ``relation``: the
    executor checks their ``P177`` and says "by attribution"; the query does neither."""
    engine = executor.engine
    for path in relation.paths:
        for prop in _property_steps(path):
            inverse = executor.ontology.inverse(prop)
            if len(engine.assigned_properties(prop)) or (
                    inverse and len(engine.assigned_properties(inverse))):
                return True
    return False


def _has_parts(executor: Executor) -> bool:
    """Whether the graph records parts of things (the executor reads a class noun through
    the wholes of parts; the query does not)."""
    return any(len(executor.engine.property_ids(p)) for p in _property_steps([WHOLE_STEP]))


def _variable(var: Variable, index: int, executor: Executor) -> str | None:
    """Why one variable of a plan cannot be compiled faithfully, or None."""
    lexicon = executor.lexicon
    noun = (var.noun or "").lower()
    if var.anchor is None and not var.links and (
            var.category is None or executor.engine.type_id is None):
        return "a variable of any kind"
    if index and var.exclude:
        return "an exclusion from a linked set"
    if var.anchor is None and var.category is not None and \
            sum(map(len, category_exceptions(executor, var.category))) > MAX_EXCEPTIONS:
        return f"the index counts many nodes as {var.category} otherwise than by their class"
    if var.category == "Actor" and var.anchor is None:
        if noun in GENDER_WORDS or any(t in GENDER_WORDS for t in var.types):
            return "a gender read from types"
        if noun in PERSON_NOUNS or noun in GROUP_NOUNS:
            return "people or groups told apart by class"
        if noun in MAKER_NOUNS and any(r.via_labels and noun in r.nouns
                                       for r in lexicon.values()):
            return f"“{noun}” read through the roles the graph records"
        if noun and not var.types and executor.graph_types(singularise(noun), actors=True):
            return f"actors the graph types otherwise than “{noun}”"
    if var.types:
        if not any(executor.graph_types(fold_name(w)) for w in var.types):
            return "type words the graph may not record"
        if index and _has_parts(executor):  # variable 0's are read as the executor does
            return "class nouns of a linked set read through the wholes of parts"
    for link in var.links:
        relation = lexicon[link.relation]
        if relation.via_labels:
            return f"the role “{relation.label}”"
        if link.hints:
            return "events singled out by their type"
        if link.role:
            return f"makers named by what they make (“{link.role}”)"
        if _attributed(relation, executor):
            return f"attributions of “{relation.label}”"
    for condition in var.filters:
        relation = lexicon[condition.relation]
        if condition.hints or condition.through:
            return "a date carried by a linked event"
        if condition.decade_guess:
            return "a decade named without its century"
        if _attributed(relation, executor):
            return f"attributions of “{relation.label}”"
    return None


def uncompiled(plan: ExactPlan, executor: Executor) -> str | None:
    """Why ``plan`` does not run on the endpoint (its SPARQL could answer otherwise than the
    executor), or None when it does."""
    if plan.operation not in COMPILED_OPERATIONS:
        return f"{plan.operation} plans are computed over the index"
    if plan.operation == "superlative" and (plan.order_by or "count") == "count":
        counted = next((i for i, v in enumerate(plan.variables) if i and any(
            link.target == 0 for link in v.links)), None)
        if counted is not None and any(link.target == counted
                                       for link in plan.variables[0].links):
            return "a ranking by count through a loop of links"
    if plan.operation in {"value", "superlative", "group"}:
        if plan.hints:
            return "events singled out by their type"
        read = [*plan.attributes, *((plan.order_by or "").split(":")[:1]),
                *((plan.group_by or "").split(":")[:1])]
        for name in dict.fromkeys(n for n in read if n and n != "count"):
            relation = executor.lexicon[name]
            if relation.value not in VALUE_KINDS or name in UNTYPED_STATEMENTS:
                return f"the {relation.label} read as the index reads it"
            if relation.via_labels or _attributed(relation, executor):
                return f"attributions or roles of “{relation.label}”"
        if plan.operation == "superlative" and plan.order_by != "count" and \
                executor.lexicon[str(plan.order_by).split(":")[0]].value != "time":
            return "rankings by size are computed over the index"
    for index, var in enumerate(plan.variables):
        why = _variable(var, index, executor)
        if why is not None:
            return why
    return None


class EndpointExecutor(Executor):
    """An :class:`Executor` that sends the plans it can compile to the user's endpoint and
    runs the others over the index's triples, saying so.

    Args:
        store: the index's triples (the graph's IRIs the plans compile to).
        endpoint: the user's endpoint.
        ontology: the CRM vocabulary.
        lexicon: the relations.
    """

    def __init__(self, store: TripleStore, endpoint: PlanEndpoint,
                 ontology: Ontology | None = None,
                 lexicon: RelationLexicon | None = None) -> None:
        super().__init__(store, ontology, lexicon)
        self.endpoint = endpoint
        self._remote_labels: dict[str, str] = {}
        self._remote_texts: dict[str, list[str]] = {}
        self._foreign: dict[str, int] = {}
        self._remote_run = threading.local()
        """Per thread, while the endpoint runs a plan: member id → IRI (values_of reads
        them off the endpoint then)."""

    def run(self, plan: ExactPlan) -> ExactResult:
        """``plan`` on the endpoint when it compiles, else over the index (noted)."""
        why = uncompiled(plan, self)
        if why is None:
            try:
                return self._remote(plan)
            except SourceError as exc:
                logger.warning("%s failed (%s); the plan runs over the index",
                               self.endpoint.describe(), exc)
                why = f"the endpoint failed ({str(exc)[:120]})"
        result = super().run(plan)
        result.backend = "parquet"
        result.notes.append(f"computed over the index's triples, not on the endpoint: {why}")
        return result

    def _remote(self, plan: ExactPlan) -> ExactResult:
        var = plan.variables[0]
        self._notes = []
        self._remote_run.materials = {}
        types = [t for t in var.types if t not in GENDER_WORDS]
        # in two steps, as the executor reads them: the members left out, then the class
        # nouns (and the wholes of parts), then the dates and texts of what remains
        later = bool(types or var.exclude and var.filters)
        base = replace(var, exclude=(), types=(), filters=()) if later else \
            replace(var, exclude=())
        asked = replace(plan, operation="list", variables=(base, *plan.variables[1:]))
        query, deferred = members_sparql(asked, self)
        rows = self.endpoint.select(query, ("v0", *(d.var[1:] for d in deferred)))
        found = self._judged(rows, deferred)
        excluded = set(var.exclude)
        kept = [iri for iri in found if iri not in excluded]
        left_out = len(found) - len(kept)
        if types:
            kept = self._typed_members(kept, types)
        if later and var.filters:
            kept = self._filtered(kept, var.filters)
        unknown = [iri for iri in kept if self.node_id(iri) is None
                   and iri not in self._remote_labels]
        if unknown:
            self._remote_labels.update(self.endpoint.labels(unknown))
        items = [self._remote_item(iri) for iri in kept]
        items.sort(key=lambda it: (fold_name(it.label), it.uri))
        self._remote_run.uris = {it.node: it.uri for it in items}
        result = ExactResult(plan, items, len(items), left_out=left_out,
                             backend="sparql")
        try:  # the executor's own ranking and grouping, over the endpoint's values
            if plan.operation == "value":
                for name in plan.attributes:
                    self._attach(items, self.lexicon[name], plan.hints)
                if plan.order_by and plan.limit:
                    for item in items:  # "first painted": the earliest of its dates
                        item.values = extreme(item.values, plan.order_by, plan.descending)
            elif plan.operation == "superlative":
                self._rank(plan, result)
            elif plan.operation == "group":
                self._grouped(plan, result)
        finally:
            self._remote_run.uris = self._remote_run.own = None
        result.notes = list(dict.fromkeys([*plan.notes, *self._notes]))
        if not result.total:
            result.missing_relations = [r for r in self._relations(plan)
                                        if not self.relation_present(r)]
        return result

    def _typed_members(self, iris: Sequence[str], types: Sequence[str]) -> list[str]:
        """The members typed with a type word, and the wholes so typed of the others'
        parts (:meth:`Executor._filter`, :meth:`Executor._wholes`), off the endpoint."""
        words = [fold_name(w) for w in types]
        labels = self._remote_type_labels(iris)
        typed = {i for i in iris if _typed(labels.get(i, ()), words)}
        others = [i for i in iris if i not in typed]
        path = step_path(WHOLE_STEP, self)
        wholes: set[str] = set()
        if path is not None and others:
            for batch in batches(others):
                query = f"SELECT DISTINCT ?w WHERE {{ {bound('?p', batch)} ?p {path} ?w }}"
                wholes.update(w for (w,) in self.endpoint.select(query, ("w",))
                              if isinstance(w, str) and w not in typed)
        found = set()
        if wholes:
            whole_labels = self._remote_type_labels(sorted(wholes))
            found = {w for w in wholes if _typed(whole_labels.get(w, ()), words)}
        if found:
            self._notes.append(f"{len(found)} read through their parts: what the question "
                               f"asks is recorded of a part of each of them")
        return sorted(typed | found)

    def _remote_type_labels(self, iris: Sequence[str]) -> dict[str, list[str]]:
        """Per IRI: the folded names of its types and of their broader terms (P127),
        as :meth:`Executor._load_type_text` reads them."""
        has_type = self.lexicon.get("has-type")
        if has_type is None:
            return {}
        types: dict[str, set[str]] = {}
        for batch in batches(iris):
            for node, kind in self.endpoint.select(values_of_sparql(batch, has_type, self),
                                                   ("v0", "value")):
                if isinstance(node, str) and isinstance(kind, str):
                    types.setdefault(node, set()).add(kind)
        every = sorted(set().union(*types.values())) if types else []
        broader: dict[str, set[str]] = {}
        path = step_path(BROADER_STEP, self)
        for batch in batches(every) if path is not None else []:
            query = f"SELECT ?t ?b WHERE {{ {bound('?t', batch)} ?t {path} ?b }}"
            for kind, wider in self.endpoint.select(query, ("t", "b")):
                if isinstance(kind, str) and isinstance(wider, str):
                    broader.setdefault(kind, set()).add(wider)
        named = sorted(set(every).union(*broader.values()) if broader else set(every))
        unknown = [n for n in named if self.node_id(n) is None and n not in self._remote_labels]
        if unknown:
            self._remote_labels.update(self.endpoint.labels(unknown))
        out: dict[str, list[str]] = {}
        for node, kinds in types.items():
            terms = [*kinds, *(b for k in kinds for b in broader.get(k, ()))]
            out[node] = [fold_name(t) for t in map(self._archive_label, terms) if t]
        return out

    def _archive_label(self, iri: str) -> str:
        """The label the index stored for an IRI, else its label on the endpoint."""
        node = self.node_id(iri)
        return (self.store.label_of(node) or "") if node is not None else \
            self._remote_labels.get(iri, "")

    def _filtered(self, iris: Sequence[str], filters: Sequence[ValueFilter]) -> list[str]:
        """The IRIs whose values pass ``filters`` (dates, texts), judged as
        :meth:`_judged` judges them."""
        kept: list[str] = []
        for batch in batches(iris):
            query, deferred = filtered_sparql(batch, filters, self)
            rows = self.endpoint.select(query, ("v0", *(d.var[1:] for d in deferred)))
            kept += self._judged(rows, deferred)
        return sorted(set(kept))

    def _judged(self, rows: Sequence[Row], deferred: Sequence[DeferredValue]) -> list[str]:
        """The distinct IRIs of ``?v0`` in solutions whose projected values pass their
        conditions as :meth:`Executor._value_filter` judges them: dates in their periods
        (:func:`~.values.within`), texts naming the words asked (a title filter: the
        member's own name too)."""
        return sorted({row[0] for row in self._kept(rows, deferred) if isinstance(row[0], str)})

    def _kept(self, rows: Sequence[Row], deferred: Sequence[DeferredValue]) -> list[Row]:
        """The solutions whose last ``len(deferred)`` values pass their conditions."""
        if not deferred:
            return list(rows)
        fixed = len(rows[0]) - len(deferred) if rows else 1
        terms = {t for row in rows for t in row[fixed:] if isinstance(t, str)}
        spans = self.endpoint.spans(terms, self.ontology.canonical) if any(
            d.condition is not None and d.condition.years is not None for d in deferred) else {}
        titled = any(d.condition is not None and d.condition.contains and
                     d.relation.id == TITLE_RELATION for d in deferred)
        if any(d.condition is not None and d.condition.contains for d in deferred):
            terms |= {row[0] for row in rows if isinstance(row[0], str)} if titled else set()
            self._remember_texts(terms)
        return [row for row in rows if isinstance(row[0], str) and all(
            self._passes(row[0], term, spans, d)
            for term, d in zip(row[fixed:], deferred, strict=True))]

    def _passes(self, member: str, term: object, spans: Mapping[str, Span],
                deferred: DeferredValue) -> bool:
        condition = deferred.condition
        if deferred.material is not None:
            return isinstance(term, str) and (term in deferred.material.nodes or
                                              term in self._named_materials(deferred))
        assert condition is not None
        if condition.years is not None and not _in_period(term, spans, deferred):
            return False
        if condition.contains:
            wanted = fold_name(condition.contains)
            match = mentions_forms if condition.forms else mentions
            said = [*self._text_of(term)]
            if deferred.relation.id == TITLE_RELATION:  # its own name counts too
                said += self._text_of(member)
            return any(match(fold_name(text), wanted) for text in said)
        return True

    def _named_materials(self, deferred: DeferredValue) -> frozenset[str]:
        """The graph's materials whose names contain the anchor's words as words
        (:meth:`Executor._materials_named`, over the endpoint's materials); once a run."""
        assert deferred.material is not None
        anchor = deferred.material
        cache: dict[str, frozenset[str]] = self._remote_run.materials
        found = cache.get(anchor.text)
        if found is None:
            path = relation_path(deferred.relation, self)
            rows = self.endpoint.select(
                f"SELECT DISTINCT ?m WHERE {{ ?t {path} ?m }}", ("m",)) if path else []
            materials = [m for (m,) in rows if isinstance(m, str)]
            unknown = [m for m in materials if self.node_id(m) is None
                       and m not in self._remote_labels]
            if unknown:
                self._remote_labels.update(self.endpoint.labels(unknown))
            word = f" {fold_name(anchor.text)} "
            found = cache[anchor.text] = frozenset(
                m for m in materials if word in f" {fold_name(self._name(m))} ")
            if len(found) > 1:
                self._notes.append(f"“{anchor.text}” read as the {len(found)} materials "
                                   f"whose names contain it")
        return found

    def _name(self, iri: str) -> str:
        """How the index names an IRI, else its label on the endpoint."""
        node = self.node_id(iri)
        return self.label(node) if node is not None else self._remote_labels.get(
            iri, iri.rsplit("/", 1)[-1])

    def _remember_texts(self, iris: set[str]) -> None:
        todo = [iri for iri in iris if iri not in self._remote_texts]
        found = self.endpoint.texts(todo, self.ontology.canonical) if todo else {}
        unknown = [iri for iri in todo if not found.get(iri) and self.node_id(iri) is None
                   and iri not in self._remote_labels]
        if unknown:
            self._remote_labels.update(self.endpoint.labels(unknown))
        for iri in todo:
            self._remote_texts[iri] = found.get(iri, [])

    def _text_of(self, term: object) -> list[str]:
        """A value's texts as :meth:`Executor._folded_text` reads them: a literal itself; a
        node's own texts on the endpoint, else its name."""
        if isinstance(term, Literal):
            return [term.value]
        if not isinstance(term, str):
            return []
        found = self._remote_texts.get(term) or []
        if found:
            return found
        node = self.node_id(term)
        return [self.label(node) if node is not None else self._remote_labels.get(term, term)]

    def _count_linked(self, plan: ExactPlan, items: list[Item]) -> dict[int, set[int]]:
        """:meth:`Ranking._count_linked`; in a plan the endpoint runs, the linked members
        counted on the endpoint (no witness triples)."""
        uris = getattr(self._remote_run, "uris", None)
        if uris is None:
            return super()._count_linked(plan, items)
        other = next((i for i, v in enumerate(plan.variables) if i and any(
            link.target == 0 for link in v.links)), None)
        if other is None:
            return {}
        query, deferred = linked_sparql(plan, other, self)
        rows = self._kept(self.endpoint.select(
            query, ("v0", f"v{other}", *(d.var[1:] for d in deferred))), deferred)
        ids = {iri: node for node, iri in uris.items()}
        counts: dict[int, set[int]] = {}
        for row in rows:
            member, linked = row[0], row[1]
            if isinstance(member, str) and member in ids and isinstance(linked, str):
                counts.setdefault(ids[member], set()).add(self._term_id(linked))
        for item in items:
            item.count = len(counts.get(item.node, ()))
        return counts

    def _stand_in(self, item: Item) -> bool:
        """:meth:`Ranking._stand_in`; in a plan the endpoint runs, a node with no triple of
        its own but its types is one on the endpoint."""
        uris = getattr(self._remote_run, "uris", None)
        if uris is None:
            return super()._stand_in(item)
        if is_placeholder(item.label):
            return True
        own = getattr(self._remote_run, "own", None)
        if own is None:
            own = self._remote_run.own = set()
            for batch in batches(sorted(uris.values())):
                query = (f"SELECT DISTINCT ?s WHERE {{ VALUES ?s {{ {batch} }} ?s ?p ?o "
                         f"FILTER(?p != <{RDF_TYPE}>) }}")
                own.update(s for (s,) in self.endpoint.select(query, ("s",))
                           if isinstance(s, str))
        return item.uri not in own

    def _term_id(self, iri: str) -> int:
        """The index's id of an IRI, or a negative one of its own."""
        node = self.node_id(iri)
        return node if node is not None else -self._foreign.setdefault(
            iri, len(self._foreign) + 1)

    def values_of(self, nodes: Sequence[int], relation: Relation,
                  hints: Sequence[str] = ()) -> dict[int, list[Value]]:
        """:meth:`Executor.values_of`; in a plan the endpoint runs, read off the endpoint
        (members the index does not know have negative ids)."""
        uris = getattr(self._remote_run, "uris", None)
        if uris is None:
            return super().values_of(nodes, relation, hints)
        by_uri = self._remote_values([uris[n] for n in nodes], relation)
        return {n: by_uri.get(uris[n], []) for n in nodes}

    def _remote_values(self, iris: Sequence[str], relation: Relation) -> dict[str, list[Value]]:
        """The values of ``relation`` of each IRI, read off the endpoint as
        :meth:`Executor.values_of` reads them off the index (no witness triples)."""
        rows = [row for batch in batches(iris) for row in self.endpoint.select(
            values_of_sparql(batch, relation, self), ("v0", "value"))]
        pairs = [(m, v) for m, v in rows if isinstance(m, str) and v is not None]
        nodes = sorted({v for _, v in pairs if isinstance(v, str)})
        unknown = [n for n in nodes if self.node_id(n) is None and n not in self._remote_labels]
        if unknown:
            self._remote_labels.update(self.endpoint.labels(unknown))
        spans = self.endpoint.spans(nodes, self.ontology.canonical) \
            if relation.value == "time" else {}
        texts = self.endpoint.texts(nodes, self.ontology.canonical) \
            if relation.value == "text" else {}
        found: dict[str, list[Value]] = {}
        for member, term in pairs:
            value = self._remote_value(relation, term, spans, texts)
            value.relation = relation.id
            found.setdefault(member, []).append(value)
        out = {}
        for iri in iris:
            unique = {(v.text, v.years): v for v in found.get(iri, [])}
            out[iri] = sorted(unique.values(), key=lambda v: (v.years or (0, 0), v.text))
        return out

    def _remote_value(self, relation: Relation, term: str | Literal,
                      spans: Mapping[str, Span],
                      texts: Mapping[str, list[str]]) -> Value:
        if isinstance(term, Literal):
            if relation.value == "time":  # a date literal: as written, without a midnight
                year = endpoint_year(term.value)
                span = (year, year) if year is not None else None
                return _time_value(_TIME_OF_DAY.sub("", term.value), span, None)
            return Value(term.value)
        node = self.node_id(term)
        label = self.label(node) if node is not None else self._remote_labels.get(
            term, term.rsplit("/", 1)[-1])
        if relation.value == "time":
            archived = (self.store.label_of(node) if node is not None else
                        self._remote_labels.get(term)) or ""
            return _time_value(archived, spans.get(term, (None, None))[0], term)
        if relation.value == "text":
            said = texts.get(term, [])
            own = self.values.text(node) if node is not None else None
            return Value(own if own in said else min(said) if said else label, term)
        return Value(label, term)

    def _remote_item(self, iri: str) -> Item:
        node = self.node_id(iri)
        if node is None:  # the graph grew since the index was built: a negative id
            return Item(self._term_id(iri), iri, self._remote_labels.get(iri, iri), None)
        return Item(node, iri, self.label(node), self.values.category(node))



def plan_endpoint(backend: str = "parquet",
                  endpoint: str | PlanEndpoint | None = None) -> PlanEndpoint | None:
    """The endpoint exact plans run on for ``backend`` (None: the index's triples).

    Raises:
        ValueError: an unknown backend, ``sparql`` without an endpoint, or an endpoint
            given with ``parquet``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown exact backend {backend!r}: one of {', '.join(BACKENDS)}")
    if backend == "parquet":
        if endpoint is not None:
            raise ValueError("an endpoint is used with the sparql exact backend only "
                             "(exact_backend='sparql')")
        return None
    if endpoint is None:
        raise ValueError("the sparql exact backend needs the endpoint's URL "
                         "(--endpoint URL, endpoint=...)")
    return endpoint if isinstance(endpoint, PlanEndpoint) else PlanEndpoint(endpoint)
