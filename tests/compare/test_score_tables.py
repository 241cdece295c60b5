"""Every per-query output cranfield and trec_eval write is read back by `compare
--from-per-query` and by `correlate`, through the one reader (compare/per_query.py).

The files are produced by the real commands (`cranfield eval --per-query --format X`,
`cranfield trec_eval -q`, whose output is byte-identical to trec_eval 10.0's) on the
bundled sample collection, then read back and checked against `evaluate()`'s own
per-query values: exactly for csv/tsv/json (full precision), to the 4 printed decimals
for the trec_eval layout.
"""

from __future__ import annotations

import json
import math

import pytest

from adversarial.harness import run_main as _cli
from cranfield import sample
from cranfield.compare import compare, read_table
from cranfield.core.evaluation import evaluate
from cranfield.errors import InputError

RUNS = ("bm25", "hybrid", "random")  # the sample runs that answer every topic
MEASURES = ("AP", "nDCG@10")


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    d = tmp_path_factory.mktemp("sample")
    paths = sample.write(d)
    qrels = str(paths[0])
    runs = [str(d / f"{name}.txt") for name in RUNS]
    expected = evaluate(qrels, runs, list(MEASURES)).per_query_table()
    return d, qrels, runs, expected


def _eval_file(capsys, collection, fmt: str):
    d, qrels, runs, _ = collection
    status, out, err = _cli(
        capsys, "eval", qrels, *runs, "-m", *MEASURES, "--per-query", "--format", fmt
    )
    assert status == 0, err
    path = d / f"pq.{fmt}"
    path.write_text(out)
    return path


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_eval_per_query_full_precision_round_trip(capsys, collection, fmt):
    _, _, _, expected = collection
    table = read_table(_eval_file(capsys, collection, fmt))
    assert table.scores == expected  # every value bit for bit
    assert table.rounded == []
    # the aggregate rows ("all") are kept apart, not taken for a query
    assert set(table.aggregates["AP"]) == set(RUNS)
    mean_bm25 = math.fsum(expected["AP"]["bm25"].values()) / len(expected["AP"]["bm25"])
    assert table.aggregates["AP"]["bm25"] == pytest.approx(mean_bm25, rel=1e-12)


def test_eval_trec_format_is_read_with_a_rounding_note(capsys, collection):
    _, _, _, expected = collection
    path = _eval_file(capsys, collection, "trec")
    table = read_table(path)
    assert table.rounded == [str(path)]
    assert table.scores.keys() == expected.keys()
    for m, per_run in expected.items():
        assert table.scores[m].keys() == per_run.keys()
        for run, per_q in per_run.items():
            got = table.scores[m][run]
            assert got.keys() == per_q.keys()
            assert all(abs(got[q] - v) <= 5e-5 + 1e-12 for q, v in per_q.items())
    status, out, err = _cli(capsys, "compare", "--from-per-query", path, "--test", "wilcoxon")
    assert status == 0
    assert err.count("\n") == 1 and "rounded to 4 decimals" in err


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_compare_from_each_format_equals_compare_on_evaluate(capsys, collection, fmt):
    _, _, _, expected = collection
    path = _eval_file(capsys, collection, fmt)
    status, out, err = _cli(
        capsys, "compare", "--from-per-query", path, "--test", "wilcoxon", "--format", "json"
    )
    assert status == 0 and err == ""
    want = json.loads(compare(expected, tests=("wilcoxon",)).render("json"))
    got = json.loads(out)
    assert got.pop("provenance")["inputs"][0]["path"] == str(path)
    assert got == want


def _trec_eval_q(capsys, collection, *extra) -> str:
    d, qrels, runs, _ = collection
    texts = []
    for run in runs:
        status, out, err = _cli(capsys, "trec_eval", "-q", *extra, qrels, run)
        assert status == 0, err
        texts.append(out)
    return "".join(texts)


@pytest.mark.parametrize("extra", [(), ("-m", "all_trec")], ids=["default", "all_trec"])
def test_trec_eval_q_several_runs_in_one_file(capsys, collection, extra):
    d, _, _, expected = collection
    text = _trec_eval_q(capsys, collection, *extra)
    if extra:
        assert "relstring" in text  # the string-valued line is in the file and skipped
    path = d / "trec_eval_q.txt"
    path.write_text(text)
    table = read_table(path)
    assert sorted(table.scores["map"]) == sorted(RUNS)
    for run in RUNS:
        want = expected["AP"][run]
        got = table.scores["map"][run]
        assert got.keys() == want.keys()
        assert all(abs(got[q] - v) <= 5e-5 + 1e-12 for q, v in want.items())
    assert "runid" not in table.scores and "relstring" not in table.scores
    assert table.aggregates["num_q"]["bm25"] == len(expected["AP"]["bm25"])
    status, out, err = _cli(
        capsys, "compare", "--from-per-query", path, "-m", "map", "--baseline", "bm25"
    )
    assert status == 0 and out.count("\n") == 2 + len(RUNS) - 1, out
    assert "rounded to 4 decimals" in err
    status, out, err = _cli(capsys, "correlate", path, "-m", "map", "--measure-b", "P_10")
    assert status == 0 and "kendall_tau\t" in out, err


def test_trec_eval_q_one_file_per_run_named_by_runid(capsys, collection):
    d, qrels, runs, _ = collection
    paths = []
    for run in runs:
        status, out, _ = _cli(capsys, "trec_eval", "-q", qrels, run)
        paths.append(d / f"q_{len(paths)}.txt")  # file names unlike the run names
        paths[-1].write_text(out)
    table = read_table(paths)
    assert sorted(table.scores["map"]) == sorted(RUNS)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "trec"])
