"""The test servers listen on the port the system picks as they bind it: no window between
choosing a free port and binding it, in which another process (another test session, an
outgoing connection) could take it, or a stranger's server answer in place of ours."""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from conftest import DEMO

from llama_index_crm.sources import SparqlEndpointSource
from llama_index_crm.sources.local_server import HOST, listening_port, system_ports
from llama_index_crm.sources.oxigraph_server import NOT_INSTALLED, OxigraphServer, oxigraph_binary

pytestmark = pytest.mark.skipif(not system_ports(), reason="no /proc socket tables (not Linux)")

_LISTENER = f"""
import socket, sys
sock = socket.socket()
sock.bind(({HOST!r}, 0))
sock.listen()
print(sock.getsockname()[1], flush=True)
sys.stdin.read()
"""


def test_listening_port_is_read_back_from_the_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", _LISTENER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        assert listening_port(child.pid) == port
    finally:
        child.communicate("")
    assert listening_port(child.pid) is None  # the process is gone
    quiet = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        assert listening_port(quiet.pid) is None
    finally:
        quiet.communicate(b"")


def test_oxigraph_serves_on_the_port_the_system_picked(tmp_path: Path) -> None:
    binary = oxigraph_binary()
    if binary is None:
        pytest.skip(NOT_INSTALLED)
    with OxigraphServer([DEMO], tmp_path, binary=binary) as server:
        port = urllib.parse.urlsplit(server.url).port
        assert port and port == listening_port(server.process.pid)  # its own socket
        assert len(SparqlEndpointSource(server.url).entities()) > 100
