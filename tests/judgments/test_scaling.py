"""Agreement and assessor quality scale with the judgments, not with pairs of assessors.

The pairwise table is compared cell for cell with the former implementation (kept here
as the oracle: a dense assessors² × labels² accumulator), and the big workloads of
issue 30 run in a subprocess under an address-space limit (no wall-clock assertion).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.adversarial.harness import assert_success, run_cli

from cranfield.errors import ParameterError
from cranfield.judgments import agreement as ag
from cranfield.judgments.aggregate import dawid_skene
from cranfield.judgments.agreement import agreement_report
from cranfield.judgments.data import Judgments
from cranfield.judgments.quality import Thresholds, assessor_quality
from cranfield.judgments.simulate import simulate_crowd

from .conftest import random_judgments


def _pairs_within_items(item):
    """Every unordered pair of rows with the same item, enumerated one by one."""
    i, j = [], []
    for it in np.unique(item):
        rows = np.flatnonzero(item == it).tolist()
        for x, first in enumerate(rows):
            for second in rows[x + 1 :]:
                i.append(first)
                j.append(second)
    return np.array(i, np.int64), np.array(j, np.int64)


def _old_confusion_matrices(judgments):
    """The dense accumulator the pairwise table used before (all pairs at once)."""
    k, n_a = judgments.scale.size, judgments.n_assessors
    i, j = _pairs_within_items(judgments.item)
    a, b = judgments.assessor[i], judgments.assessor[j]
    la, lb = judgments.label[i], judgments.label[j]
    swap = a > b
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    la, lb = np.where(swap, lb, la), np.where(swap, la, lb)
    acc = np.bincount(((a * n_a + b) * k + la) * k + lb, minlength=n_a * n_a * k * k)
    acc = acc.reshape(n_a * n_a, k, k)
    keys = np.flatnonzero(acc.sum(axis=(1, 2)))
    return np.stack([keys // n_a, keys % n_a], axis=1), acc[keys]


@pytest.mark.parametrize(("chunk", "dense_cells"), [(1, 0), (7, 0), (7, 1 << 20), (5_000_000, 0)])
def test_the_sparse_pairwise_table_equals_the_dense_one(rng, chunk, dense_cells, monkeypatch):
    monkeypatch.setattr(ag, "PAIR_CHUNK", chunk)
    monkeypatch.setattr(ag, "DENSE_CELLS", dense_cells)
    seen = 0
    for _ in range(150):
        j, _ = random_judgments(
            rng,
            items=int(rng.integers(1, 40)),
            assessors=int(rng.integers(1, 12)),
            labels=int(rng.integers(1, 5)),  # one-label scales too
            missing=float(rng.choice([0.0, 0.3, 0.9])),  # assessors with one judgment
        )
        pairs, mats = ag.confusion_matrices(j)
        old_pairs, old_mats = _old_confusion_matrices(j)
        assert np.array_equal(pairs, old_pairs) and np.array_equal(mats, old_mats)
        assert mats.dtype == old_mats.dtype
        seen += len(pairs)
    assert seen > 500


def test_the_pairwise_table_is_refused_by_rows_and_by_work(rng, monkeypatch):
    j, _ = random_judgments(rng, items=20, assessors=5, labels=2, missing=0.0)
    assert ag.judgment_pairs(j) == 20 * 10 and ag.pairwise_limit(j) is None
    monkeypatch.setattr(ag, "MAX_PAIRS", 9)  # 5 assessors: 10 pairs
    assert "10 pairs" in ag.pairwise_limit(j)
    monkeypatch.setattr(ag, "MAX_PAIRS", 10)
    monkeypatch.setattr(ag, "MAX_JUDGMENT_PAIRS", 199)
    assert "200 pairs of judgments" in ag.pairwise_limit(j)
    with pytest.raises(ParameterError):
        ag.confusion_matrices(j)
    report = agreement_report(j, replicates=0)
    assert report["graded"]["pairs"] == []
    (note,) = [n for n in report["graded"]["notes"] if "pairwise statistics left out" in n]
    assert "200 pairs of judgments" in note


def _write(path, topic, doc, assessor, label):
    lines = ["topic,document,assessor,label"]
    lines += [
        f"{t},d{d},w{a},{lab}" for t, d, a, lab in zip(topic, doc, assessor, label, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")


def test_agreement_with_thousands_of_assessors_on_five_items_is_bounded(tmp_path):
    """2,000 assessors on the same 5 pairs: 2M pairs of assessors. The old code built a
    4M-cell accumulator and 2M table rows (2.6 GB); now the table is left out."""
    rng = np.random.default_rng(3)
    a = np.repeat(np.arange(2000), 5)
    d = np.tile(np.arange(5), 2000)
    _write(tmp_path / "j.csv", np.ones(len(a), int), d, a, rng.integers(0, 2, len(a)))
    out = run_cli(
        "agreement",
        "--bootstrap",
        "0",
        "--format",
        "json",
        "--judgments",
        tmp_path / "j.csv",
        memory=1_200 << 20,
        timeout=600,
    )
    assert_success(out)
    assert b"pairwise statistics left out: 2000 assessors" in out.stdout


def test_assessors_with_one_judgment_each_is_bounded(tmp_path):
    """3 x 10^5 assessors with one judgment each: the old per-assessor loop built a dict
    of NumPy scalars per assessor and the whole output at once (785 MB resident here,
    out of memory under this limit); the whole-array version writes in pieces."""
    rng = np.random.default_rng(4)
    n = 300_000
    _write(
        tmp_path / "j.csv",
        rng.integers(1, 51, n),
        rng.integers(0, 2000, n),
        np.arange(n),
        rng.integers(0, 3, n),
    )
    for fmt in ("text", "json"):
        out = run_cli(
            "assessors",
            "--format",
            fmt,
            "--judgments",
            tmp_path / "j.csv",
            memory=2_000 << 20,
            timeout=600,
        )
        assert_success(out)
        assert out.stdout.count(b"w299999") == 1
        if fmt == "json":
            rows = json.loads(out.stdout)["assessors"]
            assert len(rows) == n and [r["score"] for r in rows] == sorted(r["score"] for r in rows)


def _old_assessor_quality(j, *, gold=None, aggregate=None, thresholds=None):
    """The former per-assessor loop (the oracle of the whole-array version)."""
    th = thresholds or Thresholds()
    agg = aggregate if aggregate is not None else dawid_skene(j)
    n_a, k = j.n_assessors, j.scale.size
    per = np.bincount(j.assessor, minlength=n_a).astype(np.float64)
    decided = agg.label[j.item] >= 0
    same = (agg.label[j.item] == j.label) & decided
    agreement = np.bincount(j.assessor, weights=same, minlength=n_a) / np.maximum(
        np.bincount(j.assessor, weights=decided, minlength=n_a), 1
    )
    conf = agg.info.get("confusion")
    priors = np.asarray(agg.info.get("priors", []), np.float64)
    if conf is None:
        ds = dawid_skene(j)
        conf, priors = ds.info["confusion"], np.asarray(ds.info["priors"])
    accuracy = np.einsum("k,akk->a", priors, conf)
    rate = np.einsum("l,alk->ak", priors, conf)
    chance = rate @ priors
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(chance < 1, (accuracy - chance) / (1 - chance), np.nan)
    gold_n = np.zeros(n_a)
    gold_acc = np.full(n_a, np.nan)
    if gold is not None:
        g = j.gold_codes(gold)[j.item]
        has = g >= 0
        gold_n = np.bincount(j.assessor, weights=has, minlength=n_a)
        right = np.bincount(j.assessor, weights=has & (g == j.label), minlength=n_a)
        gold_acc = np.where(gold_n > 0, right / np.maximum(gold_n, 1), np.nan)
    label_counts = np.bincount(j.assessor * k + j.label, minlength=n_a * k).reshape(n_a, k)
    top_share = label_counts.max(axis=1) / np.maximum(per, 1)
    crowd_labels = int((np.bincount(j.label, minlength=k) > 0).sum())
    median_s = np.full(n_a, np.nan)
    crowd_median = np.nan
    if j.seconds is not None and np.isfinite(j.seconds).any():
        ok = np.isfinite(j.seconds)
        crowd_median = float(np.median(j.seconds[ok]))
        order = np.lexsort((j.seconds[ok], j.assessor[ok]))
        who, secs = j.assessor[ok][order], j.seconds[ok][order]
        n_ok = np.bincount(who, minlength=n_a)
        start = np.concatenate([[0], np.cumsum(n_ok)[:-1]])
        has_t = n_ok > 0
        lo = start + (n_ok - 1) // 2
        hi = start + n_ok // 2
        # the overflow-safe midpoint quality.py uses since seconds near 1e308 were refused
        low, high = secs[lo[has_t]], secs[hi[has_t]]
        median_s[has_t] = low + (high - low) / 2
    out = []
    for a in range(n_a):
        reasons = []
        score = float(np.clip(kappa[a], 0, 1)) if np.isfinite(kappa[a]) else 0.0
        if np.isfinite(kappa[a]) and kappa[a] < th.min_kappa:
            reasons.append(
                f"answers barely depend on the true label (Dawid-Skene chance-corrected "
                f"accuracy {kappa[a]:.2f} < {th.min_kappa:g}): a likely spammer"
            )
        if gold_n[a] >= th.min_gold:
            score = min(score, float(gold_acc[a]))
            if gold_acc[a] < th.min_gold_accuracy:
                reasons.append(
                    f"accuracy {gold_acc[a]:.2f} on {int(gold_n[a])} gold pairs "
                    f"< {th.min_gold_accuracy:g}"
                )
        if agreement[a] < th.min_agreement:
            reasons.append(
                f"agrees with the aggregate on {agreement[a]:.2f} of the pairs "
                f"< {th.min_agreement:g}"
            )
        if per[a] >= th.min_judgments and label_counts[a].max() == per[a] and crowd_labels > 1:
            reasons.append(f"the same label for all {int(per[a])} judgments (straight-lining)")
            score /= 2
        if np.isfinite(median_s[a]) and median_s[a] < th.fast_fraction * crowd_median:
            reasons.append(
                f"median {median_s[a]:.3g} s per judgment, under {th.fast_fraction:g} of the "
                f"crowd's median {crowd_median:.3g} s (implausibly fast)"
            )
            score /= 2
        out.append(
            {
                "assessor": j.assessors[a],
                "judgments": int(per[a]),
                "gold_pairs": int(gold_n[a]),
                "gold_accuracy": float(gold_acc[a]),
                "agreement_with_aggregate": float(agreement[a]),
                "accuracy": float(accuracy[a]),
                "kappa": float(kappa[a]),
                "confusion": conf[a].tolist(),
                "median_seconds": float(median_s[a]),
                "top_label_share": float(top_share[a]),
                "score": score,
                "reasons": reasons,
            }
        )
    return sorted(out, key=lambda r: (r["score"], r["assessor"]))


def _same(a, b) -> bool:
    """Equal dicts, NaN equal to NaN, floats bit for bit."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@pytest.mark.parametrize("state", range(12))
