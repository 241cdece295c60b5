"""Invariants (Hypothesis): complements, symmetry of AUC, transposed layouts."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.classification import BinaryConfusion, ConfusionMatrix, roc_auc
from cranfield.classification.render import binary_grid

counts = st.integers(min_value=1, max_value=10_000)


@settings(max_examples=200, deadline=None)
@given(counts, counts, counts, counts)
def test_complements_and_identities(tp, fp, fn, tn):
    r = BinaryConfusion.from_counts(tp, fp, fn, tn).rates()
    assert np.isclose(r["FNR"], 1 - r["TPR"]) and np.isclose(r["FPR"], 1 - r["TNR"])
    assert np.isclose(r["FDR"], 1 - r["PPV"]) and np.isclose(r["FOR"], 1 - r["NPV"])
    assert np.isclose(r["ERR"], 1 - r["ACC"])
    assert np.isclose(r["BM"], r["TPR"] - r["FPR"])
    assert np.isclose(r["DOR"], r["LR+"] / r["LR-"])
    # MCC is the geometric mean of informedness and markedness (same sign)
    assert np.isclose(r["MCC"] ** 2, r["BM"] * r["MK"])
    assert np.isclose(r["F1"], 2 * r["PPV"] * r["TPR"] / (r["PPV"] + r["TPR"]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=40))
def test_auc_of_negated_scores_is_complement(items):
    y = np.array([a for a, _ in items])
    s = np.array([b for _, b in items], dtype=float)
    if y.all() or not y.any():
        y[0] = not y[0]
    assert np.isclose(roc_auc(y, s) + roc_auc(y, -s), 1.0)
    # swapping the positive class mirrors the curve as well
    assert np.isclose(roc_auc(~y, s), 1 - roc_auc(y, s))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=30), st.randoms())
def test_orientations_are_transposes(truth, rnd):
    pred = truth[:]
    rnd.shuffle(pred)
    cm = ConfusionMatrix.from_labels(truth, pred)
    assert (cm.table("predicted_rows") == cm.table("actual_rows").T).all()
    b = cm.one_vs_rest(truth[0])
    h1, rows1 = binary_grid(b, "predicted_rows", zero_division=0.0)
    h2, rows2 = binary_grid(b, "actual_rows", zero_division=0.0)
    transposed = [list(c) for c in zip(h1, *rows1, strict=True)]
    # the corner names the orientation; every other cell moves to its transposed place
    assert transposed[0][0].startswith("rows: predicted") and h2[0].startswith("rows: actual")
    transposed[0][0] = h2[0]
    assert transposed == [h2, *rows2]
