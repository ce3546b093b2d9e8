"""Who holds a graph's events: the institution whose exhibition history the graph is, told
apart from makers, sitters and the people whose births and deaths are recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from llama_index_crm.exact.paths import PathEngine
    from llama_index_crm.storage.triples import TripleStore

__all__ = ["BEING_IN", "BEING_OUT", "MIN_HOLDER_EVENTS", "coming_into_being", "holder_names"]

MIN_HOLDER_EVENTS = 10
"""An institution holds at least this many of the graph's events (not a committee's two
inscriptions of a site)."""
BEING_IN = ("P108i_was_produced_by", "P92i_was_brought_into_existence_by", "P98i_was_born",
            "P100i_died_in", "P94i_was_created_by", "P93i_was_taken_out_of_existence_by")
"""Properties into an event by which a work or a person comes into (or out of) being."""
BEING_OUT = ("P108_has_produced", "P92_brought_into_existence", "P98_brought_into_life",
             "P100_was_death_of", "P94_has_created", "P93_took_out_of_existence")
"""The same, out of the event."""


def coming_into_being(store: TripleStore, engine: PathEngine) -> np.ndarray:
    """Productions, births and deaths: events a work or a person has, not ones an
    institution holds (a maker of half the works is no holder of the collection)."""
    found = [np.empty(0, dtype=np.int64)]
    for names, offsets, preds in ((BEING_IN, store.in_offsets, store.in_p),
                                  (BEING_OUT, store.out_offsets, store.p_ids)):
        ids = np.concatenate([engine.property_ids(n) for n in names])
        owner = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        found.append(np.unique(owner[np.isin(preds, ids)]))
    return np.concatenate(found)


def holder_names(starts: np.ndarray, labels: Sequence[str], share: float) -> set[str]:
    """Folded names that carry out at least ``share`` of the events walked from (and at
    least :data:`MIN_HOLDER_EVENTS` of them), counted once per event.

    >>> sorted(holder_names(np.arange(12), ["moma"] * 11 + ["gallery"], 0.5))
    ['moma']
    >>> holder_names(np.arange(2), ["unesco", "unesco"], 0.5)
    set()
    """
    by_name: dict[str, set[int]] = {}
    for start, label in zip(starts.tolist(), labels, strict=True):
        by_name.setdefault(label, set()).add(int(start))
    need = max(MIN_HOLDER_EVENTS, share * len(np.unique(starts)))
    return {n for n, events in by_name.items() if n and len(events) >= need}
