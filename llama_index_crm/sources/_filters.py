"""Which subjects of a graph are entities: the filter both graph sources share.

An entity is an IRI subject that is neither a term of an ontology (CRM and its extensions,
RDF, RDFS, OWL, SKOS, XSD) nor a schema subject (a class, a property, an OWL construct)
declared in the data itself. Both sources apply the same filter, so that a graph read from
files and the same graph read from an endpoint yield the same entities.

>>> is_ontology_iri("http://www.cidoc-crm.org/cidoc-crm/E22_Human-Made_Object")
True
>>> is_ontology_iri("http://erlangen-crm.org/170309/E5_Event")
True
>>> is_ontology_iri("http://collection.britishart.yale.edu/id/object/67238")
False
>>> select_entities(["http://ex/b", "http://ex/a", "http://ex/C"], {"http://ex/C"})
['http://ex/a', 'http://ex/b']
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from llama_index_crm.rdf import OWL, RDF, RDFS, SKOS, XSD

ONTOLOGY_NAMESPACES: tuple[str, ...] = (
    # CIDOC-CRM core, as published and as commonly mistyped or re-hosted.
    "http://www.cidoc-crm.org/cidoc-crm/",
    "https://www.cidoc-crm.org/cidoc-crm/",
    "http://cidoc-crm.org/cidoc-crm/",
    "https://cidoc-crm.org/cidoc-crm/",
    "http://erlangen-crm.org/",
    "https://erlangen-crm.org/",
    "http://purl.org/NET/cidoc-crm/core#",
    # Extensions: VIR, CRMdig, CRMsci, FRBRoo.
    "http://w3id.org/vir#",
    "https://w3id.org/vir#",
    "http://www.ics.forth.gr/isl/CRMdig/",
    "http://www.cidoc-crm.org/extensions/crmdig/",
    "https://www.cidoc-crm.org/extensions/crmdig/",
    "http://www.cidoc-crm.org/extensions/crmsci/",
    "https://www.cidoc-crm.org/extensions/crmsci/",
    "http://www.ics.forth.gr/isl/CRMsci/",
    "http://iflastandards.info/ns/fr/frbr/frbroo/",
    # W3C vocabularies.
    RDF,
    RDFS,
    OWL,
    SKOS,
    XSD,
)
"""IRI prefixes whose terms are vocabulary, never entities."""

SCHEMA_TYPES: frozenset[str] = frozenset(
    {
        RDFS + "Class",
        RDFS + "Datatype",
        OWL + "Class",
        RDF + "Property",
        OWL + "ObjectProperty",
        OWL + "DatatypeProperty",
        OWL + "AnnotationProperty",
        OWL + "TransitiveProperty",
        OWL + "SymmetricProperty",
        OWL + "FunctionalProperty",
        OWL + "InverseFunctionalProperty",
        OWL + "Ontology",
        OWL + "Restriction",
    }
)
"""``rdf:type`` values that mark a subject as schema rather than data."""


def is_ontology_iri(iri: str) -> bool:
    """True when ``iri`` lies in one of :data:`ONTOLOGY_NAMESPACES`.

    Args:
        iri: An IRI.

    Returns:
        Whether the IRI names a vocabulary term.
    """
    return iri.startswith(ONTOLOGY_NAMESPACES)


def select_entities(subjects: Iterable[str], schema_subjects: Collection[str]) -> list[str]:
    """The entities among ``subjects``, sorted and distinct.

    Args:
        subjects: IRI subjects of the graph (blank nodes are dropped if any slip in).
        schema_subjects: Subjects typed with one of :data:`SCHEMA_TYPES`.

    Returns:
        The subjects that are neither ontology terms, schema subjects nor blank nodes.
    """
    return sorted(
        {
            s
            for s in subjects
            if not s.startswith("_:") and s not in schema_subjects and not is_ontology_iri(s)
        }
    )
