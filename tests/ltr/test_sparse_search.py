"""The searches that score many variations of one weight vector (coordinate ascent,
random search) build them a slice at a time when they are long: with millions of sparse
features their memory stays O(F) (issue 30 §4), and the model is the one of the whole
batch at once, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from tests.adversarial.harness import assert_success, run_cli

from cranfield.ltr import search
from cranfield.ltr.model import Model
from cranfield.ltr.rankers import train

from .helpers import TEN_MILLION, random_data


@pytest.mark.parametrize("method", ["coordinate-ascent", "random-search"])
@pytest.mark.parametrize("seed", range(3))
def test_slices_train_the_model_of_the_whole_batch(monkeypatch, method, seed):
    data = random_data(seed, queries=15, features=9, tie_prone=False)
    whole = train(data, method, "nDCG@5", budget=400, seed=seed)
    monkeypatch.setattr(search, "CHUNK_CELLS", 20)  # 2 candidates of 9 weights at a time
    sliced = train(data, method, "nDCG@5", budget=400, seed=seed)
    a, b = whole.to_dict(), sliced.to_dict()
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert whole.weights.tobytes() == sliced.weights.tobytes()


def test_the_random_stream_is_the_same_in_slices():
    """What the equality above rests on: NumPy draws a matrix row after row."""
    a = np.random.default_rng(3).normal(size=(7, 5))
    rng = np.random.default_rng(3)
    b = np.vstack([rng.normal(size=(k, 5)) for k in (2, 2, 3)])
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("method", ["coordinate-ascent", "random-search"])
def test_ten_million_features_train_with_default_batches(tmp_path, method):
    """50 candidates (coordinate ascent) or 200 (random search) of 10,000,000 weights
    were 4 GB and 16 GB at once: out of memory before, under 2.5 GB of address space."""
    data = tmp_path / "t.txt"
    data.write_bytes(TEN_MILLION)
    model = tmp_path / "m.json"
    out = run_cli("ltr", "train", "--method", method, "--budget", "20", data, "-o", model,
                  memory=2_500 << 20, timeout=600)  # fmt: skip
    assert_success(out)
    assert Model.load(model).num_features == 10_000_000  # (the engine reads it, ~1 s)
