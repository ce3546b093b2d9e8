"""The facts behind the selected documents: prioritised triples, dates resolved, budgeted.

Each selected document gets, after its (truncated) text, a ``Facts:`` block of lines
``subject → predicate → object`` written with labels (never a bare IRI), taken from the
triples of its entities (its own and the chained ones, both directions) minus schema
predicates, in this order:

1. triples between the entities of two selected documents;
2. creation, time, location and depiction predicates (production P108/P94/P92/P14, P4,
   location P7/P53/P55/P89, depiction P62/P65/K24, ... and their sub-properties);
3. triples whose other end has a label (a literal counts as one);
4. the rest.

Within a tier, an entity's own statements come before those made about it (a hub is the
object of thousands), then heavier predicates (``Ontology.weight``) first. Lines that read
the same (two image files with one label) are written once, citing every triple. An object
that is an E52 time-span is written as its date (its ``rdfs:label``, else its P82a/P82b
values).

The lines of all documents share one character budget in proportion to each document's
score (see :func:`take_lines`); what a document leaves unused goes to the others.
``metadata["triples"]`` lists the ``[s, p, o]`` of every triple used, so that an answer
can cite its sources.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle

from llama_index_crm.events import emit
from llama_index_crm.ontology import RDF, RDFS, Ontology, humanize
from llama_index_crm.postprocessors.adjacency import PredicateWeights, selected_entities
from llama_index_crm.postprocessors.base import GraphPostprocessor
from llama_index_crm.rdf import Literal, decode_object, is_blank
from llama_index_crm.storage.triples import TripleStore

__all__ = [
    "DEFAULT_BUDGET_CHARS",
    "DEFAULT_TEXT_CHARS",
    "Fact",
    "TripleContextBuilder",
    "TripleContextPostprocessor",
    "allocate",
    "hidden_metadata_copy",
    "take_lines",
]

DEFAULT_BUDGET_CHARS = 5_000
"""Characters of fact lines shared by all selected documents."""
DEFAULT_TEXT_CHARS = 5_000
"""A document's own text is cut at this length."""
DEFAULT_VALUE_CHARS = 300
"""A literal (a note, a description) is cut at this length in a fact line."""
SHARE_FLOOR = 0.1
"""Every document's share of the budget weighs at least this fraction of the largest."""
TRIPLES_KEY = "triples"
"""Metadata key of the cited triples (hidden from embeddings and the LLM)."""
FACTS_HEADER = "\nFacts:\n"
ARROW = " → "
UNLABELLED = "(unlabelled)"
"""Suffix the build gives a name made from an IRI (see ``build/labels.py``)."""

KEY_CODES: frozenset[str] = frozenset({
    # production, creation, existence, time
    "P4", "P14", "P92", "P93", "P94", "P95", "P98", "P100", "P108", "P186",
    # location
    "P7", "P8", "P26", "P27", "P53", "P54", "P55", "P74", "P89", "P156",
    # depiction
    "P62", "P65", "K1", "K4", "K14", "K21", "K24", "K34",
})
"""CRM/VIR codes (inverses included) of the tier-2 predicates: creation, time, place,
depiction."""
TIME_SPAN = "E52_Time-Span"
BEGIN_PREDICATES = ("P82a_begin_of_the_begin", "P81a_end_of_the_begin", "P82_at_some_time_within")
END_PREDICATES = ("P82b_end_of_the_end", "P81b_begin_of_the_end", "P82_at_some_time_within")
_CODE = re.compile(r"^([PK]\d+)i?_")


