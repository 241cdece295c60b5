"""The simulated assessors' HTTP client (cranfield.service.simulate)."""

from __future__ import annotations

import http.server
import threading

import pytest

from cranfield.service.simulate import _Client


class _ClosesIdle(http.server.BaseHTTPRequestHandler):
    """Answers with keep-alive, then closes the connection (as uvicorn does once a
    connection has been idle for its keep-alive timeout)."""

    protocol_version = "HTTP/1.1"
    count = 0

    def do_GET(self):  # noqa: N802
        type(self).count += 1
        body = str(type(self).count).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args):
        pass


def test_a_closed_keep_alive_connection_is_replaced_at_once():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ClosesIdle)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = _Client(f"http://127.0.0.1:{server.server_port}", timeout=5)
        assert client.request("GET", "/a") == (200, b"1")
        # the server closed the connection after answering: the client notices when it
        # reuses it and sends the request again on a new one, without failing
        assert client.request("GET", "/b") == (200, b"2")
        assert client.request("GET", "/c") == (200, b"3")
    finally:
        server.shutdown()
        server.server_close()


def test_a_refused_connection_still_fails():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once closed
    client = _Client(f"http://127.0.0.1:{port}", timeout=2)
    with pytest.raises(OSError):
        client.request("GET", "/")
