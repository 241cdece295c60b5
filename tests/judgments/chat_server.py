"""A chat-completions server on 127.0.0.1 for the machine-assessor tests (no internet).

Its labels come from a seeded noisy labeller: each document's text holds its true grade
(``truth=G``), and the server answers the true grade with probability ``accuracy``,
another grade otherwise, drawn from a generator seeded by the prompt and the request's
``seed`` (so the same request always gets the same answer, as a model at temperature 0). ``script`` makes the
next requests fail: each entry is ``"429"``, ``"500"``, ``"401"``, ``"garbage"``
(a body that is not JSON), ``"nolabel"`` (a reply without a grade) or ``"slow"``
(answers after ``slow_seconds``).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


class ChatServer:
    def __init__(self, accuracy: float = 0.8, grades=(0, 1, 2, 3), seed: int = 0) -> None:
        self.accuracy = accuracy
        self.grades = tuple(grades)
        self.seed = seed
        self.script: list[str] = []
        self.retry_after = "0"
        self.slow_seconds = 2.0
        self.requests = 0
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    server.requests += 1
                    server.bodies.append(body)
                    server.headers.append(dict(self.headers))
                    action = server.script.pop(0) if server.script else "ok"
                if action in ("429", "500", "401"):
                    self.send_response(int(action))
                    if action == "429":
                        self.send_header("Retry-After", server.retry_after)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(json.dumps({"error": {"message": f"test {action}"}}).encode())
                    return
                if action == "slow":
                    time.sleep(server.slow_seconds)
                if action == "garbage":
                    self._send(b"<html>not json</html>")
                    return
                text = server.answer(body["messages"][-1]["content"], body.get("seed"))
                if action == "nolabel":
                    text = "I cannot decide."
                reply = {
                    "choices": [{"message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 7},
                }
                self._send(json.dumps(reply).encode())

            def _send(self, data: bytes) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, prompt: str, seed=None) -> str:
        truth = int(re.search(r"truth=(\d+)", prompt).group(1))
        digest = hashlib.sha256(f"{self.seed}\x00{seed}\x00{prompt}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        grade = truth
        if rng.random() >= self.accuracy:
            others = [g for g in self.grades if g != truth]
            grade = others[int(rng.integers(len(others)))]
        return f"M=2, T=1.\n##final score: {grade}"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
