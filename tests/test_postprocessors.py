"""Tests of llama_index_crm.postprocessors: adjacency, coherent selection, triple context."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from llama_index_crm.build.folder import build_folder
from llama_index_crm.events import StageCandidatesEvent
from llama_index_crm.postprocessors import (
    CoherentSubgraphPostprocessor,
    PredicateWeights,
    TripleContextPostprocessor,
    greedy_select,
    normalise,
    pool_adjacency,
)
from llama_index_crm.postprocessors.adjacency import entity_ids
from llama_index_crm.postprocessors.triple_context import allocate, take_lines
from llama_index_crm.query.plan import QueryPlan
from llama_index_crm.rdf import RDF_TYPE, RDFS_LABEL, XSD, Literal, Triple
from llama_index_crm.sources import RdfFileSource
from llama_index_crm.storage import CrmDocumentStore, TripleStore

CRM = "http://www.cidoc-crm.org/cidoc-crm/"
EX = "http://example.org/"
TROODOS = Path(__file__).resolve().parents[1] / "examples" / "data" / "troodos.ttl"
T = "https://example.org/troodos/"

PRODUCED_BY = CRM + "P108i_was_produced_by"  # 0.85
CARRIED_OUT_BY = CRM + "P14_carried_out_by"  # 0.85
LOCATION = CRM + "P55_has_current_location"  # 0.9
REFERS_TO = CRM + "P67_refers_to"  # 0.5
IDENTIFIED_BY = CRM + "P1_is_identified_by"  # 0.4


def _triples(extra: list[Triple] | None = None) -> list[Triple]:
    """A work, its production and artist, an unrelated work, a filler, labels and types."""
    rows = [
        Triple(EX + "work", PRODUCED_BY, EX + "prod"),
        Triple(EX + "prod", CARRIED_OUT_BY, EX + "artist"),
        Triple(EX + "work", RDF_TYPE, CRM + "E22_Human-Made_Object"),
        Triple(EX + "other", RDF_TYPE, CRM + "E22_Human-Made_Object"),
        Triple(EX + "filler", RDF_TYPE, CRM + "E22_Human-Made_Object"),
        Triple(EX + "artist", RDF_TYPE, CRM + "E21_Person"),
    ]
    for name in ("work", "prod", "artist", "other", "filler"):
        rows.append(Triple(EX + name, RDFS_LABEL, Literal(name.title())))
    return rows + (extra or [])


def _node(name: str, score: float, category: str = "Thing",
          chained: list[str] | None = None) -> NodeWithScore:
    meta = {"uri": EX + name, "label": name.title(), "category": category,
            "classes": [], "chained_from": chained or []}
    return NodeWithScore(node=TextNode(id_=EX + name, text=f"[{category}] {name}",
                                       metadata=meta), score=score)


def _pool() -> list[NodeWithScore]:
    return [_node("work", 1.0), _node("other", 0.9), _node("artist", 0.85, "Actor"),
            _node("filler", 0.0)]


def _ids(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.node_id.removeprefix(EX) for n in nodes]


def _adjacency(store: TripleStore, *docs: list[str], **kwargs: Any) -> np.ndarray:
    entities = [entity_ids(store, [EX + u for u in doc]) for doc in docs]
    return pool_adjacency(entities, store, PredicateWeights(store), **kwargs)


# ---------------------------------------------------------------- (b) adjacency
def test_direct_edge_is_the_strongest_predicate() -> None:
    store = TripleStore.from_triples(_triples([Triple(EX + "work", REFERS_TO, EX + "prod")]))
    raw = _adjacency(store, ["work"], ["prod"])
    assert raw[0, 1] == raw[1, 0] == pytest.approx(0.85)
    assert raw[0, 0] == 0.0


def test_virtual_edge_through_a_non_candidate() -> None:
    store = TripleStore.from_triples(_triples())
    raw = _adjacency(store, ["work"], ["artist"], ["other"])
    assert raw[0, 1] == pytest.approx(0.85 * 0.85 / 2)
    assert raw[0, 2] == raw[1, 2] == 0.0  # rdf:type to a shared class links nothing


def test_virtual_and_direct_edges_take_the_max() -> None:
    place = [Triple(EX + "a", LOCATION, EX + "place"), Triple(EX + "b", LOCATION, EX + "place")]
    weak = TripleStore.from_triples([*place, Triple(EX + "a", IDENTIFIED_BY, EX + "b")])
    assert _adjacency(weak, ["a"], ["b"])[0, 1] == pytest.approx(0.9 * 0.9 / 2)
    strong = TripleStore.from_triples([*place, Triple(EX + "a", REFERS_TO, EX + "b")])
    assert _adjacency(strong, ["a"], ["b"])[0, 1] == pytest.approx(0.5)


def test_chained_entities_belong_to_their_document() -> None:
    store = TripleStore.from_triples(_triples())
    raw = _adjacency(store, ["work"], ["artist", "prod"])
    assert raw[0, 1] == pytest.approx(0.85)  # direct, through the chained production


def test_literals_and_hubs_do_not_mediate() -> None:
    note = CRM + "P3_has_note"
    rows = [Triple(EX + "a", note, Literal("same")), Triple(EX + "b", note, Literal("same")),
            Triple(EX + "a", LOCATION, EX + "hub"), Triple(EX + "b", LOCATION, EX + "hub"),
            *(Triple(EX + f"x{i}", LOCATION, EX + "hub") for i in range(5))]
    store = TripleStore.from_triples(rows)
    assert _adjacency(store, ["a"], ["b"])[0, 1] == pytest.approx(0.405)
    assert _adjacency(store, ["a"], ["b"], max_intermediate_degree=6)[0, 1] == 0.0
    no_hub = TripleStore.from_triples(rows[:2])
    assert _adjacency(no_hub, ["a"], ["b"])[0, 1] == 0.0


def test_normalisation_is_symmetric_with_self_loops() -> None:
    raw = np.array([[0.0, 0.9, 0.2], [0.9, 0.0, 0.0], [0.2, 0.0, 0.0]])
    norm = normalise(raw)
    degree = raw.sum(axis=1) + 1
    assert np.allclose(norm, norm.T)
    assert norm[0, 1] == pytest.approx(0.9 / np.sqrt(degree[0] * degree[1]))
    assert norm[2, 2] == pytest.approx(1 / degree[2])


# ---------------------------------------------------------------- (a) greedy choice
def test_connected_artist_beats_a_higher_scored_unrelated_work() -> None:
    store = TripleStore.from_triples(_triples())
    coherent = CoherentSubgraphPostprocessor.from_components(store, top_n=3)
    assert _ids(coherent.postprocess_nodes(_pool(), query_str="q")) == [
        "work", "artist", "other"]
    by_relevance = CoherentSubgraphPostprocessor.from_components(store, top_n=3, alpha=1.0)
    assert _ids(by_relevance.postprocess_nodes(_pool(), query_str="q")) == [
        "work", "other", "artist"]


def test_scores_are_the_selection_objective() -> None:
    store = TripleStore.from_triples(_triples())
    out = CoherentSubgraphPostprocessor.from_components(store, top_n=2).postprocess_nodes(
        _pool(), query_str="q")
    assert out[0].score == pytest.approx(0.7)  # alpha * rel(work) with rel = 1
    assert out[1].score is not None and out[1].score > 0.7 * 0.85


def test_hub_penalty_changes_a_choice() -> None:
    hub = [Triple(EX + "other", CRM + "P2_has_type", EX + f"t{i}") for i in range(4)]
    store = TripleStore.from_triples(_triples(hub))
    params: dict[str, Any] = {"top_n": 2, "alpha": 1.0, "hub_triples": 5}
    plain = CoherentSubgraphPostprocessor.from_components(store, hub_penalty=0.0, **params)
    assert _ids(plain.postprocess_nodes(_pool(), query_str="q"))[1] == "other"
    penalised = CoherentSubgraphPostprocessor.from_components(store, **params)
    assert _ids(penalised.postprocess_nodes(_pool(), query_str="q"))[1] == "artist"


def test_target_boost_changes_a_choice() -> None:
    store = TripleStore.from_triples(_triples())

    def plan(query: str) -> QueryPlan:
        return QueryPlan(question=query, query=query, k=2, target_categories=("Actor",))

    plain = CoherentSubgraphPostprocessor.from_components(store, alpha=1.0, top_n=2)
    assert _ids(plain.postprocess_nodes(_pool(), query_str="who made it?")) == [
        "work", "other"]
    planned = CoherentSubgraphPostprocessor.from_components(store, alpha=1.0,
                                                            plan_provider=plan)
    assert _ids(planned.postprocess_nodes(_pool(), query_str="who made it?")) == [
        "work", "artist"]  # k = 2 from the plan


def test_redundancy_pushes_a_near_duplicate_down() -> None:
    relevance = np.array([1.0, 0.9, 0.8])
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    zero = np.zeros((3, 3))
    assert greedy_select(relevance, zero, k=3, alpha=0.7, lam=0.0,
                         embeddings=vectors)[0] == [0, 1, 2]
    assert greedy_select(relevance, zero, k=3, alpha=0.7, lam=0.2,
                         embeddings=vectors)[0] == [0, 2, 1]


def test_connectivity_is_clipped_so_many_weak_links_cannot_outweigh_relevance() -> None:
    """Candidate 2 (relevance 0) is linked at 0.8 to both picks; candidate 3 (relevance 0.55)
    at 0.2 and 0.6. Clipped to 1, 2's summed links (1.6) lose to 3's relevance and links;
    unclipped they would win."""
    relevance = np.array([1.0, 0.9, 0.0, 0.55])
    links = np.zeros((4, 4))
    for a, b, w in ((0, 2, 0.8), (1, 2, 0.8), (0, 3, 0.2), (1, 3, 0.6)):
        links[a, b] = links[b, a] = w
    order, objective = greedy_select(relevance, links, k=3, alpha=0.5, lam=0.0)
    assert order == [0, 1, 3]
    assert objective == pytest.approx([0.5, 0.45, 0.5 * 0.55 + 0.5 * 0.8])


def test_the_first_pick_is_the_most_relevant_whatever_its_boost_or_penalty() -> None:
    """The best retrieval hit leads even when a boosted target (0.95 + 0.10) or its own hub
    penalty (1.0 − 0.15) would put another candidate's objective above it."""
    relevance = np.array([1.0, 0.95])
    for adjust in (np.array([0.0, 0.10]), np.array([-0.15, 0.0])):
        order, _ = greedy_select(relevance, np.zeros((2, 2)), k=2, alpha=1.0, lam=0.0,
                                 adjust=adjust)
        assert order == [0, 1]


