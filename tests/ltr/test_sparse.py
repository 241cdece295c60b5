"""Sparse feature rows (issue 30 §4): the dense and sparse paths give the same numbers,
large indices read and train, and memory follows the values listed.

The oracle of the sparse path is the dense path (NumPy arrays through the SIMD panel
kernels, checked elsewhere against NumPy and the reference evaluators), and of
:class:`SparseFeatures` itself SciPy's ``csr_matrix`` and plain NumPy. No wall-clock
assertion; the memory figures are the child process's peak resident set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from tests.adversarial.harness import SRC, assert_success, run_cli

from cranfield.ltr.data import query_min_max
from cranfield.ltr.model import Model
from cranfield.ltr.objective import Objective
from cranfield.ltr.rankers import RANKERS, train
from cranfield.ltr.readers import read_svmlight
from cranfield.ltr.scoring import linear_scores
from cranfield.ltr.sparse import SparseFeatures

from .helpers import TEN_MILLION, random_data


def _svmlight(x, labels, qids, first_index=1) -> bytes:
    """SVMlight lines listing the non-zero features of ``x`` (in a shuffled order)."""
    rng = np.random.default_rng(0)
    lines = []
    for row, label, qid in zip(x, labels, qids, strict=True):
        nz = rng.permutation(np.flatnonzero(row))
        pairs = " ".join(f"{first_index + j}:{float(row[j])!r}" for j in nz)
        lines.append(f"{label} qid:{qid} {pairs}".rstrip())
    return ("\n".join(lines) + "\n").encode()


def _random_sparse(seed, docs=120, features=40, density=0.15, negative=True):
    """Random rows: few values per row, explicit zeros, negative values, one column
    listed for every document, queries of 1 to 12 documents."""
    rng = np.random.default_rng(seed)
    x = np.where(rng.random((docs, features)) < density, rng.normal(size=(docs, features)), 0.0)
    if not negative:
        x = np.abs(x)
    x[:, 3] = rng.integers(1, 4, docs)  # listed everywhere, many ties
    sizes = rng.integers(1, 13, size=docs)
    qids = np.repeat(np.arange(docs), sizes)[:docs]
    labels = rng.integers(0, 4, docs)
    return x, labels, qids


def _pair(seed, **kw):
    x, labels, qids = _random_sparse(seed, **kw)
    text = _svmlight(x, labels, qids)
    dense, sparse = read_svmlight(text, layout="dense"), read_svmlight(text, layout="sparse")
    assert isinstance(sparse.features, SparseFeatures) and isinstance(dense.features, np.ndarray)
    return dense, sparse


@pytest.mark.parametrize("seed", range(6))
def test_the_sparse_reader_holds_the_dense_matrix(seed):
    dense, sparse = _pair(seed)
    s = sparse.features
    assert s.shape == dense.features.shape
    assert np.array_equal(s.toarray(), dense.features)
    for row in range(s.shape[0]):  # increasing indices within a row
        assert np.all(np.diff(s.indices[s.indptr[row] : s.indptr[row + 1]]) > 0)
    sp = pytest.importorskip("scipy.sparse")
    assert np.array_equal(s.to_scipy().toarray(), sp.csr_matrix(dense.features).toarray())


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("negative", [True, False])
def test_query_min_max_counts_implicit_zeros_as_zeros(seed, negative):
    """The sparse normalisation equals the dense one on the same matrix (the implicit
    zeros are values 0 of the query's feature), listing no zero."""
    dense, sparse = _pair(seed, negative=negative)
    want = query_min_max(dense.features, dense.offsets)
    got = sparse.features.query_min_max(sparse.offsets)
    assert np.array_equal(got.toarray(), want)
    assert np.all(got.values != 0)
    if not negative:  # with no negative value, the implicit zeros stay implicit
        assert got.nnz <= sparse.features.nnz


@pytest.mark.parametrize("seed", range(4))
def test_sparse_scores_are_the_dense_scores_bit_for_bit(seed):
    dense, sparse = _pair(seed, docs=300, features=60)
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(7, 60)) * 10.0 ** rng.integers(-3, 4, size=(7, 1))
    a = linear_scores(dense.features, w)
    b = linear_scores(sparse.features, w)
    assert a.view(np.int64).tolist() == b.view(np.int64).tolist()


