"""People named by a role the graph gives them as a type: "the donor of T" in a graph that
types its actors "donor" (P2), where T's making names its donor beside its painter.

The planner reads a role noun as the relation its word lists give it ("donor": the credit
line, the seller of an acquisition). When that reading finds nothing and the graph types
some actors with the noun, :func:`typed_role_plans` offers the same question read as the
actors of that type linked to the named node by a relation of the graph (its makers first),
one plan per relation; the answerer keeps the first that finds any, and says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from llama_index_crm.exact.plan import Anchor, Link, Variable
from llama_index_crm.query.lexicon import singularise
from llama_index_crm.storage.names import fold_name

if TYPE_CHECKING:
    from llama_index_crm.exact.execute import Executor
    from llama_index_crm.exact.plan import ExactPlan

__all__ = ["typed_role_plans"]

MAX_RELATIONS = 6
"""Relations tried per role noun (the lexicon's order: makers first)."""


def typed_role_plans(plan: ExactPlan, executor: Executor) -> Iterator[tuple[ExactPlan, str]]:
    """Plans reading a role noun of ``plan``'s question as a type of the actors it asks for
    (its one variable linked to one named node), with a note for the answer."""
    var = plan.variables[0]
    links = [link for link in var.links if isinstance(link.target, Anchor)]
    if var.category != "Actor" or var.anchor is not None or len(plan.variables) > 1 or \
            len(links) != 1 or var.types or plan.operation not in {"list", "count"}:
        return
    anchor = links[0].target
    assert isinstance(anchor, Anchor)
    named = set(fold_name(anchor.text).split())
    words = dict.fromkeys(singularise(w) for w in fold_name(plan.question).split()
                          if w not in named and len(w) > 3)
    for word in words:
        if not executor.graph_types(word, actors=True):
            continue
        relations = [r for r in executor.lexicon.values() if r.value == "node"
                     and r.range == "Actor" and r.domain in {anchor.category, "Any"}]
        for relation in relations[:MAX_RELATIONS]:
            typed = Variable("Actor", noun=word, types=(word,),
                             links=(Link(relation.id, anchor, inverse=True),))
            yield (replace(plan, variables=(typed,)),
                   f"reading “{word}” as the type the graph gives people, and "
                   f"{relation.label} as the link")
