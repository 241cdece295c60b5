"""``cranfield pool mtc`` (pooling/mtc_order.py) against the per-pair MTC formulas of
pooling/mtc.py (coefficients, moments, weights: themselves tested by enumeration in
test_mtc.py) and against the library's simulation (rank_runs_map)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cranfield.pooling import mtc


def _collection(seed, n_topics=4, n_runs=4, n_docs=12, depth=8):
    """Runs over documents d00..d{n-1} (byte order = number order) and the truth."""
    rng = np.random.default_rng(seed)
    topics = []
    for _ in range(n_topics):
        truth = (rng.random(n_docs) < 0.35).astype(int)
        truth[rng.integers(n_docs)] = 1
        runs = [
            np.argsort(-(truth * s + rng.random(n_docs)), kind="stable")[:depth]
            for s in rng.uniform(0.0, 1.5, n_runs)
        ]
        topics.append((runs, truth))
    return topics


def _write_runs(tmp_path, topics):
    paths = []
    for a in range(len(topics[0][0])):
        lines = [
            f"{100 + t} Q0 d{doc:02d} {r + 1} {100 - r} run{a}"
            for t, (runs, _) in enumerate(topics)
            for r, doc in enumerate(runs[a])
        ]
        path = tmp_path / f"run{a}.txt"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def _write_qrels(path, topics, judgments, extra=()):
    lines = [
        f"{100 + t} 0 d{i:02d} {int(j[i])}"
        for t, j in enumerate(judgments)
        for i in np.flatnonzero(j >= 0)
    ]
    path.write_text("\n".join([*lines, *extra]) + "\n")
    return path


def _pool_ids(topics):
    """Per topic, the pooled documents (retrieved by some run), sorted: the order the
    command codes them in."""
    return [np.unique(np.concatenate(runs)) for runs, _ in topics]


def _expected(topics, judgments, outside=None, prior=0.5):
    """Per-pair formulas over each topic's pooled documents: (differences, variances,
    {(topic, doc): score} of the unjudged pooled documents)."""
    n_runs = len(topics[0][0])
    pairs = list(itertools.combinations(range(n_runs), 2))
    means, var, scores = np.zeros(len(pairs)), np.zeros(len(pairs)), {}
    polys, scales = [], []
    for t, ((runs, _), pool) in enumerate(zip(topics, _pool_ids(topics), strict=True)):
        local = np.full(max(pool) + 1, -1)
        local[pool] = np.arange(len(pool))
        j = judgments[t][pool]
        p = mtc.probabilities(j, prior[t] if isinstance(prior, list) else prior)
        r = max(float(p.sum()) + (outside[t] if outside is not None else 0.0), 1.0)
        qs = [mtc.coefficients(local[runs[a]], local[runs[b]], len(pool)) for a, b in pairs]
        for index, q in enumerate(qs):
            m, v = mtc.moments(q, p)
            means[index] += m / r
            var[index] += v / r**2
        polys.append((qs, j, pool))
        scales.append(r)
    means, var = means / len(topics), var / len(topics) ** 2
    risks = np.array([mtc.sign_change_probability(m, v) for m, v in zip(means, var, strict=True)])
    open_ = risks >= 0.05
    for t, ((qs, j, pool), r) in enumerate(zip(polys, scales, strict=True)):
        w = sum(np.abs(mtc.weights(q, j == 1)) for q, o in zip(qs, open_, strict=True) if o)
        for i in np.flatnonzero(j < 0):
            scores[(str(100 + t), f"d{pool[i]:02d}")] = float(w[i]) / r
    return means, var, risks, scores


def _read_order(text):
    rows = [line.split() for line in text.splitlines()]
    return [(q, d) for q, d, _ in rows], [float(s) for _, _, s in rows]


def _read_decisions(path):
    rows = [line.split() for line in path.read_text().splitlines()]
    return (
        [(a, b) for a, b, *_ in rows],
        np.array([float(r[2]) for r in rows]),
        np.array([float(r[3]) for r in rows]),
        [r[4] for r in rows],
    )


@pytest.mark.parametrize("seed", range(6))
def test_order_and_decisions_equal_the_pairwise_formulas(cli, tmp_path, seed):
    topics = _collection(seed)
    paths = _write_runs(tmp_path, topics)
    rng = np.random.default_rng(seed)
    judgments = [np.where(rng.random(len(t)) < 0.3, t, -1) for _, t in topics]
    qrels = _write_qrels(tmp_path / "qrels", topics, judgments, extra=["100 0 zz-elsewhere 1"])
    decisions = tmp_path / "decisions"
    status, out, err = cli(
        "pool", "mtc", *paths, "--qrels", qrels, "-n", "1000", "--decisions", decisions
    )
    assert status == 0, err
    outside = np.zeros(len(topics))
    outside[0] = 1  # the relevant document no run retrieved counts in R of topic 100
    means, var, risks, scores = _expected(topics, judgments, outside)
    names, got_means, got_risks, decided = _read_decisions(decisions)
    assert names == [(f"run{a}", f"run{b}") for a, b in itertools.combinations(range(4), 2)]
    assert got_means == pytest.approx(means, rel=1e-9, abs=1e-12)
    assert got_risks == pytest.approx(risks, rel=1e-6, abs=1e-12)
    assert decided == [str(int(r < 0.05)) for r in risks]
    pairs, got_scores = _read_order(out)
    if (risks < 0.05).all():
        assert pairs == [] and "nothing left to judge" in err
        return
    assert sorted(pairs) == sorted(scores)  # every unjudged pooled pair, each once
    assert got_scores == pytest.approx([scores[p] for p in pairs], rel=1e-9, abs=1e-12)
    # best first (scores within a relative 1e-9 count as tied and keep topic, doc order)
    assert all(a >= b - 1e-9 * a for a, b in itertools.pairwise(got_scores))
    assert f"{int((risks < 0.05).sum())} of 6 run pairs decided" in err


def test_judging_in_the_commands_order_is_the_librarys_simulation(cli, tmp_path):
    # judge one pair at a time, as the command says, until it says everything is
    # decided: the same number of judgments as rank_runs_map over the pooled documents
    topics = _collection(11, n_topics=3, n_runs=3, n_docs=10, depth=6)
    paths = _write_runs(tmp_path, topics)
    pools = _pool_ids(topics)
    local_topics = []
    for (runs, truth), pool in zip(topics, pools, strict=True):
        local = np.full(max(pool) + 1, -1)
        local[pool] = np.arange(len(pool))
        local_topics.append(([local[r] for r in runs], truth[pool]))
    expected, _, _ = mtc.rank_runs_map(local_topics)
    judgments = [np.full(len(t), -1) for _, t in topics]
    qrels = tmp_path / "qrels"
    steps = 0
    while True:
        given = ["--qrels", _write_qrels(qrels, topics, judgments)] if steps else []
        status, out, err = cli("pool", "mtc", *paths, *given, "-n", "1")
        assert status == 0, err
        if not out:
            break
        topic, doc = out.split()[:2]
        t, i = int(topic) - 100, int(doc[1:])
        assert judgments[t][i] < 0
        judgments[t][i] = topics[t][1][i]
        steps += 1
    assert steps == expected
    assert "every run pair is decided" in err or "stay undecided" in err


def test_complete_judgments_stop(cli, tmp_path):
    topics = _collection(3)
    paths = _write_runs(tmp_path, topics)
    qrels = _write_qrels(tmp_path / "qrels", topics, [t for _, t in topics])
    decisions = tmp_path / "decisions"
    status, out, err = cli("pool", "mtc", *paths, "--qrels", qrels, "--decisions", decisions)
    assert status == 0
    assert out == ""
    means, var, risks, _ = _expected(topics, [t for _, t in topics])
    assert (var == 0).all()
    _, got_means, got_risks, decided = _read_decisions(decisions)
    assert got_means == pytest.approx(means, rel=1e-9, abs=1e-12)
    # with everything judged a pair is decided unless the runs tie exactly
    assert decided == [str(int(m != 0)) for m in means]


def test_formats_pairs_and_qrels_list_the_same_order(cli, tmp_path):
    paths = _write_runs(tmp_path, _collection(4))
    outs = {}
    for fmt in ("order", "pairs", "qrels"):
        status, outs[fmt], err = cli("pool", "mtc", *paths, "-n", "7", "-f", fmt)
        assert status == 0, err
    order = [line.split()[:2] for line in outs["order"].splitlines()]
    assert len(order) == 7
    assert [line.split() for line in outs["pairs"].splitlines()] == order
    assert [line.split() for line in outs["qrels"].splitlines()] == [
        [q, "0", d, "-1"] for q, d in order
    ]


@pytest.mark.parametrize("measure", ["P@3", "DCG@3"])
def test_linear_measures(cli, tmp_path, measure):
    topics = _collection(5)
    paths = _write_runs(tmp_path, topics)
    decisions = tmp_path / "decisions"
    status, out, err = cli("pool", "mtc", *paths, "-m", measure, "--decisions", decisions)
    assert status == 0, err
    name, k = mtc.measure_spec(measure)
    # P@k/DCG@k difference with everything at the prior 0.5: half the weight difference
    pairs = list(itertools.combinations(range(4), 2))
    expected = np.zeros(len(pairs))
    for runs, _ in topics:
        n = int(max(r.max() for r in runs)) + 1
        for index, (a, b) in enumerate(pairs):
            poly = mtc.coefficients(runs[a], runs[b], n, name, k)
            expected[index] += poly.d.sum() * 0.5
    _, got, _, _ = _read_decisions(decisions)
    assert got == pytest.approx(expected / len(topics), abs=1e-12)


def test_rank_prior_order_is_the_librarys(cli, tmp_path):
    topics = _collection(21, n_topics=6, n_runs=4, n_docs=14, depth=10)
    paths = _write_runs(tmp_path, topics)
    rng = np.random.default_rng(21)
    judgments = [np.where(rng.random(len(t)) < 0.6, t, -1) for _, t in topics]
    qrels = _write_qrels(tmp_path / "qrels", topics, judgments)
    decisions = tmp_path / "decisions"
    argv = ["pool", "mtc", *paths, "--qrels", qrels, "--prior", "ranks", "-n", "1000"]
    status, out, err = cli(*argv, "--decisions", decisions)
    assert status == 0, err
    pools = _pool_ids(topics)
    local_runs, local_judged = [], []
    for (runs, _), pool, j in zip(topics, pools, judgments, strict=True):
        local = np.full(max(pool) + 1, -1)
        local[pool] = np.arange(len(pool))
        local_runs.append([local[r] for r in runs])
        local_judged.append(j[pool])
    state = mtc.MapJudging(local_runs, [len(p) for p in pools], local_judged)
    fitted = mtc.rank_prior(state.ranks, state.judged)
    assert fitted is not None
    prior = [fitted[t, : len(p)] for t, p in enumerate(pools)]
    means, _, _, scores = _expected(topics, judgments, prior=prior)
    _, got_means, _, _ = _read_decisions(decisions)
    assert got_means == pytest.approx(means, rel=1e-9, abs=1e-12)
    pairs, got_scores = _read_order(out)
    assert got_scores == pytest.approx([scores[p] for p in pairs], rel=1e-9, abs=1e-12)