def test_rows_and_width_as_numpy_slices():
    dense, sparse = _pair(11)
    rows = np.random.default_rng(1).integers(0, dense.num_docs, 50)
    assert np.array_equal(sparse.features.rows(rows).toarray(), dense.features[rows])
    wider = sparse.with_features(70)
    assert np.array_equal(wider.features.toarray(), dense.with_features(70).features)
    subset = sparse.subset(np.array([3, 0, 2]))
    assert np.array_equal(subset.features.toarray(), dense.subset(np.array([3, 0, 2])).features)


OBJECTIVES = [
    ("nDCG@10", "trec"),
    ("AP", "trec"),
    ("0.5*ERR@5 + 0.5*P@3", "trec"),
    ("Bpref", "trec"),
    ("NDCG@10", "letor"),
    ("MAP", "letor"),
]


@pytest.mark.parametrize(("objective", "convention"), OBJECTIVES)
@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_every_objective_is_the_same_on_both_paths(objective, convention, backend):
    dense, sparse = _pair(5)
    rng = np.random.default_rng(5)
    w = rng.normal(size=(9, dense.num_features))
    for how in ("none", "query"):
        a = Objective(dense.normalised(how), objective, convention, backend=backend)
        b = Objective(sparse.normalised(how), objective, convention, backend=backend)
        assert a(w).tolist() == b(w).tolist()
        for u, v in zip(a.per_query(w), b.per_query(w), strict=True):
            assert u.tolist() == v.tolist()


@pytest.mark.parametrize("method", list(RANKERS))
def test_every_ranker_trains_the_same_model_on_both_paths(method):
    d = RANKERS[method]
    if not d.linear:
        pytest.importorskip(method)
    dense, sparse = _pair(7, docs=200, features=30)
    vali_dense, vali_sparse = _pair(8, docs=80, features=25)  # narrower: widened to 30
    a = train(dense, method, "nDCG@5", vali=vali_dense, budget=300, seed=3,
              params={"trees": 5} if not d.linear else None)  # fmt: skip
    b = train(sparse, method, "nDCG@5", vali=vali_sparse, budget=300, seed=3,
              params={"trees": 5} if not d.linear else None)  # fmt: skip
    assert a.to_dict().keys() == b.to_dict().keys()
    same = {k: v for k, v in a.to_dict().items() if k != "seconds"}
    assert same == {k: v for k, v in b.to_dict().items() if k != "seconds"}
    for test in (vali_dense, vali_sparse):
        assert a.scores(test).tolist() == b.scores(test).tolist()


def test_a_feature_index_of_ten_million_trains_and_evaluates(tmp_path):
    """Six rows, indices up to 10,000,000: a dense matrix of 480 MB before (refused:
    'outside [1, 100000]'); read sparse, the weight vectors are the only O(F) state."""
    train_file = tmp_path / "t.txt"
    train_file.write_bytes(TEN_MILLION)
    model = tmp_path / "m.json"
    out = run_cli("ltr", "train", "--method", "random-search", "--param", "batch=1",
                  "--budget", "3", train_file, "-o", model, memory=2_500 << 20,
                  timeout=600)  # fmt: skip
    assert_success(out)
    assert Model.load(model).num_features == 10_000_000  # (the engine reads it, ~1 s)
    out = run_cli("ltr", "eval", model, train_file, "-m", "P@1", "-f", "json",
                  memory=2_500 << 20, timeout=600)  # fmt: skip
    assert_success(out)
    assert b"P@1" in out.stdout
    # a narrow file (read dense) widened to the model's 10,000,000 features: sparse rows
    narrow = tmp_path / "n.txt"
    narrow.write_text("1 qid:1 1:1 2:0.5\n0 qid:1 1:0.25\n")
    out = run_cli("ltr", "eval", model, narrow, "-m", "P@1", memory=2_500 << 20, timeout=600)
    assert_success(out)


