"""llama-index-crm: ask CIDOC-CRM knowledge graphs questions in plain language, in LlamaIndex."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
