"""AP with judged pairs as units (:mod:`cranfield.judgments.ppi_ap`) against someone else:

1. with no machine labels (m = 0, or lambda = 0) the estimate and its variance are statAP's
   as :mod:`cranfield.core.statap` computes them (itself checked against sample_eval.pl);
2. R-hat and AP's numerator are unbiased: the exact expectation over all 2^n Poisson
   samples of a tiny topic, enumerated here, equals the brute-force value;
3. the linearised variance of MAP and of a paired difference against the Monte-Carlo
   variance of a seeded simulation;
4. with pi = 1 the estimate is trec_eval's AP (``cranfield eval``) of the people's labels.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pytest

from cranfield.core.evaluation import evaluate
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.core.sampled import SampledTopic
from cranfield.core.statap import estimate_statap
from cranfield.judgments.ppi_ap import ap_pairs, evaluate_ap_pairs
from cranfield.judgments.simulate import simulate_collection


def _topic_case(rng, n):
    """A pool of ``n`` documents, a ranking of them plus two unpooled ones (some pooled
    ones left out), people's grades, random inclusion probabilities and a Poisson draw."""
    grades = np.where(rng.random(n) < 0.4, rng.integers(1, 4, n), 0)
    pi = rng.uniform(0.05, 1.0, n)
    pi[rng.random(n) < 0.2] = 1.0
    drawn = rng.random(n) < pi
    retrieved = [i for i in rng.permutation(n).tolist() if rng.random() < 0.85]
    ranking = retrieved[:]
    for extra in (-1, -2):  # documents outside the pool
        ranking.insert(int(rng.integers(0, len(ranking) + 1)), extra)
    return grades, pi, drawn, ranking


