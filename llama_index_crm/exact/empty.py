"""Whether an empty result of a covered plan is the graph's absence, or only its path's
(:class:`EmptyCheck`): the exact layer says "there are no …" or "the graph records no …"
only when the FR graph, the other kinds a name has and the words of the question leave no
other reading."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from llama_index_crm.exact.parse_words import attribute_group
from llama_index_crm.exact.results import UNTYPED_EVENTS
from llama_index_crm.query.lexicon import pluralise, singularise
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.execute import ExactResult, Executor
    from llama_index_crm.exact.linking import NameIndex
    from llama_index_crm.exact.plan import Anchor, ExactPlan, ValueFilter
    from llama_index_crm.graph.data import GraphData

__all__ = ["EmptyCheck"]

_GRAMMAR = frozenset({"by", "of", "in", "at", "on", "to", "from", "for", "with", "the", "a",
                      "an", "is", "was", "were", "are", "has", "have", "had", "did", "do",
                      "does", "who", "what", "when", "where", "which", "how"})


def _worded(relation: object, asked: set[str]) -> bool:
    """Whether a word of ``asked`` is one of the relation's own verbs or nouns."""
    words = {w for phrase in (*getattr(relation, "verbs", ()), *getattr(relation, "nouns", ()))
             for w in fold_name(phrase).split()} - _GRAMMAR
    return bool(words & asked)

CLOSE_OTHER = frozenset({"exact", "stripped", "inverted", "stop-words", "short name", "surname",
                         "given name", "qualifier"})
"""Matches by which a name also names a node of another kind (no misspelling, no part)."""

_YEAR = re.compile(r"\b\d{4}\b")
NODE_RANGES = frozenset({"Actor", "Place", "Thing", "Event", "Concept"})


