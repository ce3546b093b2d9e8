"""An :class:`~.plan.ExactPlan` as the SPARQL query a user can run on their own endpoint.

The query uses the graph's own predicate and class IRIs (every form the data uses of a CRM
property and its sub-properties, inverses read backwards with ``^``), so on the graph the
index was built from it returns the same set the executor computed. Things are restricted to
the graph's classes of their category, statements and records of other things left out.
A property's attributions (E13 assignments of it) are followed as ``^P140/P141``; the query
does not check their ``P177`` as the executor does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from llama_index_crm.exact.execute import (
    MAKER_NOUNS,
    MATERIAL_RELATION,
    NON_WORK_CLASSES,
    PHYSICAL_CLASS,
    TITLE_RELATION,
    Executor,
)
from llama_index_crm.exact.paths import ASSIGNED, ASSIGNED_TO
from llama_index_crm.exact.plan import Anchor, ExactPlan, Link, ValueFilter, Variable
from llama_index_crm.exact.relations import TYPE_HEAD_JOINERS, Relation
from llama_index_crm.exact.values import LONG_PERIOD
from llama_index_crm.ontology import Step
from llama_index_crm.query.lexicon import pluralise, singularise
from llama_index_crm.rdf import RDF_VALUE, RDFS
from llama_index_crm.storage.names import fold_name

__all__ = ["DeferredValue", "bound", "filtered_sparql", "linked_sparql", "members_sparql",
           "plan_sparql", "relation_path", "step_path", "values_of_sparql", "values_sparql"]

YEAR_EXPR = 'xsd:integer(REPLACE(STR({}), "^[^0-9-]*(-?[0-9]{{4}}).*$", "$1"))'
TEXT_PREDICATES = (RDF_VALUE, RDFS + "label")
DATE_PROPERTIES = frozenset({"P82a_begin_of_the_begin", "P82b_end_of_the_end",
                             "P81a_end_of_the_begin", "P81b_begin_of_the_end",
                             "P82_at_some_time_within"})
"""Properties whose object is a date: a relation ending in one gives the date itself."""


def _iri(term: str) -> str:
    return f"<{term}>"


def _step(step: Step, executor: Executor) -> str | None:
    if step.kind == "property":
        assert step.property is not None
        engine = executor.engine
        forward, backward = engine.predicate_forms(step.property)
        parts = [_iri(f) for f in forward] + [f"^{_iri(b)}" for b in backward]
        to_forms, assigned_forms = (engine.predicate_forms(p)[0] for p in (ASSIGNED_TO, ASSIGNED))
        to, assigned = (f"({_alt(f)})" for f in (to_forms, assigned_forms))
        inverse = engine.ontology.inverse(step.property)
        if to_forms and assigned_forms:  # attributions of it (their P177 is not checked)
            if len(engine.assigned_properties(step.property)):
                parts.append(f"(^{to}/{assigned})")
            if inverse and len(engine.assigned_properties(inverse)):
                parts.append(f"(^{assigned}/{to})")
        if not parts:
            return None
        text = parts[0] if len(parts) == 1 else "(" + "|".join(parts) + ")"
    elif step.kind == "all_of":
        return _step(Step("property", step.all_of[0], repeat=step.repeat,
                          optional=step.optional), executor) if step.all_of else None
    else:
        inner = [_step(c, executor) for c in step.children]
        if step.kind == "any_of":
            kept = [i for i in inner if i]
            if not kept:
                return None
            text = kept[0] if len(kept) == 1 else "(" + "|".join(kept) + ")"
        else:
            if any(i is None for i in inner):
                return None
            text = "(" + "/".join(i for i in inner if i) + ")"
    if step.repeat:
        text = f"{text}{'*' if step.optional else '+'}"
    elif step.optional:
        text = f"{text}?"
    return text


def relation_path(relation: Relation, executor: Executor, closure: bool = False) -> str | None:
    """A relation as one SPARQL property path over the graph's predicates."""
    alternatives = []
    for path in relation.paths:
        compiled = [(_step(s, executor), s.optional) for s in path]
        if any(text is None and not optional for text, optional in compiled):
            continue
        steps = [text for text, _ in compiled if text]  # an optional step the graph lacks
        text = "/".join(steps)
        if closure and relation.closure is not None:
            tail = _step(Step(relation.closure.kind, relation.closure.property,
                              relation.closure.children, repeat=True, optional=True), executor)
            if tail:
                text = f"{text}/{tail}"
        alternatives.append(text if len(steps) == 1 else f"({text})")
    if not alternatives:
        return None
    return alternatives[0] if len(alternatives) == 1 else "(" + "|".join(alternatives) + ")"


