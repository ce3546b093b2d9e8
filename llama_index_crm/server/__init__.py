"""A JSON API and an offline chat page over one or several indexes (``crm-rag serve``).

Needs the ``serve`` extra (``pip install "llama-index-crm[serve]"``: FastAPI and uvicorn).

>>> from llama_index_crm.server import create_app  # doctest: +SKIP
>>> app = create_app({"troodos": "indexes/troodos"})  # doctest: +SKIP
"""

from llama_index_crm.server.app import create_app

__all__ = ["create_app"]
