"""Request bodies against a real ``cranfield serve`` process: every body is capped before
it is read (chunked or not), and nothing of a refused or broken upload stays on disk."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from service.helpers import PASSWORD, make_campaign, user
from service.server import Server

MB = 1_000_000


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server with ``--max-upload 1`` (MB) over a campaign open for runs, and the
    bearer token of a participant."""
    from cranfield.service.db import open_database

    tmp = tmp_path_factory.mktemp("limits")
    db = open_database(str(tmp / "site.db"))
    make_campaign(db, "open")
    user(db, "carol", "participant", campaign="open")
    db.close()
    with Server(tmp / "site.db", "--max-upload", "1", cwd=tmp) as server:
        request = urllib.request.Request(
            server.url + "/api/session",
            data=json.dumps({"username": "carol", "password": PASSWORD}).encode(),
            headers={"Content-Type": "application/json"},
        )
        token = json.loads(urllib.request.urlopen(request, timeout=30).read())["token"]
        server.token = token
        server.uploads = tmp / "site.data" / "uploads"
        yield server


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def send(server, path: str, headers: dict, chunks, *, chunked: bool = True) -> int | None:
    """Send a request by hand (``chunks`` an iterable of bytes), stop sending when the
    server stops reading, and return the response's status (None if it closed)."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    try:
        head = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        if chunked:
            head.append("Transfer-Encoding: chunked")
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        sock.settimeout(5)
        try:
            for chunk in chunks:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the server refused and stopped reading
        sock.settimeout(30)
        try:
            first = sock.recv(4096)
        except ConnectionResetError:
            return None
        return int(first.split(b" ", 2)[1]) if first.startswith(b"HTTP/1.1 ") else None
    finally:
        sock.close()


def stream(total: int, piece: bytes = b"x" * 65536):
    sent = 0
    while sent < total:
        yield piece
        sent += len(piece)


def test_a_chunked_json_body_is_refused_at_the_cap_without_growing_the_server(served):
    before = rss_kib(served.proc.pid)
    status = send(
        served,
        "/api/session",
        {"Content-Type": "application/json"},
        [b'{"username": "carol", "password": "', *stream(64 * MB)],
    )
    assert status == 413
    assert rss_kib(served.proc.pid) - before < 32 * 1024  # was +900 MB for 300 MB
    with urllib.request.urlopen(served.url + "/api/health", timeout=30) as r:
        assert r.status == 200


def test_a_declared_length_over_the_cap_is_refused_before_reading(served):
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=30)
    with sock:
        sock.sendall(
            b"PUT /api/campaigns/open/judgments/1 HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n"
        )
        first = b""  # no byte of the body was sent; the server closes after answering
        while piece := sock.recv(4096):
            first += piece
    assert first.startswith(b"HTTP/1.1 413 ")
    assert b"limit of 1 MB" in first


def multipart(size: int, boundary: str = "b0undary"):
    yield (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="run.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    yield from stream(size, b"t1 Q0 D001 1 1.0 r\n" * 4000)


@pytest.mark.parametrize("chunked", [True, False])
def test_a_refused_upload_leaves_nothing_on_disk(served, chunked):
    headers = {
        "Authorization": "Bearer " + served.token,
        "Content-Type": "multipart/form-data; boundary=b0undary",
    }
    body = list(multipart(10 * MB))
    if not chunked:  # an honest length: refused before reading
        headers["Content-Length"] = str(sum(map(len, body)))
    for _ in range(3):
        status = send(served, "/api/campaigns/open/runs", headers, body, chunked=chunked)
        assert status == 413
    time.sleep(0.5)
    assert not served.uploads.exists() or not list(served.uploads.rglob("*"))


def test_an_upload_cut_off_half_way_leaves_nothing_on_disk(served):
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=30)
    with sock:
        sock.sendall(
            b"POST /api/campaigns/open/runs HTTP/1.1\r\nHost: x\r\n"
            b"Authorization: Bearer " + served.token.encode() + b"\r\n"
            b"Content-Type: multipart/form-data; boundary=b0undary\r\n"
            b"Content-Length: 900000\r\n\r\n"
        )
        for piece in multipart(600_000):
            sock.sendall(piece)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if not served.uploads.exists() or not list(served.uploads.rglob("*")):
            break
        time.sleep(0.1)
    assert not served.uploads.exists() or not list(served.uploads.rglob("*"))


def wrong_login(server, forwarded_for: str, username: str = "nobody") -> int:
    request = urllib.request.Request(
        server.url + "/api/session",
        data=json.dumps({"username": username, "password": "guess"}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_x_forwarded_for_is_not_believed_from_an_untrusted_client(served):
    statuses = [wrong_login(served, f"10.9.0.{i}", f"user{i}") for i in range(51)]
    assert statuses == [401] * 50 + [429]  # all counted against 127.0.0.1


def test_x_forwarded_for_is_believed_from_a_trusted_proxy(tmp_path):
    from cranfield.service.db import open_database

    open_database(str(tmp_path / "p.db")).close()
    with Server(tmp_path / "p.db", "--trusted-proxy", "127.0.0.1", cwd=tmp_path) as server:
        statuses = [wrong_login(server, f"10.9.0.{i}") for i in range(11)]
    assert statuses == [401] * 11  # eleven clients behind the proxy


def test_a_trusted_proxy_must_be_an_address(cli, tmp_path):
    status, _out, err = cli("serve", str(tmp_path / "x.db"), "--trusted-proxy", "proxy.example")
    assert status == 2 and err.count("\n") == 1
    assert "--trusted-proxy" in err and "IP address" in err
    assert not (tmp_path / "x.db").exists()


def test_several_workers_share_the_login_throttle(tmp_path):
    """Two worker processes behind one SQLite database: the throttle lives in the
    database, so wrong logins count the same whichever worker answers."""
    from cranfield.service.db import open_database

    open_database(str(tmp_path / "w.db")).close()
    with Server(tmp_path / "w.db", "--workers", "2", cwd=tmp_path) as server:
        statuses = [wrong_login(server, "") for _ in range(11)]
        with urllib.request.urlopen(server.url + "/api/health", timeout=30) as r:
            assert r.status == 200
    assert statuses == [401] * 10 + [429]


def test_workers_must_be_a_sane_number(cli, tmp_path):
    status, _out, err = cli("serve", str(tmp_path / "x.db"), "--workers", "0")
    assert status == 2 and "--workers" in err and err.count("\n") == 1


def test_the_test_servers_hash_at_small_costs_unless_told_otherwise():
    """The helper's switch reaches a fresh interpreter of the server (the folder on its
    PYTHONPATH), and only when asked."""
    code = "from cranfield.service import security; print(security.ARGON2_PARAMETERS)"
    seen = [
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONPATH": Server(cheap_hashing=cheap).path},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for cheap in (True, False)
    ]
    assert seen == ["{'time_cost': 1, 'memory_cost': 1024, 'parallelism': 1}", "{}"]