def test_whole_array_assessor_quality_equals_the_per_assessor_loop(state):
    rng = np.random.default_rng(state)
    labels = int(rng.integers(1, 4))
    n_assessors = int(rng.integers(1, 30))
    truth = rng.integers(0, labels, int(rng.integers(1, 120)))
    j = simulate_crowd(
        truth,
        rng.uniform(0.3, 0.95, n_assessors),
        labels=labels,
        per_item=int(rng.integers(1, n_assessors + 1)),
        spammers=rng.random(n_assessors) < 0.3,
        seconds=rng.choice([0.5, 5.0, 10.0], n_assessors),
        seed=state,
    )
    gold = None
    if state % 2:
        docs = j.documents[: max(1, len(j.documents) // 3)]
        gold = {t: {d: int(rng.integers(0, labels)) for d in docs} for t in set(j.topics)}
    th = Thresholds(min_gold=int(rng.integers(1, 4)), min_judgments=int(rng.integers(1, 12)))
    new = assessor_quality(j, gold=gold, thresholds=th)
    old = _old_assessor_quality(j, gold=gold, thresholds=th)
    assert _same(new, old)
    assert gold is None or any(r["gold_pairs"] for r in new)
    assert sum(bool(r["reasons"]) for r in new) > 0 or n_assessors < 3


def test_the_text_table_shows_the_rows_of_assessor_quality(tmp_path, capsys):
    """The command writes per column and in pieces; every line must still be the row
    (and the reasons) of ``assessor_quality``, which equals the former loop above."""
    from tests.adversarial.harness import run_main

    from cranfield.cli import assessors_cmd

    rng = np.random.default_rng(9)
    truth = rng.integers(0, 3, 60)
    j = simulate_crowd(
        truth,
        rng.uniform(0.4, 0.95, 25),
        labels=3,
        per_item=12,
        spammers=rng.random(25) < 0.3,
        seconds=rng.choice([0.5, 5.0, 10.0], 25),
        seed=9,
    )
    lines = ["topic,document,assessor,label,seconds"]
    lines += [
        f"{j.topics[u]},{j.documents[u]},{j.assessors[a]},{j.scale.values[lab]},{sec!r}"
        for u, a, lab, sec in zip(
            j.item.tolist(), j.assessor.tolist(), j.label.tolist(), j.seconds.tolist(),
            strict=True,
        )
    ]  # fmt: skip
    (tmp_path / "j.csv").write_text("\n".join(lines) + "\n")
    gold = tmp_path / "gold.txt"
    gold.write_text(
        "".join(f"{j.topics[u]} 0 {j.documents[u]} {truth[u] % 3}\n" for u in range(20))
    )
    j2 = Judgments.read(tmp_path / "j.csv")
    rows = assessor_quality(j2, gold=str(gold))
    assert any(r["gold_pairs"] for r in rows) and sum(len(r["reasons"]) for r in rows) > 10
    monkey_chunk = assessors_cmd.CHUNK
    assessors_cmd.CHUNK = 7  # several pieces
    try:
        status, out, _ = run_main(capsys, "assessors", "--judgments", tmp_path / "j.csv",
                                  "--gold", gold, "--digits", "4")  # fmt: skip
    finally:
        assessors_cmd.CHUNK = monkey_chunk
    assert status == 0
    want = ["# worst first; reasons after each row"]
    want.append("\t".join(["assessor", "judgments", "score", "kappa", "accuracy",
                           "agreement_with_aggregate", "gold_accuracy", "median_seconds"]))  # fmt: skip
    for r in rows:
        cells = [r["score"], r["kappa"], r["accuracy"], r["agreement_with_aggregate"],
                 r["gold_accuracy"], r["median_seconds"]]  # fmt: skip
        want.append("\t".join([r["assessor"], str(r["judgments"]),
                               *[_cell(v) for v in cells]]))  # fmt: skip
        want += [f"  - {reason}" for reason in r["reasons"]]
    assert out.splitlines() == want


def _cell(v: float) -> str:
    """A cell as the tables write it: 4 decimals, nan, and a value that rounds to zero
    without its sign (-0.0000 says nothing)."""
    if v != v:
        return "nan"
    text = f"{v:.4f}"
    return text[1:] if text == "-0.0000" else text
