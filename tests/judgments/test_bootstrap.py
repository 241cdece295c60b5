"""The agreement bootstrap against a plain reference: the same draws
(``default_rng(seed).integers``, chunk by chunk), each replicate's statistics computed
from its resampled rows of counts, one replicate at a time."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cranfield.judgments import agreement as ag

from .conftest import random_judgments


def plain_bootstrap(counts, values, level, replicates, confidence, seed, chunk_rows):
    """Efron & Tibshirani's percentile bootstrap written out: per replicate, the items
    drawn with replacement, their statistics, then the quantiles of the defined ones."""
    n = len(counts)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, chunk_rows // n)
    values_of = {s: [] for s in ag.STATISTICS}
    done = 0
    while done < replicates:
        b = min(per_chunk, replicates - done)
        for draw in rng.integers(0, n, size=(b, n)):
            stats = ag.count_statistics(counts[draw], None, 1, values, level)
            for s in ag.STATISTICS:
                values_of[s].append(stats[s][0])
        done += b
    out = {}
    for s in ag.STATISTICS:
        v = np.array(values_of[s])
        v = v[np.isfinite(v)]
        if len(v) < replicates / 2:
            out[s] = (np.nan, np.nan)
        else:
            lo, hi = np.quantile(v, [(1 - confidence) / 2, (1 + confidence) / 2])
            out[s] = (lo, hi)
    return out


@pytest.mark.parametrize("seed", range(25))
def test_the_bootstrap_gives_the_plain_bootstraps_intervals(seed):
    rng = np.random.default_rng(seed)
    j, _ = random_judgments(rng)
    level = ("nominal", "ordinal", "interval", "ratio")[seed % 4]
    replicates = int(rng.integers(1, 60))
    chunk_rows = int(rng.choice([1, 37, 1_000_000]))
    counts, values = j.counts(), j.scale.values
    got = ag.bootstrap(
        counts,
        values=values,
        level=level,
        replicates=replicates,
        confidence=0.9,
        seed=seed,
        chunk_rows=chunk_rows,
    )
    want = plain_bootstrap(counts, values, level, replicates, 0.9, seed, chunk_rows)
    for s in ag.STATISTICS:
        np.testing.assert_allclose(got[s], want[s], rtol=1e-12, atol=1e-14, err_msg=s)


@pytest.mark.parametrize("seed", range(10))
def test_weighted_rows_are_their_copies(seed):
    rng = np.random.default_rng(seed)
    j, _ = random_judgments(rng)
    counts = j.counts()
    times = rng.integers(0, 4, len(counts))
    group = rng.integers(0, 3, len(counts))
    copies = np.repeat(np.arange(len(counts)), times)
    level = ("nominal", "ordinal", "interval", "ratio")[seed % 4]
    got = ag.count_statistics(counts, group, 3, j.scale.values, level, weights=times)
    want = ag.count_statistics(counts[copies], group[copies], 3, j.scale.values, level)
    for s in got:
        np.testing.assert_allclose(got[s], want[s], rtol=1e-12, atol=1e-14, err_msg=s)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bootstrap_draws_a_bar_on_a_terminal_only(monkeypatch):
    j, _ = random_judgments(np.random.default_rng(0), items=20, assessors=3)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    ag.bootstrap(j.counts(), replicates=50, chunk_rows=20 * 10)
    drawn = terminal.getvalue()
    assert "bootstrap [" in drawn and "50/50" in drawn
    assert drawn.endswith("\r")  # the line cleared at the end
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    ag.bootstrap(j.counts(), replicates=50)
    assert pipe.getvalue() == ""