class DeferredValue(NamedTuple):
    """A condition on values left to the caller: ``var`` is projected, the value (a date,
    a time-span, a text or a statement) reached through ``relation`` that ``condition``
    judges (its period, its words); or, with ``material``, the material a thing is made of,
    which must be that anchor or a material whose name contains its words ("bronze":
    "Bronze and Wood")."""

    var: str
    condition: ValueFilter | None
    relation: Relation
    material: Anchor | None = None


class _Query:
    def __init__(self, plan: ExactPlan, executor: Executor, defer: bool = False) -> None:
        self.plan = plan
        self.x = executor
        self.lines: list[str] = []
        self.n = 0
        self.defer = defer
        self.deferred: list[DeferredValue] = []

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"?{stem}{self.n}"

    def var(self, index: int) -> None:
        var = self.plan.variables[index]
        name = f"?v{index}"
        if var.anchor is not None:
            nodes = " ".join(_iri(n) for n in var.anchor.nodes)
            self.lines.append(bound(name, nodes))
        else:
            self.category(name, var)
        for link in var.links:
            relation = self.x.lexicon[link.relation]
            anchored = isinstance(link.target, Anchor)
            path = relation_path(relation, self.x, closure=anchored and not link.inverse)
            if path is None:
                self.lines.append("FILTER(false)  # the graph has no predicate for "
                                  + relation.id)
                continue
            if self.defer and is_material(link, relation):
                assert isinstance(link.target, Anchor)
                other = self.fresh("material")  # judged by the caller, as the executor does
                self.deferred.append(DeferredValue(other, None, relation, link.target))
            elif isinstance(link.target, Anchor) and link.target.also:
                other = self.fresh("anchor")
                nodes = " ".join(_iri(n) for n in link.target.nodes)
                self.lines.append(bound(other, nodes))
            else:
                other = _iri(link.target.node) if isinstance(link.target, Anchor) else \
                    f"?v{link.target}"
            if not (link.role and link.inverse and self.role(other, name, relation, link.role)):
                self.lines.append(f"{other} {path} {name} ." if link.inverse else
                                  f"{name} {path} {other} .")
            self.range_typed(name if link.inverse else other, relation)
            if isinstance(link.target, int):
                self.var(link.target)
        if var.category == "Actor" and var.anchor is None and \
                (var.noun or "").lower() in MAKER_NOUNS and "created-by" in self.x.lexicon:
            self.makers(name)  # "artists": makers of something
        for condition in var.filters:
            self.filter(name, condition)
        if var.types:
            self.types(name, var.types)
        elif var.category == "Actor" and var.anchor is None and var.noun and \
                self.x.graph_types(singularise(var.noun), actors=True):
            self.typed_otherwise(name, singularise(var.noun))
        for node in var.exclude:
            self.lines.append(f"FILTER({name} != {_iri(node)})")

    def makers(self, name: str) -> None:
        """Actors who made something (:meth:`Executor._makers` without roles)."""
        path = relation_path(self.x.lexicon["created-by"], self.x)
        if path is not None:
            # a sub-select, evaluated once (FILTER EXISTS per actor: 18 times slower on
            # Oxigraph over NMWA)
            self.lines.append(f"{{ SELECT DISTINCT {name} WHERE {{ {self.fresh('made')} "
                              f"{path} {name} }} }}")

    def role(self, made: str, maker: str, relation: Relation, role: str) -> bool:
        """``made —relation→ maker`` where the made thing, or the event of the path that
        made it, is typed with the word ``role``; False when the path cannot be split."""
        typed = relation_path(self.x.lexicon["has-type"], self.x) \
            if "has-type" in self.x.lexicon else None
        steps = [(_step(s, self.x), s.optional) for s in relation.paths[0]]
        if typed is None or len(steps) < 2 or steps[0][0] is None or any(
                text is None and not optional for text, optional in steps):
            return False
        event, kind, label = self.fresh("event"), self.fresh("role"), self.fresh("rolelabel")
        rest = "/".join(text for text, _ in steps[1:] if text)
        self.lines.append(f"{made} {steps[0][0]} {event} . {event} {rest} {maker} .")
        self.lines.append(f"{{ {made} {typed} {kind} }} UNION {{ {event} {typed} {kind} }}")
        self.lines.append(f"{kind} {_alt(TEXT_PREDICATES)} {label} .")
        self.lines.append(f'FILTER(REGEX(LCASE(STR({label})), '
                          f'"(^|[^a-z]){fold_name(role)}([^a-z]|$)"))')
        return True

    def classes(self, var: Variable) -> list[str]:
        """The graph's class IRIs of a variable's category (Things: no statements)."""
        if var.category is None:
            return []
        return sorted(_iri(self.x.store.term(c)) for c in category_classes(self.x, var.category))

    def category(self, name: str, var: Variable) -> None:
        """``name`` of the variable's category as the index counts it: typed with one of
        the category's classes, and the nodes the index counts in it otherwise (untyped
        Getty IRIs, ranges of properties) or out of it (a class of higher priority)."""
        classes = self.classes(var)
        if var.category is None:
            return
        extras, excess = category_exceptions(self.x, var.category)
        c = self.fresh("class")
        typed = f"{name} a {c} . VALUES {c} {{ {' '.join(classes)} }}" if classes else ""
        listed = " ".join(_iri(self.x.store.term(int(n))) for n in extras)
        if typed and listed:
            self.lines.append(f"{{ {typed} }} UNION {bound(name, listed)}")
        elif typed or listed:
            self.lines.append(typed or bound(name, listed))
        if len(excess):
            out = ", ".join(_iri(self.x.store.term(int(n))) for n in excess)
            self.lines.append(f"FILTER({name} NOT IN ({out}))")

    def filter(self, name: str, condition: ValueFilter) -> None:
        relation = self.x.lexicon[condition.relation]
        path = relation_path(relation, self.x)
        if path is None:
            self.lines.append("FILTER(false)")
            return
        end = self.fresh("value")
        if self.defer and (condition.years is not None or condition.contains):
            self.deferred.append(DeferredValue(end, condition, relation))
            at = len(self.lines)
            self.range_typed(end, relation)
            typed = " ".join(self.lines[at:])
            del self.lines[at:]
            pattern = f"{name} {path} {end} . {typed}".strip()
            # a title filter also reads the member's own name: its title may be missing
            self.lines.append(f"OPTIONAL {{ {pattern} }}" if condition.contains
                              and relation.id == TITLE_RELATION else pattern)
            return
        self.lines.append(f"{name} {path} {end} .")
        if condition.years is not None:
            begin_forms, _ = self.x.engine.predicate_forms("P82a_begin_of_the_begin")
            end_forms, _ = self.x.engine.predicate_forms("P82b_end_of_the_end")
            b, e = self.fresh("begin"), self.fresh("end")
            last = relation.paths[0][-1] if relation.paths else None
            if last is not None and last.property in DATE_PROPERTIES:  # the date itself
                self.lines.append(f"BIND({end} AS {b}r)")
                self.lines.append(f"BIND({YEAR_EXPR.format(b + 'r')} AS {b})")
                self.lines.append(f"BIND({b} AS {e})")
            else:
                self.lines.append(f"{end} {_alt(begin_forms)} {b}r .")
                self.lines.append(f"OPTIONAL {{ {end} {_alt(end_forms)} {e}r }}")
                self.lines.append(f"BIND({YEAR_EXPR.format(b + 'r')} AS {b})")
                self.lines.append(f"BIND(COALESCE({YEAR_EXPR.format(e + 'r')}, {b}) AS {e})")
            low, high = condition.years
            # begins in it, as within() reads a century (an event: the year it opened)
            if relation.domain == "Event" or condition.begins or high - low >= LONG_PERIOD:
                self.lines.append(f"FILTER({b} >= {low} && {b} <= {high})")
            else:
                self.lines.append(f"FILTER({b} >= {low} && {e} <= {high})")
            if condition.months is not None and low == high:  # "in March 1938"
                months = "|".join(f"{m:02d}" for m in range(condition.months[0],
                                                               condition.months[1] + 1))
                self.lines.append(f'FILTER(REGEX(STR({b}r), "^{low}-({months})"))')
        if condition.contains:
            text = self.fresh("text")
            forms = [*TEXT_PREDICATES, *self.x.engine.predicate_forms(
                "P190_has_symbolic_content")[0]]
            self.lines.append(f"{end} {_alt(forms)} {text} .")
            if condition.forms:  # each word, singular or plural
                for word in condition.contains.split():
                    self.lines.append(f'FILTER(REGEX(LCASE(STR({text})), '
                                      f'"(^|[^a-z]){_word_forms(word)}([^a-z]|$)"))')
            else:
                self.lines.append(
                    f'FILTER(CONTAINS(LCASE(STR({text})), "{condition.contains}"))')
        self.range_typed(end, relation)

    def range_typed(self, node: str, relation: Relation) -> None:
        """The types the relation's range node must carry (its statement's kind, a
        nationality), as :meth:`RelationWalker.walk` keeps them."""
        for wanted in (relation.statement_types, relation.range_types):
            if wanted:
                self.statement(node, wanted)

    def statement(self, node: str, wanted: Sequence[str]) -> None:
        ids = self.x.walker.type_ids(wanted)
        forms, _ = self.x.engine.predicate_forms("P2_has_type")
        types = " ".join(_iri(self.x.store.term(int(i))) for i in ids)
        t = self.fresh("stype")
        self.lines.append(f"{node} {_alt(forms)} {t} . VALUES {t} {{ {types} }}")

    def typed_otherwise(self, name: str, word: str) -> None:
        """Actors with no type, or with the noun's type ("painters": not the donors)."""
        path = relation_path(self.x.lexicon["has-type"], self.x)
        t, label = self.fresh("atype"), self.fresh("atypelabel")
        joiners = "|".join(TYPE_HEAD_JOINERS)
        self.lines.append(f"FILTER(NOT EXISTS {{ {name} {path} ?any_{t[1:]} }} || EXISTS {{ "
                          f"{name} {path} {t} . {t} {_alt(TEXT_PREDICATES)} {label} . "
                          f'FILTER(REGEX(LCASE(STR({label})), "(^| )({word}|{word}s)$|'
                          f'^({word}|{word}s) ({joiners}) ")) }})')

    def types(self, name: str, words: Sequence[str]) -> None:
        relation = self.x.lexicon["has-type"]
        path = relation_path(relation, self.x)
        t, label = self.fresh("type"), self.fresh("typelabel")
        words = "|".join(dict.fromkeys(form for w in words  # "Color photographs" too
                                       for form in (fold_name(w), pluralise(fold_name(w)))))
        joiners = "|".join(TYPE_HEAD_JOINERS)
        broader, _ = self.x.engine.predicate_forms("P127_has_broader_term")
        if broader:  # a chapel is a church when "chapel" has "church" as broader term
            path = f"({path})/({_alt(broader)})*"
        self.lines.append(f"{name} {path} {t} . {t} {_alt(TEXT_PREDICATES)} {label} .")
        self.lines.append(f'FILTER(REGEX(LCASE(STR({label})), "(^| )({words})$|^({words}) '
                          f'({joiners}) "))')


