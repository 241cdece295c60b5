"""The label cache of a machine assessor: one SQLite file, one row per label paid for.

Each label is stored, in its own transaction, as soon as the answer arrives, keyed by the
model, the hash of the full prompt sent (template, topic and document text), the topic,
the document and the sample number. SQLite commits atomically (its journal), so a run that
is interrupted, killed or ends with an error keeps every label it received, and a rerun
asks only for the others: a rerun of a finished job costs nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3

from ..errors import InputError, OutputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS labels (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    topic TEXT NOT NULL,
    document TEXT NOT NULL,
    sample INTEGER NOT NULL,
    label INTEGER NOT NULL,
    answer TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
)
"""


def cache_key(model: str, prompt: str, topic: str, document: str, sample: int) -> str:
    """SHA-256 of the model, the prompt sent, the topic, the document and the sample."""
    parts = (model, prompt, topic, document, str(sample))
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()


class LabelCache:
    """Labels already paid for, in the SQLite file ``path`` (created when missing)."""

    def __init__(self, path) -> None:
        self.path = str(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise InputError(f"not a usable label cache (SQLite: {exc})", self.path) from None

    def get(self, keys: list[str]) -> dict[str, tuple[int, int, int]]:
        """``{key: (label, prompt_tokens, completion_tokens)}`` of the keys cached."""
        out: dict[str, tuple[int, int, int]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                "SELECT key, label, prompt_tokens, completion_tokens FROM labels "
                f"WHERE key IN ({marks})",
                chunk,
            )
            out.update({k: (lab, p, c) for k, lab, p, c in rows})
        return out

    def put(
        self,
        key: str,
        model: str,
        topic: str,
        document: str,
        sample: int,
        label: int,
        answer: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        """Store one label (committed before this returns)."""
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    topic,
                    document,
                    sample,
                    label,
                    answer,
                    prompt_tokens,
                    completion_tokens,
                ),
            )
        except sqlite3.Error as exc:
            raise OutputError(f"cannot store a label in the cache ({exc})", self.path) from None

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM labels").fetchone()[0])

    def close(self) -> None:
        self._db.close()