@pytest.mark.parametrize("worse_first", [True, False])
def test_a_document_listed_twice_keeps_its_best_score(worse_first: bool) -> None:
    """A follow-up's two passes can bring the same document twice: it counts once, with
    the better of its scores."""
    store = TripleStore.from_triples(_triples())
    worse = _node("other", 0.05)
    pool = [worse, *_pool()] if worse_first else [*_pool(), worse]
    coherent = CoherentSubgraphPostprocessor.from_components(store, top_n=3, alpha=1.0)
    found = coherent.trace(pool)
    assert {n.node.node_id: n.score for n in found.pool}[EX + "other"] == 0.9
    assert len(found.pool) == 4
    assert _ids(coherent.postprocess_nodes(pool, query_str="q")) == ["work", "other", "artist"]


def test_vectors_from_a_mapping_and_an_empty_pool() -> None:
    store = TripleStore.from_triples(_triples())
    vectors = {EX + "work": np.array([1.0, 0.0]), EX + "other": np.array([1.0, 0.0]),
               EX + "artist": np.array([0.0, 1.0])}
    coherent = CoherentSubgraphPostprocessor.from_components(store, vectors=vectors,
                                                             top_n=3, alpha=1.0, lam=1.0)
    assert _ids(coherent.postprocess_nodes(_pool(), query_str="q"))[1] == "artist"
    assert coherent.postprocess_nodes([], query_str="q") == []
    assert CoherentSubgraphPostprocessor.class_name() == "CoherentSubgraphPostprocessor"