def test_correlate_reads_every_eval_format(capsys, collection, fmt):
    _, _, _, expected = collection
    path = _eval_file(capsys, collection, fmt)
    status, out, err = _cli(
        capsys, "correlate", path, "-m", "AP", "--measure-b", "nDCG@10", "--format", "json"
    )
    assert status == 0, err
    doc = json.loads(out)
    assert doc["runs"] == len(RUNS) and doc["a"] == "AP" and doc["b"] == "nDCG@10"
    assert -1 <= doc["kendall_tau"] <= 1


def test_the_issue_scenario(capsys, collection, tmp_path):
    """eval --per-query --format csv > pq.csv; compare --from-per-query; correlate."""
    d, qrels, runs, _ = collection
    status, out, err = _cli(
        capsys, "eval", qrels, runs[0], runs[1], "-m", "AP", "nDCG@10", "--per-query",
        "--format", "csv",
    )  # fmt: skip
    assert status == 0, err
    pq = tmp_path / "pq.csv"
    pq.write_text(out)
    status, out, err = _cli(capsys, "compare", "--from-per-query", pq, "--test", "wilcoxon")
    assert status == 0 and err == "", err
    assert "p(wilcoxon)" in out and "AP" in out and "nDCG@10" in out
    status, out, err = _cli(capsys, "correlate", pq, "-m", "AP", "--measure-b", "nDCG@10")
    assert status == 0 and err == "", err
    assert out.startswith(f"# {pq} (AP) vs {pq} (nDCG@10), 2 runs")


def test_trec_layout_of_a_run_named_run(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("runid\tall\trun\nmap\t1\t0.5000\nmap\tall\t0.5000\n")
    assert read_table(path).scores == {"map": {"run": {"1": 0.5}}}


def test_long_and_aggregate_tables(tmp_path):
    long = tmp_path / "long.tsv"
    long.write_text("qid\tvalue\trun\tmeasure\n1\t0.5\ta\tAP\n2\t0.25\ta\tAP\nall\t0.375\ta\tAP\n")
    t = read_table(long)
    assert t.scores == {"AP": {"a": {"1": 0.5, "2": 0.25}}}
    assert t.aggregates == {"AP": {"a": 0.375}}
    agg = tmp_path / "agg.csv"
    agg.write_text("run,AP,P@10\na,0.5,0.3\nb,0.25,0.4\n")
    t = read_table(agg)
    assert t.scores == {} and t.means() == {
        "AP": {"a": 0.5, "b": 0.25},
        "P@10": {"a": 0.3, "b": 0.4},
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("run,query,AP\na,1,0.5\na,1,0.6\n", "3: duplicate score"),
        ("run,query,AP\na,1,nan\n", "2: value is 'nan'"),
        ("run,query,AP\na,1,inf\n", "2: value is 'inf'"),
        ("run,query,AP\na,1,x\n", "2: expected a number, got 'x'"),
        ("run,query,AP,AP\na,1,0.5,0.5\n", "1: column 'AP' appears twice"),
        ("run,query\na,1\n", "1: header names no measure"),
        ("map 1\n", "1: expected 3 fields"),
        ("runid all a\nmap 1 0.5\nrunid all a\nmap 1 0.5\n", "run 'a' appears twice"),
        ('{"runs": 3}', "expected cranfield eval JSON"),
        ('{"runs": [{"name": "a", "per_query": {"1": {"AP": "x"}}}]}', "expected a number"),
        ("{", "invalid JSON"),
        ("\n\n", "file is empty"),
    ],
)
def test_bad_tables_name_file_and_line(tmp_path, content, message):
    from cranfield.errors import InputError

    path = tmp_path / "t.txt"
    path.write_text(content)
    with pytest.raises(InputError) as exc:
        read_table(path)
    assert message in str(exc.value) and str(path) in str(exc.value)


@pytest.mark.parametrize("digits", ["4", "9"])
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_eval_tables_printed_for_people_are_read_back(capsys, collection, fmt, digits):
    """The default text table (and Markdown) chain into compare and correlate: every
    value as printed, the note about rounding only when it is the 4 decimals."""
    d, qrels, runs, expected = collection
    status, out, err = _cli(
        capsys, "eval", qrels, *runs, "-m", *MEASURES, "--per-query", "--format", fmt,
        "--digits", digits,
    )  # fmt: skip
    assert status == 0, err
    path = d / f"people-{digits}.{fmt}"
    path.write_text(out)
    table = read_table(path)
    assert table.scores.keys() == expected.keys()
    for m, per_run in expected.items():
        for run, per_q in per_run.items():
            got = table.scores[m][run]
            assert got.keys() == per_q.keys()
            assert all(got[q] == float(f"{v:.{digits}f}") for q, v in per_q.items())
    assert table.rounded == ([str(path)] if digits == "4" else [])
    status, out, err = _cli(capsys, "compare", "--from-per-query", path, "--test", "wilcoxon")
    assert status == 0 and out.count("\n") >= 2 * (len(RUNS) - 1), err
    status, out, err = _cli(capsys, "correlate", path, "-m", "AP", "--measure-b", "nDCG@10")
    assert status == 0 and "kendall_tau" in out, err


def test_a_text_table_whose_run_name_has_a_space_is_refused_with_its_line(tmp_path):
    path = tmp_path / "pq.txt"
    path.write_text("run     query  AP\nmy run  1      0.5000\n")
    with pytest.raises(InputError, match=r"pq.txt:2: expected 3 fields"):
        read_table(path)
