"""Helpers of the server tests: a uvicorn server in a thread, a hostile test graph whose
labels hold markup, and a tiny image server for the graph's P138 representations."""

from __future__ import annotations

import http.server
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SCRIPT_LABEL = "<script>window.__pwned = 'script'</script>Evil Painting"
"""A work's label: were it parsed as markup, the script would set ``window.__pwned``."""
IMG_LABEL = '<img src=x onerror="window.__pwned = \'img\'">Mallory Painter'
"""A person's label: were it parsed as markup, an ``img`` would appear and set the flag."""
NOTE = "<b>bold?</b> A note with <a href='javascript:alert(1)'>a link</a>"
"""A note: markup in a literal."""
HOSTILE = "https://example.org/hostile/"


def png_1x1() -> bytes:
    """A valid one-pixel PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + chunk(b"IEND", b""))


def _turtle(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def write_hostile_graph(path: Path, image_url: str) -> Path:
    """A tiny CIDOC-CRM graph whose labels and note hold markup, and whose work has an
    image (P138) at ``image_url``."""
    path.write_text(f"""
@prefix crm: <http://www.cidoc-crm.org/cidoc-crm/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix h: <{HOSTILE}> .

h:work a crm:E22_Human-Made_Object ;
    rdfs:label "{_turtle(SCRIPT_LABEL)}" ;
    crm:P3_has_note "{_turtle(NOTE)}" ;
    crm:P108i_was_produced_by h:production ;
    crm:P138i_has_representation <{image_url}> .
h:production a crm:E12_Production ;
    rdfs:label "Production of the Evil Painting" ;
    crm:P14_carried_out_by h:person .
h:person a crm:E21_Person ;
    rdfs:label "{_turtle(IMG_LABEL)}" .
<{image_url}> a crm:E38_Image ; rdfs:label "image of the work" .
""", encoding="utf-8")
    return path


class _Image(http.server.BaseHTTPRequestHandler):
    png = png_1x1()
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        type(self).requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(self.png)))
        self.end_headers()
        self.wfile.write(self.png)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Silence the request log."""


@contextmanager
def image_server() -> Iterator[tuple[str, list[str]]]:
    """``(url of a PNG, paths requested)`` served on a free port of 127.0.0.1."""
    requests: list[str] = []
    handler = type("Image", (_Image,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/work.png", requests
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """The base URL of ``app`` served by uvicorn on a free port of 127.0.0.1, in a thread."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
