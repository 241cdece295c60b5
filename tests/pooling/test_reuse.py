"""Leave-one-group-out against brute force, on the sample collection, and against
``cranfield correlate``."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from cranfield import Qrels, Run, evaluate, sample
from cranfield.cli.main import main
from cranfield.errors import InputError, ParameterError
from cranfield.pooling.groups import resolve_groups
from cranfield.pooling.reuse import leave_one_group_out
from generators import pool_qrels, pool_runs

from . import reference as ref


def brute_reduced(qrels, runs, names, group_of, group, k):
    """The qrels without the pairs that only the group's runs put in their top k."""
    by_others = set()
    by_group = set()
    for run, name in zip(runs, names, strict=True):
        for q in run:
            for d in ref.ranking(run, q)[:k]:
                (by_group if group_of[name] == group else by_others).add((q, d))
    only = by_group - by_others
    return {q: {d: g for d, g in docs.items() if (q, d) not in only} for q, docs in qrels.items()}


@pytest.mark.parametrize("seed", range(12))
def test_reduced_scores_equal_brute_force(seed):
    rng = np.random.default_rng(900 + seed)
    runs = pool_runs(rng, 5)
    qrels = pool_qrels(rng)
    names = ["a-1", "a-2", "b-1", "c-1", "c-2"]
    objs = [Run.from_dict(r, name=n) for r, n in zip(runs, names, strict=True)]
    k = int(rng.integers(1, 6))
    got = leave_one_group_out(Qrels.from_dict(qrels), objs, k, ["AP", "P@3", "Bpref"], groups="-")
    group_of = {n: n.split("-")[0] for n in names}
    assert got.groups == group_of
    for m in got.measures:
        for change in m.runs:
            reduced = brute_reduced(qrels, runs, names, group_of, change.group, k)
            # a topic without judgments left is still evaluated (no relevant document)
            reduced = {q: d or {"never-retrieved": -1} for q, d in reduced.items()}
            run = next(o for o in objs if o.name == change.name)
            want = evaluate(Qrels.from_dict(reduced), [run], [m.measure])[run.name][m.measure]
            assert change.reduced == want
            full = evaluate(Qrels.from_dict(qrels), [run], [m.measure])[run.name][m.measure]
            assert change.full == full


def test_counts_and_early_precision_never_rise_on_the_sample_collection():
    # removing judgments of relevant documents can only lower the relevant documents a
    # run retrieves: RR, P@k and NumRelRet cannot rise (AP can, see the next test)
    qrels, runs = sample.load()
    for depth in (5, 20):
        result = leave_one_group_out(qrels, runs, depth, ["P@10", "RR", "NumRelRet", "AP"])
        for m in result.measures:
            if m.measure == "AP":
                continue
            for r in m.runs:
                assert r.reduced <= r.full, (m.measure, r)
        assert any(r.reduced < r.full for m in result.measures for r in m.runs)


def test_ap_can_rise_when_a_late_unique_relevant_document_is_removed():
    # AP = (1/1 + 2/10) / 2 = 0.6 with both judgments; without the judgment of the
    # document only this run pooled at depth 10, AP = 1/1 = 1.0
    docs = {f"d{i}": 10.0 - i for i in range(10)}
    run = Run.from_dict({"1": docs}, name="late")
    other = Run.from_dict({"1": {"d0": 1.0}}, name="other")
    qrels = Qrels.from_dict({"1": {"d0": 1, "d9": 1}})
    result = leave_one_group_out(qrels, [run, other], 10, ["AP"])
    late = next(r for r in result.measures[0].runs if r.name == "late")
    assert late.full == pytest.approx(0.6)
    assert late.reduced == pytest.approx(1.0)


def _write_table(path, scores: dict[str, float], measure: str) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["run", "measure", "value"])
        for run, v in scores.items():
            w.writerow([run, measure, repr(v)])


