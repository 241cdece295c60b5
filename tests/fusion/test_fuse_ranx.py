"""cranfield.fuse against ranx (the reference implementation, a test-only dependency) on
generated runs: every method and normalisation, fused runs compared document by
document and score by score to 1e-12.

ranx ranks tied documents in the order numba's sort leaves them, which is insertion
order for lists of at most 15 documents: the generated runs insert each query's
documents in trec_eval's order (cranfield's ranking), so both rank them alike.
"""

from __future__ import annotations

import numpy as np
import pytest
import ranx
from ranx import fusion as rf

import cranfield
from generators import fusion_case

SCORE_METHODS = {
    "combsum": "sum",
    "combmnz": "mnz",
    "combanz": "anz",
    "combmax": "max",
    "combmin": "min",
    "combmed": "med",
}
WEIGHTED = {"wsum": "wsum", "wmnz": "wmnz", "mixed": "mixed"}
RANK_METHODS = {"rrf": "rrf", "isr": "isr", "log-isr": "log_isr", "borda": "bordafuse"}
NORMS = ["min-max", "max", "sum", "zmuv", "rank", "borda", None]
SEEDS = range(240)


def merged_cases():
    """The generated cases grouped by number of runs, each group one set of runs whose
    queries are the cases' queries (prefixed by the seed): a few ranx calls, not one per
    case (each ranx call costs numba dispatch). The "missing-topic" kind is left out:
    ranx corrupts document ids when a run has an empty list (see docs/fusion.md); it is
    tested on its own below."""
    groups: dict[int, tuple[list, dict]] = {}
    for seed in SEEDS:
        runs, qrels, kind = fusion_case(seed)
        if kind == "missing-topic":
            continue
        merged, mqrels = groups.setdefault(len(runs), ([{} for _ in runs], {}))
        for r, run in enumerate(runs):
            merged[r].update({f"s{seed}-{q}": d for q, d in run.items()})
        mqrels.update({f"s{seed}-{q}": d for q, d in qrels.items()})
    return sorted(groups.items())


CASES = merged_cases()


# ranx's CombMAX scores a document a run did not retrieve -1e9 there (CombMIN +1e9),
# so a document whose scores are all below -1e9 gets -1e9 from ranx and its true
# maximum from cranfield (docs/fusion.md; test_ranx_combmax_default below)
RANX_MISSING_MAX = -1e9


def ranx_runs(runs):
    return [ranx.Run.from_dict({q: dict(d) for q, d in run.items()}) for run in runs]


def assert_same(ours, theirs, where):
    mine = ours.to_dict()
    ref = {q: dict(d) for q, d in theirs.to_dict().items() if d}
    assert set(mine) == set(ref), where
    for q in ref:
        assert set(mine[q]) == set(ref[q]), (where, q)
        for d, v in ref[q].items():
            if (v == RANX_MISSING_MAX and mine[q][d] < v) or (
                v == -RANX_MISSING_MAX and mine[q][d] > v
            ):
                continue  # ranx's CombMAX/CombMIN default for a missing document
            assert abs(mine[q][d] - v) <= 1e-12 * max(1.0, abs(v)), (where, q, d, mine[q][d], v)


def topics(runs):
    return "same"


@pytest.mark.parametrize("norm", NORMS)
def test_score_methods_and_normalisations(norm):
    for n_runs, (runs, _) in CASES:
        _score_methods(runs, norm, n_runs)


def _score_methods(runs, norm, seed):
    kind = f"{len(runs)} runs"
    theirs = ranx_runs(runs)
    rng = np.random.default_rng(seed)
    for ours_name, ranx_name in SCORE_METHODS.items():
        ref = ranx.fuse(theirs, norm=norm, method=ranx_name)
        got = cranfield.fuse(runs, method=ours_name, norm=norm, topics=topics(runs))
        assert_same(got, ref, (kind, ours_name, norm))
    weights = rng.uniform(-1, 2, size=len(runs)).round(3).tolist()
    for ours_name, ranx_name in WEIGHTED.items():
        ref = ranx.fuse(theirs, norm=norm, method=ranx_name, params={"weights": weights})
        got = cranfield.fuse(runs, ours_name, norm, weights, topics=topics(runs))
        assert_same(got, ref, (kind, ours_name, norm))
    gamma = float(rng.uniform(0, 2))
    ref = ranx.fuse(theirs, norm=norm, method="gmnz", params={"gamma": gamma})
    got = cranfield.fuse(runs, "combgmnz", norm, topics=topics(runs), gamma=gamma)
    assert_same(got, ref, (kind, "gmnz", norm))


