"""``compare(..., engine="dask")`` gives the local numbers exactly: every pair's
randomisation and bootstrap p-values and bootstrap interval are computed in a worker
with the same settings (the same seed for every pair), the correction on the client."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.compare import compare
from cranfield.errors import ParameterError


def scores(seed: int, runs: int = 5, queries: int = 30) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for measure in ("AP", "nDCG@10"):
        base = rng.random(queries)
        out[measure] = {
            f"r{i}": {
                f"q{q}": float(v)
                for q, v in enumerate(np.clip(base + rng.normal(0, 0.1, queries) * i, 0, 1))
            }
            for i in range(runs)
        }
    return out


@pytest.mark.parametrize(
    "settings",
    [
        dict(tests=("randomization", "bootstrap", "t"), baseline=None, ci="bootstrap"),
        dict(tests=("bootstrap", "wilcoxon", "tukey"), baseline="r0", alternative="two-sided"),
        dict(tests=("randomization",), baseline=None, alternative="greater", seed=7),
    ],
)
def test_pairs_equal_local(dask_client, settings):
    data = scores(len(settings["tests"]))
    local = compare(data, n_permutations=500, **settings)
    dist = compare(data, n_permutations=500, engine="dask", client=dask_client, **settings)
    assert repr(dist.rows) == repr(local.rows)
    assert dist.means == local.means
    assert len(local.rows) >= 8


def test_compare_command_equal_local(cli, dask_client, sample_paths):
    qrels, *runs = sample_paths
    argv = ["compare", qrels, *runs, "-m", "AP", "--test", "randomization", "--test", "bootstrap"]
    argv += ["--permutations", "500", "--format", "csv", "--complete"]
    local = cli(*argv)
    dist = cli(*argv, "--scheduler", dask_client.scheduler.address)
    assert local[0] == 0 and dist == local


def test_bad_engine():
    with pytest.raises(ParameterError, match="engine"):
        compare(scores(0, 2), engine="spark")
