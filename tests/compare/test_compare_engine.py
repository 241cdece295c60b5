"""cranfield compare on real qrels and runs, through the evaluation engine."""

import json

import pytest

import cranfield
from cranfield import sample
from cranfield.cli.main import main


@pytest.fixture(scope="module")
def files(sample_paths):
    return sample_paths[0], {p.stem: p for p in sample_paths[1:]}


def test_compare_is_callable_and_a_package():
    import cranfield.compare.stats  # noqa: F401  (importing a submodule must not break the call)

    qrels, runs = sample.load()
    table = cranfield.evaluate(qrels, [runs["bm25"], runs["hybrid"]], ["AP"]).per_query_table()
    result = cranfield.compare(table, baseline="bm25")
    assert callable(cranfield.compare) and hasattr(cranfield.compare, "tukey_hsd")
    (row,) = result.to_rows()
    assert row["run"] == "hybrid" and row["diff"] > 0


def test_cli_from_qrels_and_runs_matches_api(files, capsys):
    qrels, runs = files
    code = main(
        [
            "compare",
            str(qrels),
            str(runs["bm25"]),
            str(runs["hybrid"]),
            "-m",
            "AP",
            "nDCG@10",
            "--baseline",
            "bm25",
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    rows = json.loads(out)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    api = cranfield.evaluate(
        cranfield.Qrels.read(qrels),
        [cranfield.Run.read(runs[n]) for n in ("bm25", "hybrid")],
        ["AP", "nDCG@10"],
    )
    by_measure = {r["measure"]: r for r in rows}
    assert by_measure["AP"]["mean_run"] == pytest.approx(api["hybrid"]["AP"])
    assert by_measure["nDCG@10"]["mean_baseline"] == pytest.approx(api["bm25"]["nDCG@10"])


def test_cli_stops_when_query_sets_differ(files, capsys):
    qrels, runs = files
    code = main(["compare", str(qrels), str(runs["bm25"]), str(runs["dense"]), "-m", "AP"])
    err = capsys.readouterr().err
    assert code == 2 and "317" in err and "--complete" in err
    code = main(
        ["compare", str(qrels), str(runs["bm25"]), str(runs["dense"]), "-m", "AP", "--complete"]
    )
    assert code == 0
