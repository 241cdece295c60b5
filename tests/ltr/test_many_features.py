"""Sparse files with large feature indexes and many features (issue 30 §4).

The rankers keep O(F) state except the Nelder-Mead simplex (F + 1 vectors of F weights,
``mga`` and ``nelder-mead``): those refuse more than ``SIMPLEX_MAX_FEATURES`` features
with one line before any work, where they used to run out of memory. Everything runs in
a subprocess under an address-space limit; no wall-clock assertion.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from tests.adversarial.harness import assert_clean_failure, assert_success, run_cli

from cranfield.errors import CranfieldError
from cranfield.ltr.rankers import SIMPLEX_MAX_FEATURES, train
from cranfield.ltr.readers import read

from .helpers import random_data

MEMORY = 2_000 << 20


def _write(path, x, labels, qids, first_index=1):
    """SVMlight lines with the non-zero features of ``x``, numbered from ``first_index``."""
    lines = []
    for row, label, qid in zip(x, labels, qids, strict=True):
        nz = np.flatnonzero(row)
        pairs = " ".join(f"{first_index + j}:{float(row[j])!r}" for j in nz)
        lines.append(f"{label} qid:{qid} {pairs}".rstrip())
    path.write_text("\n".join(lines) + "\n")


def _sparse(rng, docs, features, per_row=20):
    x = np.zeros((docs, features))
    for i in range(docs):
        x[i, rng.choice(features, per_row, replace=False)] = rng.random(per_row)
    return x


@pytest.mark.parametrize("method", ["coordinate-ascent", "ga", "random-search", "lightgbm"])
def test_feature_index_100000_trains_in_bounded_memory(tmp_path, method):
    pytest.importorskip("lightgbm") if method == "lightgbm" else None
    rng = np.random.default_rng(1)
    x = _sparse(rng, 40, 50, 5)
    x[:, -1] = rng.random(40)  # the last feature: index 100000 below
    _write(tmp_path / "t.txt", x, rng.integers(0, 3, 40), np.repeat(np.arange(8), 5),
           first_index=100_000 - 49)  # fmt: skip
    out = run_cli("ltr", "train", "--method", method, "--budget", "50", tmp_path / "t.txt",
                  "-o", tmp_path / "m.json", memory=MEMORY, timeout=600)  # fmt: skip
    assert_success(out)
    assert json.loads((tmp_path / "m.json").read_text())["num_features"] == 100_000


def test_twenty_thousand_features_train_or_are_refused_in_one_line(tmp_path):
    rng = np.random.default_rng(2)
    x = _sparse(rng, 200, 20_000)
    _write(tmp_path / "t.txt", x, rng.integers(0, 3, 200), np.repeat(np.arange(20), 10))
    for method in ("mga", "nelder-mead"):  # mga is the default
        out = run_cli("ltr", "train", "--method", method, tmp_path / "t.txt", "-o",
                      tmp_path / "m.json", memory=MEMORY, timeout=600)  # fmt: skip
        assert_clean_failure(out, f"at most {SIMPLEX_MAX_FEATURES:,} features", "20,000",
                             "coordinate-ascent")  # fmt: skip
        assert not (tmp_path / "m.json").exists()
    out = run_cli("ltr", "train", "--method", "coordinate-ascent", "--budget", "2000",
                  tmp_path / "t.txt", "-o", tmp_path / "m.json", memory=MEMORY,
                  timeout=600)  # fmt: skip
    assert_success(out)
    model = json.loads((tmp_path / "m.json").read_text())
    assert model["num_features"] == 20_000 and len(model["weights"]) == 20_000


def test_the_limit_is_checked_before_any_work():
    data = random_data(3)
    wide = replace(data, features=np.zeros((data.num_docs, SIMPLEX_MAX_FEATURES + 1)))
    for method in ("mga", "nelder-mead"):
        with pytest.raises(CranfieldError, match="Nelder-Mead simplex"):
            train(wide, method, budget=10)
    at_limit = replace(data, features=np.zeros((data.num_docs, SIMPLEX_MAX_FEATURES)))
    assert train(at_limit, "nelder-mead", budget=5).num_features == SIMPLEX_MAX_FEATURES


def test_high_indexes_read_as_the_compact_file_shifted(tmp_path):
    """The same values at indexes 1.. and 99,951..100,000: the same columns, zeros
    before them; LightGBM (which drops all-zero columns) scores both alike."""
    lgb = pytest.importorskip("lightgbm")
    del lgb
    rng = np.random.default_rng(3)
    x = _sparse(rng, 60, 50, 8)
    labels, qids = rng.integers(0, 3, 60), np.repeat(np.arange(12), 5)
    _write(tmp_path / "c.txt", x, labels, qids)
    _write(tmp_path / "w.txt", x, labels, qids, first_index=100_000 - 49)
    compact, wide = read(tmp_path / "c.txt"), read(tmp_path / "w.txt")
    assert wide.num_features == 100_000
    dense = wide.features.toarray()  # read sparse: 400 values in 6,000,000 cells
    assert not dense[:, : 100_000 - 50].any()
    assert np.array_equal(dense[:, -50:][:, : compact.num_features], compact.features)
    a = train(compact, "lightgbm", params={"trees": 10})
    b = train(wide, "lightgbm", params={"trees": 10})
    assert np.array_equal(a.scores(compact), b.scores(wide))
