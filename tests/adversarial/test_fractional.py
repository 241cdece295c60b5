"""Soft labels end to end: ``aggregate --soft`` -> ``eval --fractional``, as processes.

The round trip writes every pair's expected gain and reads it back bit for bit;
``cranfield trec_eval`` keeps trec_eval's ``atol`` (a fractional qrels file evaluates
as its truncated grades, byte for byte); bad input and refused measures fail cleanly.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield import Qrels, Run
from cranfield.core.evaluation import evaluate
from cranfield.judgments import Judgments, aggregate

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

TABLE = (
    "topic,document,assessor,label\n"
    "1,d1,ann,2\n1,d1,bob,1\n1,d1,cy,2\n1,d2,ann,0\n1,d2,bob,1\n1,d2,cy,0\n"
    "1,d3,ann,1\n1,d3,bob,1\n1,d3,cy,1\n2,d4,ann,1\n2,d4,bob,0\n2,d4,cy,0\n"
    "2,d5,ann,2\n2,d5,bob,2\n2,d5,cy,1\n"
)
RUN = "1 Q0 d2 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d3 3 1 r\n2 Q0 d4 1 2 r\n2 Q0 d5 2 1 r\n"


@pytest.fixture
def files(tmp_path):
    table = tmp_path / "judgments.csv"
    table.write_text(TABLE)
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    return table, run, tmp_path


@pytest.mark.parametrize("method", ["majority", "dawid-skene"])
def test_aggregate_soft_then_eval_round_trip(files, method):
    table, run, tmp = files
    soft = tmp / "soft.qrels"
    with Unchanged(table):
        assert_success(run_cli("aggregate", "--judgments", table, "--method", method, "--soft",
                               "-o", soft), quiet=True)  # fmt: skip
    # the written values are the expected gains, bit for bit
    result = aggregate(Judgments.read(table), method)
    expected = result.posterior @ np.array(result.judgments.scale.values, float)
    back = Qrels.read(soft, fractional=True)
    assert back.table["relevance"].to_pylist() == expected.tolist()
    assert back.table["doc_id"].to_pylist() == result.judgments.documents.tolist()
    # eval --fractional equals the library on the soft labels
    out = run_cli("eval", "--fractional", soft, run, "-m", "nDCG,AP,ERR", "-q", "-f", "json",
                  "--digits", "17")  # fmt: skip
    assert_success(out, quiet=True)
    got = json.loads(out.stdout)["runs"][0]
    lib = evaluate(result.to_qrels(soft=True), Run.read(run), ["nDCG", "AP", "ERR"])
    assert got["aggregate"] == pytest.approx(lib["r"], rel=1e-15, abs=0)
    # and the expected gain is what nDCG uses: query 2 by hand
    g4, g5 = expected[3], expected[4]
    dcg = g4 + g5 / np.log2(3)
    ideal = max(g4, g5) + min(g4, g5) / np.log2(3)
    assert got["per_query"]["2"]["nDCG"] == pytest.approx(dcg / ideal, rel=1e-14)


def test_trec_eval_keeps_atol_on_fractional_qrels(files):
    _, run, tmp = files
    soft = tmp / "soft.qrels"
    soft.write_text("1 0 d1 1.9\n1 0 d2 0.6\n1 0 d3 2.2\n2 0 d4 -0.5\n2 0 d5 1.0\n")
    whole = tmp / "whole.qrels"
    whole.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 0\n2 0 d5 1\n")
    a = run_cli("trec_eval", "-q", "-m", "all_trec", soft, run)
    b = run_cli("trec_eval", "-q", "-m", "all_trec", whole, run)
    assert_success(a)
    assert a.stdout == b.stdout  # trec_eval's output, byte for byte; one note on stderr
    assert a.stderr.splitlines() == [
        f"cranfield trec_eval: note: {soft}:1: grade 1.9 is read as 1 (fractional grades are "
        "truncated toward zero, as trec_eval does); cranfield eval --fractional keeps them"
    ]
    # cranfield eval without --fractional reads TREC decimals the same way
    c = run_cli("eval", soft, run, "-m", "nDCG", "-f", "json")
    d = run_cli("eval", "--fractional", soft, run, "-m", "nDCG", "-f", "json")
    whole_out = run_cli("eval", whole, run, "-m", "nDCG", "-f", "json").stdout
    assert _numbers(c.stdout) == _numbers(whole_out)  # provenance names each command
    assert _numbers(c.stdout) != _numbers(d.stdout)


@pytest.mark.parametrize(
    "args, mentions",
    [
        (["eval", "--fractional", "{bad}", "{run}"], ["bad.qrels:2", "finite number"]),
        (["eval", "--fractional", "{soft}", "{run}", "-m", "relstring"], ["fractional"]),
        (["eval", "--fractional", "{soft}", "{run}", "-m", "nDCG(gains={1:3})"], ["gains="]),
        (["aggregate", "--judgments", "{table}", "--soft", "--level", "nominal"], ["gains"]),
        (["aggregate", "--judgments", "{table}", "--gains", "2=3"], ["--gains", "--soft"]),
        (["aggregate", "--judgments", "{table}", "--soft", "--gains", "2"], ["--gains"]),
    ],
)
def test_clean_failures(files, args, mentions):
    table, run, tmp = files
    bad = tmp / "bad.qrels"
    bad.write_text("1 0 d1 1\n1 0 d2 nan\n")
    soft = tmp / "soft.qrels"
    soft.write_text("1 0 d1 0.5\n1 0 d2 1\n")
    paths = {"bad": bad, "run": run, "soft": soft, "table": table}
    argv = [paths[a[1:-1]] if a[1:-1] in paths else a for a in args]
    with Unchanged(table, run, bad, soft):
        assert_clean_failure(run_cli(*argv), *mentions)


def _numbers(text) -> dict:
    """An eval JSON output without its provenance (which records the command as given)."""
    doc = json.loads(text)
    doc.pop("provenance")
    return doc
