"""The API's requests and responses as pydantic models: requests are validated (unknown
fields refused), responses are documented in the OpenAPI schema. Answers are sent as
built (:mod:`~llama_index_crm.server.views`), without a second validation pass."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class AskRequest(BaseModel):
    """``POST /api/ask``."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(description="the question, in plain language")
    explain: bool = Field(False, description="also return the plan and its SPARQL")
    dataset: str | None = Field(None, description="a name from /api/datasets (default: the "
                                                  "first)")


class ChatRequest(BaseModel):
    """``POST /api/chat``."""

    model_config = ConfigDict(extra="forbid")
    message: str = Field(description="the next question of the conversation")
    session: str | None = Field(None, description="the session id a previous turn returned "
                                                  "(none: a new session)")
    explain: bool = Field(False, description="also return the plan and its SPARQL")
    dataset: str | None = Field(None, description="a name from /api/datasets")


class ResetRequest(BaseModel):
    """``POST /api/chat/reset``."""

    model_config = ConfigDict(extra="forbid")
    session: str
    dataset: str | None = None


class TripleOut(BaseModel):
    """A triple and the labels of its terms (literals in N-Triples syntax in ``o``)."""

    s: str
    p: str
    o: str
    s_label: str
    p_label: str
    o_label: str
    o_literal: bool


class SourceOut(BaseModel):
    """A document of the answer's context."""

    uri: str
    label: str
    score: float
    path: str = Field(description="its first FR path from what the question names")
    paths: list[str]
    triples: list[TripleOut]


class PlanOut(BaseModel):
    """The exact plan (``explain``)."""

    type: str
    turn: str
    text: str = Field(description="the plan as FR paths")
    sparql: str


class NodeOut(BaseModel):
    id: str
    label: str
    source: bool


class EdgeOut(BaseModel):
    s: str
    p: str
    o: str
    label: str


class GraphOut(BaseModel):
    """The subgraph the sources' triples span."""

    nodes: list[NodeOut]
    edges: list[EdgeOut]


class AnswerOut(BaseModel):
    """An answer: ``answer``, ``status`` and ``count`` are those of ``crm-rag ask``."""

    dataset: str
    question: str
    answer: str
    status: str = Field(description="answered | not_found | ambiguous | retrieval_only")
    count: int | None
    type: str
    sources: list[SourceOut]
    evidence: list[str]
    plan: PlanOut | None
    graph: GraphOut
    latency_s: float


class ChatOut(AnswerOut):
    """A chat turn's answer and its session."""

    session: str


class NeighbourOut(BaseModel):
    uri: str
    label: str


class EntityOut(BaseModel):
    """``GET /api/entity``."""

    dataset: str
    uri: str
    label: str
    category: str | None
    document: str | None
    document_uri: str | None
    triples: list[TripleOut]
    triples_total: int
    neighbours: list[NeighbourOut]
    neighbours_total: int
    images: list[str] = Field(description="image and IIIF URLs the graph gives (P138)")