def _peak_mib(*argv) -> float:
    """Peak resident memory (MiB) of ``cranfield ARGV`` in a child process (its own
    ``ru_maxrss``, from ``wait4``: the command ends with ``os._exit``)."""
    code = "import runpy, sys; sys.argv[0] = 'cranfield'; runpy.run_module('cranfield', run_name='__main__')"
    env = {"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"}
    child = subprocess.Popen([sys.executable, "-c", code, *map(str, argv)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, child.stderr.read().decode()[-2000:]
    return usage.ru_maxrss / 1024  # KiB on Linux


def test_fifty_thousand_features_on_sparse_rows_stay_in_bounded_memory(tmp_path):
    """20,000 documents x 50,000 features, 10 values a row: 8 GB as a dense matrix
    (refused before: more than the memory available), 2.4 MB of values. Training and
    evaluating peak far below the dense matrix, near the interpreter's own size."""
    rng = np.random.default_rng(4)
    docs, features, per_row = 20_000, 50_000, 10
    with open(tmp_path / "t.txt", "w") as fh:
        for i in range(docs):
            cols = np.unique(rng.choice(features, size=per_row))
            pairs = " ".join(
                f"{c + 1}:{v:.3f}" for c, v in zip(cols, rng.random(len(cols)), strict=True)
            )
            fh.write(f"{rng.integers(0, 3)} qid:{i // 10} {pairs}\n")
    base = _peak_mib("--version")
    model = tmp_path / "m.json"
    trained = _peak_mib("ltr", "train", "--method", "coordinate-ascent",
                        "--budget", "100", tmp_path / "t.txt", "-o", model)  # fmt: skip
    evaluated = _peak_mib("ltr", "eval", model, tmp_path / "t.txt")
    assert json.loads(model.read_text())["num_features"] == features
    # the dense matrix alone is 7,600 MiB; the sparse values 2.4 MB, weights 0.4 MB
    print(f"peak MiB: interpreter {base:.0f}, train {trained:.0f}, eval {evaluated:.0f}")
    assert trained - base < 250, (base, trained)
    assert evaluated - base < 250, (base, evaluated)


def test_explicit_and_implicit_zeros_are_the_same_feature_value():
    """'3:0' listed or left out: the same data, the same scores."""
    a = read_svmlight(b"1 qid:1 1:1 3:0\n0 qid:1 1:2 2:-1 3:0\n", layout="sparse")
    b = (
        read_svmlight(b"1 qid:1 1:1\n0 qid:1 2:-1 1:2\n", layout="sparse")
        .with_features(3)
        .with_features(3)
    )
    assert np.array_equal(a.features.toarray(), b.features.toarray())
    for how in ("none", "query"):
        x, y = a.normalised(how).features, b.normalised(how).features
        assert np.array_equal(x.toarray(), y.toarray())
    w = np.array([0.5, -2.0, 7.0])
    assert linear_scores(a.features, w).tolist() == linear_scores(b.features, w).tolist()


def test_auto_layout_keeps_small_and_full_files_dense():
    dense_text = _svmlight(np.arange(1.0, 41.0).reshape(10, 4), [0] * 10, [1] * 10)
    assert isinstance(read_svmlight(dense_text).features, np.ndarray)
    wide = b"1 qid:1 1:1 3000000:2\n0 qid:1 5:1\n"  # 6 million cells, 3 values
    assert isinstance(read_svmlight(wide).features, SparseFeatures)
    data = random_data(1)
    sparse = replace(data, features=SparseFeatures.from_dense(data.features))
    assert np.array_equal(sparse.features.toarray(), data.features)