# ---------------------------------------------------------------- (c) the demo index
@pytest.fixture(scope="module")
def troodos(tmp_path_factory: pytest.TempPathFactory) -> CrmDocumentStore:
    folder = tmp_path_factory.mktemp("troodos") / "i"
    with RdfFileSource([TROODOS]) as source:
        build_folder(source, folder)
    return CrmDocumentStore.from_persist_dir(folder)


def _troodos_pool(docstore: CrmDocumentStore) -> list[NodeWithScore]:
    docs = docstore.docs
    churches = sorted(u for u in docs if "/church/" in u and not u.endswith("/asinou"))
    scores = {T + "church/asinou": 0.95, T + "place/asinou": 0.78,
              T + "person/nikephoros-ischyrios": 0.77}
    scores.update({c: 0.80 - 0.01 * i for i, c in enumerate(churches[:8])})
    fillers = ["person/minas", "person/leon-authentes", "place/galata", "place/pelendri"]
    scores.update({T + f: 0.45 - 0.03 * i for i, f in enumerate(fillers)})
    return [NodeWithScore(node=docs[u], score=s) for u, s in scores.items()]


def test_asinou_church_place_and_founder_are_selected_together(
        troodos: CrmDocumentStore) -> None:
    pool = _troodos_pool(troodos)
    trio = {T + "church/asinou", T + "place/asinou", T + "person/nikephoros-ischyrios"}
    coherent = CoherentSubgraphPostprocessor.from_components(troodos.triples, top_n=3)
    assert {n.node.node_id for n in coherent.postprocess_nodes(pool, query_str="q")} == trio
    by_relevance = CoherentSubgraphPostprocessor.from_components(troodos.triples, top_n=3,
                                                                 alpha=1.0)
    chosen = {n.node.node_id for n in by_relevance.postprocess_nodes(pool, query_str="q")}
    assert chosen != trio