@dataclass(frozen=True, slots=True)
class Fact:
    """One line of context and the triples it rests on.

    Attributes:
        line: ``subject → predicate → object`` in labels.
        tier: 1 (between selected documents) to 4 (the rest).
        weight: the predicate's relationship weight.
        triples: ``(s, p, o)`` term strings cited (the triple, plus the date triples of a
            time-span written as its P82a/P82b values).
    """

    line: str
    tier: int
    weight: float
    triples: tuple[tuple[str, str, str], ...]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def allocate(needs: Sequence[int], importance: Sequence[float], budget: int) -> list[int]:
    """Share ``budget`` in proportion to ``importance``; unused shares go to the others.

    Negative importance counts as 0, and every document weighs at least
    :data:`SHARE_FLOOR` times the largest, so that none is left without facts.

    Args:
        needs: Characters each document could use.
        importance: Weights, e.g. the node scores (all equal when none is positive).
        budget: Characters in all.

    >>> allocate([100, 1000], [1.0, 1.0], 600)
    [100, 500]
    """
    weights = np.maximum(np.asarray(importance, dtype=np.float64), 0.0)
    top = float(weights.max()) if len(weights) else 0.0
    weights = weights + SHARE_FLOOR * top if top > 0 else np.ones(len(needs))
    grant = [0] * len(needs)
    open_ = {i for i, need in enumerate(needs) if need > 0}
    left = budget
    while open_ and left > 0:
        total = sum(weights[i] for i in open_)
        shares = {i: int(left * weights[i] / total + 1e-9) for i in open_}
        done = {i for i in open_ if needs[i] <= shares[i]}
        if not done:
            for i in open_:
                grant[i] = shares[i]
            break
        for i in done:
            grant[i] = needs[i]
            left -= needs[i]
        open_ -= done
    return grant


def take_lines(costs: Sequence[Sequence[int]], importance: Sequence[float],
               budget: int) -> list[int]:
    """How many of each document's lines (best first) fit the shared budget.

    Each document takes lines in order within its :func:`allocate` share; what the
    shares leave (a long line that did not fit) then goes, most important document first,
    to the lines that come next.

    Args:
        costs: Per document, the characters of each line (newline included).
        importance: Per document, its weight (the node score).
        budget: Characters in all.
    """
    grants = allocate([sum(c) for c in costs], importance, budget)
    taken: list[int] = []
    spent = 0
    for doc_costs, grant in zip(costs, grants, strict=True):
        total = count = 0
        while count < len(doc_costs) and total + doc_costs[count] <= grant:
            total += doc_costs[count]
            count += 1
        taken.append(count)
        spent += total
    left = budget - spent
    for doc in sorted(range(len(costs)), key=lambda i: -importance[i]):
        while taken[doc] < len(costs[doc]) and costs[doc][taken[doc]] <= left:
            left -= costs[doc][taken[doc]]
            taken[doc] += 1
    return taken