@pytest.mark.parametrize("group", range(len(CASES)))
def test_rank_methods(group):
    seed, (runs, _) = CASES[group]
    kind = f"{len(runs)} runs"
    theirs = ranx_runs(runs)
    rng = np.random.default_rng(seed)
    for ours_name, ranx_name in RANK_METHODS.items():
        ref = ranx.fuse(theirs, norm=None, method=ranx_name)
        # the normalisation does not change ranks
        got = cranfield.fuse(runs, method=ours_name, topics=topics(runs))
        assert_same(got, ref, (kind, ours_name))
    k = int(rng.integers(0, 100))
    ref = ranx.fuse(theirs, norm=None, method="rrf", params={"k": k})
    assert_same(cranfield.fuse(runs, "rrf", topics=topics(runs), k=k), ref, (kind, "rrf", k))
    sigma = float(rng.uniform(0.001, 1))
    ref = ranx.fuse(theirs, norm=None, method="logn_isr", params={"sigma": sigma})
    got = cranfield.fuse(runs, "logn-isr", topics=topics(runs), sigma=sigma)
    assert_same(got, ref, (kind, "logn_isr"))
    phi = float(rng.uniform(0.05, 0.95))
    ref = ranx.fuse(theirs, norm=None, method="rbc", params={"phi": phi})
    assert_same(cranfield.fuse(runs, "rbc", topics=topics(runs), phi=phi), ref, (kind, "rbc"))
    weights = rng.uniform(0, 2, size=len(runs)).round(3).tolist()
    ref = ranx.fuse(theirs, norm=None, method="w_bordafuse", params={"weights": weights})
    got = cranfield.fuse(runs, "w-borda", weights=weights, topics=topics(runs))
    assert_same(got, ref, (kind, "w_bordafuse"))


@pytest.mark.parametrize("group", range(len(CASES)))
def test_trained_methods(group):
    seed, (runs, qrels) = CASES[group]
    kind = f"{len(runs)} runs"
    theirs = ranx_runs(runs)
    rq = ranx.Qrels.from_dict(qrels)
    top = topics(runs)
    rng = np.random.default_rng(seed)
    n_segments = int(rng.integers(1, 8))
    probs = rf.probfuse_train(rq, theirs, n_segments)
    ref = ranx.fuse(theirs, norm=None, method="probfuse", params={"probs": probs})
    got = cranfield.fuse(runs, "probfuse", qrels=qrels, topics=top, n_segments=n_segments)
    assert_same(got, ref, (kind, "probfuse", n_segments))
    ref = ranx.fuse(
        theirs, norm="min-max", method="segfuse", params={"probs": rf.segfuse_train(rq, theirs)}
    )
    assert_same(cranfield.fuse(runs, "segfuse", qrels=qrels, topics=top), ref, (kind, "segfuse"))
    w = int(rng.integers(0, 5))
    probs = rf.slidefuse_train(rq, theirs)
    ref = ranx.fuse(theirs, norm=None, method="slidefuse", params={"probs": probs, "w": w})
    got = cranfield.fuse(runs, "slidefuse", qrels=qrels, topics=top, w=w)
    assert_same(got, ref, (kind, "slidefuse", w))
    ref = ranx.fuse(
        theirs, norm=None, method="posfuse", params={"probs": rf.posfuse_train(rq, theirs)}
    )
    assert_same(cranfield.fuse(runs, "posfuse", qrels=qrels, topics=top), ref, (kind, "posfuse"))
    ref = ranx.fuse(
        theirs, norm=None, method="mapfuse", params={"map_scores": rf.mapfuse_train(rq, theirs)}
    )
    assert_same(cranfield.fuse(runs, "mapfuse", qrels=qrels, topics=top), ref, (kind, "mapfuse"))
    odds = rf.bayesfuse_train(rq, theirs)
    ref = ranx.fuse(theirs, norm=None, method="bayesfuse", params={"log_odds": odds})
    assert_same(
        cranfield.fuse(runs, "bayesfuse", qrels=qrels, topics=top), ref, (kind, "bayesfuse")
    )


