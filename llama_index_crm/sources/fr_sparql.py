"""Fundamental Relationships compiled into SPARQL property-path queries.

An alternative to walking FR paths in memory (:mod:`llama_index_crm.build.traversal`): each
path of a relationship becomes a SPARQL ``SELECT ?start ?end`` over a batch of start entities
given in ``VALUES ?start { ... }``, with the same semantics as the walker.

* A ``property`` step is the union of every IRI form of the property and its sub-properties,
  forwards, and of its inverse and the inverse's sub-properties, backwards
  (``(<P108i>|^<P108>|^<P186>)``); ``symmetric`` adds both of them the other way round.
* ``any_of`` is ``|``, ``sequence`` is ``/``, ``repeat`` is ``+``, ``optional`` is ``?``
  (``*`` with ``repeat``).
* Class constraints (``from_class``, ``via_class``) split a path into triple patterns with an
  intermediate variable and a ``FILTER EXISTS { ?v a ?c VALUES ?c { ... } }``.
* ``all_of`` (the Allen relations) becomes two or more triple patterns between the same pair
  of variables; repeated, it is unrolled up to the walker's chain length.
* The end node must belong to the range category: one of its classes is in that category
  and none is in a category of higher priority (:data:`CATEGORY_PRIORITY`), exactly as
  :meth:`Ontology.category` decides; an ``ends_at_type`` path ends at any ``E55_Type``.

Query shape matters more than anything else. Each UNION branch is a flat basic graph pattern
that starts with its own ``VALUES ?start`` block, followed by ``FILTER EXISTS`` checks; no
filter ever sits in a group that does not also hold the ``VALUES``. Oxigraph evaluates such a
group without the outer bindings (every node of the graph as a start), which on NPG made one
query over 1,000 starts take 7 s (``FILTER EXISTS``) to 325 s (``FILTER(?c IN (...))``)
instead of 0.02 s. Class checks are ``FILTER EXISTS`` rather than joins with ``VALUES ?c``,
which the optimiser starts from (2 s instead of 0.03 s).

Data may use any IRI form of a term (canonical CRM namespace, Erlangen, 5.x/6.x names): each
canonical property or class is expanded into every predicate or class IRI *of the graph* that
:meth:`Ontology.canonical` maps to it (:class:`GraphVocabulary`, read once). A step none of
whose forms occurs matches nothing, so most paths vanish before any query is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from typing import Literal as TypingLiteral

import pyoxigraph as ox

from llama_index_crm.errors import HttpStatusError
from llama_index_crm.ontology import CATEGORY_PRIORITY, FundamentalRelationship, Ontology, Step
from llama_index_crm.rdf import RDF_TYPE, SKOS
from llama_index_crm.sources._sparql_terms import Row, Term, iri_ref, make_literal, safe_iris
from llama_index_crm.sources.servers import Closures

if TYPE_CHECKING:  # the endpoint source imports the compiler's types
    from llama_index_crm.sources.sparql import SparqlEndpointSource

__all__ = [
    "MAX_REPEAT",
    "Closures",
    "FRQuery",
    "FRQueryCompiler",
    "Granularity",
    "GraphVocabulary",
    "Select",
    "dataset",
    "endpoint_select",
    "fr_matches",
    "store_select",
]

Select = Callable[[str, Sequence[str]], Sequence[Row]]
"""Runs a SELECT query; its solutions as rows in the order of the given variables."""

Granularity = TypingLiteral["path", "fr", "category"]
"""One query per FR path, per FR (UNION of its paths), or per category (UNION of all)."""

MAX_REPEAT = 13
"""Longest chain an unrolled repeated ``all_of`` step follows: the walker's bound (one step
and ``traversal._MAX_REPEAT`` = 12 more). ``+`` over plain properties is unbounded."""

_MAX_ALTERNATIVES = 256
"""Cap on the linear alternatives one path expands into (unrolled repeats, class splits)."""

_BAD_REQUEST = 400
_SERVER_ERROR = 500
_SKOS_CONCEPT = SKOS + "Concept"
_TYPE = f"<{RDF_TYPE}>"


@dataclass(frozen=True, slots=True)
class _Path:
    """A SPARQL property-path expression (atomic or parenthesised)."""

    expr: str


@dataclass(frozen=True, slots=True)
class _IsA:
    """The current node must be typed with one of these class IRIs (already bracketed)."""

    forms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _AllOf:
    """Every expression must link the current node to the next one."""

    exprs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Closure:
    """One or more applications of a plain path expression, kept apart from its
    neighbours (the ``closures="bound"`` dialect)."""

    expr: str


_Atom = _Path | _IsA | _AllOf | _Closure
_Alt = tuple[_Atom, ...]
"""One linear alternative of a step or path; ``()`` is the identity (no move)."""


def _group(expr: str) -> str:
    """``expr`` safe to take a path modifier or to sit inside ``/`` and ``|``.

    Every composite expression built here is either wrapped in parentheses as a whole or ends
    with a modifier, so one that starts with ``(`` and ends with ``)`` is already a group.
    """
    simple = expr.startswith("<") and expr.endswith(">")
    wrapped = expr.startswith("(") and expr.endswith(")")
    return expr if simple or wrapped else f"({expr})"


def _merge(alt: Iterable[_Atom]) -> _Alt:
    """Adjacent property paths of one alternative joined with ``/``."""
    out: list[_Atom] = []
    for atom in alt:
        last = out[-1] if out else None
        if isinstance(atom, _Path) and isinstance(last, _Path):
            out[-1] = _Path(f"({_group(last.expr)}/{_group(atom.expr)})")
        else:
            out.append(atom)
    return tuple(out)


def _product(parts: Sequence[list[_Alt]]) -> list[_Alt]:
    """Every concatenation of one alternative of each part (merged), capped."""
    alts: list[_Alt] = [()]
    for part in parts:
        alts = list(dict.fromkeys(_merge(a + b) for a in alts for b in part))
        if len(alts) > _MAX_ALTERNATIVES:
            raise ValueError(f"a path expands into more than {_MAX_ALTERNATIVES} alternatives")
    return alts


@dataclass(frozen=True, slots=True)
class GraphVocabulary:
    """The predicate and class IRIs that occur in a graph (each read once).

    Attributes:
        predicates: distinct predicate IRIs.
        classes: distinct objects of ``rdf:type`` that are IRIs.
    """

    predicates: frozenset[str]
    classes: frozenset[str]

    @classmethod
    def from_select(cls, select: Select) -> GraphVocabulary:
        """Ask the graph for its distinct predicates and classes.

        Args:
            select: runs a SELECT query (see :func:`store_select`, :func:`endpoint_select`).
        """
        preds = select("SELECT DISTINCT ?p WHERE { ?s ?p ?o }", ("p",))
        classes = select(f"SELECT DISTINCT ?c WHERE {{ ?s {_TYPE} ?c }}", ("c",))
        return cls(
            frozenset(r[0] for r in preds if isinstance(r[0], str)),
            frozenset(r[0] for r in classes if isinstance(r[0], str) and r[0][:2] != "_:"),
        )


@dataclass(frozen=True, slots=True)
class FRQuery:
    """One query text and what its solutions mean.

    Attributes:
        text: the SELECT, with ``{values}`` where each branch's ``VALUES ?start`` block goes.
        fr_ids: FR id per index; a query over one FR binds no ``?fr`` (index 0).
    """

    text: str
    fr_ids: tuple[str, ...]

    @property
    def variables(self) -> tuple[str, ...]:
        """The projected variables, in row order."""
        return ("start", "fr", "end") if len(self.fr_ids) > 1 else ("start", "end")


class FRQueryCompiler:
    """Compiles FR paths into SPARQL for one graph's vocabulary.

    Args:
        ontology: the CRM vocabulary (FRs, sub-properties, inverses, classes, categories).
        vocabulary: the predicate and class IRIs of the graph.
        max_repeat: chain length a repeated ``all_of`` step is unrolled to.
        closures: how repeated and optional steps are written (:data:`Closures`).
    """

    def __init__(self, ontology: Ontology, vocabulary: GraphVocabulary,
                 max_repeat: int = MAX_REPEAT, closures: Closures = "inline") -> None:
        if closures not in ("inline", "bound"):
            raise ValueError(f"closures must be 'inline' or 'bound', not {closures!r}")
        self.ontology = ontology
        self.max_repeat = max_repeat
        self.closures: Closures = closures
        self._props: dict[str, set[str]] = {}
        for iri in vocabulary.predicates:
            name = ontology.canonical(iri)
            if name and iri_ref(iri):
                self._props.setdefault(name, set()).add(iri)
        self._classes: dict[str, set[str]] = {}
        self._class_category: dict[str, str] = {}
        for iri in vocabulary.classes:
            if not iri_ref(iri):
                continue
            names = {ontology.canonical(iri) or iri}
            if iri == _SKOS_CONCEPT:
                names.add("E55_Type")  # as the neighbourhood reads it
            for name in names:
                self._classes.setdefault(name, set()).add(iri)
            category = ontology.class_category(iri)
            if category:
                self._class_category[iri] = category
        self._queries: dict[tuple[str, str, bool], list[FRQuery]] = {}

    # -- terms -----------------------------------------------------------------------------
    def property_forms(self, prop: str) -> list[str]:
        """Graph IRIs (bracketed) of ``prop`` and its sub-properties, sorted."""
        return sorted(f"<{iri}>" for name in self.ontology.subproperties(prop)
                      for iri in self._props.get(name, ()))

    def class_forms(self, cls: str) -> tuple[str, ...]:
        """Graph IRIs (bracketed) of ``cls`` and its subclasses, sorted."""
        return tuple(sorted(f"<{iri}>" for name in self.ontology.subclasses(cls)
                            for iri in self._classes.get(name, ())))

    def category_forms(self, category: str) -> tuple[str, ...]:
        """Graph class IRIs (bracketed) whose category is ``category``, sorted."""
        return tuple(sorted(f"<{iri}>" for iri, cat in self._class_category.items()
                            if cat == category))

    def _edge(self, prop: str, symmetric: bool) -> str | None:
        """The path expression of one property step; None when no form occurs."""
        forward = self.property_forms(prop)
        inverse = self.ontology.inverse(prop)
        backward = self.property_forms(inverse) if inverse else []
        parts = [*forward, *(f"^{f}" for f in backward)]
        if symmetric:
            parts += [*(f"^{f}" for f in forward), *backward]
        parts = list(dict.fromkeys(parts))
        if not parts:
            return None
        return parts[0] if len(parts) == 1 and parts[0][0] == "<" else f"({'|'.join(parts)})"

    # -- steps -----------------------------------------------------------------------------
    def _core(self, step: Step) -> list[_Alt]:
        """One application of a step, without its modifiers."""
        if step.kind == "property":
            assert step.property is not None
            expr = self._edge(step.property, step.symmetric)
            return [(_Path(expr),)] if expr else []
        if step.kind == "all_of":
            exprs = [self._edge(p, False) for p in step.all_of]
            if not exprs or any(e is None for e in exprs):
                return []
            return [(_AllOf(tuple(e for e in exprs if e)),)]
        if step.kind == "sequence":
            return _product([self.step(c) for c in step.children])
        paths: list[str] = []
        others: list[_Alt] = []
        identity = False
        for child in step.children:
            for alt in self.step(child):
                if not alt:
                    identity = True
                elif len(alt) == 1 and isinstance(alt[0], _Path):
                    paths.append(alt[0].expr)
                else:
                    others.append(alt)
        paths = list(dict.fromkeys(paths))
        inline = self.closures == "inline"
        if paths:
            union = paths[0] if len(paths) == 1 else f"({'|'.join(map(_group, paths))})"
            others.insert(0, (_Path(f"{_group(union)}?" if identity and inline else union),))
        if identity and not (paths and inline):
            others.append(())
        return others

    def step(self, step: Step) -> list[_Alt]:
        """The linear alternatives of a step with its modifiers; ``[]`` when it cannot match.

        Args:
            step: a step of an FR path.
        """
        alts = self._core(step)
        optional = step.optional
        inline = self.closures == "inline"
        if step.repeat and alts:
            single = alts[0][0] if len(alts) == 1 and len(alts[0]) == 1 else None
            if isinstance(single, _Path) and inline:
                alts = [(_Path(_group(single.expr) + ("*" if optional else "+")),)]
                optional = False
            elif isinstance(single, _Path):
                alts = [(_Closure(single.expr),)]
            else:
                unrolled: list[_Alt] = []
                for length in range(1, self.max_repeat + 1):
                    unrolled.extend(_product([alts] * length))
                alts = list(dict.fromkeys(unrolled))
        if optional:
            single = alts[0][0] if len(alts) == 1 and len(alts[0]) == 1 else None
            if isinstance(single, _Path) and inline:
                alts = [(_Path(_group(single.expr) + "?"),)]
            elif () not in alts:
                alts.append(())
        for cls, before in ((step.from_class, True), (step.via_class, False)):
            if cls:
                forms = self.class_forms(cls)
                if not forms:
                    return []
                check = _IsA(forms)
                alts = [(check, *a) if before else (*a, check) for a in alts]
        return alts

    def path(self, steps: Sequence[Step]) -> list[_Alt]:
        """The linear alternatives of a whole path (those that move at all)."""
        parts = [self.step(s) for s in steps]
        if any(not p for p in parts):
            return []
        return [a for a in _product(parts) if any(not isinstance(x, _IsA) for x in a)]

    # -- text ------------------------------------------------------------------------------
    @staticmethod
    def _is_a(var: str, forms: Sequence[str], tag: str, negate: bool = False) -> str:
        exists = "NOT EXISTS" if negate else "EXISTS"
        if len(forms) == 1:
            return f"FILTER {exists} {{ {var} a {forms[0]} }}"
        return (f"FILTER {exists} {{ {var} a ?{tag} . "
                f"VALUES ?{tag} {{ {' '.join(forms)} }} }}")

    def _end_check(self, fr: FundamentalRelationship, ends_at_type: bool) -> list[str] | None:
        """Filters on ``?end``; None when no class of the graph can satisfy them."""
        if ends_at_type:
            forms = self.class_forms("E55_Type")
            return [self._is_a("?end", forms, "tc")] if forms else None
        forms = self.category_forms(fr.range)
        if not forms:
            return None
        out = [self._is_a("?end", forms, "rc")]
        higher = CATEGORY_PRIORITY[: CATEGORY_PRIORITY.index(fr.range)]
        above = [f for c in higher for f in self.category_forms(c)]
        if above:
            out.append(self._is_a("?end", above, "hc", negate=True))
        return out

    def _render(self, alt: _Alt, end: list[str], bind: str) -> str:
        """One alternative as a group graph pattern from ``?start`` to ``?end``.

        A :class:`_Closure` (``closures="bound"`` only) starts from a sub-select of
        everything before it, so that its subject is bound when it is evaluated.
        """
        last_move = max(i for i, a in enumerate(alt) if not isinstance(a, _IsA))
        lines: list[str] = ["{values}"]
        current = "?start"
        for i, atom in enumerate(alt):
            if isinstance(atom, _IsA):
                lines.append(self._is_a(current, atom.forms, f"c{i}"))
                continue
            nxt = "?end" if i == last_move else f"?v{i}"
            if isinstance(atom, _Closure):
                keep = " ".join(dict.fromkeys(("?start", current)))
                lines = [f"{{ SELECT DISTINCT {keep} WHERE {{ {' '.join(lines)} }} }}",
                         f"{current} {_group(atom.expr)}+ {nxt} ."]
            else:
                exprs = (atom.expr,) if isinstance(atom, _Path) else atom.exprs
                lines.extend(f"{current} {e} {nxt} ." for e in exprs)
            current = nxt
        return " ".join([*lines, *end, bind]).strip()

    def _branches(self, fr: FundamentalRelationship, index: int | None,
                  paths: Iterable[int]) -> list[str]:
        bind = f"BIND({index} AS ?fr)" if index is not None else ""
        out: list[str] = []
        for p in paths:
            path = fr.paths[p]
            end = self._end_check(fr, path.ends_at_type)
            if end is not None:
                out.extend(self._render(a, end, bind) for a in self.path(path.steps))
        return out

    def queries(self, category: str, granularity: Granularity = "fr",
                direct: bool = False) -> list[FRQuery]:
        """The queries of every FR whose domain is ``category`` (cached).

        Args:
            category: the start entities' fundamental category.
            granularity: one query per path, per FR or per category.
            direct: the cores of the FR paths only (:meth:`Ontology.direct_relationships`).
        """
        key = (category, granularity, direct)
        if key in self._queries:
            return self._queries[key]
        every = (self.ontology.direct_relationships() if direct
                 else self.ontology.fundamental_relationships())
        frs = [fr for fr in every if fr.domain == category]
        groups: list[tuple[list[str], list[str]]] = []
        if granularity == "category":
            ids = [fr.id for fr in frs]
            branches = [b for i, fr in enumerate(frs)
                        for b in self._branches(fr, i, range(len(fr.paths)))]
            groups.append((ids, branches))
        for fr in frs if granularity != "category" else ():
            if granularity == "fr":
                groups.append(([fr.id], self._branches(fr, None, range(len(fr.paths)))))
            else:
                groups.extend(([fr.id], self._branches(fr, None, [p]))
                              for p in range(len(fr.paths)))
        out: list[FRQuery] = []
        for ids, branches in groups:
            if not branches:
                continue
            fr_var = " ?fr" if len(ids) > 1 else ""
            if self.closures == "bound" and len(branches) > 1:
                # Virtuoso loses the bound starts of closures when it merges UNION branches
                branches = [f"SELECT DISTINCT ?start{fr_var} ?end WHERE {{ {b} }}"
                            for b in branches]
            body = branches[0] if len(branches) == 1 else " UNION ".join(
                f"{{ {b} }}" for b in branches)
            text = f"SELECT DISTINCT ?start{fr_var} ?end WHERE {{ {body} }}"
            out.append(FRQuery(text, tuple(ids)))
        self._queries[key] = out
        return out


def _parents(ontology: Ontology) -> dict[str, str]:
    return {fr.id: fr.specialization_of for fr in ontology.fundamental_relationships()
            if fr.specialization_of}


def fr_matches(
    select: Select,
    entities: Sequence[str],
    category: str,
    ontology: Ontology,
    *,
    compiler: FRQueryCompiler | None = None,
    granularity: Granularity = "fr",
    drop_specialised: bool = True,
    rejected: dict[str, str] | None = None,
    direct: bool = False,
) -> dict[str, dict[str, set[str]]]:
    """The FR targets of a batch of entities of one category, by SPARQL.

    The same answer as :meth:`FRWalker.walk` over a neighbourhood holding the whole graph:
    the entity itself is never its own target, FRs without targets are left out and, with
    ``drop_specialised``, a general FR does not repeat the targets of its specialisations.

    Args:
        select: runs a SELECT (:func:`store_select`, :func:`endpoint_select`).
        entities: start IRIs (one batch; unsafe IRIs and blank nodes are skipped).
        category: their fundamental category.
        ontology: the CRM vocabulary.
        compiler: a compiler for this graph; built from :meth:`GraphVocabulary.from_select`
            when omitted (pass one to read the vocabulary once for many batches).
        granularity: one query per path, per FR or per category.
        drop_specialised: remove from each FR the targets found by its specialisations.
        rejected: FR id → why the server rejected its query. When given, such FRs are not
            asked about, and a query the server rejects (an HTTP 400 or 5xx answer) adds its
            FRs here instead of raising, so that the caller walks them.
        direct: the direct targets only (the cores of the FR paths: no membership, part
            or falls-within widening; :mod:`llama_index_crm.ontology.direct`).

    Returns:
        entity → FR id → target nodes (IRIs, or ``_:`` blank nodes as the source names them).

    Raises:
        HttpStatusError: The server rejected a query and ``rejected`` is None.
    """
    if compiler is None:
        compiler = FRQueryCompiler(ontology, GraphVocabulary.from_select(select))
    iris = safe_iris(entities)
    found: dict[str, dict[str, set[str]]] = {}
    if not iris:
        return found
    values = "VALUES ?start { " + " ".join(f"<{iri}>" for iri in iris) + " }"
    for query in compiler.queries(category, granularity, direct):
        if rejected is not None and all(fr_id in rejected for fr_id in query.fr_ids):
            continue
        text = query.text.replace("{values}", values)
        try:
            rows = select(text, query.variables)
        except HttpStatusError as exc:
            if rejected is None or not is_rejection(exc.status):
                raise
            rejected.update(dict.fromkeys(query.fr_ids, str(exc)))
            continue
        for row in rows:
            start, end = row[0], row[-1]
            if not isinstance(start, str) or not isinstance(end, str) or start == end:
                continue
            fr_id = query.fr_ids[_index(row[1])] if len(row) == 3 else query.fr_ids[0]
            found.setdefault(start, {}).setdefault(fr_id, set()).add(end)
    if drop_specialised:
        parents = _parents(ontology)
        for frs in found.values():
            specialised: dict[str, set[str]] = {}
            for fr_id, targets in frs.items():
                if fr_id in parents:
                    specialised.setdefault(parents[fr_id], set()).update(targets)
            for fr_id, drop in specialised.items():
                if fr_id in frs:
                    frs[fr_id] -= drop
                    if not frs[fr_id]:
                        del frs[fr_id]
    return found


def is_rejection(status: int) -> bool:
    """Whether an HTTP status means the server would not run a query (400, 5xx), not that
    it was refused access or asked to slow down."""
    return status == _BAD_REQUEST or status >= _SERVER_ERROR


def _index(term: Term | None) -> int:
    value = getattr(term, "value", term)
    return int(str(value))


# -- adapters ------------------------------------------------------------------------------
def _term(term: object) -> Term | None:
    if type(term) is ox.NamedNode:  # by far the most common: checked first, exactly
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    if isinstance(term, ox.Literal):
        return make_literal(term.value, term.language, term.datatype.value)
    return None


def dataset(graphs: Sequence[ox.NamedNode]) -> dict[str, Any]:
    """Keyword arguments of ``Store.query`` reading the union of ``graphs``, or of every
    graph when there are none."""
    return {"default_graph": list(graphs)} if graphs else {"use_default_graph_as_union": True}


def store_select(store: ox.Store, graphs: Sequence[ox.NamedNode] = ()) -> Select:
    """A :data:`Select` over a pyoxigraph store (``RdfFileSource.store``).

    Args:
        store: the store to query.
        graphs: the graphs whose union is queried (all graphs when empty).
    """
    kwargs = dataset(graphs)

    def select(query: str, variables: Sequence[str]) -> list[Row]:
        solutions = store.query(query, **kwargs)
        if not isinstance(solutions, ox.QuerySolutions):
            raise TypeError("expected a SELECT query")
        # by position and with map(): FR queries return millions of rows on large graphs
        names = [str(v).lstrip("?") for v in solutions.variables]
        at = [names.index(v.lstrip("?")) for v in variables]
        return [tuple(map(_term, map(s.__getitem__, at))) for s in solutions]

    return select


def endpoint_select(source: SparqlEndpointSource) -> Select:
    """A :data:`Select` over a SPARQL endpoint (its TSV/JSON ``select``).

    Args:
        source: the endpoint source.
    """
    return source.select
