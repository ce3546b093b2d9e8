"""The texts a graph states about its nodes: statements a node is referred to by (P67i:
credit lines, inscriptions, biographies, notes), not its names. A name written only there
("Gift of Ruth Carter Stevenson", "JKM Collection, National Museum of Wildlife Art") names
no node, but the graph knows it: the question is no proof of absence.

>>> texts = ["gift of ruth carter stevenson", "purchase, the jkm collection"]
>>> stating(texts, "Ruth Carter Stevenson"), stating(texts, "JKM"), stating(texts, "Ruth Asawa")
('gift of ruth carter stevenson', 'purchase, the jkm collection', None)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from llama_index_crm.rdf import RDF_VALUE, Literal, decode_object
from llama_index_crm.storage.names import fold_name
from llama_index_crm.storage.triples import TripleStore

__all__ = ["stated_texts", "stating"]

REFERRED_TO_BY = "P67i_is_referred_to_by"
REFERS_TO = "P67_refers_to"
TEXT_PROPERTIES = ("P190_has_symbolic_content", "P3_has_note")


def stated_texts(store: TripleStore) -> list[str]:
    """The folded texts of every node another node is referred to by (a statement), once
    each."""
    predicates = np.unique(store.p_ids)
    names = store.take(predicates)
    def having(*ends: str) -> np.ndarray:
        return predicates[[n.endswith(ends) or n == RDF_VALUE for n in names]] \
            if RDF_VALUE in ends else predicates[[n.endswith(ends) for n in names]]
    referred = having(REFERRED_TO_BY)
    refers = having(REFERS_TO)
    statements = np.union1d(store.o_ids[np.isin(store.p_ids, referred)],
                            store.s_ids[np.isin(store.p_ids, refers)])
    text = np.isin(store.p_ids, having(*TEXT_PROPERTIES, RDF_VALUE)) & \
        np.isin(store.s_ids, statements) & store.is_literal[store.o_ids]
    out = []
    for encoded in store.take(np.unique(store.o_ids[text])):
        value = decode_object(encoded)
        out.append(fold_name(value.value if isinstance(value, Literal) else value))
    return out


def stating(texts: Sequence[str], name: str) -> str | None:
    """The first of ``texts`` (folded) that holds ``name``'s words in a row, if any."""
    wanted = fold_name(name)
    if not wanted:
        return None
    pattern = re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")
    return next((t for t in texts if wanted in t and pattern.search(t)), None)
