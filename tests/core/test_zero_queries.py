"""A mean over zero queries is an error, from every path that aggregates (issue 13.11)."""

from __future__ import annotations

import pytest

from cranfield import evaluate
from cranfield.errors import InputError

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 0}}


def test_no_query_in_common():
    with pytest.raises(InputError, match="no query to evaluate: run 'r' and the qrels share"):
        evaluate(QRELS, {"r": {"x1": {"d1": 1.0}}}, ["AP", "P@5"])


def test_engine_judged_run_with_no_query_in_common(tmp_path, capsys):
    from cranfield.cli.main import main
    from cranfield.core.engine_judge import judge_trec
    from cranfield.core.evaluation import as_measures, run_result
    from cranfield.core.options import JudgeOptions
    from cranfield.core.qrels import Qrels

    run = tmp_path / "run.txt"
    run.write_text("x1 Q0 d1 1 1.0 r\n")
    jr = judge_trec(Qrels.from_dict(QRELS), None, run, JudgeOptions())
    with pytest.raises(InputError, match="no query to evaluate"):
        run_result(jr, jr.run_name, as_measures(["AP"]))
    qrels = tmp_path / "qrels.csv"  # the command line's general path
    qrels.write_text("query_id,doc_id,relevance\nq1,d1,1\n")
    assert main(["eval", str(qrels), str(run), "-m", "AP"]) == 2
    assert "no query to evaluate" in capsys.readouterr().err


def test_skip_no_relevant_leaving_no_query():
    run = {"r": {"q2": {"d3": 1.0}}}
    assert evaluate(QRELS, run, ["P@5"])["r"]["P@5"] == 0.0  # one query, no relevant doc
    with pytest.raises(InputError, match="no query to evaluate: no query of run 'r' has a"):
        evaluate(QRELS, run, ["P@5"], skip_no_relevant=True)


def test_complete_evaluates_every_topic_of_an_empty_ranking():
    results = evaluate(QRELS, {"r": {"x1": {"d1": 1.0}}}, ["P@5"], complete=True)
    assert results["r"]["P@5"] == 0.0
    assert len(results.per_query("r", "P@5")) == 2
