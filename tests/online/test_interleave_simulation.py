"""The interleaving simulation harness: runs, a click model, a qrels."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import evaluate
from cranfield.clicks import fit, simulate
from cranfield.clicks.simulate import shuffled_sessions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError, ParameterError
from cranfield.online.simulation import simulate_interleaving

N_Q = 6


def collection(seed=0):
    rng = np.random.default_rng(seed)
    qrels, good, bad = {}, {}, {}
    for q in range(N_Q):
        docs = [f"d{q}_{i}" for i in range(15)]
        grades = {d: int(g) for d, g in zip(docs, rng.integers(0, 3, 15), strict=True)}
        qrels[f"q{q}"] = grades
        order = sorted(docs, key=lambda d: -grades[d] + rng.random() * 0.5)
        good[f"q{q}"] = {d: 100.0 - i for i, d in enumerate(order)}
        bad[f"q{q}"] = {d: 100.0 - i for i, d in enumerate(reversed(order))}
    return (
        Qrels.from_dict(qrels),
        Run.from_dict(good, name="good"),
        Run.from_dict(bad, name="bad"),
    )


@pytest.mark.parametrize("method", ["team-draft", "balanced", "probabilistic"])
def test_better_run_agrees_with_ndcg_on_every_query(method):
    qrels, good, bad = collection()
    res = simulate_interleaving(
        [good, bad], qrels, method=method, impressions=300, seed=1, candidates=15
    )
    (pair,) = res["pairs"]
    assert (pair["a"], pair["b"]) == ("good", "bad")
    ref = evaluate(qrels, [good, bad], ["nDCG@10"])
    for row in pair["per_query"]:
        assert row["ndcg_a"] == pytest.approx(ref.per_query(0, "nDCG@10")[row["query"]])
        assert row["ndcg_b"] == pytest.approx(ref.per_query(1, "nDCG@10")[row["query"]])
        assert row["wins_a"] + row["wins_b"] + row["ties"] == 300
    ag = pair["agreement"]
    assert ag["with_difference"] == N_Q
    assert ag["agree"] == ag["decided"] == N_Q and ag["fraction"] == 1.0
    o = pair["overall"]
    assert o["agrees"] is True and o["p_value"] < 1e-10
    assert o["impressions_needed"] is not None and o["impressions_needed"] < 300 * N_Q


def test_identical_runs_no_preference_and_seeded():
    qrels, good, _ = collection()
    twin = Run.from_dict(
        {q: {d: 100.0 - i for i, d in enumerate(docs)} for q, docs in _order(good).items()},
        name="twin",
    )
    one = simulate_interleaving([good, twin], qrels, impressions=400, seed=7)
    two = simulate_interleaving([good, twin], qrels, impressions=400, seed=7)
    assert one == two
    (pair,) = one["pairs"]
    assert pair["agreement"]["with_difference"] == 0
    assert pair["overall"]["agrees"] is None
    assert pair["overall"]["p_value"] > 0.01  # team-draft coins: no preference expected


def _order(run):
    t = run.ranked()
    out: dict = {}
    for q, d in zip(t["query_id"].to_pylist(), t["doc_id"].to_pylist(), strict=True):
        out.setdefault(q, []).append(d)
    return out


def test_multileaving_three_runs_and_fitted_click_model():
    qrels, good, bad = collection()
    rng = np.random.default_rng(3)
    mid = Run.from_dict(
        {q: {d: float(rng.random()) for d in docs} for q, docs in _order(good).items()},
        name="mid",
    )
    lists = {q: list(docs) for q, docs in _order(good).items()}
    from cranfield.clicks import from_qrels

    gen = from_qrels(qrels.to_dict(), "dbn")
    log = simulate(gen, shuffled_sessions(lists, 3000, 10, seed=1), seed=2)
    model = fit(log, "pbm", max_iter=20)
    res = simulate_interleaving([good, mid, bad], qrels, click_model=model, impressions=200, seed=4)
    assert res["method"] == "team-draft multileaving"
    assert [(p["a"], p["b"]) for p in res["pairs"]] == [
        ("good", "mid"),
        ("good", "bad"),
        ("mid", "bad"),
    ]
    assert res["click_model"] == "pbm"
    good_bad = res["pairs"][1]
    assert good_bad["overall"]["wins_a"] > good_bad["overall"]["wins_b"]
    assert good_bad["overall"]["agrees"] is True


def test_queries_left_out_and_errors():
    qrels, good, bad = collection()
    extra = Run.from_dict({**_order_scores(good), "zz": {"x": 1.0}}, name="extra")
    res = simulate_interleaving([extra, bad], qrels, impressions=20, seed=0)
    assert res["queries"] == N_Q
    assert res["notes"] == ["1 queries not in every run left out"]
    with pytest.raises(ParameterError):
        simulate_interleaving([good, bad, extra], qrels, method="balanced")
    with pytest.raises(ParameterError):
        simulate_interleaving([good, bad], qrels, click_model="ubm")
    with pytest.raises(ParameterError):
        simulate_interleaving([good, bad], qrels, impressions=0)
    other = Qrels.from_dict({"nope": {"d": 1}})
    with pytest.raises(InputError):
        simulate_interleaving([good, bad], other)


def _order_scores(run):
    return {q: {d: 100.0 - i for i, d in enumerate(docs)} for q, docs in _order(run).items()}


def test_chunks_split_queries_and_counts_add_up(monkeypatch):
    import cranfield.online.simulation as sim

    monkeypatch.setattr(sim, "CHUNK", 37)  # chunks end inside queries
    qrels, good, bad = collection()
    calls = []
    res = simulate_interleaving(
        [good, bad], qrels, impressions=50, seed=2, progress=lambda d, t: calls.append((d, t))
    )
    assert calls[-1] == (9, 9) and len(calls) == 9  # ceil(6 * 50 / 37)
    (pair,) = res["pairs"]
    for row in pair["per_query"]:
        assert row["wins_a"] + row["wins_b"] + row["ties"] == 50
    o = pair["overall"]
    assert o["impressions"] == 300
    assert o["wins_a"] == sum(r["wins_a"] for r in pair["per_query"])
    assert o["wins_a"] > o["wins_b"]
