"""Exact answers: link a question to the graph, execute it completely, answer in a sentence
with its evidence — or say that it is not there.

* :mod:`.linking` — names in a question to graph nodes (labels, appellations, folding,
  inverted names, surnames, small misspellings), with scores and ambiguity;
* :mod:`.relations` — words to relations, from ``config/exact/relations.json``;
* :mod:`.paths` — CRM property paths walked over the triple store, with witnesses;
* :mod:`.plan` — :class:`ExactPlan`: variables, constraints, filters and an operation;
  shown as a readable FR path and as SPARQL;
* :mod:`.parse` — the rule-based planner; :mod:`.llm_planner` — the LLM one;
* :mod:`.execute` — complete answer sets over the whole graph;
* :mod:`.render` — the sentence and its evidence; :mod:`.answerer` — all of it, one call.
"""

from __future__ import annotations