class TripleContextBuilder:
    """Prioritised, labelled fact lines for a set of selected documents.

    Args:
        store: The graph.
        ontology: Predicate weights, labels and codes (:meth:`Ontology.default` if ``None``).
        value_chars: Literals are cut at this length.
    """

    def __init__(self, store: TripleStore, ontology: Ontology | None = None,
                 value_chars: int = DEFAULT_VALUE_CHARS) -> None:
        self.store = store
        self.ontology = ontology or Ontology.default()
        self.value_chars = value_chars
        self.weights = PredicateWeights(store, self.ontology)
        self._key: dict[int, bool] = {}
        self._time_span: dict[int, bool] = {}
        self._type_id = store.id_of(f"{RDF}type")
        self._label_id = store.id_of(f"{RDFS}label")

    # ------------------------------------------------------------------ terms
    def _is_key(self, p_id: int) -> bool:
        if p_id not in self._key:
            supers = self.ontology.superproperties(self.store.term(p_id))
            codes = {m.group(1) for m in map(_CODE.match, supers) if m}
            self._key[p_id] = bool(codes & KEY_CODES)
        return self._key[p_id]

    def is_time_span(self, term_id: int) -> bool:
        """True when the node is typed E52 Time-Span (or a subclass)."""
        if term_id not in self._time_span:
            p_ids, o_ids = self.store.out_ids(term_id)
            classes = o_ids[p_ids == self._type_id] if self._type_id is not None else []
            self._time_span[term_id] = any(
                self.ontology.is_subclass(self.store.term(int(c)), TIME_SPAN) for c in classes)
        return self._time_span[term_id]

    def name(self, term_id: int, names: dict[int, str]) -> str:
        """A readable name: a selected document's label, the archive label, a literal's
        value, else a humanised local name marked ``(unlabelled)``."""
        if term_id in names:
            return names[term_id]
        term = self.store.term(term_id)
        if self.store.is_literal[term_id]:
            value = decode_object(term)
            return _clip(value.value if isinstance(value, Literal) else value, self.value_chars)
        label = self.store.label_of(term_id)
        if label:
            return _clip(label, self.value_chars)
        if self.ontology.canonical(term):
            return self.ontology.label(term)
        return "unnamed node" if is_blank(term) else f"{humanize(term)} {UNLABELLED}"

    def _predicate(self, p_id: int) -> str:
        return self.store.label_of(p_id) or self.ontology.label(self.store.term(p_id))

    def date(self, span: int) -> tuple[str, list[tuple[str, str, str]]] | None:
        """A time-span's date: its ``rdfs:label``, else ``begin – end`` from P82a/P82b."""
        p_ids, o_ids = self.store.out_ids(span)
        if self._label_id is not None and np.any(p_ids == self._label_id):
            value = decode_object(self.store.term(int(o_ids[p_ids == self._label_id][0])))
            if isinstance(value, Literal) and value.value.strip():
                return value.value, []
        found: dict[str, tuple[str, tuple[str, str, str]]] = {}
        for p, o in zip(p_ids.tolist(), o_ids.tolist(), strict=True):
            local = self.ontology.canonical(self.store.term(p)) or ""
            if local in BEGIN_PREDICATES + END_PREDICATES and self.store.is_literal[o]:
                value = decode_object(self.store.term(o))
                text = value.value if isinstance(value, Literal) else value
                found.setdefault(local, (text, (self.store.term(span), self.store.term(p),
                                                self.store.term(o))))
        begin = next((found[p] for p in BEGIN_PREDICATES if p in found), None)
        end = next((found[p] for p in END_PREDICATES if p in found), None)
        if begin is None and end is None:
            return None
        parts = [x for x in (begin, end) if x is not None]
        texts = list(dict.fromkeys(text for text, _ in parts))
        return "–".join(texts), list(dict.fromkeys(triple for _, triple in parts))

    # ------------------------------------------------------------------ facts
    def facts(self, entities: Sequence[np.ndarray], names: dict[int, str],
              limit: int | None = None) -> list[list[Fact]]:
        """Per document, its fact lines best first (each triple given to one document).

        Args:
            entities: Per selected document, the term ids of its entities.
            names: Labels to use for given term ids (the selected documents' own labels).
            limit: Stop writing a document's lines once they reach this many characters
                (no document can use more than the whole budget).
        """
        owner = {int(e): i for i, ids in enumerate(entities) for e in ids.tolist()}
        owned = np.fromiter(owner, dtype=np.int64, count=len(owner))
        owners = np.fromiter(owner.values(), dtype=np.int64, count=len(owner))
        by_id = np.argsort(owned)
        owned, owners = owned[by_id], owners[by_id]
        named = np.fromiter(names, dtype=np.int64, count=len(names))
        seen: set[tuple[int, int, int]] = set()
        result: list[list[Fact]] = []
        for doc, ids in enumerate(entities):
            ranked = self._ranked(ids, doc, owned, owners, named)
            drafts: dict[str, tuple[int, float, list[tuple[str, str, str]]]] = {}
            size = 0
            for tier, incoming, neg_weight, entity, p, n in ranked:
                s, o = (n, entity) if incoming else (entity, n)
                if (s, p, o) in seen:
                    continue
                if limit is not None and size >= limit:
                    break
                seen.add((s, p, o))
                line, cited = self._line(s, p, o, n, names)
                if line in drafts:  # same words, another node (e.g. two image files)
                    drafts[line][2].extend(cited)
                    continue
                drafts[line] = (tier, -neg_weight, cited)
                size += len(line) + 1
            result.append([Fact(line=line, tier=tier, weight=weight, triples=tuple(cited))
                           for line, (tier, weight, cited) in drafts.items()])
        return result

    def _ranked(self, ids: np.ndarray, doc: int, owned: np.ndarray, owners: np.ndarray,
                named: np.ndarray) -> zip[tuple[int, bool, float, int, int, int]]:
        """One document's triples as ``(tier, incoming, -weight, entity, p, other)``, in the
        order :meth:`facts` writes them: by tier, own statements first, heavier predicates
        first, then as stored (each entity's outgoing, then incoming triples).

        Vectorised: a hub entity has thousands of triples, and ranking them one by one in
        Python held the GIL for a third of a question (issue 25); the order is the one
        ``sorted`` gave on the tuples, entity by entity (:func:`numpy.lexsort` is stable).
        """
        store = self.store
        # every entity's outgoing triples, then every entity's incoming ones: the order of
        # the ties within each (own statements and statements about it never tie)
        at, preds, others, forward = store.edges(np.asarray(ids, dtype=np.int64))
        keep = ~self.weights.schema(preds)
        at, preds, others, incoming = at[keep], preds[keep], others[keep], ~forward[keep]
        entity = np.asarray(ids, dtype=np.int64)[at]
        pos = np.minimum(np.searchsorted(owned, others), max(len(owned) - 1, 0))
        between = (owned[pos] == others) & (owners[pos] != doc) if len(owned) else \
            np.zeros(len(others), dtype=bool)
        labelled = store.is_literal[others] | np.isin(others, named) | \
            store.labelled_with_suffix_other_than(UNLABELLED)[others]
        tier = np.where(between, 1, np.where(self._key_mask(preds), 2,
                                             np.where(labelled, 3, 4)))
        neg_weight = -self.weights(preds)
        order = np.lexsort((neg_weight, incoming, tier))
        return zip(tier[order].tolist(), incoming[order].tolist(),
                   neg_weight[order].astype(np.float64).tolist(), entity[order].tolist(),
                   preds[order].tolist(), others[order].tolist(), strict=True)

    def _key_mask(self, p_ids: np.ndarray) -> np.ndarray:
        """Boolean per predicate id of ``p_ids``: a tier-2 (key) predicate."""
        unique = np.unique(p_ids)
        keys = np.fromiter((self._is_key(p) for p in unique.tolist()), dtype=bool,
                           count=len(unique))
        return keys[np.searchsorted(unique, p_ids)]

    def _tier(self, p: int, other: int, between: bool, names: dict[int, str]) -> int:
        """1: between selected documents; 2: a key predicate; 3: a named other end; 4."""
        if between:
            return 1
        if self._is_key(p):
            return 2
        if other in names or self.store.is_literal[other]:
            return 3
        label = self.store.label_of(other)
        return 3 if label and not label.endswith(UNLABELLED) else 4

    def _line(self, s: int, p: int, o: int, other: int,
              names: dict[int, str]) -> tuple[str, list[tuple[str, str, str]]]:
        """``subject → predicate → object`` and the triples it cites."""
        store = self.store
        cited = [(store.term(s), store.term(p), store.term(o))]
        other_name: str | None = None
        if other == o and not store.is_literal[o] and self.is_time_span(o):
            date = self.date(o)
            if date is not None:
                other_name, extra = date
                cited += extra
        if other_name is None:
            other_name = self.name(other, names)
        subject = other_name if other == s else self.name(s, names)
        obj = other_name if other == o else self.name(o, names)
        return f"{subject}{ARROW}{self._predicate(p)}{ARROW}{obj}", cited


