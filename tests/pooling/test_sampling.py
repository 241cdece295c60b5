"""``cranfield pool --sample`` (:mod:`cranfield.pooling.sampling`): the designs draw what
they declare, the frame and ``pool sampled`` round-trip into sample_eval's qrels, and at
rate 1 the sampled estimates equal the measures of the complete judgments of the pool
(trec_eval's AP and P@10 from cranfield's engine, itself checked against trec_eval)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from cranfield.cli.main import main
from cranfield.pooling.sampling import SAMPLE_DESIGNS, _pps_probabilities, ap_prior


def _collection(tmp_path, seed=1, topics=4, docs=200, runs=3, depth=40):
    """Complete qrels and runs: the coverage benchmark's generator."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "sampled_coverage.py"
    spec = importlib.util.spec_from_file_location("sampled_coverage", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.write_collection(tmp_path, seed, topics, docs, runs, depth)


def _frame(path):
    rows = [line.split() for line in open(path).read().splitlines()]
    return rows


def test_ap_prior_sums_to_one_and_matches_its_formula():
    n = 37
    w = ap_prior(np.arange(1, n + 1), n)
    assert abs(w.sum() - 1) < 1e-12
    r = 5
    assert w[r - 1] == pytest.approx((1 + sum(1 / i for i in range(r, n + 1))) / (2 * n), rel=1e-15)


def test_pps_probabilities_sum_to_n_and_cap_at_one():
    topic = np.array([0, 0, 0, 0, 1, 1, 1])
    prior = np.array([10.0, 1, 1, 1, 1, 2, 3])
    pi = _pps_probabilities(topic, prior, np.array([2.0, 3.0]))
    assert pi[0] == 1.0  # 10/13 * 2 > 1: taken for certain, the rest share 1
    assert pi[1:4] == pytest.approx([1 / 3] * 3)
    assert pi[4:] == pytest.approx([1, 1, 1])
    assert np.bincount(topic, weights=pi) == pytest.approx([2, 3])


def test_the_designs_are_declared_with_formula_and_citation():
    assert list(SAMPLE_DESIGNS) == ["uniform", "stratified", "statap"]
    for d in SAMPLE_DESIGNS.values():
        assert d.formula and d.citation


@pytest.mark.parametrize(
    "options",
    [
        ["--sample", "uniform", "--rate", "0.3"],
        ["--sample", "uniform", "--size", "7"],
        ["--sample", "stratified", "--strata", "5,20,40", "--rate", "1,0.5,0.2"],
        ["--sample", "statap", "--rate", "0.3"],
    ],
)
def test_the_frame_holds_every_pooled_pair_and_the_draw(tmp_path, options):
    _, runs = _collection(tmp_path)
    pool, frame, judge = tmp_path / "pool", tmp_path / "frame", tmp_path / "judge"
    assert main(["pool", *runs, "-k", "40", "-o", str(pool)]) == 0
    argv = ["pool", *runs, "-k", "40", *options, "--seed", "5"]
    assert main([*argv, "-o", str(frame), "--to-judge", str(judge)]) == 0
    rows = _frame(frame)
    assert [r[:2] for r in rows] == [line.split() for line in pool.read_text().splitlines()]
    drawn = [r[:2] for r in rows if r[4] == "1"]
    assert drawn == [line.split() for line in judge.read_text().splitlines()]
    topics = sorted({r[0] for r in rows})
    for t in topics:
        mine = [r for r in rows if r[0] == t]
        by_stratum: dict[str, list] = {}
        for r in mine:
            by_stratum.setdefault(r[2], []).append(r)
        for members in by_stratum.values():
            n, size = sum(r[4] == "1" for r in members), len(members)
            pis = {float(r[3]) for r in members}
            if options[1] != "statap":
                # fixed-size simple random sample: pi = n / D in the stratum
                assert pis == {n / size}
                if options[2] == "--size":
                    assert n == 7
                elif options[1] == "uniform":
                    assert n == max(1, int(0.3 * size + 0.5))
        if options[1] == "statap":
            assert sum(float(r[3]) for r in mine) == pytest.approx(
                max(1, int(0.3 * len(mine) + 0.5))
            )
    # the same seed draws the same pairs; another seed other pairs
    again = tmp_path / "again"
    assert main([*argv, "-o", str(again)]) == 0
    assert again.read_bytes() == frame.read_bytes()


def test_stratum_is_the_first_bound_at_or_above_the_best_rank(tmp_path):
    _, runs = _collection(tmp_path, runs=2)
    frame = tmp_path / "frame"
    argv = ["pool", *runs, "-k", "40", "--sample", "stratified", "--strata", "3,10"]
    assert main([*argv, "--rate", "1,1", "-o", str(frame)]) == 0
    best: dict[tuple, int] = {}
    for path in runs:
        for line in open(path):
            t, _, d, k = line.split()[:4]
            best[(t, d)] = min(best.get((t, d), 10**9), int(k))
    for t, d, s, p, drawn in _frame(frame):
        rank = best[(t, d)]
        assert s == ("1" if rank <= 3 else "2"), (t, d, rank)  # deeper than 10: the last
        assert (p, drawn) == ("1", "1")


def _sample_eval(cli, *argv):
    status, out, err = cli("sample_eval", *map(str, argv))
    assert status == 0, err
    return {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines()}


def test_round_trip_at_rate_one_equals_the_complete_judgments(tmp_path, cli):
    qrels, runs = _collection(tmp_path, seed=4)
    frame, sq = tmp_path / "frame", tmp_path / "sq"
    for design in (["uniform"], ["statap"], ["stratified", "--strata", "10,40"]):
        rate = "1,1" if design[0] == "stratified" else "1"
        argv = ["pool", *runs, "-k", "40", "--sample", *design, "--rate", rate]
        assert main([*argv, "-o", str(frame)]) == 0
        assert main(["pool", "sampled", "--probabilities", str(frame), qrels, "-o", str(sq)]) == 0
        lines = [line.split() for line in sq.read_text().splitlines()]
        assert all(x[4] != "-1" and x[5] == "1" for x in lines)  # every pair drawn
        pool_qrels = tmp_path / "pool_qrels"
        pool_qrels.write_text("".join(f"{x[0]} 0 {x[2]} {x[4]}\n" for x in lines))
        for run in runs:
            est = _sample_eval(cli, "-q", "--statap", sq, run)
            ap, p10 = _full_measures(cli, pool_qrels, run)
            for topic, value in ap.items():
                assert float(est[("statAP", topic)][0]) == pytest.approx(value, abs=5e-5)
                assert float(est[("statPC@10", topic)][0]) == pytest.approx(p10[topic], abs=5e-5)
                # sample_eval's xinfAP: AP up to its smoothing constants
                assert float(est[("infAP", topic)][0]) == pytest.approx(value, abs=2e-4)


def _full_measures(cli, qrels, run):
    status, out, err = cli("trec_eval", "-q", "-m", "map", "-m", "P.10", str(qrels), run)
    assert status == 0, err
    ap, p10 = {}, {}
    for line in out.splitlines():
        name, topic, value = line.split()
        if topic != "all":
            (ap if name == "map" else p10)[topic] = float(value)
    return ap, p10


def test_a_drawn_pair_without_a_judgment_is_refused(tmp_path, cli):
    qrels, runs = _collection(tmp_path)
    frame = tmp_path / "frame"
    assert main(["pool", *runs, "--sample", "uniform", "--rate", "0.5", "-o", str(frame)]) == 0
    partial = tmp_path / "partial"
    partial.write_text("1 0 D0 1\n")
    status, out, err = cli("pool", "sampled", str(frame), str(partial))
    assert status != 0 and "drawn pair(s) have no judgment" in err and err.count("\n") == 1


def _straightforward_pi(prior: dict, n: float) -> dict:
    """pi_d = min(1, c prior_d), sum pi = n: cap, rescale the rest, repeat."""
    certain: set = set()
    while True:
        rest = {d: w for d, w in prior.items() if d not in certain}
        c = (n - len(certain)) / sum(rest.values())
        over = {d for d, w in rest.items() if c * w >= 1}
        if not over:
            return {d: 1.0 if d in certain else c * w for d, w in prior.items()}
        certain |= over


def test_statap_probabilities_follow_the_ap_prior_of_every_rank(tmp_path):
    _, runs = _collection(tmp_path, seed=9, topics=3, docs=120, runs=3, depth=60)
    frame = tmp_path / "frame"
    argv = ["pool", *runs, "-k", "15", "--sample", "statap", "--size", "8", "-o", str(frame)]
    assert main(argv) == 0
    ranks: dict[tuple, list] = {}
    deepest = 0
    rows = _frame(frame)
    pooled = {(r[0], r[1]) for r in rows}
    for path in runs:
        for line in open(path):
            t, _, d, k = line.split()[:4]
            ranks.setdefault((t, d), []).append(int(k))
            if (t, d) in pooled:
                deepest = max(deepest, int(k))
    for t in sorted({r[0] for r in rows}):
        prior = {}
        for _, d, *_ in (r for r in rows if r[0] == t):
            prior[d] = sum(
                (1 + sum(1 / i for i in range(k, deepest + 1))) / (2 * deepest)
                for k in ranks[(t, d)]
            )
        expected = _straightforward_pi(prior, 8)
        for _, d, _, p, _ in (r for r in rows if r[0] == t):
            assert float(p) == pytest.approx(expected[d], rel=1e-9), (t, d)


def test_the_prior_counts_only_the_pooled_runs(tmp_path):
    _, runs = _collection(tmp_path, seed=2, topics=2, docs=100, runs=4, depth=30)
    groups = tmp_path / "groups"
    groups.write_text("run0 G\nrun1 G\nrun2 H\nrun3 H\n")
    limited, alone = tmp_path / "limited", tmp_path / "alone"
    design = ["-k", "10", "--sample", "statap", "--rate", "0.4"]
    argv = ["pool", *runs, *design, "--per-group", "1", "--groups", str(groups)]
    assert main([*argv, "-o", str(limited)]) == 0
    assert main(["pool", runs[0], runs[2], *design, "-o", str(alone)]) == 0
    assert limited.read_bytes() == alone.read_bytes()


def test_pool_sample_reads_each_run_once(tmp_path, monkeypatch):
    """``pool --sample`` pools and draws from one reading of the runs (it read them
    twice: cut to the pool depth, then whole for the prior), with the same frame."""
    import cranfield.pooling.files as files
    import cranfield.pooling.pool as pool

    _, runs = _collection(tmp_path, runs=3)
    argv = ["pool", *runs, "-k", "20", "--sample", "statap", "--rate", "0.3", "--seed", "5"]
    read, built = [], []
    original_read, original_build = files.read_runs, pool.build_pool
    monkeypatch.setattr(
        files, "read_runs", lambda *a, **k: read.append(a) or original_read(*a, **k)
    )
    monkeypatch.setattr(
        pool, "build_pool", lambda *a, **k: built.append(a) or original_build(*a, **k)
    )
    assert main([*argv, "-o", str(tmp_path / "frame")]) == 0
    assert len(read) == 1 and len(built) == 1
    # the same frame as pooling at depth 20 then drawing from the whole runs
    from cranfield.pooling.sampling import sample_pool

    whole = original_read(list(runs))
    expected = sample_pool(whole, original_build(whole, "depth", k=20), "statap", 5, rate=0.3)
    assert (tmp_path / "frame").read_bytes() == expected.frame_bytes()
