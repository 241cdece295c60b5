"""Depth (-M), complete topic set (-c), ignored run topics, -J and float32 compat order.

Each property is checked against an independent re-implementation of the trec_eval
rule in this file (sorting, truncation, topic sets), never against cranfield itself
on the same path.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.core.evaluation import evaluate
from cranfield.core.judged import judge
from cranfield.errors import InputError
from generators import mixed_topics_case, trec_order

MEASURES = [
    "map",
    "P.1,5,10",
    "recall.5,100",
    "ndcg",
    "ndcg_cut.3,10",
    "bpref",
    "recip_rank",
    "Rprec",
    "infAP",
    "iprec_at_recall",
    "num_ret",
    "num_rel_ret",
    "set_F",
    "success.1,5",
]


def _truncated(run: dict, depth: int) -> dict:
    return {q: {d: r[d] for d in trec_order(r)[:depth]} for q, r in run.items()}


def _values(qrels_d, run_d, **kw):
    res = evaluate(Qrels.from_dict(qrels_d), Run.from_dict(run_d, name="r"), MEASURES, **kw)
    return res, res.per_query(0)


def test_trec_order_helper_breaks_ties_by_docno_descending():
    # byte order: "d9" > "d10" > "d1"
    assert trec_order({"d1": 1.0, "d10": 1.0, "d9": 1.0, "a": 2.0}) == ["a", "d9", "d10", "d1"]


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("depth", [1, 3, 10])
def test_depth_equals_truncated_run(seed, depth):
    qrels_d, run_d = mixed_topics_case(seed)
    _, with_depth = _values(qrels_d, run_d, depth=depth)
    _, truncated = _values(qrels_d, _truncated(run_d, depth))
    assert with_depth.keys() == truncated.keys()
    for q in with_depth:
        for name, value in with_depth[q].items():
            assert value == pytest.approx(truncated[q][name], abs=1e-12), (q, name)
        assert with_depth[q]["NumRet"] <= depth


@pytest.mark.parametrize("seed", range(30))
def test_complete_adds_empty_rankings_and_divides_by_qrels_topics(seed):
    qrels_d, run_d = mixed_topics_case(seed)
    # remove some qrels topics from the run
    missing = sorted(qrels_d)[::2]
    partial = {q: r for q, r in run_d.items() if q not in missing}
    res_c, complete = _values(qrels_d, partial, complete=True)
    if not set(qrels_d) & set(partial):  # no query in common: a mean over none is an error
        with pytest.raises(InputError, match="no query to evaluate"):
            _values(qrels_d, partial)
        res_p, normal = None, {}
    else:
        res_p, normal = _values(qrels_d, partial)

    assert sorted(complete) == sorted(qrels_d)  # every qrels topic, byte order
    assert list(res_c.run(0).query_ids) == sorted(qrels_d)
    assert sorted(normal) == sorted(set(qrels_d) & set(partial))
    for q in missing:
        assert all(v == 0 for v in complete[q].values()), q
    for q in normal:
        assert complete[q] == normal[q]
    # means divide by the number of qrels topics
    for name in ("AP", "nDCG", "Bpref", "RR"):
        total = sum(normal[q][name] for q in normal)
        assert res_c.aggregate(0, name) == pytest.approx(total / len(qrels_d), abs=1e-12)
        if normal:
            assert res_p.aggregate(0, name) == pytest.approx(total / len(normal), abs=1e-12)


def test_run_topics_absent_from_qrels_are_ignored():
    qrels_d = {"1": {"a": 1, "b": 0}}
    run_d = {"1": {"a": 1.0, "b": 2.0}, "2": {"a": 5.0}, "0": {"q": 1.0}}
    for complete in (False, True):
        res, values = _values(qrels_d, run_d, complete=complete)
        assert list(values) == ["1"]
        # AP = (1/2) / 1 ; recip_rank = 1/2; num_ret counts only topic 1
        assert values["1"]["AP"] == 0.5
        assert res.aggregate(0, "RR") == 0.5
        assert res.aggregate(0, "num_ret") == 2


def test_judged_only_drops_unjudged_and_keeps_order():
    qrels_d = {"1": {"a": 1, "b": 0, "c": -1, "d": 2}}
    # trec order: e(5, not pooled) c(4, pooled unjudged) b(3) a(2) d(1)
    run_d = {"1": {"e": 5.0, "c": 4.0, "b": 3.0, "a": 2.0, "d": 1.0}}
    jr = judge(Qrels.from_dict(qrels_d), Run.from_dict(run_d), judged_only=False)
    assert jr.labels.tolist() == [-1, -2, 0, 1, 2]
    jr = judge(Qrels.from_dict(qrels_d), Run.from_dict(run_d), judged_only=True)
    assert jr.labels.tolist() == [0, 1, 2]
    _, values = _values(qrels_d, run_d, judged_only=True)
    # ranking b a d, R = 2: AP = (1/2 + 2/3) / 2
    assert values["1"]["AP"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-15)
    assert values["1"]["P@1"] == 0.0


def test_judged_only_can_empty_a_ranking():
    """-J on a topic whose retrieved documents are all unjudged: an empty ranking."""
    qrels_d = {"1": {"a": 1, "u": -1}, "2": {"b": 1}}
    run_d = {"1": {"x": 1.0, "u": 0.5}, "2": {"b": 1.0}}
    res, values = _values(qrels_d, run_d, judged_only=True)
    assert sorted(values) == ["1", "2"]  # the topic stays evaluated
    assert all(v == 0 for v in values["1"].values())
    assert values["2"]["AP"] == 1.0
    assert res.aggregate(0, "AP") == 0.5


def test_topic_with_only_negative_judgments():
    """All judgments negative: nothing relevant, retrieved docs are pooled-unjudged."""
    qrels_d = {"1": {"a": -1, "b": -2}, "2": {"c": 1}}
    run_d = {"1": {"a": 2.0, "b": 1.0, "z": 0.5}, "2": {"c": 1.0}}
    jr = judge(Qrels.from_dict(qrels_d), Run.from_dict(run_d))
    assert jr.labels.tolist() == [-2, -2, -1, 1]
    assert jr.num_rel().tolist() == [0, 1]
    _, values = _values(qrels_d, run_d)
    assert values["1"]["AP"] == 0.0 and values["1"]["NumRet"] == 3


# -- float32 (compat 9) order of near ties -----------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_compat9_orders_by_float32_scores(seed):
    rng = np.random.default_rng(1000 + seed)
    n = 30
    base = np.float64(np.float32(rng.normal()))
    ulp = float(np.spacing(np.float32(base)))
    # distinct doubles, many of which collapse onto the same float32
    scores = base + rng.integers(0, 6, size=n) * ulp * 0.15 + rng.integers(0, 3, size=n) * ulp
    docs = [f"d{k}" for k in rng.choice(1000, size=n, replace=False)]
    grades = rng.integers(0, 3, size=n)
    qrels_d = {"q": dict(zip(docs, grades.tolist(), strict=True))}
    run_d = {"q": dict(zip(docs, scores.tolist(), strict=True))}

    def expected_labels(as_f32: bool) -> list[int]:
        keyed = scores.astype(np.float32).astype(np.float64) if as_f32 else scores
        ranking = dict(zip(docs, keyed.tolist(), strict=True))
        return [qrels_d["q"][d] for d in trec_order(ranking)]

    qrels, run = Qrels.from_dict(qrels_d), Run.from_dict(run_d)
    assert judge(qrels, run, compat=9).labels.tolist() == expected_labels(True)
    assert judge(qrels, run, compat=10).labels.tolist() == expected_labels(False)


def test_compat9_float32_flips_a_near_tie():
    # 1 + 2**-30 > 1 as doubles, equal as float32: compat 10 ranks "a" first by score,
    # compat 9 ties them and breaks the tie by docno descending ("b" first).
    qrels_d = {"q": {"a": 1, "b": 0}}
    run_d = {"q": {"a": 1.0 + 2.0**-30, "b": 1.0}}
    assert np.float32(run_d["q"]["a"]) == np.float32(run_d["q"]["b"])
    r10 = evaluate(Qrels.from_dict(qrels_d), Run.from_dict(run_d), ["P.1"], compat=10)
    r9 = evaluate(Qrels.from_dict(qrels_d), Run.from_dict(run_d), ["P.1"], compat=9)
    assert r10.per_query(0, "P@1")["q"] == 1.0
    assert r9.per_query(0, "P@1")["q"] == 0.0
