"""Remote JSON-LD contexts read from saved files, so that JSON-LD reads offline.

Oxigraph's JSON-LD parser does not fetch remote contexts. A document whose ``@context`` is
a URL of :data:`KNOWN` gets that context inlined before it is parsed, read from a saved copy
in the folder :envvar:`LLAMA_INDEX_CRM_CONTEXTS` names, or else from the copy shipped in the
package (``llama_index_crm/_contexts``: the Linked Art context of the PyPI package
``cromulent``, Apache-2.0, see its NOTICE), or from the project's sibling
``../shared/datasets/ontology`` of a development checkout. Any other remote context, or a
known one with no saved copy, is an error that says what to do.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from llama_index_crm.errors import SourceError

KNOWN: dict[str, str] = {
    "https://linked.art/ns/v1/linked-art.json": "linked-art.json",
    "http://linked.art/ns/v1/linked-art.json": "linked-art.json",
}
"""Context URL → the name of the file that holds a saved copy of it."""
CONTEXTS_ENV = "LLAMA_INDEX_CRM_CONTEXTS"
"""Environment variable naming the folder of saved context files."""
PACKAGED_CONTEXTS = Path(__file__).resolve().parents[1] / "_contexts"
"""The copies shipped in the package (the Linked Art context)."""
DEV_CONTEXTS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "ontology"
"""Where a development checkout finds them when the variable is not set."""


def context_folders() -> list[Path]:
    """Folders searched for saved context files, first first."""
    named = os.environ.get(CONTEXTS_ENV)
    return [Path(named)] if named else [PACKAGED_CONTEXTS, DEV_CONTEXTS]


@functools.cache
def _saved(name: str) -> Any:
    """The ``@context`` value of a saved context file; None when there is none."""
    for folder in context_folders():
        path = folder / name
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))["@context"]
    return None


def saved_context(url: str, where: str = "") -> Any:
    """The ``@context`` value saved for a :data:`KNOWN` context URL.

    Raises:
        SourceError: No saved copy is found; the message says how to provide one.
    """
    found = _saved(KNOWN[url])
    if found is None:
        raise SourceError(
            f"{where or 'A JSON-LD document'} uses the remote context {url}, and no saved "
            f"copy of it ({KNOWN[url]}) is in {', '.join(map(str, context_folders()))}. "
            f"Download it on a machine with internet, put it in a folder and set "
            f"{CONTEXTS_ENV} to that folder, or convert the file to N-Triples.")
    return found


def _collect(node: Any, remote: set[str]) -> None:
    """Add the remote ``@context`` URLs of ``node`` and its children to ``remote``."""
    if isinstance(node, list):
        for item in node:
            _collect(item, remote)
    elif isinstance(node, dict):
        context = node.get("@context")
        remote.update(c for c in (context if isinstance(context, list) else [context])
                      if isinstance(c, str))
        for value in node.values():
            _collect(value, remote)


def _inline(node: Any) -> Any:
    """``node`` with every ``@context`` URL of :data:`KNOWN` replaced by its context."""
    if isinstance(node, list):
        return [_inline(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _inline(value) for key, value in node.items()}
    context = out.get("@context")
    items = context if isinstance(context, list) else [context]
    inlined = [saved_context(c) if isinstance(c, str) and c in KNOWN else c for c in items]
    if isinstance(context, list):
        out["@context"] = inlined
    elif isinstance(context, str):
        out["@context"] = inlined[0]
    return out


def inline_contexts(data: bytes, where: str) -> bytes:
    """A JSON-LD document with its known remote contexts inlined from saved copies.

    Args:
        data: The document.
        where: Its name, for messages.

    Returns:
        ``data`` itself when it names no remote context.

    Raises:
        SourceError: It names a remote context that is not known or not saved, or is not
            JSON.
    """
    if b'"@context"' not in data:
        return data
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise SourceError(f"{where} is not JSON: {exc}. Fix the file.") from exc
    found: set[str] = set()
    _collect(document, found)
    unknown = sorted(found - KNOWN.keys())
    if unknown:
        raise SourceError(
            f"{where} uses the remote JSON-LD context {unknown[0]}, which cannot be fetched "
            f"offline (known: {', '.join(sorted(KNOWN))}). Save the context and put it "
            "in the document's @context, or convert the file to N-Triples.")
    if not found:
        return data
    for url in sorted(found):  # a missing copy is said with the file's name
        saved_context(url, where)
    return json.dumps(_inline(document), ensure_ascii=False).encode("utf-8")
