"""Do the tests bite? Listed breakages of the core modules, applied one at a time.

Each mutant replaces one exact piece of source text (which must occur exactly once) in a
copy of the repository made in a temporary folder, then runs the tests related to it there
(``pytest -x -q``) with the copy first on ``PYTHONPATH``; the working tree is never edited.
A mutant is *killed* when the tests fail, *survived* when they pass. The first run, with no
mutant, must pass, and must import the package from the copy.

The mutants are the breakages of issue 12 (the table of what the suite let through) and a
few more in the same modules and in the exact-answer layer (``llama_index_crm/exact/``).

Usage::

    python benchmarks/mutation.py                 # every mutant → results/mutation.json
    python benchmarks/mutation.py --only rrf-     # those whose name starts with "rrf-"
    python benchmarks/mutation.py --list          # the mutants and their tests

Not part of ``make test``: every mutant runs its tests in a new pytest session (the demo
index is built again each time), about 20–60 s a mutant on two shared cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
SKIPPED = frozenset({".venv", ".git", "__pycache__", ".mypy_cache", ".ruff_cache",
                     ".pytest_cache", "results", "build", "dist", "notebooks"})
"""Not copied: at the top of the repository, or anywhere for the caches."""
TIMEOUT_S = 900


@dataclass(frozen=True)
class Mutant:
    """One breakage: ``old`` replaced by ``new`` in ``path``; ``tests`` should catch it."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    why: str
    """What the breakage does (and, for the issue's mutants, its table row)."""


ANSWER = "llama_index_crm/query/answer.py"
EMBED = "llama_index_crm/embeddings.py"
CHANNELS = "llama_index_crm/graph/channels.py"
CHAINING = "llama_index_crm/build/chaining.py"
COHERENT = "llama_index_crm/postprocessors/coherent.py"
TRIPLES = "llama_index_crm/storage/triples.py"
TERMS = "llama_index_crm/sources/_sparql_terms.py"
EXECUTE = "llama_index_crm/exact/execute.py"
VALUES = "llama_index_crm/exact/values.py"
RANKING = "llama_index_crm/exact/ranking.py"
ANSWERER = "llama_index_crm/exact/answerer.py"
LINKING = "llama_index_crm/exact/linking.py"
PERSON_NAMES = "llama_index_crm/exact/person_names.py"