MAX_EXCEPTIONS = 2000
"""Nodes a query may list as counted in a category otherwise than by their classes."""


def category_classes(executor: Executor, category: str) -> list[int]:
    """Ids of the graph's classes of ``category`` (Things: not statements, images, names or
    records, unless also physical)."""
    engine = executor.engine
    if engine.type_id is None:
        return []
    non_work = {int(c) for cls in NON_WORK_CLASSES for c in engine.class_ids(cls)}
    physical = {int(c) for c in engine.class_ids(PHYSICAL_CLASS)}
    return [cls for cls in engine.classes_used().tolist()
            if executor.ontology.class_category(executor.store.term(cls)) == category
            and not (category == "Thing" and cls in non_work and cls not in physical)]


def category_exceptions(executor: Executor, category: str) -> tuple[np.ndarray, np.ndarray]:
    """(extras, excess): nodes the executor counts in ``category`` that its classes do not
    give (an untyped Getty IRI, the range of a property pointing at it), and nodes they
    give that it counts elsewhere (a class of higher priority, a statement); cached."""
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = executor.__dict__.setdefault(
        "_category_exceptions", {})
    found = cache.get(category)
    if found is None:
        nodes = executor.members_of_category(category)
        if category == "Thing":
            nodes = nodes[executor._works(nodes)]
        store, engine = executor.store, executor.engine
        classes = np.asarray(category_classes(executor, category), dtype=np.int64)
        typed = np.unique(store.s_ids[(store.p_ids == engine.type_id)
                                      & np.isin(store.o_ids, classes)]) \
            if engine.type_id is not None else np.zeros(0, dtype=np.int64)
        found = cache[category] = (np.setdiff1d(nodes, typed), np.setdiff1d(typed, nodes))
    return found


