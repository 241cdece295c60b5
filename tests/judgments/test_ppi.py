"""Prediction-powered estimates against ppi_py (the authors' implementation), hand-computed
cases, and the coverage of their intervals by simulation."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from cranfield.core.qrels import Qrels
from cranfield.judgments.agreement import cohen_kappa
from cranfield.judgments.ppi import (
    PPI_ESTIMATORS,
    ppi_evaluate,
    ppi_mean,
    sample_topics,
)
from cranfield.judgments.simulate import simulate_assessor_qrels, simulate_collection


@pytest.fixture(scope="module")
def ppi_py():
    """The oracle (pyproject's test extra installs ppi-python). Its import switches every
    warning off for the whole process (``warnings.simplefilter("ignore")``): the filters
    are restored after it."""
    import warnings

    with warnings.catch_warnings():
        import ppi_py
    return ppi_py


def case(seed: int):
    rng = np.random.default_rng(seed)
    big_n = int(rng.integers(5, 300))
    n = int(rng.integers(2, big_n + 1))
    k = int(rng.integers(1, 4))
    truth = rng.random((big_n, k)) * rng.choice([1.0, 10.0])
    noise = rng.normal(0, rng.choice([0.01, 0.3, 3.0]), (big_n, k))
    pred = truth * rng.choice([1.0, 0.5, -1.0]) + noise
    if seed % 7 == 0:
        pred = np.round(pred, 1)  # ties
    rows = rng.choice(big_n, n, replace=False)
    weights = rng.uniform(0.2, 5.0, n) if seed % 3 == 0 else None
    return truth[rows], pred[rows], pred, weights


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("lam", ["tuned", 1.0, 0.0, 0.4])
def test_equals_ppi_py(ppi_py, seed, lam):
    y, yhat, yhat_all, w = case(seed)
    ours = ppi_mean(y, yhat, yhat_all, lam=lam, weights=w, confidence=0.9, interval="normal")
    for c in range(y.shape[1]):
        kw = {"lam": None if lam == "tuned" else lam, "w": w}
        low, high = ppi_py.ppi_mean_ci(y[:, c], yhat[:, c], yhat_all[:, c], alpha=0.1, **kw)
        point = ppi_py.ppi_mean_pointestimate(y[:, c], yhat[:, c], yhat_all[:, c], **kw)
        np.testing.assert_allclose(ours["estimate"][c], np.ravel(point)[0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            [ours["low"][c], ours["high"][c]], np.ravel([low, high]), rtol=1e-9, atol=1e-12
        )


def test_hand_computed():
    # y on the sample [1, 0], machine [1, 1] there, [1, 1, 0, 0] on all units
    e = ppi_mean([1.0, 0.0], [1.0, 1.0], [1.0, 1.0, 0.0, 0.0], lam=1.0, interval="normal")
    # 0.5 + mean(0, -1) = 0; se^2 = var(1,1,0,0)/4 + var(0,-1)/2 = 0.0625 + 0.125
    assert e["estimate"][0] == 0.0
    assert e["se"][0] == pytest.approx(np.sqrt(0.1875), rel=1e-15)
    assert e["high"][0] == pytest.approx(1.959963984540054 * np.sqrt(0.1875), rel=1e-12)
    c = ppi_mean([1.0, 0.0], [1.0, 1.0], [1.0, 1.0, 0.0, 0.0], lam=0.0, interval="normal")
    assert c["estimate"][0] == 0.5 and c["se"][0] == pytest.approx(np.sqrt(0.25 / 2))
    # weights 3 and 1 (inclusion 1/3 and 1): normalised to 1.5 and 0.5
    w = ppi_mean([1.0, 0.0], [0.0, 0.0], [0.0] * 4, lam=1.0, weights=[3.0, 1.0])
    assert w["estimate"][0] == 0.75
    # tuned lambda by hand: theta_1 = 0.5, centred gradients (-0.35, 0.35): covariance
    # 2 * 0.245 / 2; the six gradients -0.3 0.4 -0.3 0.4 -0.1 0 have variance 0.50833../5
    t = ppi_mean([0.2, 0.9], [0.2, 0.9], [0.2, 0.9, 0.4, 0.5])
    assert t["lam"][0] == pytest.approx(0.245 / (2 * 1.5 * (0.51 - 6 / 3600) / 5), rel=1e-12)


def test_registry_and_refusals():
    assert PPI_ESTIMATORS.names == ("ppi++", "ppi", "classical")
    assert PPI_ESTIMATORS.lookup("tuned").name == "ppi++"
    with pytest.raises(ValueError, match="estimator"):
        PPI_ESTIMATORS.lookup("bogus")
    with pytest.raises(ValueError, match="2 or more labelled"):
        ppi_mean([1.0], [1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive finite"):
        ppi_mean([1.0, 0.0], [1.0, 0.0], [1.0, 0.0, 1.0], weights=[1.0, 0.0])


def _machine(qrels, accuracy, seed):
    machine = simulate_assessor_qrels(qrels, accuracy, seed=seed)
    conf = np.zeros((4, 4))
    np.add.at(conf, (qrels.table["relevance"].to_numpy(), machine.table["relevance"].to_numpy()), 1)
    return machine, float(cohen_kappa(conf))


def _subset(qrels, topics):
    import pyarrow.compute as pc

    t = qrels.table
    return Qrels(t.filter(pc.is_in(t["query_id"], value_set=pa.array(topics, pa.string()))))


def test_ppi_evaluate_equals_ppi_mean_on_per_topic_values():
    from cranfield import evaluate

    qrels, runs = simulate_collection(30, 20, 3, seed=5)
    machine, _ = _machine(qrels, 0.7, 6)
    chosen, p = sample_topics(qrels.query_ids(), 0.2, seed=1)
    assert len(chosen) == 6 and p == 0.2
    out = ppi_evaluate(machine, _subset(qrels, chosen), runs, "AP", estimator="ppi")
    full = evaluate(qrels, runs, ["AP"], complete=True)
    mach = evaluate(machine, runs, ["AP"], complete=True)
    names = full.run_names
    topics = sorted(full.per_query(names[0], "AP"))
    f = np.array([[full.per_query(r, "AP")[t] for r in names] for t in topics])
    m = np.array([[mach.per_query(r, "AP")[t] for r in names] for t in topics])
    rows = [topics.index(t) for t in chosen]
    direct = ppi_mean(f[rows], m[rows], m, lam=1.0)
    assert [out["runs"][r]["estimate"] for r in names] == direct["estimate"].tolist()
    d = out["differences"][0]
    pair = ppi_mean(f[rows, 0] - f[rows, 1], m[rows, 0] - m[rows, 1], m[:, 0] - m[:, 1], lam=1.0)
    assert (d["a"], d["b"], d["estimate"]) == (names[0], names[1], pair["estimate"][0])
    assert out["checks"][0]["ok"] and "0 of" in out["checks"][0]["detail"]
    assert not out["checks"][-1]["ok"]  # 6 topics: too few for a normal interval


def test_checks_flag_a_partly_judged_topic_and_a_topic_outside_the_pool():
    qrels, runs = simulate_collection(12, 10, 2, seed=2)
    human = _subset(qrels, ["0", "1", "2"])
    part = Qrels(human.table.slice(1))
    out = ppi_evaluate(qrels, part, runs, "AP")
    assert not out["checks"][0]["ok"] and "1 of 30 pooled pairs" in out["checks"][0]["detail"]
    # a negative grade (pooled, not yet judged) is no human label
    t = human.table
    unjudged = Qrels(t.set_column(2, "relevance", pa.array([-1] + t["relevance"].to_pylist()[1:])))
    out = ppi_evaluate(qrels, unjudged, runs, "AP")
    assert "1 of 30 pooled pairs" in out["checks"][0]["detail"]
    other = Qrels(pa.table({"query_id": ["x", "0"], "doc_id": ["d", "d0"], "relevance": [1, 0]}))
    with pytest.raises(ValueError, match="no machine labels"):
        ppi_evaluate(qrels, other, runs, "AP")


def test_coverage_of_a_ten_percent_human_sample_with_machine_labels_of_kappa_one_half():
    """Done means: nominal 95% intervals cover the full-judgment MAP (and the paired
    differences) in at least 93% of repetitions."""
    from cranfield.judgments.ppi import _per_topic

    qrels, runs = simulate_collection(200, 50, 5, seed=11)
    _, _, full = _per_topic(qrels, runs, "AP", 1)
    truth = full.mean(axis=0)
    a, b = np.triu_indices(full.shape[1], 1)
    covered, covered_diff, errors = [], [], []
    for draw in range(2):
        machine, kappa = _machine(qrels, 0.77, 100 + draw)
        assert 0.45 < kappa < 0.55
        _, _, mach = _per_topic(machine, runs, "AP", 1)
        rng = np.random.default_rng(draw)
        for _ in range(400):
            s = rng.choice(200, 20, replace=False)
            e = ppi_mean(full[s], mach[s], mach, lam=1.0)
            covered.append((e["low"] <= truth) & (truth <= e["high"]))
            errors.append(e["estimate"] - truth)
            d = ppi_mean(
                full[s][:, a] - full[s][:, b],
                mach[s][:, a] - mach[s][:, b],
                mach[:, a] - mach[:, b],
                lam=1.0,
            )
            t = truth[a] - truth[b]
            covered_diff.append((d["low"] <= t) & (t <= d["high"]))
    assert np.mean(covered) >= 0.93, np.mean(covered)
    assert np.mean(covered_diff) >= 0.93, np.mean(covered_diff)
    err = np.asarray(errors)
    # unbiased: the mean error within 4 standard errors of 0 for every run
    assert (np.abs(err.mean(axis=0)) <= 4 * err.std(axis=0) / np.sqrt(len(err))).all()


# -- judged pairs as units ----------------------------------------------------------------


@pytest.mark.parametrize("measure", ["P@5", "P@10", "DCG@10", "DCG@3"])
def test_linear_weights_give_the_measure(measure):
    """Sum of weight x gain per topic, over the pool, is the measure cranfield evaluates."""
    from cranfield import evaluate
    from cranfield.judgments.ppi import linear_weights

    qrels, runs = simulate_collection(8, 12, 3, seed=9)
    t = qrels.table
    topics, docs = t["query_id"].to_pylist(), t["doc_id"].to_pylist()
    names, kind, w = linear_weights(runs, topics, docs, measure)
    grade = t["relevance"].to_numpy().astype(float)
    gain = (grade >= 1).astype(float) if kind == "P" else grade
    res = evaluate(qrels, runs, [measure], complete=True)
    topic_codes = np.array(topics)
    for r, name in enumerate(names):
        per = res.per_query(name, measure)
        for q, value in per.items():
            mine = (w[topic_codes == q, r] * gain[topic_codes == q]).sum()
            assert mine == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_pairs_refuse_a_non_linear_measure_and_pairs_outside_the_pool():
    from cranfield.judgments.ppi import ppi_evaluate_pairs

    qrels, runs = simulate_collection(4, 10, 2, seed=1)
    with pytest.raises(ValueError, match="P@k or DCG@k"):
        ppi_evaluate_pairs(qrels, qrels, runs, "ndcg")
    sample = Qrels(qrels.table.slice(0, 12))
    pending = Qrels(sample.table.set_column(2, "relevance", pa.array([-1] * 2 + [1] * 10)))
    assert ppi_evaluate_pairs(qrels, pending, runs, "P@10")["sampled"] == 10
    other = Qrels(pa.table({"query_id": ["0"], "doc_id": ["nope"], "relevance": [1]}))
    with pytest.raises(ValueError, match="no machine label"):
        ppi_evaluate_pairs(qrels, other, runs, "P@10")


def test_coverage_with_ten_percent_of_the_pairs_judged_by_people():
    """P@10 and DCG@10 with a random 10% of the pooled pairs judged by people and a machine
    of kappa 0.5 on all: 95% intervals cover the full-judgment means (runs, differences)."""
    from cranfield import evaluate
    from cranfield.judgments.ppi import ppi_evaluate_pairs

    qrels, runs = simulate_collection(50, 40, 4, seed=21)
    machine, kappa = _machine(qrels, 0.77, 5)
    assert 0.4 < kappa < 0.6
    rng = np.random.default_rng(3)
    n = qrels.table.num_rows
    for measure in ("P@10", "DCG@10"):
        full = evaluate(qrels, runs, [measure], complete=True)
        truth = {r: full.aggregate(r, measure) for r in full.run_names}
        covered, covered_d = [], []
        for _ in range(60):
            rows = np.sort(rng.choice(n, n // 10, replace=False))
            human = Qrels(qrels.table.take(pa.array(rows)))
            out = ppi_evaluate_pairs(machine, human, runs, measure)
            covered += [e["low"] <= truth[r] <= e["high"] for r, e in out["runs"].items()]
            covered_d += [
                d["low"] <= truth[d["a"]] - truth[d["b"]] <= d["high"] for d in out["differences"]
            ]
        assert np.mean(covered) >= 0.93, (measure, np.mean(covered))
        assert np.mean(covered_d) >= 0.93, (measure, np.mean(covered_d))


# -- the finite-population t interval -------------------------------------------------------


@pytest.mark.parametrize("lam", [1.0, 0.0, 0.6])
def test_t_interval_by_enumerating_every_sample(lam):
    """Every sample of 3 of 7 units (35): the estimate's mean over them is the population
    mean, its variance over them is the formula's (1 - n/N) S^2 / n, and the squared
    standard error averages to that variance (Cochran 1977, theorems 2.1, 2.2, 2.4)."""
    from itertools import combinations

    rng = np.random.default_rng(4)
    y = rng.random(7)
    yhat = np.round(y + rng.normal(0, 0.3, 7), 2)
    estimates, variances = [], []
    for s in combinations(range(7), 3):
        s = list(s)
        e = ppi_mean(y[s], yhat[s], yhat, lam=lam)
        estimates.append(e["estimate"][0])
        variances.append(e["se"][0] ** 2)
    estimates = np.array(estimates)
    assert estimates.mean() == pytest.approx(y.mean(), rel=1e-13, abs=1e-15)
    exact = ((estimates - y.mean()) ** 2).mean()  # the design variance, by enumeration
    big_s2 = (y - lam * yhat).var(ddof=1)
    assert exact == pytest.approx((1 - 3 / 7) * big_s2 / 3, rel=1e-12)
    assert np.mean(variances) == pytest.approx(exact, rel=1e-12)


def test_t_interval_against_statsmodels_and_a_t_table():
    """Without the finite-population factor the half width is statsmodels' t interval of
    the rectified values' mean; t(4) at 97.5 % is 2.776 (any t table)."""
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(8)
    yhat_all = rng.random(50)
    rows = rng.choice(50, 5, replace=False)
    y = yhat_all[rows] + rng.normal(0, 0.2, 5)
    e = ppi_mean(y, yhat_all[rows], yhat_all, lam=1.0)
    low, high = DescrStatsW(y - yhat_all[rows]).tconfint_mean(alpha=0.05)
    half = (e["high"][0] - e["low"][0]) / 2
    assert half == pytest.approx((high - low) / 2 * np.sqrt(1 - 5 / 50), rel=1e-12)
    assert e["estimate"][0] == pytest.approx(yhat_all.mean() + (low + high) / 2, rel=1e-12)
    assert half / e["se"][0] == pytest.approx(2.776445105, rel=1e-9)
    # unequal weights: Hajek's linearised residuals, no finite-population factor; by hand
    w = np.array([1.0, 2.0, 1.0, 4.0, 2.0])
    r = y - yhat_all[rows]
    wn = w / w.mean()
    u = wn * (r - (wn * r).mean())
    ew = ppi_mean(y, yhat_all[rows], yhat_all, lam=1.0, weights=w)
    assert ew["se"][0] == pytest.approx(np.sqrt(u.var(ddof=1) / 5), rel=1e-12)
    with pytest.raises(ValueError, match="interval"):
        ppi_mean(y, yhat_all[rows], yhat_all, interval="wald")


def test_a_census_has_an_interval_of_width_zero():
    y = np.array([0.2, 0.5, 0.9])
    e = ppi_mean(y, y - 0.1, y - 0.1, lam=1.0)
    assert e["low"][0] == e["high"][0] == pytest.approx(y.mean(), rel=1e-15)


def test_coverage_with_five_of_fifty_topics_judged_by_people():
    """Issue 35 at its smallest: 5 of 50 topics judged by people, a machine of kappa 0.5 on
    all. The t interval covers the full-judgment MAP and the paired differences in at
    least 93 % of 2000 samples; ppi_py's normal interval does not (differences)."""
    from cranfield.judgments.ppi import _per_topic

    qrels, runs = simulate_collection(50, 40, 8, seed=3)
    _, _, full = _per_topic(qrels, runs, "AP", 1)
    truth = full.mean(axis=0)
    a, b = np.triu_indices(full.shape[1], 1)
    td = truth[a] - truth[b]
    cover = {"t": [[], []], "normal": [[], []]}
    rng = np.random.default_rng(0)
    for draw in range(10):
        machine, kappa = _machine(qrels, 0.77, 200 + draw)
        assert 0.4 < kappa < 0.6
        _, _, mach = _per_topic(machine, runs, "AP", 1)
        md = mach[:, a] - mach[:, b]
        for _ in range(200):
            s = rng.choice(50, 5, replace=False)
            for interval, (runs_c, diffs_c) in cover.items():
                e = ppi_mean(full[s], mach[s], mach, lam=1.0, interval=interval)
                runs_c.append((e["low"] <= truth) & (truth <= e["high"]))
                fd = full[s][:, a] - full[s][:, b]
                d = ppi_mean(fd, md[s], md, lam=1.0, interval=interval)
                diffs_c.append((d["low"] <= td) & (td <= d["high"]))
    t_runs, t_diffs = (np.mean(c) for c in cover["t"])
    assert t_runs >= 0.93 and t_diffs >= 0.93, (t_runs, t_diffs)
    assert np.mean(cover["normal"][1]) < 0.93


def test_coverage_with_unequal_inclusion_probabilities():
    """20 of 100 topics from two strata (by the machine's mean score), 14 of 50 and 6 of 50:
    weights 1/pi, Hajek's linearised t interval covers the full-judgment MAP and the
    paired differences in at least 93 % of 2000 samples."""
    from cranfield.judgments.ppi import _per_topic

    qrels, runs = simulate_collection(100, 40, 8, seed=3)
    _, _, full = _per_topic(qrels, runs, "AP", 1)
    truth = full.mean(axis=0)
    a, b = np.triu_indices(full.shape[1], 1)
    td = truth[a] - truth[b]
    w = np.concatenate([np.full(14, 50 / 14), np.full(6, 50 / 6)])
    rng = np.random.default_rng(1)
    covered, covered_d = [], []
    for draw in range(10):
        machine, _ = _machine(qrels, 0.77, 300 + draw)
        _, _, mach = _per_topic(machine, runs, "AP", 1)
        md = mach[:, a] - mach[:, b]
        order = np.argsort(mach.mean(axis=1), kind="stable")
        high, low = order[50:], order[:50]
        for _ in range(200):
            s = np.concatenate(
                [rng.choice(high, 14, replace=False), rng.choice(low, 6, replace=False)]
            )
            e = ppi_mean(full[s], mach[s], mach, lam=1.0, weights=w)
            covered.append((e["low"] <= truth) & (truth <= e["high"]))
            fd = full[s][:, a] - full[s][:, b]
            d = ppi_mean(fd, md[s], md, lam=1.0, weights=w)
            covered_d.append((d["low"] <= td) & (td <= d["high"]))
    assert np.mean(covered) >= 0.93 and np.mean(covered_d) >= 0.93