# ---------------------------------------------------------------- (d) triple context
def _context(docstore: CrmDocumentStore, **params: Any) -> list[NodeWithScore]:
    docs = docstore.docs
    chosen = [("church/asinou", 0.9), ("place/asinou", 0.6),
              ("person/nikephoros-ischyrios", 0.5), ("production/asinou-construction", 0.4)]
    nodes = [NodeWithScore(node=docs[T + u], score=s) for u, s in chosen]
    context = TripleContextPostprocessor.from_components(docstore.triples, **params)
    return context.postprocess_nodes(nodes, query_str="Who founded Asinou?")


def _facts(node: NodeWithScore) -> list[str]:
    text = node.node.get_content()
    return text.split("\nFacts:\n", 1)[1].splitlines() if "\nFacts:\n" in text else []


def test_context_lines_use_labels_and_resolve_dates(troodos: CrmDocumentStore) -> None:
    out = _context(troodos)
    lines = [line for node in out for line in _facts(node)]
    assert lines and all(line.count(" → ") == 2 for line in lines)
    assert not [line for line in lines if re.search(r"https?://|_:", line)]
    assert ("Construction of the Panagia Phorbiottissa, Asinou → has time-span → 1105–1106"
            in _facts(out[3]))
    church = out[0]
    assert church.node.node_id == T + "church/asinou"
    assert church.node.metadata["uri"] == T + "church/asinou"
    cited = church.node.metadata["triples"]
    assert [T + "church/asinou", LOCATION, T + "place/asinou"] in cited
    assert "triples" not in church.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "triples" not in church.node.get_content(metadata_mode=MetadataMode.EMBED)


def test_triples_between_selected_documents_come_first(troodos: CrmDocumentStore) -> None:
    church = _context(troodos)[0]
    first = church.node.metadata["triples"][:2]
    others = {T + "place/asinou", T + "production/asinou-construction"}
    assert all({s, o} & others for s, _, o in first)


def test_budget_is_respected_and_shared_by_score(troodos: CrmDocumentStore) -> None:
    out = _context(troodos, budget_chars=400, text_chars=120)
    blocks = ["\n".join(_facts(n)) for n in out]
    assert sum(len(b) + 1 for b in blocks if b) <= 400
    assert len(blocks[0]) > len(blocks[3])
    for node in out:
        assert len(node.node.get_content().split("\nFacts:\n")[0]) <= 120


def test_time_span_without_label_is_written_from_its_bounds() -> None:
    year = XSD + "gYear"
    store = TripleStore.from_triples([
        Triple(EX + "event", CRM + "P4_has_time-span", EX + "ts"),
        Triple(EX + "ts", RDF_TYPE, CRM + "E52_Time-Span"),
        Triple(EX + "ts", CRM + "P82a_begin_of_the_begin", Literal("1105", datatype=year)),
        Triple(EX + "ts", CRM + "P82b_end_of_the_end", Literal("1106", datatype=year)),
        Triple(EX + "event", RDFS_LABEL, Literal("Founding")),
    ])
    node = _node("event", 1.0, "Event")
    out = TripleContextPostprocessor.from_components(store).postprocess_nodes([node])
    assert _facts(out[0]) == ["Event → has time-span → 1105–1106"]
    assert [EX + "ts", CRM + "P82a_begin_of_the_begin", '"1105"^^<' + year + ">"] in (
        out[0].node.metadata["triples"])


def test_allocate_gives_unused_shares_to_the_others() -> None:
    assert allocate([100, 1000], [1.0, 1.0], 600) == [100, 500]
    assert allocate([1000, 1000], [3.0, 1.0], 460) == [330, 130]  # floor: 0.3 each
    assert allocate([0, 50], [0.0, 0.0], 400) == [0, 50]
    assert allocate([1000, 1000], [1.0, -0.5], 1100) == [1000, 100]
    # a long line that does not fit a share leaves room for the next document's lines
    assert take_lines([[60, 100], [30, 30, 30]], [1.0, 1.0], 160) == [1, 3]


# ---------------------------------------------------------------- (e) events
class _Collect(BaseEventHandler):
    events: list[StageCandidatesEvent] = []

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        if isinstance(event, StageCandidatesEvent):
            self.events.append(event)