MUTANTS: tuple[Mutant, ...] = (
    # ---- issue 12's table ---------------------------------------------------------------
    Mutant("answer-no-category-filter", ANSWER,
           "        if targets and info.category not in targets:\n            continue\n",
           "", ("tests/test_answer.py",),
           "table: _items drops the target-category filter"),
    Mutant("answer-no-period-filter", ANSWER,
           "            if not any(low <= y <= high for y in years_of(info.text)):\n"
           "                continue\n", "            pass\n", ("tests/test_answer.py",),
           "table: _items drops the period filter"),
    Mutant("answer-no-cue-words", ANSWER,
           "            score = overlap + 2 * cue - 0.3 * rank",
           "            score = overlap - 0.3 * rank", ("tests/test_answer.py",),
           "table: best_lines drops the cue-word scoring"),
    Mutant("embed-cache-never-hits", EMBED,
           "    cached = cache.get_many(name, keys) if cache else {}",
           "    cached: dict[bytes, np.ndarray] = {}", ("tests/test_embeddings.py",),
           "table: the embedding cache never hits"),
    Mutant("rrf-weights-ignored", CHANNELS,
           "        weight = weights.get(name, 1.0)\n", "        weight = 1.0\n",
           ("tests/test_fusion.py",), "table: RRF ignores the channel weights"),
    Mutant("rrf-zero-weight-kept", CHANNELS,
           "        if weight == 0:\n            continue\n", "",
           ("tests/test_fusion.py",), "table: RRF keeps the rows of zero-weight channels"),
    Mutant("rrf-k-fixed", CHANNELS,
           "            fused[row] = fused.get(row, 0.0) + weight / (k + rank)",
           "            fused[row] = fused.get(row, 0.0) + weight / (60 + rank)",
           ("tests/test_fusion.py",), "table: RRF fixes k = 60"),
    Mutant("chain-poorest-neighbour", CHAINING,
           "(lengths[n], uris[best]) > (lengths[best], uris[n])",
           "(lengths[n], uris[best]) < (lengths[best], uris[n])",
           ("tests/test_chaining.py",),
           "table: chaining into the poorest neighbour"),
    Mutant("chain-no-hub-check", CHAINING,
           " & (degree[other] <= max_degree))", ")", ("tests/test_chaining.py",),
           "table: chaining drops the hub-degree check"),
    Mutant("chain-no-removed-guard", CHAINING,
           "            if n in removed:\n                continue\n", "",
           ("tests/test_chaining.py",),
           "table: chaining drops the removed-node guard"),
    Mutant("coherent-no-clip", COHERENT,
           "(1.0 - alpha) * np.clip(conn, 0.0, 1.0)", "(1.0 - alpha) * conn",
           ("tests/test_postprocessors.py",), "table: no connectivity clip"),
    Mutant("coherent-worst-copy", COHERENT,
           "if seen is None or (node.score or 0.0) > (seen.score or 0.0):",
           "if seen is None or (node.score or 0.0) < (seen.score or 0.0):",
           ("tests/test_postprocessors.py",), "table: the worst copy of a duplicate node"),
    Mutant("triples-labelled-literals", TRIPLES,
           "        hits = np.flatnonzero(pc.fill_null(pc.equal(self._lower_labels, wanted),\n"
           "                                           False).to_numpy(zero_copy_only=False))\n"
           "        return hits[~self.is_literal[hits]] if len(hits) else hits",
           "        hits = np.flatnonzero(pc.fill_null(pc.equal(self._lower_labels, wanted),\n"
           "                                           False).to_numpy(zero_copy_only=False))\n"
           "        return hits", ("tests/test_storage.py",),
           "table: ids_labelled returns literals"),
    Mutant("names-short-words", CHANNELS,
           " or (len(key) == 1 and len(key[0]) < 4)", "",
           ("tests/test_fusion.py",), "table: the short-word name filter removed"),
    Mutant("sparql-newline-escape", TERMS, '"n": "\\n"', '"n": "n"',
           ("tests/test_sources.py",), "table: SPARQL TSV decodes \\n as n"),
    # ---- more in the same modules ---------------------------------------------------------
    Mutant("answer-no-type-filter", ANSWER, "    items = typed or items\n", "",
           ("tests/test_answer.py",),
           "a list ignores the type the question names (\"how many churches\")"),
    Mutant("chain-richness-after-appending", CHAINING,
           "(lengths[n], uris[best]) > (lengths[best], uris[n])",
           "(sum(lengths[m] for m in members.get(n, [n])), uris[best]) > "
           "(sum(lengths[m] for m in members.get(best, [best])), uris[n])",
           ("tests/test_chaining.py",), "richness read after documents were appended"),
    Mutant("parts-label-part-ignored", "llama_index_crm/build/parts.py",
           "ranks.append(part * (1 << 40) + start + rows)", "ranks.append(start + rows)",
           ("tests/test_build_parts.py",),
           "the store read by row groups takes a term's first label whatever its role"),
    Mutant("parts-label-row-group-offset", "llama_index_crm/build/parts.py",
           "ranks.append(part * (1 << 40) + start + rows)",
           "ranks.append(part * (1 << 40) + rows)", ("tests/test_build_parts.py",),
           "the store read by row groups forgets which row group a label came from"),
    Mutant("chain-keep-ignored", CHAINING,
           "if lengths[i] < threshold and categories[i] not in keep",
           "if lengths[i] < threshold", ("tests/test_chaining.py",),
           "people, places and events chained away"),
    Mutant("names-no-parenthesis-variant", CHANNELS,
           "variants = {v for n in entity_names for v in (n, _PARENTHESES.sub(\" \", n))}",
           "variants = set(entity_names)", ("tests/test_fusion.py", "tests/test_query.py"),
           "a name is not known without its parenthesised qualifier"),
    Mutant("embed-text-cut-mid-line", EMBED,
           "    cut = text.rfind(\"\\n\", 0, max_chars)\n", "    cut = max_chars\n",
           ("tests/test_embeddings.py", EMBED), "the embedded head cut inside a line"),
    Mutant("triples-self-loop-twice", TRIPLES,
           " - int(np.count_nonzero(out_o == term_id))", "",
           ("tests/test_storage.py", TRIPLES), "degree counts a self-loop twice"),
    Mutant("coherent-first-pick-boosted", COHERENT,
           "    pick = int(np.argmax(relevance))\n", "    pick = int(np.argmax(base))\n",
           ("tests/test_postprocessors.py",),
           "the first pick is the boosted one, not the most relevant"),
    Mutant("exact-century-as-decade", VALUES,
           "    if begins or high - low >= LONG_PERIOD:\n", "    if begins:\n",
           ("tests/test_exact.py", VALUES), "exact: a date must lie wholly in a century"),
    Mutant("exact-superlative-reversed", RANKING,
           "key=lambda i: (-key[i] if plan.descending else key[i],",
           "key=lambda i: (key[i] if plan.descending else -key[i],",
           ("tests/test_exact.py",), "exact: superlatives pick the other end"),
    Mutant("exact-exclusion-ignored", EXECUTE, "if k and n not in excluded}", "if k}",
           ("tests/test_exact.py",), "exact: \"aside from X\" keeps X"),
    Mutant("exact-group-ties-dropped", EXECUTE, "if len(g.items) >= cut]",
           "if len(g.items) > cut]", ("tests/test_exact.py",),
           "exact: a group tied at the cut is dropped"),
    Mutant("exact-ambiguity-guessed", ANSWERER,
           "            return kept or replace(self._ambiguous(parsed.ambiguous), "
           "language=language)\n",
           "", ("tests/test_exact.py",), "exact: an ambiguous name is not reported as such"),
    Mutant("exact-coverage-ignored", ANSWERER,
           "        if not understanding.complete:\n", "        if False:\n",
           ("tests/test_understanding.py",),
           "exact: a plan that leaves content words unexplained is stated as certain"),
    Mutant("exact-absence-assumed", ANSWERER,
           "        unproven = [p for p in proofs if not p.proven]\n",
           "        unproven: list[Proof] = []\n", ("tests/test_understanding.py",),
           "exact: any word that links to nothing is reported as a missing name"),
    Mutant("exact-empty-path-stated", ANSWERER,
           "        unproven = self.empty.unproven(answer.result) if answer.result is not None "
           "else None\n", "        unproven = None\n", ("tests/test_understanding.py",),
           "exact: an empty plan path is stated as the graph's absence"),
    Mutant("exact-questions-untranslated", ANSWERER,
           "        if lexicon is not None and lexicon.words:\n",
           "        if False:\n", ("tests/test_understanding.py",),
           "exact: questions in other languages are planned as if English"),
    Mutant("exact-roles-ignored", "llama_index_crm/exact/relations.py",
           "        through = self.labelled(relation.via_labels) if relation.via_labels "
           "else None\n",
           "        through = None\n", ("tests/test_exhibitions.py",),
           "exact: a role of the graph (director, artist) is read as any participation"),
    Mutant("exact-statement-values-ignored", ANSWERER,
           "            result, plan = self._statement_values(plan, result)\n",
           "            pass\n", ("tests/test_exhibitions.py",),
           "exact: a nationality only a biography states is said not to be recorded"),
    Mutant("exact-stand-ins-ranked", RANKING,
           "        if is_placeholder(item.label):\n            return True\n",
           "        if True:\n            return False\n", ("tests/test_exhibitions.py",),
           "exact: a broken person reference wins a ranking"),
    Mutant("exact-crosslingual-any-word-anchors", "llama_index_crm/exact/crosslingual.py",
           "                if len(keys) <= rare and fuzz.ratio(word, str(hit)) >= "
           "ANCHOR_RATIO and \\\n"
           "                        str(hit) not in self._titles:\n",
           "                if True:\n", ("tests/test_understanding.py",),
           "exact: 'saint' alone anchors a translated name ('Saint-Rembrandt-du-Lac' read as "
           "a church of the graph)"),
    Mutant("exact-crosslingual-off", "llama_index_crm/exact/crosslingual.py",
           "        if encode is None or not _latin(text):\n",
           "        if True:\n", ("tests/test_understanding.py",),
           "exact: a name typed in French or Italian is never read as the graph's name"),
    Mutant("exact-negation-is-grammar", "llama_index_crm/exact/understanding.py",
           "        elif word in NEGATIONS or word in SAMENESS and not (\n",
           "        elif False and (\n", ("tests/test_understanding.py",),
           "exact: 'which churches are not in X' answered with the churches in X"),
    Mutant("exact-no-wholes-of-parts", "llama_index_crm/exact/execute.py",
           "                members = {**self._wholes(others, types, typed), **typed}\n",
           "                members = typed\n", ("tests/test_understanding.py",),
           "exact: 'which churches depict X' misses churches whose parts depict X"),
    Mutant("exact-readings-empty-accepted", "llama_index_crm/exact/answerer.py",
           "                if other.status == \"answered\" and (other.total or "
           "other.count is None\n",
           "                if other.status == \"answered\" and (True or other.count is None\n",
           ("tests/test_understanding.py",),
           "exact: a reading that finds nothing is stated as 'there are none'"),
    Mutant("exact-misspellings-unbounded", PERSON_NAMES,
           "    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2\n",
           "    return 2\n", ("tests/test_exact.py",),
           "exact: short words may be misspelt by two letters"),
    Mutant("exact-attributions-ignored", "llama_index_crm/exact/paths.py",
           "            attributed = self._attributed(step.property)\n",
           "            attributed: list[CompiledStep] = []\n", ("tests/test_understanding.py",),
           "exact: a painter only an attribute assignment (E13, P177) names is missed, and "
           "the donor who carried the campaign out is called its painter"),
    Mutant("exact-untyped-statements-ignored", EXECUTE,
           "        if recognise is not None and any(not found for found in out.values()):\n",
           "        if False:\n", ("tests/test_readings.py",),
           "exact: 'the graph records no dimensions' where an untyped statement gives them"),
    Mutant("exact-materials-stated-absent", ANSWERER,
           "        if len(proofs) == 1 and typed_lower(question, proofs[0].text):\n",
           "        if False:\n", ("tests/test_readings.py",),
           "exact: 'how many works are made of canvas', stated only in a medium statement, "
           "is not answered"),
    Mutant("exact-place-kind-not-climbed", ANSWERER,
           "                        other = self._of_kind(other, fold_name(kind.group("
           "\"noun\")))\n",
           "                        pass\n", ("tests/test_readings.py",),
           "exact: 'which district' answered with the village"),
    Mutant("exact-tie-not-read-each-way", ANSWERER,
           "        kept = self._settled_by_answer(asked, history, ties, language, None) "
           "if ties else None\n",
           "        kept = None\n", ("tests/test_readings.py",),
           "exact: 'the director of Florine Stettheimer' read as the artist, never as the "
           "exhibition named after her"),
    Mutant("exact-role-walk-one-way", "llama_index_crm/exact/paths.py",
           "        start = trail.passed(start, node)\n", "", ("tests/test_readings.py",),
           "exact: a designer who is also an artist of the show is not found as its designer"),
    Mutant("exact-role-noun-every-actor", EXECUTE,
           "        return self._role_sets[noun]\n", "        return None\n",
           ("tests/test_readings.py",),
           "exact: 'how many directors' counts every actor of the graph"),
    Mutant("exact-topic-not-pointed-back", ANSWERER,
           "        topics = self._topics(asked)\n", "        topics = []\n",
           ("tests/test_readings.py",),
           "exact: 'X — what else did they direct?' answered with X's director"),
    Mutant("exact-compare-direction-flipped", "llama_index_crm/exact/compare.py",
           "    later = compared.later  # the later date, the larger count\n",
           "    later = not compared.later\n", ("tests/test_compare.py",),
           "exact: 'who was born first, A or B' names the later born, 'more works' the fewer"),
    Mutant("exact-unnamed-date-proves-absence", "llama_index_crm/exact/empty.py",
           "            unnamed = self._unnamed_date(plan)\n", "            unnamed = None\n",
           ("tests/test_readings.py",),
           "exact: 'who directed exhibitions in 1953' says there are none (a year no word ties)"),
    Mutant("exact-surname-place-proves-absence", "llama_index_crm/exact/empty.py",
           "else self.also_named(plan, anchor)\n", "else None\n",
           ("tests/test_readings.py",),
           "exact: 'portraits of Lincoln' says there are none (two places are named Lincoln)"),
    Mutant("exact-role-verb-ignored", "llama_index_crm/exact/parse_links.py",
           "        relation = self._role_verb(relation, cue, left, right, inverse)\n", "",
           ("tests/test_readings.py",),
           "exact: 'who organized E' names the museum, not E's recorded organizer"),
    Mutant("exact-none-unexplained-proven", "llama_index_crm/exact/empty.py",
           "        return bool(linked) and linked <= reached\n", "        return True\n",
           ("tests/test_periods_and_kinds.py",),
           "exact: an empty count is said as 0 whatever left the linked works out"),
    Mutant("exact-participle-unchecked", "llama_index_crm/exact/kinds.py",
           "    if all(every_member_has(executor, lexicon, r, nodes) "
           "for r in set(described.values())):\n",
           "    if True:\n",
           ("tests/test_periods_and_kinds.py",),
           "exact: 'the painted churches' read as every church, painted or not"),
    Mutant("exact-untyped-events-kept", "llama_index_crm/exact/execute.py",
           "            elif members and var.category == \"Event\":\n",
           "            elif False:\n",
           ("tests/test_periods_and_kinds.py",),
           "exact: 'exhibitions held in 1850' lists births where no event has a type"),
    Mutant("exact-overlapping-dates-ranked", "llama_index_crm/exact/ranking.py",
           "        if plan.order_by != \"count\" and relation.value == \"time\":\n",
           "        if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'the oldest work' asserts a 'c. 1940s' work came before one of 1941"),
    Mutant("exact-decade-label-one-year", "llama_index_crm/exact/values.py",
           "            found.append(year + (99 if year % 100 == 0 else 9))\n",
           "            pass\n",
           ("tests/test_ranking_spans.py",),
           "exact: a time-span labelled 'c. 1940s' read as the year 1940"),
    Mutant("exact-dating-word-read-as-making", "llama_index_crm/exact/parse_ops.py",
           "        if relation == \"creation-date\" and made and not dating:\n",
           "        if relation == \"creation-date\" and made:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'works by X that date from the 1770s' leaves out prints after X dated so"),
    Mutant("exact-dated-otherwise-unsaid", "llama_index_crm/exact/filters.py",
           "        if other:\n", "        if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'works X made in the 1770s' drops works dated so by another production "
           "without a word"),
    Mutant("exact-other-types-unsaid", "llama_index_crm/exact/execute.py",
           "        if kinds:\n", "        if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: '160 photographs by Struss' without the 56 works typed otherwise"),
    Mutant("exact-apposition-not-pinned", "llama_index_crm/exact/answerer.py",
           "        for text, settled, note in self._apposed(asked):",
           "        for text, settled, note in ():",
           ("tests/test_readings.py",),
           "exact: 'who portrayed the actor Otto Lind' reads the portraits titled so"),
    Mutant("exact-person-word-not-apposed", "llama_index_crm/exact/readings.py",
           "            category = \"Actor\" if said else category\n",
           "            category = category\n",
           ("tests/test_readings.py",),
           "exact: 'the sailor Otto Lind' is no reading of the person Otto Lind"),
    Mutant("exact-statement-names-absent", "llama_index_crm/exact/absence.py",
           "            if stated is not None:\n", "            if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'works given by Ruth Carter Stevenson' not found, her credit lines aside"),
    Mutant("exact-first-name-absent", "llama_index_crm/exact/absence.py",
           "            (self._first_name(text) if standing_alone(question, text) else None)\n",
           "            None\n",
           ("tests/test_understanding.py",),
           "exact: 'Neophytos' not found beside 'Neophytos the Recluse'"),
    Mutant("exact-typed-zero-unproven", "llama_index_crm/exact/empty.py",
           "        if var.types and reached and not self._typed_otherwise(reached, var.types):\n",
           "        if var.types and reached:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'sculptures by Bo Wren' not answered 0 though each of his works is typed"),
    Mutant("exact-untyped-works-counted", "llama_index_crm/exact/execute.py",
           "            elif members and var.category == \"Thing\" and self.known_types and any(\n",
           "            elif False and any(\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'sculptures by Ada Finch' counts her untyped works as sculptures"),
    Mutant("exact-unknown-language-read", "llama_index_crm/exact/language.py",
           "                                         or fold_name(first) in lex.question_words\n",
           "",
           ("tests/test_understanding.py",),
           "exact: 'Quem fundou…' read as English, its question words a missing name"),
    Mutant("exact-circa-ranked-as-exact", "llama_index_crm/exact/ranking.py",
           "CIRCA_YEARS = 5\n", "CIRCA_YEARS = 0\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'c. 1900' ranked surely before 1903"),
    Mutant("exact-foreign-spelling-absent", "llama_index_crm/exact/absence.py",
           "        if spelt_so is not None:  # \"Neófito\": one word, spelt the asker's way\n",
           "        if False:\n",
           ("tests/test_understanding.py",),
           "exact: 'Neófito' not found beside the graph's 'Neophytos'"),
    Mutant("exact-fragment-close-read", "llama_index_crm/exact/absence.py",
           "        if close is not None and span is not None and not self._agreeing(span, text, "
           "close):\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'The Starry Night' read as a 'Ringo Starr' beside the work 'Night'"),
    Mutant("exact-fragment-named-elsewhere", "llama_index_crm/exact/absence.py",
           "                      and (span is None or agrees(span, c.name))), None)\n",
           "                      ), None)\n",
           ("tests/test_name_span.py",),
           "exact: 'Girl with a Pearl Earring' taken for the graph's term 'Earring'"),
    Mutant("exact-unknown-surname-spelt", "llama_index_crm/exact/absence.py",
           "            if spelt and person_shaped(text) and "
           "self._unknown_word(text.split()[-1]):\n",
           "            if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'Tomas Ekwall' read as a Thomas, no name near 'Ekwall'"),
    Mutant("exact-german-name-after-noun", "llama_index_crm/exact/absence.py",
           "                and not (start > 0 and (keys[start - 1] in PLACE_WORDS or\n",
           "                and not (False and (keys[start - 1] in PLACE_WORDS or\n",
           ("tests/test_name_span.py",),
           "exact: 'die Kirche Kykkos' read as a German noun, not a name"),
    Mutant("exact-question-word-any-range", "llama_index_crm/exact/understanding.py",
           "        return \"question\" if asked is None or asked & (ranges if answers is None\n",
           "        return \"question\" if asked is None or asked & (ranges if True\n",
           ("tests/test_name_span.py",),
           "exact: 'the maker of T was born where?' lists the maker, not the place"),
    Mutant("exact-slip-empty-proves", "llama_index_crm/exact/answerer.py",
           "        if answer.result is not None and not answer.result.total and not unproven "
           "and slipped:\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'paintigns by Ringo Starr' read as paintings answers 0 for sure"),
    Mutant("exact-reflexive-filler", "llama_index_crm/exact/understanding.py",
           "        elif word in REFLEXIVES and out and out[-1].word in SELF_OBJECT:\n",
           "        elif False:\n",
           ("tests/test_name_span.py",),
           "exact: 'works X made of himself' counts all of X's works"),
    Mutant("exact-slip-is-a-name", "llama_index_crm/exact/absence.py",
           "        if len(span) == 1 and span[0].islower() and "
           "self.slip(folded[0], vocabulary):\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'how many works are ther by X' reports 'ther' missing"),
    Mutant("exact-titled-reading-own-cover", "llama_index_crm/exact/readings.py",
           "        answer = self._read(text, (), None, language, cover=cover)\n",
           "        answer = self._read(text, (), None, language)\n",
           ("tests/test_understanding.py",),
           "exact: a French World Heritage question answered with the date of making"),
    Mutant("exact-told-first-unexplained", "llama_index_crm/exact/understanding.py",
           "        if role == \"unexplained\" and word in told and index < told[word]:\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'My grandmother loved X. How many …' left to retrieval for 'loved'"),
    Mutant("exact-agreeing-readings-tied", "llama_index_crm/exact/readings.py",
           "        if len(found) == len(tie.candidates) > 1 and len({a.text for _, a in found}) "
           "== 1 \\\n",
           "        if False \\\n",
           ("tests/test_name_span.py",),
           "exact: 'The Sneak by Bunn' asked back though both Bunns' readings say 1997"),
    Mutant("exact-no-initials", PERSON_NAMES,
           "        keys.append((\" \".join([*(w[0] for w in given), last]), \"initials\"))\n",
           "        pass\n",
           ("tests/test_name_span.py",),
           "exact: 'works by F. Remington' not found beside Frederic Remington"),
    Mutant("exact-german-compound-unread", "llama_index_crm/exact/language.py",
           "            return self._joined(token)\n",
           "            return [token]\n",
           ("tests/test_understanding.py",),
           "exact: 'Geburtsjahr' left as a name, not read as birth year"),
    Mutant("exact-person-tail-titled", "llama_index_crm/exact/readings.py",
           "            return None  # \"works of McKnight Kauffer\": a person's name ends so, "
           "a maker asked\n",
           "            pass\n",
           ("tests/test_name_span.py",),
           "exact: 'works by McKnight Kauffer' read as titles mentioning him"),
    Mutant("exact-other-as-type", "llama_index_crm/exact/parse.py",
           "                    key not in OTHERNESS:\n",
           "                    True:\n",
           ("tests/test_name_span.py",),
           "exact: 'which other works by the maker of T' read as works typed 'Other': none"),
    Mutant("exact-place-word-unplaced", "llama_index_crm/exact/answerer.py",
           "                and (capitalised_name(question, m.text) or placed(question, m.text))\n",
           "                and (capitalised_name(question, m.text))\n",
           ("tests/test_understanding.py",),
           "exact: 'Agios Mamas at Louvaras' left to retrieval: one capitalised word"),
    Mutant("exact-typed-zero-ignores-medium", "llama_index_crm/exact/empty.py",
           "            if any(w.endswith(f) for w in words for f in wanted):\n",
           "            if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: 'Bellows's lithographs' proven 0 though his medium statements say lithograph"),
    Mutant("exact-begun-only-unsaid", "llama_index_crm/exact/filters.py",
           "        if begun and condition.years is not None:\n",
           "        if False:\n",
           ("tests/test_ranking_spans.py",),
           "exact: '5 photographs of the 1950s' without the 5 taken then and printed in 1993"),
    Mutant("exact-portraits-one-way", "llama_index_crm/exact/readings.py",
           "            if end >= len(tokens) or fold_name(tokens[end]) not in PORTRAIT_NOUNS:\n",
           "            if True:\n",
           ("tests/test_readings.py",),
           "exact: 'george washington portraits' counts the 2 letters he wrote, not the 140 "
           "of him"),
    Mutant("exact-person-noun-after-name-apposed", "llama_index_crm/exact/readings.py",
           "in kinds - {\"Actor\"}):\n", "in kinds):\n",
           ("tests/test_readings.py",),
           "exact: 'roger eliot fry photographer' describes Fry instead of asking his "
           "photographer"),
    Mutant("exact-two-kinds-unread", "llama_index_crm/exact/answerer.py",
           "        if kinds is not None:  # \"which churches and monasteries are in X\"\n",
           "        if False:\n",
           ("tests/test_understanding.py",),
           "exact: 'churches and monasteries in X' leaves 'monasteries' unexplained"),
    Mutant("serve-labels-as-markup", "llama_index_crm/server/static/app.js",
           "node.textContent = String(text);", "node.innerHTML = String(text);",
           ("tests/test_server_browser.py", "tests/test_server.py"),
           "serve: the page parses graph text as HTML (a <script> label could run)"),
    Mutant("on-demand-node-not-complete", "llama_index_crm/build/neighbourhood.py",
           "            self.add(self.source.fetch([node], incoming=True), complete=(node,))",
           "            self.add(self.source.fetch([node], incoming=False), complete=(node,))",
           ("tests/test_update_on_demand.py",),
           "update: a node fetched on demand lacks its incoming links"),
    Mutant("known-frs-derivation-origin-lost", "llama_index_crm/build/documents.py",
           "                derivations[fr_id][target] = Derivation(widened_by, via)",
           "                derivations[fr_id][target] = Derivation(widened_by, None)",
           ("tests/test_update_on_demand.py",),
           "update: a stored derived target loses the direct target it came through"),
    Mutant("known-frs-for-walkers-too", "llama_index_crm/build/update.py",
           "known = _known_frs(old_docs, fr_edges, set(todo) - affected.walked)",
           "known = _known_frs(old_docs, fr_edges, set(todo))",
           ("tests/test_update.py",),
           "update: entities whose walk meets the change keep their stored FR edges"),
    Mutant("serve-sessions-shared", "llama_index_crm/server/sessions.py",
           "        key = (dataset, session_id)\n", "        key = (dataset, \"\")\n",
           ("tests/test_server.py",), "serve: every chat session shares one conversation"),
    Mutant("serve-chunked-body-unbounded", "llama_index_crm/server/limits.py",
           "            if len(body) > self.max_bytes:\n", "            if False:\n",
           ("tests/test_server.py",),
           "serve: a body without Content-Length is read whole, however large"),
    Mutant("exact-described-no-named-after", "llama_index_crm/exact/described.py",
           "        return after[0] if len(after) == 1 else None\n",
           "        return kept[0] if kept else None\n",
           ("tests/test_described.py",),
           "exact: 'the church in Kakopetria' read as the first of three churches there"),
    Mutant("exact-described-no-reading", "llama_index_crm/exact/answerer.py",
           "                           *self._descriptions(asked), "
           "*asked_last(asked, self._names_of),\n",
           "                           *asked_last(asked, self._names_of),\n",
           ("tests/test_described.py",),
           "exact: 'the church of the Archangel in Pedoulas' not read as the church's name"),
    Mutant("exact-typed-role-untyped", "llama_index_crm/exact/typed_roles.py",
           "            typed = Variable(\"Actor\", noun=word, types=(word,),\n",
           "            typed = Variable(\"Actor\", noun=word, types=(),\n",
           ("tests/test_described.py",),
           "exact: 'the donor of T' answered with every maker of T, its painter too"),
    Mutant("exact-agent-noun-ignored", "llama_index_crm/exact/execute.py",
           "            for word in dict.fromkeys([noun, *self._agents(var)]):\n",
           "            for word in dict.fromkeys([noun]):\n",
           ("tests/test_described.py",),
           "exact: 'who painted T' lists the donor the painting campaign also names"),
    Mutant("exact-told-sentences-kept", "llama_index_crm/exact/sentences.py",
           "        return [(tail, \"reading the last sentence as the question\")]\n",
           "        return []\n",
           ("tests/test_described.py",),
           "exact: 'My grandmother was born in Limassol. Who painted T?' answers nothing"),
    Mutant("exact-told-pronoun-any-name", "llama_index_crm/exact/sentences.py",
           "    if len(names) != 1:\n", "    if not names:\n",
           ("tests/test_described.py",),
           "exact: 'she' read as the first of two names told before"),
    Mutant("exact-owned-word-a-name", "llama_index_crm/exact/absence.py",
           "        if ordinary and start > 0 and keys[start - 1] in OWNERS:\n",
           "        if False:\n",
           ("tests/test_described.py",),
           "exact: 'My uncle collected …' reports no actor named 'uncle'"),
    Mutant("exact-suffix-not-spelt", PERSON_NAMES,
           "    if len(words) > 2 and words[-1] in SPELT_SUFFIXES:  "
           "# \"hays sr\": \"hays senior\"\n",
           "    if False:\n",
           ("tests/test_described.py",),
           "exact: 'William Jacob Hays Senior' not found for 'William Jacob Hays Sr.'"),
    Mutant("exact-wider-name-tie", "llama_index_crm/exact/answerer.py",
           "        if wider is not None:  "
           "# \"Snow Leopard in Moonlight\": no \"Leopard\" of the graph\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'Snow Leopard in Moonlight' asked back as a tie of two works 'Leopard'"),
    Mutant("exact-told-time-dropped", "llama_index_crm/exact/sentences.py",
           "    if TIMES.search(head):  "
           "# \"I love the 1890s. How many works by X?\": the time is asked\n",
           "    if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'I love the 1890s. How many works by X?' counts all of X's works"),
    Mutant("exact-described-any-place", "llama_index_crm/exact/described.py",
           "            if not named or not all(self.places(w) for w in where):\n",
           "            if not named:\n",
           ("tests/test_described.py",),
           "exact: 'the most paintings at the Amon Carter' read as a portrait 'Amon G. Carter'"),
    Mutant("exact-contraction-a-name", "llama_index_crm/exact/absence.py",
           "        if start is None and folded[0] in AUXILIARIES:\n",
           "        if False:\n",
           ("tests/test_described.py",),
           "exact: 'I'm researching interwar advertising' reported as an absent name"),
    Mutant("exact-telling-clause-kept", "llama_index_crm/exact/sentences.py",
           "    if len(parts) < 2 and TELLING.match(asked):  "
           "# \"I'm researching X - who designed Y?\"\n",
           "    if False:\n",
           ("tests/test_described.py",),
           "exact: 'I'm researching X - who designed Y?' not read from its question"),
    Mutant("exact-topic-noun-unowned", "llama_index_crm/exact/readings.py",
           "                self._whose(tail)  "
           "# \"X show - who was the director?\": X's director\n",
           "                None\n",
           ("tests/test_described.py",),
           "exact: 'Panagia Podithou - who was the founder?' leaves 'founder' unexplained"),
    Mutant("exact-unborn-maker-unproven", "llama_index_crm/exact/empty.py",
           "        return bool(births) and all(end < min(births) for _, end in periods)\n",
           "        return bool(births)\n",
           ("tests/test_name_span.py",),
           "exact: an undated work of a living maker read as not of the 1950s: 0 said"),
    Mutant("exact-yes-without-member", "llama_index_crm/exact/retries.py",
           "        if not members & set(best):\n", "        if False:\n",
           ("tests/test_described.py",),
           "exact: 'did Minas paint the Panagia tou Araka?' answered yes from its painters"),
    Mutant("exact-edge-word-proves", "llama_index_crm/exact/absence.py",
           "        if edged is not None:  "
           "# \"Lionel Feininger Geburtsjahr\": a word of another language\n",
           "        if False:\n",
           ("tests/test_name_span.py",),
           "exact: 'Frederik Remington - Geburtsjahr?' reported as no node named so"),
    Mutant("exact-bracketed-given-name", PERSON_NAMES,
           "    if other is not None and how == \"exact\":\n", "    if False:\n",
           ("tests/test_described.py",),
           "exact: 'Hans Arp' a tie of Jean (Hans) Arp and Sophie Taeuber-Arp"),
    Mutant("exact-long-name-no-initial", PERSON_NAMES,
           "    if given and words[0] not in QUALIFIERS and len(words) > MAX_INITIALED "
           "and \\\n",
           "    if False and \\\n",
           ("tests/test_described.py",),
           "exact: 'W. de la Montagne Cary' reported as no actor of the graph"),
    Mutant("exact-by-maker-proves-depiction", "llama_index_crm/exact/empty.py",
           "                    or relation.id == \"created-by\" and re.search(\n",
           "                    or False and re.search(\n",
           ("tests/test_name_span.py",),
           "exact: 'sitters portrayed by X' answered 'no works depicting X'"),
    Mutant("exact-other-kind-not-tried", "llama_index_crm/exact/answerer.py",
           "            other = self._other_kind(answer)\n", "            other = None\n",
           ("tests/test_name_span.py",),
           "exact: 'most recent portrait of Ulysses S. Grant' left to retrieval (the works "
           "titled so read, not the person)"),
    Mutant("exact-generation-suffix-ties", PERSON_NAMES,
           "    return QUALIFIED_PENALTY if last in GENERATIONS and last not in key.split() "
           "else 0.0\n",
           "    return 0.0\n",
           ("tests/test_name_span.py",),
           "exact: 'Ulysses S. Grant' a tie of Ulysses Simpson Grant and his son, Jr."),
    Mutant("exact-tie-of-title-not-read", "llama_index_crm/exact/answerer.py",
           "                or self._tie_of_one_title(asked, history, parsed.ambiguous, "
           "language, cover)\n",
           "                or None\n",
           ("tests/test_name_span.py",),
           "exact: 'jeff bezos birthplace' asked back (two works titled so), not the person"),
    Mutant("exact-edge-name-proves", "llama_index_crm/exact/absence.py",
           "            and at_edge(text, c.name)), None)  "
           "# \"single aisled\": a term, in lower case\n",
           "            and False), None)\n",
           ("tests/test_name_span.py",),
           "exact: 'works by Nagel & Weingaertner' reported as no actor of the graph"),
    Mutant("exact-comma-list-proves", "llama_index_crm/exact/absence.py",
           "        listed = self._listed(text, question)\n", "        listed = None\n",
           ("tests/test_name_span.py",),
           "exact: 'Remington, Fenton or Kelly: who was born first?' reported as no such name"),
    Mutant("exact-not-type-ignored", "llama_index_crm/exact/answerer.py",
           "        left = self._excluding(asked, history, language)\n", "        left = None\n",
           ("tests/test_name_span.py",),
           "exact: 'works by X that aren't paintings' left to retrieval"),
    Mutant("exact-translated-word-proves", "llama_index_crm/exact/absence.py",
           "        beside = self._beside_name(text, question) if foreign else None\n",
           "        beside = None\n",
           ("tests/test_name_span.py",),
           "exact: '¿Cuántas obras se hicieron en Cabo Cañaveral?' says no place 'Cabo'"),
    Mutant("exact-lower-term-proves", "llama_index_crm/exact/absence.py",
           "            or c.category == \"Concept\" and text.islower())\n",
           "            )\n",
           ("tests/test_lexicons.py",),
           "exact: 'which churches are single-aisled …' says no artist named 'single aisled'"),
    Mutant("exact-where-else-located", "config/lexicon/en.json",
           "\"match\": \"^\\\\s*where\\\\s+else\\\\s+\"",
           "\"match\": \"^\\\\s*nowhere\\\\s+else\\\\s+\"",
           ("tests/test_lexicons.py",),
           "exact: 'where else did the painter of X paint?' answered with where X is"),
    Mutant("exact-list-not-compared", "llama_index_crm/exact/compare.py",
           "            return knockout(asked, listed, lambda q: self._compared(q, language))\n",
           "            return None\n",
           ("tests/test_name_span.py",),
           "exact: 'which of A, B and C was born earliest?' left to retrieval"),
    Mutant("exact-list-tie-winner", "llama_index_crm/exact/compare_many.py",
           "            return None  # a tie, or dates that overlap\n",
           "            won = labels[0]\n",
           ("tests/test_name_span.py",),
           "exact: three names compared with a tied pair crowned by order"),
    Mutant("exact-title-edge-read", "llama_index_crm/exact/absence.py",
           "            c.category == \"Actor\" and \"Actor\" in expected\n",
           "            True\n",
           ("tests/test_name_span.py",),
           "exact: 'Who painted the Mona Lisa?' read as 'Mona Lisa and Little Girls'"),
)