def _transitive(runs, weights) -> bool:
    """Whether every query's majority relation is a strict total order (no pairwise
    tie, no cycle): only then is Condorcet fusion's order defined, and ranx's sort
    finds it."""
    for q in runs[0]:
        docs = list(runs[0][q])
        pos = [{d: i for i, d in enumerate(run[q])} for run in runs]
        wins = []
        for d in docs:
            n = 0
            for e in docs:
                if d == e:
                    continue
                pro = sum(w for p, w in zip(pos, weights, strict=True) if p[d] < p[e])
                con = sum(w for p, w in zip(pos, weights, strict=True) if p[e] < p[d])
                if pro == con:
                    return False
                n += pro > con
            wins.append(n)
        if sorted(wins) != list(range(len(docs))):
            return False
    return True


def test_condorcet_where_the_majority_order_is_defined():
    """Cases whose majority relation is a strict total order, merged by number of runs
    (one ranx call per group)."""
    groups: dict[tuple, tuple[list, list]] = {}
    for seed in range(400):
        runs, _, _ = fusion_case(seed, kind="random", full=True)
        rng = np.random.default_rng(seed)
        weights = tuple(rng.uniform(0.1, 2, size=len(runs)).round(2).tolist())
        cases = [((len(runs),), [1] * len(runs)), ((len(runs), weights), list(weights))]
        for key, w in cases:
            if _transitive(runs, w):
                merged, _ = groups.setdefault(key, ([{} for _ in runs], w))
                for r, run in enumerate(runs):
                    merged[r].update({f"s{seed}-{q}": d for q, d in run.items()})
    checked = 0
    for key, (runs, w) in groups.items():
        theirs = ranx_runs(runs)
        if len(key) == 1:
            ref = ranx.fuse(theirs, norm=None, method="condorcet")
            assert_same(cranfield.fuse(runs, "condorcet"), ref, key)
        else:
            ref = ranx.fuse(theirs, norm=None, method="w_condorcet", params={"weights": w})
            assert_same(cranfield.fuse(runs, "w-condorcet", weights=w), ref, key)
        checked += len(runs[0])
    assert checked >= 200


def test_a_run_missing_a_topic_contributes_nothing_there():
    """topics='union': a run without a query is an empty list there, so the fused
    scores of that query are those of the other runs (CombSUM, CombMNZ, RRF), while
    ranx cannot be given an empty list (its document ids come out corrupted)."""
    for seed in range(40):
        runs, _, kind = fusion_case(seed, kind="missing-topic")
        empty = [(r, q) for r, run in enumerate(runs) for q, d in run.items() if not d]
        if not empty or len(runs) < 3:
            continue
        ((r, q),) = empty
        others = [run for i, run in enumerate(runs) if i != r]
        for method in ("combsum", "combmnz", "rrf", "combmax"):
            got = cranfield.fuse(runs, method, topics="union").to_dict()[q]
            want = cranfield.fuse([{q: o[q]} for o in others], method).to_dict()[q]
            assert got == want, (seed, method)
        with pytest.raises(cranfield.InputError, match="query sets differ"):
            cranfield.fuse(runs, "combsum")


def test_ranx_combmax_default_for_missing_documents():
    """A documented difference: ranx's CombMAX takes -1e9 for a run that did not
    retrieve the document, cranfield the maximum over the runs that did."""
    runs = [{"q": {"a": -5e9, "b": -6e9}}, {"q": {"b": -7e9}}]
    theirs = ranx.fuse(ranx_runs(runs), norm=None, method="max").to_dict()["q"]
    assert theirs["a"] == -1e9
    assert cranfield.fuse(runs, "combmax", None).to_dict()["q"] == {"a": -5e9, "b": -6e9}
    assert cranfield.fuse(runs, "combmin", None).to_dict()["q"] == {"a": -5e9, "b": -7e9}