def test_tau_equals_cranfield_correlate(tmp_path, capsys):
    nontrivial = 0
    for seed in range(8):
        rng = np.random.default_rng(40 + seed)
        runs = [Run.from_dict(r, name=f"s{i}") for i, r in enumerate(pool_runs(rng, 7))]
        result = leave_one_group_out(Qrels.from_dict(pool_qrels(rng)), runs, 2, ["AP"])
        m = result.measures[0]
        _write_table(tmp_path / "full.csv", m.full(), "AP")
        _write_table(tmp_path / "reduced.csv", m.reduced(), "AP")
        argv = ["correlate", str(tmp_path / "full.csv"), str(tmp_path / "reduced.csv")]
        assert main([*argv, "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        for key, mine in (("kendall_tau", m.kendall_tau), ("tau_ap", m.tau_ap)):
            theirs = doc[key]
            assert (theirs is None and math.isnan(mine)) or theirs == mine
        nontrivial += m.kendall_tau < 1
    assert nontrivial  # the comparison covered rankings that changed


def test_groups_from_a_mapping_and_errors(tmp_path):
    assert resolve_groups(["x", "y"], {"x": "g", "y": "g"}) == {"x": "g", "y": "g"}
    assert resolve_groups(["u-1", "v"], "-") == {"u-1": "u", "v": "v"}
    with pytest.raises(InputError, match="no group given for run"):
        resolve_groups(["x", "y"], {"x": "g"})
    with pytest.raises(ParameterError):
        resolve_groups(["x"], "")


def test_a_group_leaves_out_only_what_no_other_group_pooled():
    a = Run.from_dict({"1": {"p": 2.0, "q": 1.0}}, name="a")
    b = Run.from_dict({"1": {"p": 2.0, "r": 1.0}}, name="b")
    qrels = Qrels.from_dict({"1": {"p": 1, "q": 1, "r": 1, "s": 1}})
    result = leave_one_group_out(qrels, [a, b], 2, ["NumRel"])
    # a alone pooled q, b alone pooled r; p is shared and s was never pooled: kept
    assert result.removed == {"a": 1, "b": 1}
    assert {r.name: r.reduced for r in result.measures[0].runs} == {"a": 3, "b": 3}
    together = leave_one_group_out(qrels, [a, b], 2, ["NumRel"], groups={"a": "g", "b": "g"})
    assert together.removed == {"g": 3}


def test_a_topic_that_loses_every_judgment_is_still_evaluated():
    a = Run.from_dict({"1": {"a": 3.0, "b": 2.0}, "2": {"c": 1.0}}, name="A")
    b = Run.from_dict({"1": {"b": 5.0}, "2": {"e": 1.0}}, name="B")
    qrels = Qrels.from_dict({"1": {"a": 1, "b": 0}, "2": {"c": 2}})
    result = leave_one_group_out(qrels, [a, b], 2, ["NumQ", "AP", "Judged@2"])
    by = {m.measure: {r.name: r for r in m.runs} for m in result.measures}
    assert by["NumQ"]["A"].reduced == 2  # topic 2 lost its only judgment (c)
    assert by["AP"]["A"].reduced == 0.0
    assert by["Judged@2"]["A"].reduced == 0.25  # topic 1: b judged; topic 2: nothing


def test_string_measures_are_refused():
    run = Run.from_dict({"1": {"a": 1.0}})
    with pytest.raises(ParameterError, match="numeric"):
        leave_one_group_out(Qrels.from_dict({"1": {"a": 1}}), [run], 5, ["relstring"])


@pytest.mark.parametrize("stratified", [False, True])
@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.77, 1.0])
def test_subsample_keeps_the_stated_share(stratified, fraction):
    from collections import Counter

    from cranfield.pooling.reuse import subsample_mask

    qrels, _ = sample.load()
    keep = subsample_mask(qrels, fraction, stratified=stratified, seed=3)
    assert np.array_equal(keep, subsample_mask(qrels, fraction, stratified=stratified, seed=3))
    topics = qrels.table["query_id"].to_pylist()
    if stratified:
        total = Counter(topics)
        kept = Counter(t for t, k in zip(topics, keep, strict=True) if k)
        for t, n in total.items():
            assert kept.get(t, 0) == round(fraction * n)
    else:
        assert keep.sum() == round(fraction * len(topics))
    if fraction < 1:
        other = subsample_mask(qrels, fraction, stratified=stratified, seed=4)
        assert not np.array_equal(keep, other)


def test_subsample_scores_equal_evaluate_on_the_kept_judgments(tmp_path, capsys):
    from cranfield.pooling.reuse import subsample_judgments, subsample_mask

    qrels, runs = sample.load()
    result = subsample_judgments(qrels, runs, 0.2, ["AP", "P@10"], stratified=True, seed=1)
    keep = subsample_mask(qrels, 0.2, stratified=True, seed=1)
    kept = Qrels(qrels.table.filter(keep))
    for m in result.measures:
        want = evaluate(kept, list(runs.values()), [m.measure])
        for r in m.runs:
            assert r.reduced == want[r.name][m.measure]
        _write_table(tmp_path / "full.csv", m.full(), m.measure)
        _write_table(tmp_path / "reduced.csv", m.reduced(), m.measure)
        assert (
            main(
                [
                    "correlate",
                    str(tmp_path / "full.csv"),
                    str(tmp_path / "reduced.csv"),
                    "--format",
                    "json",
                ]
            )
            == 0
        )
        doc = json.loads(capsys.readouterr().out)
        assert doc["kendall_tau"] == m.kendall_tau
    assert result.to_json()["fraction"] == 0.2 and "groups" not in result.to_json()


@pytest.mark.parametrize("kw", [{"fraction": 0}, {"fraction": 1.5}, {"fraction": 0.5, "seed": -1}])
def test_subsample_bad_parameters(kw):
    from cranfield.pooling.reuse import subsample_judgments

    qrels, runs = sample.load()
    with pytest.raises(ParameterError):
        subsample_judgments(qrels, runs, measures=["AP"], **kw)
