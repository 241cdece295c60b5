"""Kernels that read only pooled / relevant / non-zero-gain positions give the very
same bits as the whole-ranking formulas (trec_eval's loops over every document).

Each reference below is the dense formula: a term for every ranked document, summed
left to right with ``segments.sequential_sum`` (a C-like loop). Inputs: random runs
with ties, unjudged (-2) and unpooled documents, empty rankings, custom gains that
name -1, -2, fractional and negative gains.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.core import segments
from cranfield.core.judged import judge
from cranfield.core.measures import gain as gain_mod
from cranfield.core.measures import precision, user_models
from cranfield.core.measures.gain import Ideal, gain_of
from cranfield.core.measures.registry import Measure
from cranfield.core.qrels import Qrels
from generators import run_from_rows, sparse_case


def _case(seed: int, uniform: bool = False):
    qrels, rows, complete = sparse_case(seed, uniform)
    return judge(Qrels.from_dict(qrels), run_from_rows(rows), complete=complete)


def _same(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


def _dense_dcg(jr, gains, cutoff=None):
    return segments.sequential_sum(gain_mod.dcg_terms(jr, gains, cutoff), jr.offsets)


def _dense_bpref(jr, lv):
    labels = jr.labels
    judged = labels >= 0
    nonrel = judged & (labels < lv)
    relevant = judged & (labels >= lv)
    nonrel_so_far = segments.int_cumsum(nonrel, jr.offsets)
    num_rel = jr.num_rel(lv)
    r = num_rel[jr.segment]
    denom = np.minimum(jr.num_judged_nonrel(lv), num_rel)[jr.segment].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 - np.minimum(nonrel_so_far, r) / denom
    term = np.where(relevant, np.where(nonrel_so_far > 0, term, 1.0), 0.0)
    return precision.safe_div(segments.sequential_sum(term, jr.offsets), num_rel)


def _dense_rbp(jr, p, gains):
    g = user_models._normalised_gains(jr, gains, jr.labels, jr.segment)
    weights = segments.powers(p, max(jr.max_len, 1))[jr.rank - 1]
    return (1.0 - p) * segments.sequential_sum(np.where(g != 0, g * weights, 0.0), jr.offsets)


def _dense_rbp_resid(jr):
    table = segments.powers(0.9, max(jr.max_len, 1) + 1)
    unjudged = jr.labels < 0
    total = segments.sequential_sum(np.where(unjudged, table[jr.rank - 1], 0.0), jr.offsets)
    value = table[jr.num_ret] + (1.0 - 0.9) * total
    return np.where((segments.int_sum(unjudged, jr.offsets) > 0) & jr.in_run, value, 0.0)


GAINS = [(), ((1, 0.5), (2, 3.0)), ((-1, 0.25), (2, 3.0)), ((-2, 1.0), (0, -1.0)), ((3, 7.0),)]


@pytest.mark.parametrize("seed", range(40))
def test_sparse_kernels_equal_dense_formulas(seed):
    jr = _case(seed, uniform=seed % 3 == 0)
    for gains in GAINS:
        _same(gain_mod._dcg(jr, gains), _dense_dcg(jr, gains))
        for k in (1, 5, 20):
            _same(gain_mod._dcg(jr, gains, k), _dense_dcg(jr, gains, k))
        _same(gain_mod.g_measure(jr, None, gains), gain_mod._g_dense(jr, Ideal(jr, gains), gains))
        _same(user_models.rbp(jr, None, 0.8, gains), _dense_rbp(jr, 0.8, gains))
    _same(user_models.rbp_resid(jr, None), _dense_rbp_resid(jr))
    for lv in (0, 1, 2):
        _same(precision.bpref(jr, None, lv), _dense_bpref(jr, lv))
        unj = segments.int_sum((jr.labels < 0) & (jr.rank <= 5), jr.offsets) / 5.0
        _same(precision.unjudged_at(jr, 5), unj)
        hits = jr.relevant(lv)
        for k in (1, 3, 10):
            dense = segments.int_sum(hits & (jr.rank <= k), jr.offsets) / float(k)
            _same(Measure.of("P", cutoff=k, rel=lv).compute(jr), dense)


def test_gain_free_ranks_are_not_read():
    """ndcg_rel's running DCG at the last non-zero term equals the DCG of the whole ranking."""
    jr = _case(7)
    pos, g, cum = gain_mod._dcg_cumulative(jr)
    last = pos.offsets[1:] - 1
    has = np.diff(pos.offsets) > 0
    _same(np.where(has, cum[np.maximum(last, 0)] if len(cum) else 0.0, 0.0), _dense_dcg(jr, ()))
    assert np.all(gain_of(jr.labels[pos.idx]) != 0)


def test_rbp_resid_in_row_blocks():
    """Equal-length rankings of more than 1M documents are summed in several blocks."""
    rng = np.random.default_rng(3)
    nq, depth = 300, 4000
    rows = []
    for q in range(nq):
        docs = rng.permutation(6000)[:depth]
        rows += [(f"q{q:03d}", f"d{d}", float(depth - i)) for i, d in enumerate(docs)]
    qrels = {
        f"q{q:03d}": {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(6000, 50)}
        for q in range(nq)
    }
    jr = judge(Qrels.from_dict(qrels), run_from_rows(rows))
    assert len(jr.labels) > 1 << 20
    _same(user_models.rbp_resid(jr, None), _dense_rbp_resid(jr))
