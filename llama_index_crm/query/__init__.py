"""Query phase: plans, analyzers, conversation, answers and chat engines."""

from __future__ import annotations

from llama_index_crm.query.plan import QueryPlan

__all__ = ["QueryPlan"]
