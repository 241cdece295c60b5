"""Random judgment tables shared by the judgments tests."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from cranfield.judgments.data import Judgments, Scale


def random_judgments(rng, items=None, assessors=None, labels=None, missing=None):
    """A random table: items × assessors, some judgments missing; returns Judgments and
    the assessors × items matrix of codes (NaN missing) in the Judgments' numbering."""
    u = int(items or rng.integers(1, 30))
    a = int(assessors or rng.integers(1, 6))
    k = int(labels or rng.integers(1, 5))
    m = rng.integers(0, k, size=(a, u)).astype(float)
    m[rng.random((a, u)) < (rng.random() * 0.6 if missing is None else missing)] = np.nan
    ai, ui = np.nonzero(~np.isnan(m))
    if len(ai) == 0:
        m[0, 0], ai, ui = 0, np.array([0]), np.array([0])
    table = pa.table(
        {
            "topic": [f"t{x % 3}" for x in ui],
            "document": [f"d{x}" for x in ui],
            "assessor": [f"a{x}" for x in ai],
            "label": m[ai, ui].astype(int),
        }
    )
    j = Judgments.from_table(table, scale=Scale(tuple(range(k))))
    mat = np.full((j.n_assessors, j.n_items), np.nan)
    mat[j.assessor, j.item] = j.label
    return j, mat


@pytest.fixture
def rng():
    return np.random.default_rng(20001)
