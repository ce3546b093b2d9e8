"""What differs between SPARQL servers, and how a server is recognised.

Queries stay within what every server accepts; where a server evaluates valid SPARQL
wrongly or slowly, its profile says how to write them instead. A server is recognised by the
``Server`` header of its HTTP answers (Virtuoso sends ``Virtuoso/07.20.3229 ...``); an
unknown server gets :data:`STANDARD`.

>>> profile_for("Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu").name
'Virtuoso'
>>> profile_for("").name, profile_for(None).closures
('standard', 'inline')
>>> VIRTUOSO.is_system_graph("http://www.openlinksw.com/schemas/virtrdf#")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Closures = Literal["inline", "bound"]
"""How repeated and optional steps are written. ``inline``: as property-path modifiers
(``+``, ``*``, ``?``) inside one path expression, the fastest form on Oxigraph. ``bound``:
``?`` and ``*`` become alternatives without the step, and each ``+`` closure is a triple
pattern of its own whose subject comes out of a sub-select holding everything before it,
for servers that evaluate a transitive path only from a bound start (Virtuoso)."""

PreferredFRPaths = Literal["sparql", "walk"]
"""How FR targets are best found on a server (see ``DocumentBuilder``'s ``fr_paths``)."""

ResultFormat = str
"""``"tsv"``, ``"xml"`` or ``"json"`` (SPARQL 1.1 results formats)."""


@dataclass(frozen=True)
class ServerProfile:
    """How to query one kind of server.

    Attributes:
        name: The product name (``standard`` for any other server).
        closures: How FR paths write their repeated and optional steps
            (:data:`Closures`).
        formats: Results formats to ask for, in order of preference; the next one is tried
            when the server refuses one or sends something unreadable.
        system_graphs: Patterns of the named graphs that hold the server's own data, left out
            when no graph is chosen.
        fr_paths: How the builder finds FR targets by default: SPARQL property-path queries,
            or the walk through fetched neighbourhoods where the queries are slow.
        fr_paths_reason: Why, when it is the walk (said in the build's one warning).
    """

    name: str
    closures: Closures = "inline"
    formats: tuple[ResultFormat, ...] = ("tsv", "xml", "json")
    system_graphs: tuple[re.Pattern[str], ...] = ()
    fr_paths: PreferredFRPaths = "sparql"
    fr_paths_reason: str = ""

    def is_system_graph(self, iri: str) -> bool:
        """Whether the graph ``iri`` holds the server's own data."""
        return any(p.match(iri) for p in self.system_graphs)


STANDARD = ServerProfile("standard")
"""Any server not recognised: SPARQL 1.1 as written (Oxigraph, Fuseki, GraphDB, ...)."""

VIRTUOSO = ServerProfile(
    "Virtuoso",
    # "transitive start not given" / silently empty results for a closure whose subject
    # is not bound by a sub-select or a constant (Virtuoso 7.2).
    closures="bound",
    # Its TSV writes IRIs as quoted strings and drops language tags; it writes XML about
    # five times faster than JSON.
    formats=("xml", "json"),
    # Bound closures are right but slow: a 1,000-start query with sub-selects ran 12 s on
    # YCBA; walking is 3x faster end to end (docs/benchmarks.md).
    fr_paths="walk",
    fr_paths_reason="Virtuoso evaluates FR property paths slowly once closures are bound",
    system_graphs=tuple(re.compile(p) for p in (
        r"http://www\.openlinksw\.com/",          # virtrdf: quad maps, schemas
        r"http://www\.w3\.org/ns/ldp#",           # its LDP vocabulary
        r"http://www\.w3\.org/2002/07/owl#",      # the OWL ontology it may preload
        r"urn:activitystreams-owl:map",
        r"https?://[^/]+/sparql/?$",              # the service description
        r"https?://[^/]+/DAV/",                   # WebDAV metadata (with the DAV package)
    )),
)
"""OpenLink Virtuoso (7.x)."""

_BY_HEADER: tuple[tuple[re.Pattern[str], ServerProfile], ...] = (
    (re.compile(r"virtuoso", re.IGNORECASE), VIRTUOSO),
)


def profile_for(server_header: str | None) -> ServerProfile:
    """The profile of a server, from the ``Server`` header of its answers.

    Args:
        server_header: The header value, or ``None`` when the server sent none.
    """
    for pattern, profile in _BY_HEADER:
        if server_header and pattern.search(server_header):
            return profile
    return STANDARD
