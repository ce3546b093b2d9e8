"""The one small protocol every graph source implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from llama_index_crm.rdf import Triple


@runtime_checkable
class GraphSource(Protocol):
    """Where the build phase reads a CIDOC-CRM graph from.

    Two implementations (RDF files in process, a SPARQL endpoint) must return the same
    entities and the same triples for the same graph, so that the documents built from
    them are byte-identical.
    """

    def describe(self) -> str:
        """A short human-readable name of the source (file names or endpoint URL)."""
        ...

    def entities(self) -> list[str]:
        """Every IRI that is the subject of a triple, sorted, minus ontology schema
        (classes, properties, OWL constructs) and ontology namespaces (CRM, Erlangen, VIR,
        CRMdig, CRMsci, RDF, RDFS, OWL, SKOS). Blank nodes are never entities."""
        ...

    def fetch(self, nodes: Sequence[str], *, incoming: bool = True) -> list[Triple]:
        """Every triple whose subject is one of ``nodes`` and, when ``incoming``, every
        triple whose object is one of them. Order is unspecified; duplicates (the same
        triple in several named graphs) are removed."""
        ...

    def close(self) -> None:
        """Release files, stores or connections."""
        ...


def source_factory(source: GraphSource, processes: int = 1) -> Callable[[], GraphSource] | None:
    """A picklable recipe that opens ``source`` again in another process, if it has one.

    Sources may offer ``factory(processes)``; the builder uses it to run chunks in
    ``processes`` worker processes (an endpoint source shares its request rate among them).
    """
    make = getattr(source, "factory", None)
    return make(processes) if callable(make) else None
