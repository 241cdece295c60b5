"""rust/ltr's batched kernel computes ten measure families itself (a copy of the
engine's kernels, kept because it is far faster: benchmarks/ltr.py ``--part kernels``);
this test holds the copy equal to the engine's kernels, bit for bit, per query, on
measures generated from each family's declaration (tests/generators.py).

The reference side is ``backend="general"``: the rankings as one JudgedRun, every measure
computed by the engine's measure kernels (rust/eval), as ``cranfield.evaluate`` does.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.core.measures.registry import lookup
from cranfield.ltr import compiled
from cranfield.ltr.objective import Objective
from generators import measure_variants

from .helpers import random_data


def _supported(family: str, labels: np.ndarray) -> list:
    return [
        m for m in measure_variants(lookup(family)) if compiled._trec_spec(m, labels) is not None
    ]


@pytest.mark.parametrize("family", compiled.FAMILIES)
def test_kernel_equals_the_engines_measure_kernels(family):
    checked = 0
    for seed in range(4):
        data = random_data(300 + seed, levels=3 + seed % 3, max_docs=25)
        w = np.random.default_rng(seed).integers(-2, 3, size=(5, data.num_features)) * 1.0
        w[0] = 0.0  # every score tied
        for m in _supported(family, data.labels):
            fast = Objective(data, str(m), backend="engine")
            assert fast.kernel is not None, str(m)
            slow = Objective(data, str(m), backend="general")
            got, want = fast.per_query(w)[0], slow.per_query(w)[0]
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), str(m)
            assert np.array_equal(fast(w), slow(w)), str(m)
            checked += 1
    assert checked >= 4, f"{family}: the generator gave no measure the kernel computes"
