"""Interpolated precision in the two conventions of ``cranfield.report.curves``.

``trec_eval``: equal, query by query, to the ``iprec_at_recall`` measure (which the
differential tests hold equal to trec_eval 10.0). ``textbook``: recall compared exactly
(Manning, Raghavan & Schütze 2008, sec. 8.4). Both on many random rankings.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import curves, evaluate
from cranfield.cli.main import main
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import ParameterError
from generators import graded_collection, trec_order

LEVELS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.7, 0.9, 1.0)


def random_collection(rng, queries=12):
    qrels, run = graded_collection(rng, queries)
    return Qrels.coerce(qrels), Run.coerce(run)


def by_query(table):
    out: dict[str, list[float]] = {}
    for q, p in zip(table["query_id"], table["precision"], strict=True):
        out.setdefault(str(q), []).append(float(p))
    return out


def textbook_by_hand(qrels, run, qid, levels, rel_level=1):
    """max {P@k : relret_k / R >= r} straight from the definition."""
    judged = qrels.to_dict()[qid]
    scores = run.to_dict()[qid]
    ranked = trec_order(scores)
    big_r = sum(1 for g in judged.values() if g >= rel_level)
    points, found = [], 0
    for k, d in enumerate(ranked, 1):
        found += judged.get(d, -1) >= rel_level
        points.append((found / big_r, found / k))
    return [max([p for r, p in points if r >= level], default=0.0) for level in levels]


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("rel_level", [1, 2])
def test_trec_eval_convention_is_iprec_at_recall(seed, rel_level):
    rng = np.random.default_rng(seed)
    qrels, run = random_collection(rng)
    names = [f"iprec_at_recall.{x!r}" for x in LEVELS]
    res = evaluate(qrels, run, names, rel_level=rel_level)
    got = by_query(
        curves.interpolated_precision(
            qrels, run, LEVELS, rel_level=rel_level, convention="trec_eval"
        )
    )
    assert got, "every collection has a query with relevant documents"
    for qid, values in got.items():
        expected = [res.per_query(0, m)[qid] for m in res.measures]
        assert values == expected, qid  # the same numbers, not merely close
    mean = curves.average_interpolated(
        qrels, run, LEVELS, rel_level=rel_level, convention="trec_eval"
    )
    n_queries = len(res.runs[0].query_ids)
    sums = [sum(res.per_query(0, m).values()) for m in res.measures]
    assert np.allclose(mean["precision"], np.asarray(sums) / n_queries, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(25))
def test_textbook_convention_is_the_definition(seed):
    rng = np.random.default_rng(1000 + seed)
    qrels, run = random_collection(rng)
    got = by_query(curves.interpolated_precision(qrels, run, LEVELS))
    for qid, values in got.items():
        assert values == pytest.approx(textbook_by_hand(qrels, run, qid, LEVELS), abs=1e-15)


def test_the_conventions_differ_where_r_times_r_is_fractional():
    # R = 3 relevant, ranked 1st, 4th and 5th. Recall 0.4: the textbook needs recall
    # 2/3 >= 0.4, reached at rank 4 (max of P@4 = 0.5, P@5 = 0.6); trec_eval needs
    # round(0.4 * 3) = 1 relevant document, reached at rank 1 (P@1 = 1).
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "d": 1, "e": 1}}
    run = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}
    text = curves.interpolated_precision(qrels, run, [0.4])["precision"]
    trec = curves.interpolated_precision(qrels, run, [0.4], convention="trec_eval")["precision"]
    assert text.tolist() == [0.6] and trec.tolist() == [1.0]


def test_unknown_convention_is_refused():
    with pytest.raises(ParameterError, match="textbook"):
        curves.interpolated_precision({"q": {"a": 1}}, {"q": {"a": 1.0}}, convention="trec")
    with pytest.raises(ParameterError, match="textbook"):
        curves.average_interpolated({"q": {"a": 1}}, {"q": {"a": 1.0}}, convention="x")


def test_curve_cli_convention(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q 0 a 1\nq 0 b 0\nq 0 c 0\nq 0 d 1\nq 0 e 1\n")
    run.write_text("".join(f"q Q0 {d} {i} {5 - i} t\n" for i, d in enumerate("abcde")))
    base = ["curve", "pr", str(qrels), str(run), "--interpolated", "--recall", "0.4"]
    assert main([*base, "--convention", "trec_eval"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "q,0.4,1.0"
    assert main(base) == 0
    assert capsys.readouterr().out.splitlines()[1] == "q,0.4,0.6"
    assert main(["curve", "pr", str(qrels), str(run), "--convention", "trec_eval"]) == 2
    assert "--convention" in capsys.readouterr().err
