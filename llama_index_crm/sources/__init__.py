"""Where a CIDOC-CRM graph is read from: RDF files in process, or a SPARQL endpoint.

>>> from llama_index_crm.sources import GraphSource, RdfFileSource
>>> issubclass(RdfFileSource, GraphSource)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index_crm.errors import SourceError
from llama_index_crm.sources.base import GraphSource
from llama_index_crm.sources.rdf_files import RdfFileSource
from llama_index_crm.sources.sparql import SparqlEndpointSource

__all__ = ["GraphSource", "RdfFileSource", "SparqlEndpointSource", "open_source"]


def open_source(inputs: Sequence[str], endpoint: str | None = None, **kw: Any) -> GraphSource:
    """The source for command-line style inputs: files, or one endpoint URL.

    Args:
        inputs: RDF files, archives or directories. A single ``http(s)://`` input with no
            ``endpoint`` is taken as the endpoint.
        endpoint: A SPARQL query endpoint URL.
        **kw: Keyword arguments of :class:`SparqlEndpointSource` or :class:`RdfFileSource`
            (an unknown one raises ``TypeError``).

    Returns:
        A :class:`SparqlEndpointSource` or an :class:`RdfFileSource`.

    Raises:
        SourceError: Both files and an endpoint, or neither, were given; or the source
            cannot be opened.
    """
    inputs = [inputs] if isinstance(inputs, str) else list(inputs)
    if endpoint is None and len(inputs) == 1 and inputs[0].startswith(("http://", "https://")):
        endpoint, inputs = inputs[0], []
    if endpoint is not None:
        if inputs:
            raise SourceError("Give either RDF files or a SPARQL endpoint, not both.")
        return SparqlEndpointSource(endpoint, **kw)
    if not inputs:
        raise SourceError("No input: give RDF files (or a folder) or a SPARQL endpoint URL.")
    return RdfFileSource(inputs, **kw)
