"""The sparse SVMlight reader against scikit-learn's ``load_svmlight_file`` (the
reference reader of the format in Python) and LightGBM's sparse input.

Conventions checked (docs/ltr.md): 1-based indices (``zero_based=False``); index 0 and
negative indices refused by both; a feature index listed twice on a line refused by
both (scikit-learn: "should be sorted and unique"; cranfield also accepts indices out of
order, which scikit-learn refuses); a feature not listed is the value 0; explicit zeros
are kept as written.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError
from cranfield.ltr.readers import read_svmlight
from cranfield.ltr.sparse import SparseFeatures

sklearn_svmlight = pytest.importorskip("sklearn.datasets")


def _lines(seed: int, docs: int, features: int, per_row: int) -> tuple[bytes, np.ndarray]:
    """Random sorted sparse rows with wide indices, explicit zeros and negative values."""
    rng = np.random.default_rng(seed)
    out, labels = [], rng.integers(0, 5, docs)
    qid = 1
    for i in range(docs):
        if rng.random() < 0.2:
            qid += int(rng.integers(1, 5))
        k = int(rng.integers(0, per_row + 1))
        idx = np.unique(rng.integers(1, features + 1, k))
        vals = rng.normal(size=len(idx)) * 10.0 ** rng.integers(-5, 6, len(idx))
        vals[rng.random(len(idx)) < 0.1] = 0.0
        pairs = " ".join(f"{j}:{float(v)!r}" for j, v in zip(idx, vals, strict=True))
        out.append(f"{labels[i]} qid:{qid} {pairs}".rstrip())
    return ("\n".join(out) + "\n").encode(), labels


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("features", [50, 100_000, 2**31 - 1])
def test_sparse_rows_are_scikit_learns(tmp_path, seed, features):
    text, labels = _lines(seed, docs=150, features=features, per_row=12)
    path = tmp_path / "t.txt"
    path.write_bytes(text)
    x, y, q = sklearn_svmlight.load_svmlight_file(
        str(path), zero_based=False, query_id=True, n_features=features, dtype=np.float64
    )
    ours = read_svmlight(path, layout="sparse").with_features(features)
    s = ours.features
    assert isinstance(s, SparseFeatures)
    # queries here are consecutive and in increasing order: the input order is kept
    assert ours.labels.tolist() == y.astype(int).tolist() == labels.tolist()
    assert np.repeat(ours.query_ids, np.diff(ours.offsets)).astype(int).tolist() == q.tolist()
    assert s.shape == x.shape
    assert s.indptr.tolist() == x.indptr.tolist()
    assert s.indices.tolist() == x.indices.tolist()
    assert s.values.view(np.int64).tolist() == x.data.view(np.int64).tolist()  # bit for bit


@pytest.mark.parametrize(
    "line",
    [b"1 qid:1 0:1\n", b"1 qid:1 -3:1\n", b"1 qid:1 4:1 4:2\n", b"1 qid:1 2:1 9:0.5 2:1\n"],
)
def test_indices_scikit_learn_refuses_are_refused(tmp_path, line):
    path = tmp_path / "bad.txt"
    path.write_bytes(line)
    with pytest.raises(ValueError):
        sklearn_svmlight.load_svmlight_file(str(path), zero_based=False, query_id=True)
    with pytest.raises(InputError, match="bad.txt:1: "):
        read_svmlight(path, layout="sparse")


@pytest.mark.parametrize("seed", range(3))
def test_lightgbm_reads_the_sparse_rows_as_the_dense_matrix(tmp_path, seed):
    """LightGBM fed our CSR (via SciPy) predicts what it predicts on the dense matrix:
    absent entries are zeros to it, as in cranfield's convention."""
    lgb = pytest.importorskip("lightgbm")
    text, labels = _lines(seed, docs=300, features=40, per_row=10)
    sparse = read_svmlight(text, layout="sparse")
    dense = read_svmlight(text, layout="dense")
    groups = np.diff(dense.offsets)
    opts = {"objective": "lambdarank", "verbosity": -1, "num_threads": 1, "seed": 1,
            "deterministic": True, "min_data_in_leaf": 5}  # fmt: skip
    a = lgb.train(opts, lgb.Dataset(dense.features, dense.labels, group=groups), 10)
    b = lgb.train(opts, lgb.Dataset(sparse.features.to_scipy(), sparse.labels, group=groups), 10)
    pa = a.predict(dense.features, num_threads=1)
    pb = b.predict(sparse.features.to_scipy(), num_threads=1)
    assert pa.tolist() == pb.tolist()
