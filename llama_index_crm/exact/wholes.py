"""Up the graph's hierarchies: the wholes a node is part of, and the broader terms of a type.

"Which churches depict the Virgin Mary", where the graph says so of an iconographic atom that
forms part of a church's nave, a feature of the church; "how many churches", where a chapel is
typed "chapel", a type whose broader term (P127) is "church".

A member the question's class noun does not fit (no "church" among its types) may be a part
of one that does. The walk goes up through CRM's part–whole properties and features (P46i,
P106i, P148i, P56i), never down, so a whole is answered only for what its own parts show.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from llama_index_crm.exact.paths import CompiledStep, PathEngine, Walk
from llama_index_crm.ontology import Step, step_from_json

__all__ = ["BROADER_STEP", "WHOLE_STEP", "broader", "wholes"]

WHOLE_STEP: Step = step_from_json({"any_of": [
    {"property": "P46i_forms_part_of"}, {"property": "P106i_forms_part_of"},
    {"property": "P148i_is_component_of"}, {"property": "P56i_is_found_on"}],
    "repeat": True})
"""One or more steps from a part (or a feature) to what it belongs to."""


BROADER_STEP: Step = step_from_json({"property": "P127_has_broader_term", "repeat": True})
"""One or more steps from a type to its broader terms."""


@cache
def _compiled(engine: PathEngine, step: Step) -> CompiledStep:
    return engine.compile([step])


def wholes(engine: PathEngine, parts: np.ndarray) -> Walk:
    """Every whole each of ``parts`` (term ids) belongs to, with the triples on the way."""
    return engine.walk(np.asarray(parts, dtype=np.int64), _compiled(engine, WHOLE_STEP))


def broader(engine: PathEngine, types: np.ndarray) -> Walk:
    """Every broader term of each of ``types`` (term ids), transitively."""
    return engine.walk(np.asarray(types, dtype=np.int64), _compiled(engine, BROADER_STEP))
