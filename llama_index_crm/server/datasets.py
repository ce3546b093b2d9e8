"""The datasets one server answers over: names given on the command line, indexes loaded on
first use.

A request names a dataset, never a folder: the folders come only from the command line
(``crm-rag serve --index NAME=DIR``) or from the Python caller of
:func:`~llama_index_crm.server.create_app`, so no request can make the server open a path.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index_crm.errors import CrmError

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from llama_index_crm.graph.data import GraphData
    from llama_index_crm.query.engine import CrmQueryPipeline

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""What a dataset's name may be: it travels in URLs and JSON, it is never a path."""

EXAMPLES = 4
"""Example questions offered per dataset when none are given."""


def parse_index_option(value: str) -> tuple[str, str]:
    """``NAME=DIR`` or ``DIR`` (named after the folder) from ``--index``.

    >>> parse_index_option("troodos=indexes/troodos")
    ('troodos', 'indexes/troodos')
    >>> parse_index_option("indexes/ycba")
    ('ycba', 'indexes/ycba')

    Raises:
        CrmError: the name is not a plain name.
    """
    name, sep, folder = value.partition("=")
    if not sep:
        folder, name = value, Path(value.rstrip("/\\")).name
    if not NAME.match(name):
        raise CrmError(f"--index {value!r}: a dataset name is letters, digits, '.', '_' or "
                       "'-' (at most 64), e.g. --index troodos=indexes/troodos")
    return name, folder


@dataclass
class Dataset:
    """One named index: its folder, and once loaded the index and its query pipeline.

    Attributes:
        name: what requests call it.
        folder: the index folder (from the command line), or None when given loaded.
        examples: example questions for the page (None: made from the index on load).
    """

    name: str
    folder: Path | None = None
    examples: list[str] | None = None
    index: GraphData | None = None
    pipeline: CrmQueryPipeline | None = None
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def loaded(self) -> bool:
        """Whether the index is in memory."""
        return self.pipeline is not None


class DatasetRegistry:
    """Named datasets, each loaded once, on first use, by one thread.

    Args:
        indexes: name → loaded index or index folder (the order is the page's).
        llm: the LLM that writes answers (None: answers from documents and triples).
        examples: name → example questions for the page.
        loader: folder → index (default :meth:`CrmGraphIndex.load`).
        pipeline_kwargs: options of :class:`~llama_index_crm.query.engine.CrmQueryPipeline`.
    """

    def __init__(self, indexes: Mapping[str, GraphData | str | Path], llm: LLM | None = None,
                 examples: Mapping[str, list[str]] | None = None,
                 loader: Callable[[Path], GraphData] | None = None,
                 **pipeline_kwargs: Any) -> None:
        if not indexes:
            raise CrmError("no index to serve: give at least one (--index DIR)")
        self.llm = llm
        self.pipeline_kwargs = pipeline_kwargs
        self._loader = loader
        self.datasets: dict[str, Dataset] = {}
        for name, value in indexes.items():
            if not NAME.match(name):
                raise CrmError(f"dataset name {name!r}: use letters, digits, '.', '_' or '-'")
            given = (examples or {}).get(name)
            if isinstance(value, str | Path):
                self.datasets[name] = Dataset(name, Path(value), given)
            else:
                self.datasets[name] = Dataset(name, None, given, index=value)

    @property
    def default(self) -> str:
        """The first dataset's name."""
        return next(iter(self.datasets))

    def names(self) -> list[str]:
        """The datasets' names, in the order given."""
        return list(self.datasets)

    def dataset(self, name: str | None) -> Dataset:
        """The dataset called ``name`` (None: the first), not necessarily loaded.

        Raises:
            KeyError: no dataset has that name.
        """
        return self.datasets[name or self.default]

    def pipeline(self, name: str | None) -> CrmQueryPipeline:
        """The query pipeline of dataset ``name``, loading its index on first use.

        Raises:
            KeyError: no dataset has that name.
            CrmError: the index could not be loaded (the message says why; later requests
                get the same message without retrying the load).
        """
        ds = self.dataset(name)
        if ds.pipeline is not None:
            return ds.pipeline
        with ds.lock:
            if ds.pipeline is None:
                if ds.error is not None:
                    raise CrmError(ds.error)
                try:
                    ds.pipeline = self._make_pipeline(ds)
                except Exception as exc:
                    ds.error = f"dataset {ds.name!r} could not be loaded: {exc}"
                    raise CrmError(ds.error) from exc
            return ds.pipeline

    def _make_pipeline(self, ds: Dataset) -> CrmQueryPipeline:
        from llama_index_crm.query.engine import CrmQueryPipeline

        if ds.index is None:
            assert ds.folder is not None
            if self._loader is not None:
                ds.index = self._loader(ds.folder)
            else:
                from llama_index_crm.index import CrmGraphIndex

                ds.index = CrmGraphIndex.load(ds.folder)
        pipeline = CrmQueryPipeline(ds.index, llm=self.llm, **self.pipeline_kwargs)
        _ = pipeline.answerer  # the exact layer's tables, before the first question
        if ds.examples is None:
            ds.examples = example_questions(ds.index)
        return pipeline

    def describe(self) -> list[dict[str, Any]]:
        """Every dataset as ``{name, loaded, examples, documents}`` (``/api/datasets``)."""
        out = []
        for ds in self.datasets.values():
            counts = ds.index.manifest.get("counts", {}) if ds.index is not None else {}
            out.append({"name": ds.name, "loaded": ds.loaded, "error": ds.error,
                        "examples": list(ds.examples or []),
                        "documents": counts.get("documents")})
        return out


_ASK_BY_CATEGORY = (
    ("Thing", "Tell me about {}"),
    ("Actor", "Who was {}?"),
    ("Place", "What is in {}?"),
    ("Event", "Tell me about {}"),
)
"""The questions made from an index's best-ranked documents, by category."""


def example_questions(index: GraphData, n: int = EXAMPLES) -> list[str]:
    """Questions about the best-connected documents (PageRank) of a few categories: every
    one names something the graph holds."""
    out: list[str] = []
    top = index.statistics.top_by_category
    for category, template in _ASK_BY_CATEGORY:
        for uri in top.get(category, [])[:1]:
            row = index.row_of.get(uri)
            label = index.meta.labels[row] if row is not None else ""
            if label:
                out.append(template.format(label))
    return out[:n]