def is_material(link: Link, relation: Relation) -> bool:
    """Whether a link names a material the executor also reads in the names of materials
    (:meth:`Executor._materials_named`)."""
    return relation.id == MATERIAL_RELATION and isinstance(link.target, Anchor) and \
        link.target.category == "Concept" and not link.inverse


def bound(var: str, refs: str) -> str:
    """``VALUES var { refs }`` as a sub-select: Virtuoso takes these as the given starts of
    a transitive path, and refuses the bare ``VALUES`` there ("transitive start not
    given")."""
    return f"{{ SELECT {var} WHERE {{ VALUES {var} {{ {refs} }} }} }}"


def _alt(forms: Sequence[str]) -> str:
    return "|".join(_iri(f) for f in forms) or "<urn:none>"


def plan_sparql(plan: ExactPlan, executor: Executor) -> str:
    """The SPARQL query of ``plan`` over the graph's own IRIs."""
    query = _Query(plan, executor)
    query.var(0)
    body = "\n  ".join(query.lines)
    prefix = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
    if plan.operation == "count":
        return f"{prefix}SELECT (COUNT(DISTINCT ?v0) AS ?count) WHERE {{\n  {body}\n}}"
    if plan.operation == "value" and plan.attributes:
        return values_sparql(plan, executor.lexicon[plan.attributes[0]], executor)
    note = ""
    if plan.operation in {"superlative", "group"}:
        note = f"# {plan.operation} by {plan.order_by or plan.group_by}: ranked over these\n"
    return f"{prefix}{note}SELECT DISTINCT ?v0 WHERE {{\n  {body}\n}} ORDER BY ?v0"