class TripleContextPostprocessor(GraphPostprocessor):
    """Append each selected document's prioritised facts to its text (see the module).

    Args:
        triple_store: The graph (required before use).
        ontology: Predicate weights and labels (:meth:`Ontology.default` when ``None``).
        **params: The pydantic fields below.
    """

    budget_chars: int = Field(default=DEFAULT_BUDGET_CHARS, ge=0,
                              description="Characters of fact lines for all documents.")
    text_chars: int = Field(default=DEFAULT_TEXT_CHARS, ge=0,
                            description="A document's text is cut at this length.")
    value_chars: int = Field(default=DEFAULT_VALUE_CHARS, ge=1,
                             description="Literals are cut at this length.")

    _store: TripleStore | None = PrivateAttr(default=None)
    _ontology: Ontology | None = PrivateAttr(default=None)
    _builder: TripleContextBuilder | None = PrivateAttr(default=None)

    def __init__(self, triple_store: TripleStore | None = None,
                 ontology: Ontology | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._store = triple_store
        self._ontology = ontology

    @classmethod
    def from_components(cls, triple_store: TripleStore, ontology: Ontology | None = None,
                        **params: Any) -> TripleContextPostprocessor:
        """A context builder over ``triple_store`` (see the class arguments)."""
        return cls(triple_store=triple_store, ontology=ontology, **params)

    @classmethod
    def class_name(cls) -> str:
        """Name under which LlamaIndex identifies this component."""
        return "TripleContextPostprocessor"

    def _get_builder(self) -> TripleContextBuilder:
        if self._store is None:
            raise ValueError("TripleContextPostprocessor needs a triple store: build it "
                             "with from_components(docstore.triples)")
        if self._builder is None or self._builder.value_chars != self.value_chars:
            self._builder = TripleContextBuilder(self._store, self._ontology,
                                                 self.value_chars)
        return self._builder

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """Each node replaced by a copy whose text ends with its ``Facts:``."""
        builder = self._get_builder()
        store = builder.store
        entities, names = selected_entities(store, nodes)
        facts = builder.facts(entities, names, limit=self.budget_chars)
        scores = [n.score or 0.0 for n in nodes]
        taken = take_lines([[len(f.line) + 1 for f in doc] for doc in facts], scores,
                           self.budget_chars)
        out: list[NodeWithScore] = []
        for node, doc_facts, count in zip(nodes, facts, taken, strict=True):
            used = doc_facts[:count]
            cited = [list(t) for fact in used for t in fact.triples]
            out.append(NodeWithScore(node=self._with_facts(node, [f.line for f in used], cited),
                                     score=node.score))
        used_chars = sum(len(f.line) + 1 for doc, n in zip(facts, taken, strict=True)
                         for f in doc[:n])
        emit("context", query_bundle.query_str if query_bundle else "", out,
             budget_chars=self.budget_chars, used_chars=used_chars,
             text_chars=self.text_chars,
             facts=[len(n.node.metadata[TRIPLES_KEY]) for n in out])
        return out

    def _with_facts(self, node: NodeWithScore, lines: list[str],
                    cited: list[list[str]]) -> Any:
        source = node.node
        text = source.get_content()
        if len(text) > self.text_chars:
            text = text[: max(self.text_chars - 1, 0)] + "…"
        if lines:
            text += FACTS_HEADER + "\n".join(lines)
        copy = hidden_metadata_copy(source, {TRIPLES_KEY: cited})
        copy.set_content(text)
        return copy


def hidden_metadata_copy(node: BaseNode, values: dict[str, Any]) -> BaseNode:
    """A copy of ``node`` with ``values`` added to its metadata, hidden from the embedded
    and the LLM text (provenance for the application, not words for the model)."""
    return node.model_copy(update={
        "metadata": {**node.metadata, **values},
        "excluded_embed_metadata_keys": list(
            dict.fromkeys([*node.excluded_embed_metadata_keys, *values])),
        "excluded_llm_metadata_keys": list(
            dict.fromkeys([*node.excluded_llm_metadata_keys, *values])),
    })
