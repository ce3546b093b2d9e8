"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A build worker process imports ``llama_index_crm.build.builder``; with eager re-exports that
would import the whole query side and LlamaIndex first (about 1.5 s per worker). Packages
declare what they re-export and from where; each name is imported on first access.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` that import ``exports`` on first use.

    Args:
        package: the re-exporting package's ``__name__``.
        exports: public name → the module defining it.

    Returns:
        ``(__getattr__, __dir__)`` to assign in the package's ``__init__``.

    >>> get, names = lazy_exports("demo", {"dumps": "json"})
    >>> get("dumps").__name__, "dumps" in names()
    ('dumps', True)
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
