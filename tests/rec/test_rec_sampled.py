"""Sampled metrics (Krichene & Rendle 2020): the sampled rank's distribution against
SciPy's hypergeometric and against drawing the negatives here; the correction recovers
the full metric where the sample is the whole catalogue, and comes closer to it than the
sampled metric; the command line reports both with a note."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats

from cranfield.rec.sampled import corrected_values, rank_metric, sampled_estimates, sampled_rank_pmf


@pytest.mark.parametrize("seed", range(20))
def test_the_sampled_rank_is_hypergeometric(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    m = int(rng.integers(1, n))
    ranks = rng.integers(1, n + 1, 30)
    ours = sampled_rank_pmf(ranks, n, m)
    want = np.array([stats.hypergeom.pmf(np.arange(m + 1), n - 1, r - 1, m) for r in ranks])
    assert np.allclose(ours, want, rtol=1e-9, atol=1e-14)


def test_drawing_the_negatives_gives_the_expected_sampled_metric():
    """The sampling done here: m negatives drawn without replacement among the n - 1
    other candidates; the held-out item's sampled rank 1 + those ranked above it."""
    rng = random.Random(5)
    n, m, k = 300, 25, 5
    ranks = [min(n, int(rng.expovariate(1 / 40)) + 1) for _ in range(200)]
    hr = rank_metric("hr", k)
    draws = []
    for r in ranks:
        for _ in range(40):
            above = sum(1 for x in rng.sample(range(n - 1), m) if x < r - 1)
            draws.append(float(above + 1 <= k))
    expected = sampled_estimates(hr, ranks, n, m)["sampled"]
    assert abs(np.mean(draws) - expected) < 4 * np.std(draws) / np.sqrt(len(draws))


@pytest.mark.parametrize("metric", [("hr", 10), ("ndcg", 10), ("rr", None)])
def test_sampling_everything_changes_nothing(metric):
    """m = n - 1: the sampled rank is the rank; the correction is the metric itself."""
    n = 60
    f = rank_metric(*metric)
    ranks = np.arange(1, n + 1)
    e = sampled_estimates(f, ranks, n, n - 1)
    assert e["sampled"] == pytest.approx(e["full"], rel=1e-12)
    assert corrected_values(f, n, n - 1) == pytest.approx(f(np.arange(1, n + 1)), abs=1e-9)


@pytest.mark.parametrize("metric", [("hr", 10), ("ndcg", 10), ("rr", None)])
def test_the_correction_comes_closer_to_the_full_metric(metric):
    rng = np.random.default_rng(2)
    n, m = 2000, 100
    ranks = np.minimum(rng.geometric(0.004, 3000), n)
    e = sampled_estimates(rank_metric(*metric), ranks, n, m)
    assert abs(e["corrected"] - e["full"]) < abs(e["sampled"] - e["full"]) / 4


def test_the_command_reports_sampled_and_corrected_values_with_a_note(tmp_path, cli):
    rng = random.Random(1)
    items = [f"i{j}" for j in range(50)]
    log = ["user,item"] + [f"u{u},{i}" for u in range(30) for i in rng.sample(items, 5)]
    (tmp_path / "log.csv").write_text("\n".join(log) + "\n")
    recs = ["user,item,score"] + [
        f"u{u},{i},{len(items) - k}" for u in range(30) for k, i in enumerate(rng.sample(items, 50))
    ]
    (tmp_path / "recs.csv").write_text("\n".join(recs) + "\n")
    argv = ["rec", "eval", tmp_path / "log.csv", tmp_path / "recs.csv", "--split", "loo-random"]
    status, out, err = cli(*argv, "-m", "HR@10", "RR", "--sampled-negatives", "20", "-f", "json")
    assert status == 0, err
    import json

    values = json.loads(out)["measures"]
    assert set(values) >= {"Success@10~20", "Success@10~20 corrected", "RR~20", "RR~20 corrected"}
    assert values["Success@10~20"] > values["Success@10"]  # sampled HR flatters the run
    assert "Krichene & Rendle 2020" in err
    short = ["user,item,score"] + [f"u{u},i{j},1" for u in range(30) for j in range(3)]
    (tmp_path / "short.csv").write_text("\n".join(short) + "\n")
    argv[3] = tmp_path / "short.csv"
    status, out, err = cli(*argv, "-m", "HR@10", "--sampled-negatives", "20")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "not in the lists" in err or "candidates" in err


@pytest.mark.parametrize("seed", range(6))
def test_the_sampled_values_use_each_held_out_items_rank_in_its_list(seed, tmp_path):
    """``evaluate_recommendations(sampled_negatives=M)`` equals ``sampled_estimates`` on
    ranks and list lengths found here user by user (string ids, dictionaries)."""
    from cranfield.rec import evaluate_recommendations, read_interactions, read_recommendations

    rng = random.Random(seed)
    items = [f"item-{j:03d}" for j in range(40)]
    users = [f"user{u}" for u in range(25)]
    held = {u: rng.sample(items, rng.randint(1, 3)) for u in users}
    (tmp_path / "test.csv").write_text(
        "user,item\n" + "".join(f"{u},{i}\n" for u in users for i in held[u])
    )
    lists = {u: rng.sample(items, rng.randint(30, 40)) for u in users}
    for u in users:  # every held-out item in its user's list
        lists[u] += [i for i in held[u] if i not in lists[u]]
    rows = [
        (u, i, len(lists[u]) - k)
        for u in rng.sample(users, len(users))
        for k, i in enumerate(lists[u])
    ]
    (tmp_path / "recs.csv").write_text(
        "user,item,score\n" + "".join(f"{u},{i},{s}\n" for u, i, s in rows)
    )
    m = 12
    got = evaluate_recommendations(
        read_interactions(tmp_path / "test.csv"),
        read_recommendations(tmp_path / "recs.csv"),
        ["HR@5", "RR"],
        sampled_negatives=m,
    ).table()
    ranks, lengths = [], []
    for u in sorted(users):
        for i in sorted(set(held[u])):
            ranks.append(lists[u].index(i) + 1)
            lengths.append(len(lists[u]))
    order = np.lexsort((ranks, lengths))  # the estimates do not depend on the order
    ranks, lengths = np.array(ranks)[order], np.array(lengths)[order]
    for name, metric in (("Success@5", rank_metric("hr", 5)), ("RR", rank_metric("rr", None))):
        want = sampled_estimates(metric, ranks, lengths, m)
        assert got[f"{name}~{m}"] == pytest.approx(want["sampled"], rel=1e-12)
        assert got[f"{name}~{m} corrected"] == pytest.approx(want["corrected"], rel=1e-12)