def values_sparql(plan: ExactPlan, relation: Relation, executor: Executor) -> str:
    """The values ``relation`` gives each member of ``plan``'s variable 0, as SPARQL."""
    query = _Query(plan, executor)
    query.var(0)
    path = relation_path(relation, executor) or "<urn:none>"
    query.lines.append(f"?v0 {path} ?value .")
    query.range_typed("?value", relation)
    body = "\n  ".join(query.lines)
    return (f"PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
            f"SELECT DISTINCT ?v0 ?value WHERE {{\n  {body}\n}}")


def values_of_sparql(refs: str, relation: Relation, executor: Executor) -> str:
    """The values ``relation`` gives the nodes ``refs`` (bracketed IRIs), as SPARQL."""
    query = _Query(ExactPlan("", (Variable(),)), executor)
    path = relation_path(relation, executor) or "<urn:none>"
    query.lines += [bound("?v0", refs), f"?v0 {path} ?value ."]
    query.range_typed("?value", relation)
    body = "\n  ".join(query.lines)
    return f"SELECT DISTINCT ?v0 ?value WHERE {{\n  {body}\n}}"


def linked_sparql(plan: ExactPlan, index: int,
                  executor: Executor) -> tuple[str, list[DeferredValue]]:
    """The pairs (member of variable 0, member of variable ``index`` linked to it) as
    SPARQL, date and text conditions projected as :func:`members_sparql` leaves them: what
    a superlative by count counts."""
    query = _Query(plan, executor, defer=True)
    query.var(index)
    body = "\n  ".join(query.lines)
    projected = " ".join(["?v0", f"?v{index}", *(d.var for d in query.deferred)])
    return (f"PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
            f"SELECT DISTINCT {projected} WHERE {{\n  {body}\n}}", query.deferred)