class EmptyCheck:
    """Whether an empty result of a covered plan is the graph's absence, or only its path's.

    A plan walks one relation's CRM paths; the build walked every Fundamental Relationship.
    "No churches made by X" is said only when X has no FR link to any node of the kind asked
    either, and "the graph records no R for Y" only when Y's FR links hold no node of R's
    range (for a date: Y's document holds no year). Otherwise the facts may sit behind a
    path the relation does not take (a painter of a church's wall paintings), and the answer
    comes from retrieval.

    Args:
        data: the loaded index (FR links, documents).
        executor: the plan executor (term ids, categories).
    """

    def __init__(self, data: GraphData | None, executor: Executor,
                 names: NameIndex | None = None) -> None:
        self.data = data
        self.executor = executor
        self.names = names

    def _other_kind(self, text: str, category: str) -> str | None:
        """The kind of another node named exactly ``text``, if any."""
        names = self.names
        if names is None or not text:
            return None
        return next((c.category for c in names.exact(text) if c.category != category), None)

    def also_named(self, plan: ExactPlan, anchor: Anchor) -> str | None:
        """The kind of other nodes the anchor's words name closely too, of a kind its link
        takes ("portraits of Lincoln": two places, and people of that surname), if any."""
        names = self.names
        if names is None or not anchor.text:
            return None
        lexicon = self.executor.lexicon
        sides = [lexicon[link.relation].domain if link.inverse else lexicon[link.relation].range
                 for v in plan.variables for link in v.links
                 if link.target == anchor and link.relation in lexicon]
        for kind in ("Actor", "Place", "Thing", "Event"):
            if kind != anchor.category and any(side in {"Any", kind} for side in sides) and any(
                    c.how in CLOSE_OTHER for c in names.lookup(anchor.text, [kind])):
                return kind
        return None

    def _names_a_term(self, words: str) -> bool:
        """Whether folded ``words`` name a term of the graph, in the singular too
        ("black and white photographs": the type "black-and-white photograph")."""
        if self.names is None:
            return False
        singular = " ".join([*words.split()[:-1], singularise(words.split()[-1])])
        return any(self.names.exact(w, ["Concept"]) for w in dict.fromkeys((words, singular)))

    def unproven(self, result: ExactResult) -> str | None:
        """Why the absence ``result`` states is not proven (None: it is, or none is stated)."""
        if self.data is None:
            return None
        plan = result.plan
        var = plan.variables[0]
        if plan.operation == "superlative" and not result.items and \
                (plan.order_by or "count") == "count":
            # "who made the most relief prints" read with a path or a type no member has:
            # "none can be ranked" would deny what the graph may well hold
            return "the plan's path ranks none of the members it counts"
        if not result.total and any(c.forms for v in plan.variables for c in v.filters):
            return "no title holds the words the plan read in place of a relation"
        typed = [c.contains for v in plan.variables for c in v.filters
                 if c.contains and self._names_a_term(c.contains)]
        if not result.total and typed:  # "black-and-white photographs given by X": a type
            return f"“{typed[0]}” names a type of the graph, read as words of a text"
        if not result.total and result.missing_relations and not plan.anchors:
            # "artists shown in four poster artists": a relation no triple records, read
            # from a question that names nothing the plan could check the reading on
            labels = " or ".join(self.executor.lexicon[r].label for r in result.missing_relations)
            return (f"this graph records no {labels} at all, and the question names no node "
                    f"the reading could be checked on")
        if not result.total and any(n.startswith(UNTYPED_EVENTS) for n in result.notes):
            # "exhibitions held in 1940" where no event carries a type: none named so
            # proves no absence of exhibitions (they may be recorded in words)
            return "the graph gives its events no type, and none is named so"
        if not result.total and result.left_out and not var.filters:
            return None  # "other works by the artist of T": T was all there was
        if not result.total:
            unnamed = self._unnamed_date(plan)
            if unnamed is not None:
                return unnamed
            for anchor in plan.anchors:
                if var.category is not None and anchor.category == var.category:
                    return (f"the question names {anchor.label}, itself a "
                            f"{var.category.lower()} like those it asks for")
                for uri in anchor.nodes:
                    linked = self._linked(uri, var.category)
                    if linked and not self._explained(plan, anchor, uri):
                        return (f"the plan's path finds none, but {anchor.label} is linked to "
                                f"{linked} {(var.category or 'node').lower()}(s) by other "
                                f"paths of the graph")
                other = self._other_kind(anchor.text, anchor.category) \
                    if anchor.category == "Concept" else self.also_named(plan, anchor)
                if other is not None:  # "the photo rocking chair": a work titled so, not
                    # the term the plan read (a term is the loosest reading of a name)
                    return (f"the plan's path finds none, but “{anchor.text}” also names a "
                            f"{other.lower()} of the graph")
        if plan.operation == "value":
            lexicon = self.executor.lexicon
            for item in result.items:
                for relation_id in plan.attributes:
                    # "the medium": its statement, materials or technique, any one answers
                    family = {r.id for r in attribute_group(
                        [lexicon[relation_id], *(lexicon[a] for a in plan.attributes)])}
                    if any(v.relation in family for v in item.values):
                        continue
                    relation = lexicon[relation_id]
                    if relation.range in NODE_RANGES and self._linked(item.uri, relation.range):
                        return (f"no {relation.label} on the plan's path, but {item.label} is "
                                f"linked to {relation.range.lower()}s by other paths")
                    if relation.value == "time" and self._dated(item.uri):
                        return (f"no {relation.label} on the plan's path, but the document "
                                f"of {item.label} holds dates")
        return None

    def _unnamed_date(self, plan: ExactPlan) -> str | None:
        """Why a period no word ties to one of several variables proves no absence ("who
        directed exhibitions in 1940": the year may be the exhibitions' or the directors'
        birth), else None."""
        free = [v for v in plan.variables if v.anchor is None]
        if len({v.category for v in free}) < 2:
            return None  # "exhibitions in 1990": only the exhibitions can carry it
        asked = set(fold_name(plan.question).split())
        lexicon = self.executor.lexicon
        for var in free:
            for condition in var.filters:
                if condition.years is None or condition.relation not in lexicon:
                    continue
                relation = lexicon[condition.relation]
                said = {w for phrase in (*relation.verbs, *relation.nouns)
                        for w in fold_name(phrase).split()}
                if not said & asked:
                    return (f"no word of the question says whose date {condition.years[0]} "
                            f"is; it was read as the {relation.label} of the "
                            f"{var.noun or 'members'}")
        return None

    def _explained(self, plan: ExactPlan, anchor: Anchor, uri: str) -> bool:
        """Whether every node of the asked kind the FR graph links to ``anchor`` is one the
        empty result rightly leaves out: reached by the plan's own relation but dated
        otherwise than its filters ask ("Kemeys's works of the 1950s": his 20 works are all
        dated, none then), or reached only by a relation no word of the question names
        ("works made by Lincoln": the 144 that depict him)."""
        var = plan.variables[0]
        links = [k for k in var.links if k.target == anchor]
        start = self.executor.node_id(uri)
        if len(links) != 1 or start is None or var.category is None or \
                links[0].hints or links[0].role or var.exclude:
            return False  # a hint or a role may be what left them out
        lexicon = self.executor.lexicon
        walker = self.executor.walker
        starts = np.asarray([start], dtype=np.int64)
        linked = self._linked_nodes(uri, var.category)
        if var.types:  # "exhibitions": the linked events of that type, when some are typed so
            self.executor._load_type_text(linked)
            typed = {n for n in linked if self.executor._typed(n, var.types)}
            linked = typed or linked
        own = lexicon[links[0].relation]
        reached = set(walker.walk(own, starts, reverse=not links[0].inverse,
                                  closure=True).node.tolist())
        if var.types and reached and not self._typed_otherwise(reached, var.types):
            return False  # "Calder's sculptures": each of his works typed, none so
        dated = [lexicon[f.relation] for f in var.filters if f.relation in lexicon]
        if len(dated) != len(var.filters) or reached and not dated and not var.types:
            return False  # a text filter, or the plan's own path reaches them unfiltered
        for relation in dated:  # each member the plan's path reaches has the value filtered
            ids = np.asarray(sorted(reached), dtype=np.int64)
            if len(ids) and len(set(walker.walk(relation, ids).start.tolist())) != len(ids) \
                    and not self._before_birth(start, var.filters):
                return False  # an undated work may be of then, unless its maker was unborn
        asked = set(fold_name(plan.question).split())
        for relation in lexicon.values() if anchor.category == "Actor" else ():
            # a person's other links are other roles (a sitter, a donor); a term's may be
            # what the question means in other words ("depicting" a subject: typed so)
            if relation.value != "node" or relation.id == own.id or _worded(relation, asked) \
                    or relation.id == "created-by" and re.search(
                        rf"\bby\s+{re.escape(anchor.text)}\b", plan.question, re.I):
                continue  # "sitters portrayed by X": "by X" names X's works, not X's likeness
            if relation.domain in {var.category, "Any"} and \
                    relation.range in {anchor.category, "Any"}:
                reached |= set(walker.walk(relation, starts, reverse=True).node.tolist())
            if relation.range in {var.category, "Any"} and \
                    relation.domain in {anchor.category, "Any"}:
                reached |= set(walker.walk(relation, starts).node.tolist())
        return bool(linked) and linked <= reached

    def _before_birth(self, maker: int, filters: Sequence[ValueFilter]) -> bool:
        """Whether every period the filters ask ends before ``maker`` was born ("Clare
        Leighton's works of the 1850s": she was born in 1898, so her undated works are
        not of then; after a death, posthumous casts and prints may be)."""
        relation = self.executor.lexicon.get("birth-date")
        periods = [f.years for f in filters if f.years is not None]
        if relation is None or not periods or len(periods) != len(filters):
            return False
        births = [v.years[0] for v in self.executor.values_of([maker], relation).get(maker, [])
                  if v.years is not None]
        return bool(births) and all(end < min(births) for _, end in periods)

    def _typed_otherwise(self, nodes: set[int], types: Sequence[str]) -> bool:
        """Whether each of ``nodes`` (some) carries a type, and no medium statement of
        theirs says one of ``types``: a type filter that kept none of them found them
        typed otherwise ("Bellows's lithographs", typed "planographic prints" and described
        "lithograph", are not)."""
        executor = self.executor
        executor._load_type_text(nodes)
        if not nodes or not all(executor._type_labels.get(n) for n in nodes):
            return False
        relation = executor.lexicon.get("medium-statement")
        if relation is None:
            return True
        wanted = {f for t in types for w in fold_name(t).split()
                  for f in (w, singularise(w), pluralise(w)) if len(f) > 3}
        for values in executor.values_of(sorted(nodes), relation).values():
            words = {w for v in values for w in fold_name(v.text).split()}
            if any(w.endswith(f) for w in words for f in wanted):
                return False
        return True

    def _linked_ids(self, uri: str, category: str | None) -> Iterator[int]:
        """Term ids of the nodes of ``category`` (None: any) the FR graph links to ``uri``."""
        assert self.data is not None
        for target in self.data.fr_links(uri):
            node = self.executor.node_id(target)
            if node is not None and (category is None
                                     or self.executor.values.category(node) == category):
                yield node

    def _linked(self, uri: str, category: str | None) -> int:
        return sum(1 for _ in self._linked_ids(uri, category))

    def _linked_nodes(self, uri: str, category: str) -> set[int]:
        return set(self._linked_ids(uri, category))

    def _dated(self, uri: str) -> bool:
        assert self.data is not None
        doc = self.data.doc_of_entity(uri)
        if doc is None:
            return False
        return bool(_YEAR.search(self.data.node(doc).get_content()))
