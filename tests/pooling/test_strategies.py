"""Pool strategies against a brute-force reference, and their invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import Qrels, Run
from cranfield.errors import InputError, ParameterError
from cranfield.pooling import STRATEGIES, build_pool
from cranfield.pooling.strategies import parse
from generators import POOL_DOCS, POOL_TOPICS, pool_runs

from . import reference as ref


def as_runs(runs):
    return [Run.from_dict(r, name=f"r{i}") for i, r in enumerate(runs)]


def judged_set(rng, runs):
    pairs = sorted({(q, d) for run in runs for q in run for d in run[q]})
    keep = rng.random(len(pairs)) < 0.3
    return {p for p, k in zip(pairs, keep, strict=True) if k}


@pytest.mark.parametrize("seed", range(40))
def test_pools_equal_the_reference(seed):
    rng = np.random.default_rng(seed)
    runs = pool_runs(rng, int(rng.integers(1, 5)))
    objs = as_runs(runs)
    k = int(rng.integers(1, 8))
    n = int(rng.integers(1, 10))
    assert build_pool(objs, "depth", k=k).pairs() == ref.depth_pool(runs, k)
    assert build_pool(objs, f"budget(n={n})").pairs() == ref.take_pool(runs, n)
    for order in ("rrf", "rbp-sum", "rbp-max"):
        got = build_pool(objs, "budget", n=n, order=order, p=0.7).pairs()
        assert got == ref.fused_pool(runs, n, order, p=0.7), order


@pytest.mark.parametrize("seed", range(15))
def test_incremental_pools_equal_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    runs = pool_runs(rng, 3)
    judged = judged_set(rng, runs)
    if not judged:
        return
    qrels = Qrels.from_dict(_nested({p: int(rng.integers(-1, 3)) for p in judged}))
    objs = as_runs(runs)
    k, n = 3, 4
    want = ref.depth_pool(runs, k, judged)
    got = build_pool(objs, "depth", k=k, qrels=qrels, allow_empty=True).pairs()
    assert got == want
    assert not set(got) & judged
    got = build_pool(objs, "budget", n=n, qrels=qrels, allow_empty=True).pairs()
    assert got == ref.take_pool(runs, n, judged)
    got = build_pool(objs, "budget", n=n, order="rrf", qrels=qrels, allow_empty=True).pairs()
    assert got == ref.fused_pool(runs, n, "rrf", judged=judged)


def _nested(pairs: dict) -> dict:
    out: dict = {}
    for (q, d), v in pairs.items():
        out.setdefault(q, {})[d] = v
    return out


run_dicts = st.lists(
    st.dictionaries(
        st.sampled_from(POOL_TOPICS),
        st.dictionaries(
            st.sampled_from(POOL_DOCS), st.sampled_from([0.0, 1.0, 2.5, -1.0]), min_size=1
        ),
        min_size=1,
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(runs=run_dicts, k=st.integers(1, 6))
def test_depth_pool_holds_every_top_k_document_and_grows_with_k(runs, k):
    objs = as_runs(runs)
    pool = set(build_pool(objs, "depth", k=k).pairs())
    for run in runs:
        for q in run:
            for d in ref.ranking(run, q)[:k]:
                assert (q, d) in pool
    bigger = set(build_pool(objs, "depth", k=k + 1).pairs())
    assert pool <= bigger


@settings(max_examples=60, deadline=None)
@given(
    runs=run_dicts,
    n=st.integers(1, 20),
    order=st.sampled_from(["take", "rrf", "rbp-sum", "rbp-max"]),
)
def test_budget_pools_have_exactly_min_n_union_per_topic(runs, n, order):
    sizes = build_pool(as_runs(runs), "budget", n=n, order=order).sizes()
    for q in ref.topics(runs):
        union = {d for run in runs for d in run.get(q, {})}
        assert sizes[q] == min(n, len(union))


def test_topics_in_trec_eval_order_and_documents_sorted():
    run = Run.from_dict({"9": {"b": 1, "a": 2}, "10": {"z": 1, "Z": 1}, "q": {"x": 0}})
    assert build_pool([run], "depth", k=5).pairs() == [
        ("10", "Z"),
        ("10", "z"),
        ("9", "a"),
        ("9", "b"),
        ("q", "x"),
    ]


def test_depth_uses_trec_eval_tie_order():
    # equal scores: trec_eval ranks the larger doc id first, so depth 1 takes "b"
    run = Run.from_dict({"1": {"a": 1.0, "b": 1.0, "c": 0.5}})
    assert build_pool([run], "depth", k=1).pairs() == [("1", "b")]


def test_unknown_strategy_lists_the_registered_ones():
    with pytest.raises(ParameterError) as err:
        build_pool([Run.from_dict({"1": {"a": 1}})], "move-to-nowhere")
    for name in STRATEGIES:
        assert name in str(err.value)


@pytest.mark.parametrize(
    "spec, params",
    [
        ("depth", {"k": 0}),
        ("depth", {"k": -3}),
        ("depth", {"k": 2.5}),
        ("budget", {"n": 0}),
        ("budget", {}),
        ("budget", {"n": 5, "order": "best"}),
        ("budget", {"n": 5, "p": 1.0}),
        ("budget(n=5, q=1)", {}),
        ("depth(k=)", {}),
        ("depth(k)", {}),
    ],
)
def test_bad_parameters_use_the_one_template(spec, params):
    with pytest.raises(ParameterError, match="invalid value for .*: expected .*, got"):
        build_pool([Run.from_dict({"1": {"a": 1}})], spec, **params)


def test_empty_pool_is_a_clear_error():
    run = Run.from_dict({"1": {"a": 1.0}})
    qrels = Qrels.from_dict({"1": {"a": 0}})
    with pytest.raises(InputError, match="pool is empty"):
        build_pool([run], "depth", k=3, qrels=qrels)
    assert len(build_pool([run], "depth", k=3, qrels=qrels, allow_empty=True)) == 0


@pytest.mark.parametrize(
    "spec, text",
    [
        ("budget(n=7, order=rrf)", "budget(n=7, order=rrf)"),
        ("budget(n=7)", "budget(n=7)"),
        (
            "BUDGET( n = 7 , order=rbp-sum, p=0.123456789 )",
            "budget(n=7, order=rbp-sum, p=0.123456789)",
        ),
        ("depth", "depth(k=100)"),
        ("depth(k=5)", "depth(k=5)"),
    ],
)
def test_parse_round_trips_the_canonical_form(spec, text):
    from cranfield.pooling.strategies import canonical

    definition, params = parse(spec)
    assert canonical(definition, params) == text
    assert parse(text) == (definition, params)


def test_the_callers_runs_are_not_modified():
    run = Run.from_dict({"1": {"a": 1.0, "b": 2.0}})
    before = run.table
    build_pool([run], "budget", n=1, order="rrf")
    assert run.table.equals(before)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("layout", ["shuffled", "ranked"])
def test_row_order_of_the_input_does_not_matter(seed, layout):
    # the depth pool only ranks the rows that can reach the top k; rows of one topic
    # spread over several blocks (shuffled) or written best first (ranked) must give
    # the reference pool
    import pyarrow as pa

    rng = np.random.default_rng(700 + seed)
    runs = pool_runs(rng, 3)
    objs = []
    for i, run in enumerate(runs):
        rows = [(q, d, s) for q in run for d, s in run[q].items()]
        if layout == "shuffled":
            rows = [rows[j] for j in rng.permutation(len(rows))]
        else:
            rows.sort(key=lambda r: (r[0], -r[2]))
        q, d, s = zip(*rows, strict=True)
        table = pa.table({"query_id": list(q), "doc_id": list(d), "score": list(s)})
        objs.append(Run(table, name=f"r{i}"))
    for k in (1, 2, 5):
        assert build_pool(objs, "depth", k=k).pairs() == ref.depth_pool(runs, k)


def test_per_group_limit_pools_the_first_runs_by_priority():
    runs = [
        Run.from_dict({"1": {f"{name}-doc": 1.0}}, name=name)
        for name in ["uni-a", "uni-b", "uni-c", "lab-a", "solo"]
    ]
    pool = build_pool(runs, "depth", k=1, per_group=2, groups="-")
    assert pool.runs == ("uni-a", "uni-b", "lab-a", "solo")  # the order given
    assert ("1", "uni-c-doc") not in pool.pairs()
    prio = {"uni-c": 1, "uni-a": 2}
    pool = build_pool(runs, "depth", k=1, per_group=1, groups="-", priority=prio)
    assert pool.runs == ("uni-c", "lab-a", "solo")
    mapping = {r.name: "all" for r in runs}
    assert build_pool(runs, "depth", k=1, per_group=1, groups=mapping).runs == ("uni-a",)


@pytest.mark.parametrize("kw", [{"per_group": 0, "groups": "-"}, {"per_group": 1}])
def test_per_group_limit_needs_a_positive_limit_and_groups(kw):
    with pytest.raises(ParameterError):
        build_pool([Run.from_dict({"1": {"a": 1}})], "depth", **kw)
