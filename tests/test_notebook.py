"""``notebooks/explore_retrieval.ipynb`` runs top to bottom and shows what it says it shows.

The code cells are executed in order in one namespace, from the repository root, with the
index written into a temporary folder and a temporary embedding cache; no Jupyter needed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.instrumentation import get_dispatcher

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "explore_retrieval.ipynb"
INDEX_DIR = '"indexes/troodos-nb"'
"""The output folder as the notebook writes it; the test redirects it to a temporary one."""
T = "https://example.org/troodos/"
FOUNDED = "Who founded the church at Asinou?"
PAINTED = "Which churches were painted in the 15th century?"


def notebook() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return data


def code_cells() -> list[str]:
    return ["".join(c["source"]) for c in notebook()["cells"] if c["cell_type"] == "code"]


def uris(nodes: list[Any]) -> list[str]:
    return [n.node.metadata["uri"] for n in nodes]


def test_notebook_is_nbformat_4_without_outputs() -> None:
    nb = notebook()
    assert nb["nbformat"] == 4
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    for cell in nb["cells"]:
        assert cell["cell_type"] in {"markdown", "code"}
        assert isinstance(cell["source"], list)
        assert isinstance(cell["id"], str) and cell["id"]
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
            compile("".join(cell["source"]), "<cell>", "exec")


@pytest.fixture(scope="module")
def namespace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The namespace after running every code cell, and what they printed."""
    cells = code_cells()
    assert sum(INDEX_DIR in c for c in cells) == 1, f"the notebook should build into {INDEX_DIR}"
    out_dir = tmp_path_factory.mktemp("nb") / "troodos-nb"
    cells = [c.replace(INDEX_DIR, repr(str(out_dir))) for c in cells]
    ns: dict[str, Any] = {"__name__": "__notebook__"}
    printed = io.StringIO()
    previous = Path.cwd()
    root = get_dispatcher()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLAMA_INDEX_CRM_CACHE", str(tmp_path_factory.mktemp("cache")))
        mp.setenv("MPLBACKEND", "Agg")  # figures drawn off screen; plt.show() is a no-op
        os.chdir(ROOT)
        try:
            with contextlib.redirect_stdout(printed):
                for number, source in enumerate(cells, start=1):
                    exec(compile(source, f"<notebook code cell {number}>", "exec"), ns)
        finally:
            os.chdir(previous)
    ns["__printed__"] = printed.getvalue()
    yield ns
    import matplotlib.pyplot as plt

    plt.close("all")
    root.event_handlers = [h for h in root.event_handlers if h.class_name() != "StageRecorder"]


def test_index_is_built_into_the_given_folder(namespace: dict[str, Any]) -> None:
    index = namespace["index"]
    assert (index.folder / "manifest.json").is_file()
    assert namespace["index"].manifest["counts"]["documents"] == len(index.doc_ids) > 100


def test_founder_question_ends_with_the_church_and_its_founder(namespace: dict[str, Any]) -> None:
    answer = namespace["results"][FOUNDED]
    assert answer.plan.type == "specific" and "Actor" in answer.plan.target_categories
    final = uris(answer.nodes)
    assert T + "church/asinou" in final
    assert T + "person/nikephoros-ischyrios" in final
    assert "Nikephoros Ischyrios" in answer.answer


def test_every_stage_was_recorded(namespace: dict[str, Any]) -> None:
    recorded = [e.stage for e in namespace["stages"][FOUNDED]]
    for stage in ("dense", "bm25", "names", "hybrid", "category", "pool", "coherent", "context"):
        assert stage in recorded, f"no {stage!r} event in {recorded}"
    assert all(e.query for e in namespace["stages"][FOUNDED])


def test_hand_fusion_matches_the_hybrid_retriever(namespace: dict[str, Any]) -> None:
    index = namespace["index"]
    assert index.doc_ids[namespace["best_row"]] == uris(namespace["hybrid_nodes"])[0]


def test_context_cites_its_facts(namespace: dict[str, Any]) -> None:
    first = namespace["first"]
    assert "Facts:" in first.get_content()
    assert first.metadata["triples"]
    assert "triples cited by" in namespace["__printed__"]


def test_period_question_is_a_list_of_things(namespace: dict[str, Any]) -> None:
    answer = namespace["results"][PAINTED]
    assert answer.plan.type == "enumeration"
    assert answer.plan.time_range == (1400, 1499)
    assert "Thing" in answer.plan.target_categories
    assert 0 < len(answer.nodes) <= answer.plan.k
    assert namespace["category_event"].details["time_range"] == (1400, 1499)
    assert {e.stage for e in namespace["stages"][PAINTED]} >= {"pool", "coherent", "context"}


def test_channel_figure_has_one_panel_per_channel(namespace: dict[str, Any]) -> None:
    fig = namespace["fig_channels"]
    channels = namespace["channel_scores"]
    assert len(fig.axes) == len(channels) == 4
    for ax, scored in zip(fig.axes, channels.values(), strict=True):
        bars = ax.patches
        assert len(bars) == min(len(scored), namespace["TOP"]) > 0
        widths = [bar.get_width() for bar in bars][::-1]  # drawn best last
        assert widths == [score for _, score in scored[: len(bars)]]


def test_adjacency_heat_map_covers_the_pool_and_marks_the_selection(
        namespace: dict[str, Any]) -> None:
    trace = namespace["trace"]
    ax = namespace["fig_adjacency"].axes[0]
    cells = ax.images[0].get_array()
    assert cells.shape == (len(trace.pool), len(trace.pool)) == (60, 60)
    assert (cells == cells.T).all() and cells.max() > 0
    marks = ax.collections[0].get_offsets()
    assert len(marks) == len(trace.order) == trace.k == 10
    assert sorted(int(x) for x, _ in marks) == sorted(trace.order)


def test_subgraph_figure_draws_the_selected_documents_with_fr_edges(
        namespace: dict[str, Any]) -> None:
    graph = namespace["subgraph"]
    trace = namespace["trace"]
    assert set(graph.nodes) == {trace.pool[i].node.metadata["uri"] for i in trace.order}
    nodes_drawn = namespace["fig_subgraph"].axes[0].collections[0].get_offsets()
    assert len(nodes_drawn) == graph.number_of_nodes() == 10
    labels = {data["fr"] for _, _, data in graph.edges(data=True)}
    assert graph.number_of_edges() >= 3 and all("-" in fr for fr in labels)
    founder = T + "person/nikephoros-ischyrios"
    assert graph.degree(founder) >= 1  # the founder is linked to the church by an FR


def test_greedy_figure_plots_the_objective_of_every_step(namespace: dict[str, Any]) -> None:
    trace = namespace["trace"]
    ax = namespace["fig_greedy"].axes[0]
    line = ax.lines[0]
    assert list(line.get_xdata()) == list(range(1, len(trace.order) + 1))
    assert list(line.get_ydata()) == trace.objective
    assert len(ax.patches) == len(trace.order)
    # the trace is the selection the pipeline made for question 1
    coherent = next(e for e in namespace["stages"][FOUNDED] if e.stage == "coherent")
    assert [c[0] for c in coherent.candidates] == [
        trace.pool[i].node.metadata["uri"] for i in trace.order]
    assert [c[2] for c in coherent.candidates] == trace.objective