@pytest.mark.parametrize("seed", range(30))
def test_without_machine_labels_it_is_statap(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    grades, pi, drawn, ranking = _topic_case(rng, n)
    docs = [f"d{i:03d}" for i in range(n)]
    topic = SampledTopic(
        {d: ("1", int(g) if s else -1, "") for d, g, s in zip(docs, grades, drawn, strict=True)},
        dict(zip(docs, pi.tolist(), strict=True)),
    )
    names = [docs[i] if i >= 0 else f"x{-i}" for i in ranking]
    want = estimate_statap("1", topic, names)
    human = np.where(drawn, (grades >= 1).astype(float), np.nan)
    rankings = [(np.zeros(len(ranking), np.int64), np.array(ranking, np.int64).clip(-1))]
    machine = (rng.random(n) < 0.5).astype(float)
    for m, lam in ((np.zeros(n), 1.0), (machine, 0.0)):
        got = ap_pairs(np.zeros(n, np.int64), m, human, pi, rankings, 1, lam)
        assert got["ap"][0, 0] == pytest.approx(want.stat_ap, rel=1e-12, abs=1e-15)
        assert got["cov"][0, 0] == pytest.approx(want.stat_ap_var, rel=1e-11, abs=1e-15)


def _brute(h, ranking):
    """R and AP's numerator sum_k h_k / k * sum_{j <= k} h_j, rank by rank."""
    total, found = 0.0, 0.0
    for k, i in enumerate(ranking, 1):
        rel = h[i] if i >= 0 else 0.0
        found += rel
        total += rel * found / k
    return float(np.sum(h)), total


@pytest.mark.parametrize("seed", range(6))
def test_unbiased_by_enumerating_every_sample(seed):
    rng = np.random.default_rng(100 + seed)
    n = 7
    grades, pi, _, ranking = _topic_case(rng, n)
    pi = rng.uniform(0.15, 0.9, n)
    h = (grades >= 1).astype(float)
    machine = (rng.random(n) < 0.5).astype(float)
    rankings = [(np.zeros(len(ranking), np.int64), np.array(ranking, np.int64).clip(-1))]
    want_r, want_num = _brute(h, ranking)
    for lam in (1.0, 0.0, 0.6):
        mean_r = mean_num = total_p = 0.0
        for draw in itertools.product((False, True), repeat=n):
            s = np.array(draw)
            p = float(np.prod(np.where(s, pi, 1 - pi)))
            got = ap_pairs(
                np.zeros(n, np.int64), machine, np.where(s, h, np.nan), pi, rankings, 1, lam
            )
            mean_r += p * got["relevant"][0]
            mean_num += p * got["numerator"][0, 0]
            total_p += p
        assert total_p == pytest.approx(1.0, rel=1e-12)
        assert mean_r == pytest.approx(want_r, rel=1e-11, abs=1e-12)
        assert mean_num == pytest.approx(want_num, rel=1e-11, abs=1e-12)


def test_variance_against_monte_carlo():
    """Over 2000 seeded Poisson samples (20 % of the pairs of 20 topics of 100, about 40
    relevant each, a machine wrong on 10 % of them; two runs), the mean estimated variance
    of each MAP and of their difference is within 12 % of the Monte-Carlo variance of the
    estimates (2000 draws put a Monte-Carlo variance within about 3 % at one standard
    error; the linearisation is first-order: with few relevant documents sampled per
    topic it overstates the variance, docs/machine-assessors.md)."""
    rng = np.random.default_rng(1)
    n_topics, n = 20, 100
    code = np.repeat(np.arange(n_topics), n)
    h = (rng.random(n_topics * n) < 0.4).astype(float)
    machine = np.where(rng.random(n_topics * n) < 0.1, 1 - h, h)
    rankings = []
    for quality in (0.5, 1.0):
        score = quality * h + rng.normal(size=n_topics * n)
        order = np.lexsort((-score, code))
        rankings.append((code[order], order))
    pi = np.full(n_topics * n, 0.2)
    maps, var = [], []
    for _ in range(2000):
        s = rng.random(n_topics * n) < pi
        got = ap_pairs(code, machine, np.where(s, h, np.nan), pi, rankings, n_topics)
        maps.append(got["map"])
        c = got["cov"]
        var.append([c[0, 0], c[1, 1], c[0, 0] + c[1, 1] - 2 * c[0, 1]])
    maps = np.array(maps)
    mc = np.r_[maps.var(axis=0, ddof=1), (maps[:, 0] - maps[:, 1]).var(ddof=1)]
    np.testing.assert_allclose(np.mean(var, axis=0), mc, rtol=0.12)
    # and the difference's own variance is not the sum of the two (the same sample)
    assert mc[2] < 0.9 * (mc[0] + mc[1])


def test_every_pair_judged_is_trec_eval_ap():
    qrels, runs = simulate_collection(6, 40, 4, seed=5)
    # a run that leaves out pooled documents, retrieves unpooled ones and skips a topic
    t = runs["run02"].table
    keep = np.asarray(t["query_id"].to_pylist()) != "3"
    keep &= np.arange(len(t)) % 3 != 0
    t = t.filter(pa.array(keep))
    extra = pa.table({"query_id": ["0", "1"], "doc_id": ["zz1", "zz2"], "score": [99.0, 98.0]})
    runs["run02"] = Run(pa.concat_tables([t, extra]), name="run02")
    human = Qrels(qrels.table)
    machine = Qrels(
        qrels.table.set_column(2, "relevance", pa.array(np.zeros(len(t := qrels.table), np.int64)))
    )
    got = evaluate_ap_pairs(machine, human, runs, inclusion=1.0)
    ev = evaluate(qrels, runs, ["AP"], complete=True)
    for name in ev.run_names:
        want = np.mean(list(ev.per_query(name, "AP").values()))
        assert got["runs"][name]["estimate"] == pytest.approx(want, rel=1e-13)
        assert got["runs"][name]["se"] == 0.0
        assert got["runs"][name]["machine_only"] == 0.0


def _write_sample(tmp_path, seed):
    """A collection, a machine, runs and six-column sampled qrels of a Poisson draw."""
    from cranfield.judgments.simulate import simulate_assessor_qrels

    qrels, runs = simulate_collection(8, 30, 3, seed=seed)
    simulate_assessor_qrels(qrels, 0.8, seed=seed).to_trec(str(tmp_path / "machine.qrels"))
    paths = []
    for name, run in runs.items():
        run.to_trec(str(tmp_path / f"{name}.txt"))
        paths.append(str(tmp_path / f"{name}.txt"))
    rng = np.random.default_rng(seed)
    t = qrels.table
    pi = rng.uniform(0.2, 1.0, len(t))
    drawn = rng.random(len(t)) < pi
    lines = [
        f"{q} 0 {d} 1 {g if s else -1} {float(p)!r}\n"
        for q, d, g, p, s in zip(
            t["query_id"].to_pylist(), t["doc_id"].to_pylist(), t["relevance"].to_pylist(),
            pi, drawn, strict=True,
        )
    ]  # fmt: skip
    (tmp_path / "human.txt").write_text("".join(lines))
    return paths


def test_cli_classical_is_sample_eval_statap(tmp_path, capsys):
    """``cranfield ppi --units pairs -m AP --estimator classical`` (the human sample
    alone) gives each run's statAP as ``cranfield sample_eval --statap`` does."""
    import json

    from cranfield.cli.main import main
    from cranfield.core.sampled import evaluate_sampled

    paths = _write_sample(tmp_path, 11)
    human = str(tmp_path / "human.txt")
    argv = [str(tmp_path / "machine.qrels"), human, *paths, "--units", "pairs", "-m", "AP"]
    ratio = ["--centre", "sample", "--working-model", "labels"]
    assert main(["ppi", *argv, *ratio, "--estimator", "classical", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    got = json.loads(out)
    assert got["variance"] == "design"
    assert "labels machine values, centre sample and the design variance the intervals are" in err
    assert got["sampled"] < got["pairs"] and got["interval"] == "normal"
    for path in paths:
        ev = evaluate_sampled(human, path, statap=True)
        want = np.mean([s.stat_ap for s in ev.stat])
        name = path.rsplit("/", 1)[1][:-4]
        assert got["runs"][name]["estimate"] == pytest.approx(want, rel=1e-12)
        assert got["runs"][name]["se"] == pytest.approx(
            np.sqrt(np.sum([s.stat_ap_var for s in ev.stat])) / len(ev.stat), rel=1e-10
        )
    assert main(["ppi", *argv]) == 0  # ppi: machine labels rectified, a text table
    text, err = capsys.readouterr()
    assert "(calibrated machine values, centre second, larger variance) estimates" in text
    assert "approximate" not in err  # the defaults' intervals held in simulation


@pytest.mark.parametrize("seed", range(4))
def test_model_centres_by_enumerating_every_sample(seed):
    """Linearised at the machine's values p (fractional: a calibrated model), the
    estimate's exact expectation over all 2^n Poisson samples is AP(p) + D with
    D = (N - AP(p) R) / R(p) (centre "model"), and AP(p) + D (1 - eps) with
    eps = (R - R(p)) / R(p) (centre "second": the covariance term removes the product's
    bias), all computed here by brute force, without the default bounds [-1, 2] (with
    them, the same estimate clipped); with p = h both are AP exactly."""
    rng = np.random.default_rng(200 + seed)
    n = 7
    grades, _, _, ranking = _topic_case(rng, n)
    pi = rng.uniform(0.15, 0.9, n)
    h = (grades >= 1).astype(float)
    if h.sum() == 0:
        h[0] = 1.0
    p = rng.uniform(0.05, 0.95, n)
    rankings = [(np.zeros(len(ranking), np.int64), np.array(ranking, np.int64).clip(-1))]
    big_r, num = _brute(h, ranking)
    # R(p) and N(p) = sum_k p_k / k (1 + sum_{j<k} p_j): the diagonal terms are p_k, as
    # the estimator's (h_k^2 = h_k)
    r_p, num_p, above = float(p.sum()), 0.0, 0.0
    for k, i in enumerate(ranking, 1):
        value = p[i] if i >= 0 else 0.0
        num_p += value * (1 + above) / k
        above += value
    ap_p = num_p / r_p
    d = (num - ap_p * big_r) / r_p
    eps = (big_r - r_p) / r_p
    zero = np.zeros(n, np.int64)
    unbounded = (-np.inf, np.inf)
    for centre, want in (("model", ap_p + d), ("second", ap_p + d * (1 - eps))):
        mean = 0.0
        for draw in itertools.product((False, True), repeat=n):
            s = np.array(draw)
            prob = float(np.prod(np.where(s, pi, 1 - pi)))
            args = (zero, p, np.where(s, h, np.nan), pi, rankings, 1, 1.0, centre)
            got = ap_pairs(*args, bounds=unbounded)
            mean += prob * got["ap"][0, 0]
            # by default a diverged expansion is kept in [-1, 2]
            bounded = ap_pairs(*args)["ap"][0, 0]
            assert bounded == min(max(got["ap"][0, 0], -1.0), 2.0)
        assert mean == pytest.approx(want, rel=1e-11, abs=1e-12)
        exact = ap_pairs(
            zero, h, np.where(rng.random(n) < 0.5, h, np.nan), pi, rankings, 1, 1.0, centre
        )
        assert exact["ap"][0, 0] == pytest.approx(num / big_r, rel=1e-12)


def test_cli_calibrated_working_model(tmp_path, capsys):
    """``--working-model calibrated``: with every pooled pair judged (pi = 1) every r_d is
    the people's label whatever the machine's values, so the ratio (centre sample) is
    trec_eval's AP exactly; linearised at the calibrated values (centre second) it is
    not (its remainder), and no interval is left (se 0)."""
    import json

    from cranfield.cli.main import main

    paths = _write_sample(tmp_path, 12)
    full = tmp_path / "full.qrels"
    qrels, _ = simulate_collection(8, 30, 3, seed=12)
    qrels.to_trec(str(full))
    argv = [str(tmp_path / "machine.qrels"), str(full), *paths, "--units", "pairs", "-m", "AP"]
    ev = evaluate(qrels, [Run.read(p) for p in paths], ["AP"], complete=True)
    for centre in ("sample", "second"):
        extra = ["--working-model", "calibrated", "--centre", centre, "--inclusion", "1"]
        assert main(["ppi", *argv, *extra, "--format", "json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert (got["model"], got["centre"]) == ("calibrated", centre)
        for name in ev.run_names:
            want = np.mean(list(ev.per_query(name, "AP").values()))
            if centre == "sample":
                assert got["runs"][name]["estimate"] == pytest.approx(want, rel=1e-13)
            assert got["runs"][name]["se"] == 0.0


def test_anticipated_variance_by_hand():
    """The working model's variances of a four-pair topic, computed by hand: p = (0.5,
    0.2, 0.9, 0), pi = (0.5, 0.5, 0.25, 0.5), pairs 0 (relevant) and 2 (not) sampled.
    The sample's Horvitz-Thompson variances e^2 (1 - pi) / pi^2 are 0.25 * 0.5 / 0.25 =
    0.5 and 0.81 * 0.75 / 0.0625 = 9.72; the model's p (1 - p)(1 - pi) / pi^2 there are
    0.25 * 0.5 / 0.25 = 0.5 and 0.09 * 0.75 / 0.0625 = 1.08, so k = 10.22 / 1.58, and
    every pair's p (1 - p)(1 - pi) / pi is 0.25, 0.16, 0.27 and 0 (pair 3: p = 0, no
    variance)."""
    from cranfield.judgments.ppi_ap import _anticipated

    p = np.array([0.5, 0.2, 0.9, 0.0])
    pi_all = np.array([0.5, 0.5, 0.25, 0.5])
    human = np.array([1.0, np.nan, 0.0, np.nan])
    sampled = ~np.isnan(human)
    pi = np.where(sampled, pi_all, 1.0)
    e = np.where(sampled, np.nan_to_num(human) - p, 0.0)
    v = e**2 * (1 - pi) / pi**2
    rows, var = _anticipated(p, pi_all, sampled, pi, v)
    assert rows.tolist() == [0, 1, 2]
    np.testing.assert_allclose(var, 10.22 / 1.58 * np.array([0.25, 0.16, 0.27]), rtol=1e-12)
    # an unknown inclusion probability counts as certain; no uncertain pair sampled: k = 1
    # pair 2 sampled for certain, pair 0 not sampled (0.5), pair 1's probability unknown
    only = np.array([False, False, True, False])
    rows, var = _anticipated(p, np.array([0.5, np.nan, 1.0, 0.5]), only, np.ones(4), 0 * v)
    assert rows.tolist() == [0] and var.tolist() == [0.25 * 0.5 / 0.5]


def test_anticipated_variance_against_monte_carlo():
    """Under the working model (every pair relevant with its probability p, drawn anew
    each time, and p the machine's values), the mean of the model variance of each MAP
    and of their difference is within 12 % of the Monte-Carlo mean squared error against
    the realised full-judgment MAP (Isaki & Fuller's anticipated variance, over the model
    and the design; 1500 draws put it within about 4 % at one standard error). 20 topics
    of 60 pairs, each judged with probability 0.15 or 0.4, or for certain (a tenth). k
    rescales the model's variances to the sample's, so this checks the influences, the
    sum over the unsampled pairs and the scale; k itself is checked by hand above."""
    rng = np.random.default_rng(3)
    n_topics, n = 20, 60
    code = np.repeat(np.arange(n_topics), n)
    scale = rng.uniform(0.5, 1.5, n_topics)[code]
    p = np.clip(rng.beta(1.0, 2.5, n_topics * n) * scale, 0.01, 0.99)
    rankings = []
    for quality in (1.0, 3.0):
        score = quality * p + rng.normal(size=n_topics * n)
        order = np.lexsort((-score, code))
        rankings.append((code[order], order))
    pi = np.where(rng.random(n_topics * n) < 0.5, 0.15, 0.4)
    pi[rng.random(n_topics * n) < 0.1] = 1.0
    one = np.ones(n_topics * n)
    squared, var = [], []
    for _ in range(1500):
        h = (rng.random(n_topics * n) < p).astype(float)
        truth = ap_pairs(code, h, h, one, rankings, n_topics)["map"]
        s = rng.random(n_topics * n) < pi
        got = ap_pairs(
            code, p, np.where(s, h, np.nan), pi, rankings, n_topics, 1.0, "second", "model"
        )
        err = got["map"] - truth
        squared.append([err[0] ** 2, err[1] ** 2, (err[0] - err[1]) ** 2])
        c = got["cov"]
        var.append([c[0, 0], c[1, 1], c[0, 0] + c[1, 1] - 2 * c[0, 1]])
    np.testing.assert_allclose(np.mean(var, axis=0), np.mean(squared, axis=0), rtol=0.12)


def test_frame_probabilities_of_six_column_sampled_qrels(tmp_path):
    """Six-column sampled qrels carry the inclusion probability of every pooled pair,
    drawn or not (-1): with one probability for all, the estimates and intervals are
    those of the drawn pairs' qrels with that probability (``inclusion=0.3``); with the
    undrawn lines left out, their probability is unknown and they count as certain (the
    same estimates, narrower intervals)."""
    from cranfield.judgments.simulate import simulate_assessor_qrels

    qrels, runs = simulate_collection(10, 40, 3, seed=21)
    machine = simulate_assessor_qrels(qrels, 0.7, seed=21)
    t = qrels.table
    drawn = np.random.default_rng(21).random(len(t)) < 0.3
    columns = (t["query_id"].to_pylist(), t["doc_id"].to_pylist(), t["relevance"].to_pylist())
    lines = [
        f"{q} 0 {d} 1 {g if s else -1} 0.3\n"
        for q, d, g, s in zip(*columns, drawn.tolist(), strict=True)
    ]
    (tmp_path / "all.txt").write_text("".join(lines))
    (tmp_path / "drawn.txt").write_text("".join(np.asarray(lines, dtype=object)[drawn]))
    got = evaluate_ap_pairs(machine, str(tmp_path / "all.txt"), runs)
    want = evaluate_ap_pairs(machine, Qrels(t.filter(pa.array(drawn))), runs, inclusion=0.3)
    assert got["variance"] == "larger" and got["sampled"] == int(drawn.sum())
    fewer = evaluate_ap_pairs(machine, str(tmp_path / "drawn.txt"), runs)
    for name in runs:
        a, b, c = got["runs"][name], want["runs"][name], fewer["runs"][name]
        assert a["estimate"] == pytest.approx(b["estimate"], rel=1e-12)
        assert a["se"] == pytest.approx(b["se"], rel=1e-12)
        assert c["estimate"] == pytest.approx(a["estimate"], rel=1e-12)
        assert 0 < c["se"] <= a["se"]
    assert sum(fewer["runs"][n]["se"] for n in runs) < sum(got["runs"][n]["se"] for n in runs)


def test_larger_variance_takes_each_topics_larger():
    """``variance="larger"``: each topic's variances are all the design's or all the
    model's, whichever is larger summed over the runs (computed here from the two
    separate results), each MAP's variance is the chosen topics' sum over T^2, and the
    estimates are the same."""
    rng = np.random.default_rng(5)
    n_topics, n = 12, 40
    code = np.repeat(np.arange(n_topics), n)
    h = (rng.random(n_topics * n) < rng.uniform(0.05, 0.5, n_topics)[code]).astype(float)
    p = np.clip(0.7 * h + 0.15 + rng.normal(0, 0.1, len(h)), 0.02, 0.98)
    rankings = []
    for quality in (0.5, 1.0, 2.0):
        score = quality * h + rng.normal(size=len(h))
        order = np.lexsort((-score, code))
        rankings.append((code[order], order))
    pi = np.full(len(h), 0.2)
    human = np.where(rng.random(len(h)) < pi, h, np.nan)
    got = {
        v: ap_pairs(code, p, human, pi, rankings, n_topics, 1.0, "second", v)
        for v in ("design", "model", "larger")
    }
    tv = {v: r["topic_variance"] for v, r in got.items()}
    model_wins = tv["model"].sum(axis=1) >= tv["design"].sum(axis=1)
    assert 0 < model_wins.sum() < n_topics  # both kinds of topic occur
    want = np.where(model_wins[:, None], tv["model"], tv["design"])
    np.testing.assert_allclose(tv["larger"], want, rtol=1e-12)
    np.testing.assert_allclose(
        np.diag(got["larger"]["cov"]), want.sum(axis=0) / n_topics**2, rtol=1e-12
    )
    np.testing.assert_array_equal(got["larger"]["map"], got["model"]["map"])


def test_unknown_variance_is_refused():
    from cranfield.errors import ParameterError

    one = np.ones(2)
    rankings = [(np.zeros(2, np.int64), np.arange(2))]
    with pytest.raises(ParameterError, match="variance"):
        ap_pairs(np.zeros(2, np.int64), one, one, one, rankings, 1, 1.0, "second", "bogus")


def test_no_disagreement_in_the_sample_is_noted():
    """When the people agree with the machine on every sampled pair (here: the machine
    is the people, with the sample drawn at 0.2), every variance estimate is about 0:
    a note says so; one disagreement removes it."""
    qrels, runs = simulate_collection(6, 30, 3, seed=8)
    t = qrels.table
    drawn = np.random.default_rng(8).random(len(t)) < 0.2
    human = Qrels(t.filter(pa.array(drawn)))
    got = evaluate_ap_pairs(Qrels(t), human, runs, inclusion=0.2)
    check = [c for c in got["checks"] if c["check"].startswith("people and machine")][0]
    assert not check["ok"] and f"all {int(drawn.sum())} sampled pairs" in check["detail"]
    assert max(r["se"] for r in got["runs"].values()) < 1e-6
    grades = t["relevance"].to_numpy().copy()
    first = int(np.flatnonzero(drawn)[0])
    grades[first] = 0 if grades[first] > 0 else 2  # the machine wrong on one sampled pair
    machine = Qrels(t.set_column(2, "relevance", pa.array(grades)))
    got = evaluate_ap_pairs(machine, human, runs, inclusion=0.2)
    assert [c["ok"] for c in got["checks"] if c["check"].startswith("people and machine")] == [True]
