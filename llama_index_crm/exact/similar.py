"""Relation words by meaning: a word no lexicon lists, matched to the relation whose
description it is closest to ("portrays" → depicts, "passed away" → death date).

Each relation is described by its label, its CRM words, verbs and nouns
(``config/exact/relations.json``); the description and the word are embedded with the
index's own encoder. A match needs :data:`THRESHOLD` cosine and a lead of :data:`MARGIN` over
the next relation; it only proposes a *reading* of the question (the word replaced by the
relation's own word), which must then cover the question and give a non-empty result to be
kept.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

import numpy as np

from llama_index_crm.exact.relations import RelationLexicon

if TYPE_CHECKING:
    from llama_index_crm.graph.data import GraphData

__all__ = ["MARGIN", "THRESHOLD", "RelationSimilarity"]

logger = logging.getLogger(__name__)

THRESHOLD = 0.45
"""Cosine from which a word reads as a relation (measured on the bundled MiniLM: "portrays"
0.53, "birthplace" 0.63, "passed away" 0.41; unrelated words stay below 0.4)."""
MARGIN = 0.08
"""Lead over the second relation a match needs."""


class RelationSimilarity:
    """Matches words to relations by the similarity of their embeddings.

    Args:
        data: the loaded index (its encoder embeds words and descriptions).
        lexicon: the relations.
    """

    def __init__(self, data: GraphData | None, lexicon: RelationLexicon) -> None:
        self.data = data
        self.lexicon = lexicon
        self._ids: list[str] = []
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()

    def description(self, relation_id: str) -> str:
        """The text a relation is embedded as."""
        r = self.lexicon[relation_id]
        return f"{r.label}: " + ", ".join([*r.crm_words[:4], *r.verbs[:12], *r.nouns[:8]])

    def _descriptions(self) -> np.ndarray | None:
        with self._lock:
            if self._matrix is None and self.data is not None:
                ids = [r.id for r in self.lexicon.values() if r.verbs or r.nouns]
                vectors = np.asarray(self.data.embed_model.get_text_embedding_batch(
                    [self.description(i) for i in ids]), dtype=np.float32)
                norms = np.linalg.norm(vectors, axis=1, keepdims=True)
                self._matrix = vectors / np.where(norms == 0, 1, norms)
                self._ids = ids
            return self._matrix

    def match(self, words: str) -> tuple[str, float] | None:
        """The relation ``words`` mean, with its cosine, or None."""
        if self.data is None:
            return None
        try:
            matrix = self._descriptions()
            if matrix is None:
                return None
            sims = matrix @ self.data.embed_query(words)
        except Exception as exc:  # noqa: BLE001 - no encoder: no match, the rules stand
            logger.debug("relation similarity unavailable (%s)", exc)
            return None
        order = np.argsort(-sims)
        best, second = float(sims[order[0]]), float(sims[order[1]]) if len(order) > 1 else 0.0
        if best >= THRESHOLD and best - second >= MARGIN:
            return self._ids[int(order[0])], best
        return None

    def word_for(self, relation_id: str) -> str:
        """A word of the relation the rule planner reads (its first verb, else noun)."""
        r = self.lexicon[relation_id]
        return (r.verbs or r.nouns or (r.label,))[0]
