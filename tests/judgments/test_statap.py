"""statAP and statPC@10 (:mod:`cranfield.core.statap`, ``sample_eval --statap``)
against (1) a hand-computed case, (2) a straightforward transcription of Aslam, Pavlu &
Yilmaz's (2006) formula written here, rank by rank, on random samples, and (3) a
simulation: over repeated Poisson samples drawn with the statAP design's probabilities,
the mean of R-hat and statPC@10 is the complete-judgment value (unbiased), the mean of
statAP is within 0.01 of AP (a ratio: unbiased to first order), and the 95% interval of
the mean over topics (topics as sampling units) covers the complete-judgment MAP in at
least 93% of repetitions."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.core.sampled import SampledTopic, evaluate_sampled
from cranfield.core.statap import estimate_statap
from cranfield.judgments.intervals import extra_text, mean_interval
from cranfield.pooling.sampling import _pps_probabilities, ap_prior


def _topic(grades: dict, probability: dict) -> SampledTopic:
    docs = {d: ("1", g, str(g)) for d, g in grades.items()}
    return SampledTopic(docs, dict(probability))


def test_hand_computed_case():
    # a (pi 1) and c (pi 1/4) sampled relevant, b sampled non-relevant, d not sampled
    topic = _topic({"a": 1, "b": 0, "c": 2, "d": -1}, {"a": 1, "b": 0.5, "c": 0.25, "d": 0.5})
    e = estimate_statap("1", topic, ["a", "b", "c", "d"])
    # R = 1 + 4; AP = (1 * 1/1 + 4 * (1 + 1)/3) / 5 = 11/15; PC@10 = (1 + 4)/10
    assert e.stat_ap == pytest.approx(11 / 15, rel=1e-15)
    assert e.stat_pc == pytest.approx(0.5, rel=1e-15)
    # Var(AP) = (1 - 1/4) * 16 * (2/3 - 11/15)^2 / 25; Var(PC) = (1 - 1/4) * 16 / 100
    assert e.stat_ap_var == pytest.approx(12 / 5625, rel=1e-12)
    assert e.stat_pc_var == pytest.approx(0.12, rel=1e-12)


def transcription(topic: SampledTopic, ranked: list[str]) -> tuple[float, float]:
    """statAP and statPC@10 as the paper writes them, one rank at a time."""
    relevant = [d for d, (_, g, _) in topic.docs.items() if g > 0]
    r_hat = sum(1 / topic.probability[d] for d in relevant)
    total, found, pc = 0.0, 0.0, 0.0
    for k, doc in enumerate(ranked[:1000], 1):
        if doc in relevant:
            precision = (1 + found) / k
            total += precision / topic.probability[doc]
            found += 1 / topic.probability[doc]
            if k <= 10:
                pc += 1 / topic.probability[doc]
    return (total / r_hat if r_hat else 0.0), pc / 10


@pytest.mark.parametrize("seed", range(40))
def test_against_the_transcription(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    docs = [f"d{i}" for i in range(n)]
    pi = rng.uniform(0.05, 1.0, n)
    pi[rng.random(n) < 0.2] = 1.0
    drawn = rng.random(n) < pi
    grade = np.where(drawn, (rng.random(n) < 0.4) * rng.integers(1, 4, n), -1)
    topic = _topic(
        dict(zip(docs, grade.tolist(), strict=True)), dict(zip(docs, pi.tolist(), strict=True))
    )
    ranked = list(rng.permutation(docs + [f"x{i}" for i in range(5)]))[
        : int(rng.integers(0, n + 5))
    ]
    e = estimate_statap("t", topic, ranked)
    ap, pc = transcription(topic, ranked)
    assert e.stat_ap == pytest.approx(ap, rel=1e-12, abs=1e-15)
    assert e.stat_pc == pytest.approx(pc, rel=1e-12, abs=1e-15)


def _simulation_collection(rng, topics=30, pool=150):
    """Per topic: relevance of the pooled documents, a ranking, statAP probabilities."""
    out = []
    for _ in range(topics):
        rel = rng.random(pool) < 0.25
        rel[0] = True
        ranking = np.argsort(-(rel * rng.normal(1.0, 1.0, pool) + rng.normal(0, 1, pool)))
        rank_of = np.empty(pool, dtype=np.int64)
        rank_of[ranking] = np.arange(1, pool + 1)
        prior = ap_prior(rank_of, pool)
        pi = _pps_probabilities(np.zeros(pool, dtype=np.int64), prior, np.array([0.2 * pool]))
        # the complete-judgment values
        hits = rel[ranking]
        ap = float(np.sum(np.cumsum(hits) / np.arange(1, pool + 1) * hits) / hits.sum())
        out.append((rel, ranking, pi, ap, hits[:10].sum() / 10, rel.sum()))
    return out


def test_unbiased_and_covering_by_simulation():
    rng = np.random.default_rng(2008)
    collection = _simulation_collection(rng)
    reps = 200
    ap_err, pc_err, r_err, covered, topic_covered = [], [], [], 0, 0
    true_map = np.mean([c[3] for c in collection])
    for _ in range(reps):
        aps, variances = [], []
        for rel, ranking, pi, ap, pc, num_rel in collection:
            drawn = rng.random(len(rel)) < pi
            docs = [f"d{i}" for i in range(len(rel))]
            grade = np.where(drawn, rel.astype(np.int64), -1)
            topic = _topic(
                dict(zip(docs, grade.tolist(), strict=True)),
                dict(zip(docs, pi.tolist(), strict=True)),
            )
            e = estimate_statap("t", topic, [docs[i] for i in ranking])
            ap_err.append(e.stat_ap - ap)
            pc_err.append(e.stat_pc - pc)
            r_err.append(float(np.sum(1 / pi[drawn & rel])) - num_rel)
            aps.append(e.stat_ap)
            variances.append(e.stat_ap_var)
        lo, hi = mean_interval(aps)
        covered += lo <= true_map <= hi
        half = 1.959963984540054 * np.sqrt(variances)
        topic_covered += int(np.sum(np.abs(np.array(aps) - [c[3] for c in collection]) <= half))
    for err in (pc_err, r_err):  # Horvitz-Thompson: unbiased; within 4 standard errors
        assert abs(np.mean(err)) <= 4 * np.std(err) / np.sqrt(len(err))
    assert abs(np.mean(ap_err)) < 0.01  # measured -0.006 (0.003 standard error)
    assert covered / reps >= 0.93  # measured 0.965
    # per topic (about 10 sampled relevant documents each): measured 0.88, not 0.95
    assert topic_covered / (reps * len(collection)) >= 0.85


def test_sample_eval_statap_lines(tmp_path, cli):
    q = tmp_path / "q"
    q.write_text("1 0 a 1 1 1\n1 0 b 1 0 0.5\n1 0 c 1 2 0.25\n1 0 d 1 -1 0.5\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 4 x\n1 Q0 b 2 3 x\n1 Q0 c 3 2 x\n1 Q0 d 4 1 x\n")
    status, out, err = cli("sample_eval", "--statap", "--ci", str(q), str(r))
    assert status == 0, err
    lines = out.splitlines()
    assert "statAP\t\tall\t\t0.7333" in lines and "statPC@10\tall\t\t0.5000" in lines
    half = 1.959963984540054 * (12 / 5625) ** 0.5
    assert f"statAP_ci95\tall\t\t{11 / 15 - half:6.4f} {11 / 15 + half:6.4f}" in lines
    # without --statap the output is sample_eval's own, unchanged
    status, plain, _ = cli("sample_eval", str(q), str(r))
    assert status == 0 and plain == out[: len(plain)] and "stat" not in plain
    both = evaluate_sampled(str(q), str(r), statap=True, variances=True)
    assert out == plain + extra_text(both, ci=True)
    # one topic: the interval of the mean is the topic's own, from its jackknife variance
    e, (var_ap, _) = both.topics[0], both.variances[0]
    half = 1.959963984540054 * var_ap**0.5
    assert var_ap > 0
    assert f"infAP_ci95\tall\t\t{e.inf_ap - half:6.4f} {e.inf_ap + half:6.4f}" in lines


@pytest.mark.parametrize(
    ("qrels", "argv", "message"),
    [
        ("1 0 a 1 1\n", ["--statap"], "six-column"),
        ("1 0 a 1 1 0\n", [], "not in (0, 1]"),
        ("1 0 a 1 1 1.5\n", [], "not in (0, 1]"),
        ("1 0 a 1 1 0.5\n1 0 b 1 1\n", [], "expected 6 fields"),
    ],
)
def test_refused(tmp_path, cli, qrels, argv, message):
    q = tmp_path / "q"
    q.write_text(qrels)
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 4 x\n")
    status, out, err = cli("sample_eval", *argv, str(q), str(r))
    assert status != 0 and message in err and err.count("\n") == 1, err
