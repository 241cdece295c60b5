"""Simulated assessors for load tests and the latency benchmark (localhost only).

Each assessor is a thread with one keep-alive HTTP connection (the standard library's
``http.client``): it logs in, then repeatedly asks for its next pair and saves a label
with an ``Idempotency-Key``. A request that fails (the server went away, a timeout, a
5xx) is sent again, unchanged and with the same key, until it is acknowledged, so
"acknowledged" means the server answered 200/201. Some saves are sent twice on purpose
(a client retrying after a lost answer) and some labels are changed afterwards (the
history). :func:`run_assessors` returns what was acknowledged and the latencies.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Outcome:
    """What the simulated assessors saw.

    ``acknowledged[(assessor, topic, document)]`` is the last label the server
    acknowledged; ``latencies["next"]`` / ``["save"]`` are seconds per successful
    request; ``retries`` counts requests sent again after a failure.
    """

    acknowledged: dict = field(default_factory=dict)
    latencies: dict = field(default_factory=lambda: {"next": [], "save": []})
    retries: int = 0
    replays: int = 0
    changes: int = 0
    finished: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class _Client:
    def __init__(self, base: str, timeout: float):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port or 80
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.token: str | None = None

    def request(self, method: str, path: str, body=None, headers=None) -> tuple[int, bytes]:
        h = {"Content-Type": "application/json"} if body is not None else {}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(headers or {})
        data = None if body is None else json.dumps(body)
        reused = self.conn is not None
        try:
            return self._send(method, path, data, h)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            if not reused:
                raise
        # the server closed the idle keep-alive connection (uvicorn after 5 s): send again
        # at once on a new one, as browsers do (every request here is idempotent)
        return self._send(method, path, data, h)

    def _send(self, method: str, path: str, data, headers) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.conn.request(method, path, data, headers)
            r = self.conn.getresponse()
            return r.status, r.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise


def _until_answered(client: _Client, out: Outcome, deadline: float, *args, **kw):
    """Send a request until the server answers (not 5xx); None when time is up."""
    while time.monotonic() < deadline:
        try:
            status, body = client.request(*args, **kw)
            if status < 500:
                return status, body
        except (OSError, http.client.HTTPException):
            pass
        with out.lock:
            out.retries += 1
        time.sleep(0.05)
    return None


def _assessor(base, user, password, campaign, seconds, out, seed, timeout, grace, think):
    rng = random.Random(seed)
    client = _Client(base, timeout)
    deadline = time.monotonic() + seconds
    hard = deadline + grace  # an unacknowledged save may be retried this long after
    answer = _until_answered(
        client, out, hard, "POST", "/api/session", {"username": user, "password": password}
    )
    if answer is None or answer[0] != 200:
        raise RuntimeError(f"{user} could not log in: {answer}")
    client.token = json.loads(answer[1])["token"]
    path = f"/api/campaigns/{campaign}"
    while time.monotonic() < deadline:
        if think:
            time.sleep(min(rng.expovariate(1 / think), max(0.0, deadline - time.monotonic())))
        t0 = time.perf_counter()
        answer = _until_answered(client, out, deadline, "GET", path + "/next")
        if answer is None:
            break
        if answer[0] == 204:
            with out.lock:
                out.finished += 1
            break
        took = time.perf_counter() - t0
        view = json.loads(answer[1])
        labels = [x["value"] for x in view["scale"]]
        pair, key = view["pair"], (user, view["topic"]["id"], view["document"]["id"])
        for change in (False, True):
            label = rng.choice(labels)
            ikey = uuid.uuid4().hex
            t1 = time.perf_counter()
            saved = _until_answered(
                client,
                out,
                hard,
                "PUT",
                f"{path}/judgments/{pair}",
                {"label": label},
                {"Idempotency-Key": ikey},
            )
            if saved is None:
                break
            if saved[0] not in (200, 201):
                raise RuntimeError(f"{user}: saving pair {pair} answered {saved}")
            with out.lock:
                out.acknowledged[key] = label
                out.latencies["save"].append(time.perf_counter() - t1)
                out.latencies["next"].append(took)
                if change:
                    out.changes += 1
            if rng.random() < 0.1:  # a client that lost the answer sends it again
                again = _until_answered(
                    client,
                    out,
                    hard,
                    "PUT",
                    f"{path}/judgments/{pair}",
                    {"label": label},
                    {"Idempotency-Key": ikey},
                )
                if again is not None and again[0] != saved[0]:
                    raise RuntimeError(
                        f"{user}: a replayed save answered {again[0]}, first {saved[0]}"
                    )
                with out.lock:
                    out.replays += 1
            if rng.random() >= 0.1:  # most labels are not changed
                break


def run_assessors(
    base: str,
    accounts: list[tuple[str, str]],
    campaign: str,
    seconds: float,
    *,
    timeout: float = 30.0,
    grace: float = 60.0,
    think: float = 0.0,
) -> Outcome:
    """Run one thread per ``(user, password)`` against the server at ``base`` for
    ``seconds``; returns the :class:`Outcome`. Errors of any assessor are raised.

    ``think``: mean seconds an assessor reads before judging (exponential; 0: none, each
    assessor sends its next request as soon as the last is answered)."""
    out = Outcome()
    errors: list[BaseException] = []

    def target(i, user, password):
        try:
            _assessor(base, user, password, campaign, seconds, out, i, timeout, grace, think)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=target, args=(i, u, p), daemon=True)
        for i, (u, p) in enumerate(accounts)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + grace + timeout + 10)
    if errors:
        raise errors[0]
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q`` percentile (0-100) by the nearest-rank method."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[rank - 1]
