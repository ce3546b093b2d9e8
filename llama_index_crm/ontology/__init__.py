"""CIDOC-CRM vocabulary: categories, FRs, inverses, sub-properties, aliases, labels, weights.

Everything is read from ``config/`` (built by ``scripts/build_ontology.py``); start with
:meth:`Ontology.default`.
"""

from __future__ import annotations

from .config_dir import CONFIG_ENV_VAR, ConfigNotFoundError, find_config_dir
from .direct import derivation_words, split_path, widening_properties
from .fr import FRPath, FundamentalRelationship, Step, frs_from_json, step_from_json
from .namespaces import (
    CRM,
    CRM_VARIANTS,
    CRMDIG,
    CRMDIG_SIG,
    CRMSCI,
    CRMSCI_FORTH,
    DCTERMS,
    ERLANGEN_CRM,
    FRBROO,
    FRBROO_ERLANGEN,
    ONTOLOGY_NAMESPACES,
    OWL,
    RDF,
    RDFS,
    SKOS,
    VIR,
    XSD,
    VocabularyNamespace,
)
from .ontology import CATEGORIES, CATEGORY_PRIORITY, Ontology
from .terms import ClassInfo, PropertyInfo, humanize

__all__ = [
    "CATEGORIES",
    "CATEGORY_PRIORITY",
    "CONFIG_ENV_VAR",
    "CRM",
    "CRMDIG",
    "CRMDIG_SIG",
    "CRMSCI",
    "CRMSCI_FORTH",
    "CRM_VARIANTS",
    "DCTERMS",
    "ERLANGEN_CRM",
    "FRBROO",
    "FRBROO_ERLANGEN",
    "ONTOLOGY_NAMESPACES",
    "OWL",
    "RDF",
    "RDFS",
    "SKOS",
    "VIR",
    "XSD",
    "ClassInfo",
    "ConfigNotFoundError",
    "FRPath",
    "FundamentalRelationship",
    "Ontology",
    "PropertyInfo",
    "Step",
    "VocabularyNamespace",
    "derivation_words",
    "find_config_dir",
    "frs_from_json",
    "humanize",
    "split_path",
    "step_from_json",
    "widening_properties",
]