def copy_repo(into: Path) -> Path:
    """A copy of the repository (sources, tests, config, examples) under ``into``."""
    target = into / "repo"

    def skip(folder: str, names: list[str]) -> set[str]:
        top = Path(folder) == ROOT
        return {n for n in names if n.endswith((".egg-info", "_cache", "__pycache__"))
                or (top and n in SKIPPED)}

    shutil.copytree(ROOT, target, ignore=skip)
    return target


def environment(repo: Path) -> dict[str, str]:
    """The environment of a test run in ``repo``: its package first, offline, testing."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo), env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep)
    env.update(IS_TESTING="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONDONTWRITEBYTECODE="1",
               # the demo index's vectors, cached across runs (tests/conftest.py)
               CRM_TEST_EMBED_CACHE=str(repo.parent / "embedding-cache"))
    return env


def run_tests(repo: Path, tests: Sequence[str], timeout: float) -> dict[str, Any]:
    """``pytest -x -q`` on ``tests`` inside ``repo``: return code, seconds, last line."""
    started = time.perf_counter()
    # file order (no pytest-randomly shuffle): the first failing test is the same every run
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "-p", "no:randomly", *tests]
    try:
        proc = subprocess.run(command, cwd=repo, env=environment(repo), capture_output=True,
                              text=True, timeout=timeout)
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        code, out = -1, f"timeout after {timeout:.0f} s"
    lines = [line for line in str(out).splitlines() if line.strip()]
    failed = [line.split(" - ")[0] for line in lines if line.startswith(("FAILED", "ERROR"))]
    return {"returncode": code, "seconds": round(time.perf_counter() - started, 1),
            "last_line": lines[-1] if lines else "", "failed": failed[:3]}


def apply(repo: Path, mutant: Mutant) -> str:
    """Apply ``mutant`` to the copy; return the original text of the file."""
    path = repo / mutant.path
    original = path.read_text(encoding="utf-8")
    found = original.count(mutant.old)
    if found != 1:
        raise SystemExit(f"{mutant.name}: the text to replace occurs {found} times in "
                         f"{mutant.path} (expected once); update the mutant")
    path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    return original


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run the mutants whose name starts so "
                        "(comma-separated prefixes)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help="seconds per test run")
    parser.add_argument("--output", type=Path, default=None,
                        help="JSON report (default: results/mutation.json for a full run)")
    args = parser.parse_args(argv)
    prefixes = [p for p in args.only.split(",") if p]
    chosen = [m for m in MUTANTS if not prefixes or m.name.startswith(tuple(prefixes))]
    if args.list:
        for m in chosen:
            print(f"{m.name:32} {m.path:45} {' '.join(m.tests)}\n{'':32} {m.why}")
        return 0
    output = args.output or (RESULTS / "mutation.json" if not prefixes else None)
    tests = sorted({t for m in chosen for t in m.tests})
    report: dict[str, Any] = {"command": "python benchmarks/mutation.py" +
                              (f" --only {args.only}" if prefixes else ""), "mutants": []}
    with tempfile.TemporaryDirectory(prefix="crm-mutation-") as tmp:
        repo = copy_repo(Path(tmp))
        probe = subprocess.run(
            [sys.executable, "-c", "import llama_index_crm; print(llama_index_crm.__file__)"],
            cwd=repo, env=environment(repo), capture_output=True, text=True, check=True)
        if not probe.stdout.strip().startswith(str(repo)):
            raise SystemExit(f"the copy's package is not the one imported: {probe.stdout}")
        print(f"baseline: {' '.join(tests)} ...", file=sys.stderr, flush=True)
        baseline = run_tests(repo, tests, args.timeout)
        report["baseline"] = baseline
        if baseline["returncode"] != 0:
            print(f"the tests fail without any mutant: {baseline}", file=sys.stderr)
            return 2
        for m in chosen:
            original = apply(repo, m)
            try:
                result = run_tests(repo, m.tests, args.timeout)
            finally:
                (repo / m.path).write_text(original, encoding="utf-8")
            result["status"] = "survived" if result["returncode"] == 0 else "killed"
            report["mutants"].append({**asdict(m), **result})
            print(f"{result['status']:8} {m.name:32} {result['seconds']:6.1f} s  "
                  f"{(result['failed'] or [result['last_line']])[0]}", flush=True)
    killed = sum(m["status"] == "killed" for m in report["mutants"])
    total = len(report["mutants"])
    report["score"] = {"killed": killed, "total": total,
                       "ratio": round(killed / total, 3) if total else None}
    report["survived"] = [m["name"] for m in report["mutants"] if m["status"] == "survived"]
    print(f"\nmutation score: {killed}/{total}; survived: {report['survived'] or 'none'}")
    if output is not None:
        output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