def step_path(step: Step, executor: Executor) -> str | None:
    """One step (any of, a sequence, repeated…) as a SPARQL property path over the graph's
    predicates; None when the graph has none of its predicates."""
    return _step(step, executor)


def filtered_sparql(refs: str, filters: Sequence[ValueFilter],
                    executor: Executor) -> tuple[str, list[DeferredValue]]:
    """The nodes ``refs`` (bracketed IRIs) with the values ``filters`` judge projected, as
    :func:`members_sparql` leaves them."""
    query = _Query(ExactPlan("", (Variable(),)), executor, defer=True)
    query.lines.append(bound("?v0", refs))
    for condition in filters:
        query.filter("?v0", condition)
    body = "\n  ".join(query.lines)
    projected = " ".join(["?v0", *(d.var for d in query.deferred)])
    return f"SELECT DISTINCT {projected} WHERE {{\n  {body}\n}}", query.deferred


def members_sparql(plan: ExactPlan, executor: Executor) -> tuple[str, list[DeferredValue]]:
    """The members of ``plan``'s variable 0 as SPARQL, the value of each date or text
    condition projected beside them instead of filtered: the caller judges them as the
    executor does (a time-span's years from all its begin and end properties, else its
    label; a text's folded words)."""
    query = _Query(plan, executor, defer=True)
    query.var(0)
    body = "\n  ".join(query.lines)
    projected = " ".join(["?v0", *(d.var for d in query.deferred)])
    return (f"PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
            f"SELECT DISTINCT {projected} WHERE {{\n  {body}\n}}", query.deferred)


def _word_forms(word: str) -> str:
    """A regular expression for a word's singular and plural ("lions" → ``lion(s|es)?``,
    "grizzly" → ``grizzl(y|ies)``).

    >>> _word_forms("lions"), _word_forms("grizzlies"), _word_forms("fox")
    ('lion(s|es)?', 'grizzl(y|ies)', 'fox(s|es)?')
    """
    base = singularise(re.sub(r"[^\w ]", "", word))
    if base.endswith("y") and len(base) > 3:
        return f"{base[:-1]}(y|ies)"
    return f"{base}(s|es)?"
