"""JSON-LD contexts bundled with the package, so that JSON-LD reads offline.

Oxigraph's JSON-LD parser does not fetch remote contexts. A document whose ``@context`` is
a URL of :data:`BUNDLED` gets the bundled context inlined before it is parsed; any other
remote context is an error that says so. Bundled: the Linked Art context
(``contexts/linked-art.json``, Apache-2.0, from ``cromulent``; see ``contexts/NOTICE``).

>>> doc = b'{"@context": "https://linked.art/ns/v1/linked-art.json", "id": "http://ex/a",'
>>> doc += b' "type": "HumanMadeObject", "_label": "A"}'
>>> import pyoxigraph as ox
>>> sorted(str(q.predicate) for q in ox.parse(inline_contexts(doc, "a.json"), ox.RdfFormat.JSON_LD))
['<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>', '<http://www.w3.org/2000/01/rdf-schema#label>']
"""  # noqa: E501

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from llama_index_crm.errors import SourceError

BUNDLED: dict[str, str] = {
    "https://linked.art/ns/v1/linked-art.json": "linked-art.json",
    "http://linked.art/ns/v1/linked-art.json": "linked-art.json",
}
"""Context URL → the file in ``llama_index_crm/sources/contexts`` that holds it."""

@functools.cache
def bundled_context(name: str) -> Any:
    """The ``@context`` value of a bundled context file."""
    text = resources.files("llama_index_crm.sources").joinpath("contexts", name).read_text(
        encoding="utf-8")
    return json.loads(text)["@context"]


def _inline(node: Any, remote: set[str]) -> Any:
    """``node`` with every ``@context`` URL of :data:`BUNDLED` replaced by its context; the
    context URLs met are added to ``remote``."""
    if isinstance(node, list):
        return [_inline(item, remote) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _inline(value, remote) for key, value in node.items()}
    context = out.get("@context")
    items = context if isinstance(context, list) else [context]
    remote.update(c for c in items if isinstance(c, str))
    inlined = [bundled_context(BUNDLED[c]) if isinstance(c, str) and c in BUNDLED else c
               for c in items]
    if isinstance(context, list):
        out["@context"] = inlined
    elif isinstance(context, str):
        out["@context"] = inlined[0]
    return out


def inline_contexts(data: bytes, where: str) -> bytes:
    """A JSON-LD document with its bundled remote contexts inlined.

    Args:
        data: The document.
        where: Its name, for messages.

    Returns:
        ``data`` itself when it names no remote context.

    Raises:
        SourceError: It names a remote context that is not bundled, or is not JSON.
    """
    if b'"@context"' not in data:
        return data
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise SourceError(f"{where} is not JSON: {exc}. Fix the file.") from exc
    remote: set[str] = set()
    inlined = _inline(document, remote)
    unknown = sorted(remote - BUNDLED.keys())
    if unknown:
        raise SourceError(
            f"{where} uses the remote JSON-LD context {unknown[0]}, which cannot be fetched "
            f"offline (bundled: {', '.join(sorted(BUNDLED))}). Save the context and put it "
            "in the document's @context, or convert the file to N-Triples.")
    if not remote:
        return data
    return json.dumps(inlined, ensure_ascii=False).encode("utf-8")
