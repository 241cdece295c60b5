"""The engine's click-log reader against a plain parse written here, on generated logs
(unicode ids, CRLF, blank lines, empty click lists, numeric ids), and fitted PBM
parameters equal to those fitted on the independently parsed arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.clicks import fit
from cranfield.clicks.log import from_arrays, read_log

IDS = ["a", "b", "é", "日本", "d 1".replace(" ", "_"), "x,y".replace(",", "-"), "7", "Ω"]


def _sessions(rng, n):
    out = []
    for _ in range(n):
        k = int(rng.integers(1, 6))
        docs = list(rng.choice(IDS, size=k, replace=False))
        out.append((str(rng.choice(["q1", "q2", "ключ", "3"])), docs, rng.random(k) < 0.3))
    return out


def _independent(sessions):
    """Codes by first appearance, n x K padded: the arrays a reader must give."""
    qn, dn = {}, {}
    k = max(len(d) for _, d, _ in sessions)
    docs = np.full((len(sessions), k), -1)
    clicks = np.zeros((len(sessions), k), dtype=bool)
    query = [qn.setdefault(q, len(qn)) for q, _, _ in sessions]
    for i, (_, d, c) in enumerate(sessions):
        docs[i, : len(d)] = [dn.setdefault(x, len(dn)) for x in d]
        clicks[i, : len(d)] = c
    return from_arrays(query, docs, clicks, list(qn), list(dn))


def _write(path, fmt, sessions, rng):
    end = "\r\n" if rng.random() < 0.5 else "\n"
    lines = []
    for q, d, c in sessions:
        if fmt == "jsonl":
            rec = {"query": int(q) if q.isdigit() else q, "docs": d}
            if rng.random() < 0.5:
                rec["clicks"] = [int(x) for x in c]
            else:
                rec["clicked"] = [i + 1 for i, x in enumerate(c) if x]
            lines.append(json.dumps(rec, ensure_ascii=bool(rng.random() < 0.5)))
            if rng.random() < 0.1:
                lines.append("  ")
        elif fmt == "tsv":
            lines.append(f"{q}\t{' '.join(d)}\t{' '.join(str(int(x)) for x in c)}")
        else:  # pyclick
            clicked = " , ".join(x for x, f in zip(d, c, strict=True) if f)
            lines.append(f"{q}\t{','.join(d)} : {clicked};")
    head = "query\tdocs\tclicks" + end if fmt == "tsv" else ""
    path.write_bytes((head + end.join(lines) + end).encode())


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "pyclick"])
def test_engine_reader_equals_an_independent_parse(tmp_path, fmt):
    rng = np.random.default_rng(39)
    for case in range(100):
        sessions = _sessions(rng, int(rng.integers(1, 12)))
        path = tmp_path / f"{case}.{fmt}"
        _write(path, fmt, sessions, rng)
        got, want = read_log(path, fmt), _independent(sessions)
        assert got.query_names.tolist() == want.query_names.tolist()
        assert got.doc_names.tolist() == want.doc_names.tolist()
        assert np.array_equal(got.query, want.query)
        assert np.array_equal(got.docs, want.docs)
        assert np.array_equal(got.clicks, want.clicks)


def test_fitted_parameters_equal(tmp_path):
    rng = np.random.default_rng(7)
    sessions = _sessions(rng, 300)
    path = tmp_path / "log.jsonl"
    _write(path, "jsonl", sessions, rng)
    a = fit(read_log(path), "pbm", max_iter=20)
    b = fit(_independent(sessions), "pbm", max_iter=20)
    for name, values in a.params.pair.items():
        assert np.array_equal(values, b.params.pair[name])
    for name, values in a.params.rank.items():
        assert np.array_equal(values, b.params.rank[name])