@pytest.fixture
def collected() -> Iterator[list[StageCandidatesEvent]]:
    handler = _Collect(events=[])
    root = get_dispatcher()
    root.add_event_handler(handler)
    yield handler.events
    root.event_handlers.remove(handler)


def test_events_are_emitted(troodos: CrmDocumentStore,
                            collected: list[StageCandidatesEvent]) -> None:
    store = troodos.triples
    selected = CoherentSubgraphPostprocessor.from_components(store, top_n=3).postprocess_nodes(
        _troodos_pool(troodos), query_str="Who founded Asinou?")
    TripleContextPostprocessor.from_components(store).postprocess_nodes(
        selected, query_str="Who founded Asinou?")
    stages = {e.stage: e for e in collected}
    assert set(stages) >= {"coherent", "context"}
    coherent = stages["coherent"]
    assert coherent.query == "Who founded Asinou?"
    assert [c[0] for c in coherent.candidates] == [n.node.node_id for n in selected]
    assert coherent.details["alpha"] == 0.7 and coherent.details["pool"] == 15
    assert stages["context"].details["budget_chars"] == 5000


def test_identical_lines_are_written_once_citing_every_triple() -> None:
    shows = CRM + "P138i_has_representation"
    store = TripleStore.from_triples([
        Triple(EX + "work", shows, EX + "image1"), Triple(EX + "work", shows, EX + "image2"),
        ("http://example.org/work", "Work", RDFS_LABEL, "", '"Work"', ""),
        (EX + "image1", "Image of Work", RDF_TYPE, "", CRM + "E36_Visual_Item", ""),
        (EX + "image2", "Image of Work", RDF_TYPE, "", CRM + "E36_Visual_Item", ""),
    ])
    out = TripleContextPostprocessor.from_components(store).postprocess_nodes(
        [_node("work", 1.0)])
    assert _facts(out[0]) == ["Work → has representation → Image of Work"]
    assert len(out[0].node.metadata["triples"]) == 2


def test_unknown_parameters_are_refused() -> None:
    with pytest.raises(TypeError, match="alhpa"):
        CoherentSubgraphPostprocessor(alhpa=0.5)
    with pytest.raises(TypeError, match="budget"):
        TripleContextPostprocessor(budget=10)
    restored = CoherentSubgraphPostprocessor.from_dict(
        CoherentSubgraphPostprocessor(alpha=0.5).to_dict())
    assert restored.alpha == 0.5


def test_ranked_triples_are_the_order_of_sorted_tuples(demo_index: Any) -> None:
    """The vectorised ranking of a document's triples (tier, own statements first, heavier
    predicates first, then as stored) is the order ``sorted`` gives the tuples built one
    triple at a time, for documents that share entities and name each other."""
    from llama_index_crm.postprocessors.triple_context import TripleContextBuilder

    store = demo_index.triples
    builder = TripleContextBuilder(store, demo_index.ontology)
    nodes = np.flatnonzero(~store.is_literal)
    hubs = nodes[np.argsort(-store.degrees(nodes), kind="stable")][:12]
    entities = [np.unique(np.concatenate([hubs[i:i + 3], nodes[i * 7:i * 7 + 5]]))
                for i in range(0, 12, 3)]
    names = {int(e[0]): f"doc {i}" for i, e in enumerate(entities)}
    owner = {int(e): i for i, ids in enumerate(entities) for e in ids.tolist()}
    owned = np.asarray(sorted(owner), dtype=np.int64)
    owners = np.asarray([owner[e] for e in owned.tolist()], dtype=np.int64)
    named = np.asarray(list(names), dtype=np.int64)
    tiers = set()
    for doc, ids in enumerate(entities):
        expected: list[tuple[int, bool, float, int, int, int, int]] = []
        for entity in ids.tolist():
            for p_ids, n_ids, incoming in ((*store.out_ids(entity), False),
                                           (*store.in_ids(entity), True)):
                keep = ~builder.weights.schema(p_ids)
                weights = builder.weights(p_ids)[keep].tolist()
                for p, n, w in zip(p_ids[keep].tolist(), n_ids[keep].tolist(), weights,
                                   strict=True):
                    tier = builder._tier(p, n, owner.get(n, doc) != doc, names)
                    expected.append((tier, incoming, -w, len(expected), entity, p, n))
        expected.sort()
        found = list(builder._ranked(ids, doc, owned, owners, named))
        assert found == [(t, i, w, e, p, n) for t, i, w, _, e, p, n in expected]
        tiers |= {t for t, *_ in found}
    assert len(expected) > 20 and tiers >= {1, 2, 3}  # the cases are exercised
