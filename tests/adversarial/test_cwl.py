"""Hostile input for ``cranfield cwl`` (cwl_eval's evaluation) and its readers: the
gain file, the run, the metrics file and the per-document cost file. Each case ends
with one line on stderr naming the file (and line) and status 2, or with the right
table; inputs are left as they were. One case runs as a real process."""

from __future__ import annotations

import pytest

from .harness import Outcome, Unchanged, assert_clean_failure, run_cli

QRELS = "1 0 a 1\n1 0 b 0.5\n2 0 a 0\n"
RUN = "1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n2 Q0 a 1 1 r\n"


@pytest.fixture
def files(tmp_file):
    return {"qrels": tmp_file("q.txt", QRELS), "run": tmp_file("r.txt", RUN)}


def fails(cli, *argv, mentions=()) -> str:
    paths = [a for a in argv if hasattr(a, "is_file") and a.is_file()]
    with Unchanged(*paths):
        status, out, err = cli("cwl", *argv)
    return assert_clean_failure(Outcome(list(map(str, argv)), status, out.encode(), err), *mentions)


def test_a_good_table(cli, files):
    status, out, err = cli("cwl", files["qrels"], files["run"], "-n")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "Topic\tMetric\tEU\tETU\tEC\tETC\tED"
    assert len(lines) == 1 + 2 * 16
    assert lines[1] == "1\tP@1\t1.0000\t1.0000\t1.0000\t1.0000\t1.0000"


def test_a_topic_that_comes_back_is_reported_again(cli, tmp_file, files):
    run = tmp_file("back.txt", "1 Q0 a 1 3 r\n2 Q0 a 1 1 r\n1 Q0 b 1 1 r\n")
    status, out, _ = cli("cwl", files["qrels"], run)
    assert status == 0
    assert [line.split("\t")[0] for line in out.splitlines()][::16] == ["1", "2", "1"]


@pytest.mark.parametrize(
    ("qrels", "mentions"),
    [
        ("1 0 a 2\n", ("q.txt:1", "gain 2 outside [0, 1]")),
        ("1 0 a 1\n1 0 b -0.5\n", ("q.txt:2", "gain -0.5")),
        ("1 0 a nan\n", ("q.txt:1",)),
        ("1 0 a\n", ("q.txt:1",)),
        ("", ("q.txt",)),
    ],
)
def test_bad_gain_files(cli, tmp_file, files, qrels, mentions):
    fails(cli, tmp_file("q.txt", qrels), files["run"], mentions=mentions)


@pytest.mark.parametrize(
    ("run", "mentions"),
    [
        ("", ("r.txt",)),
        ("1 Q0 a 1 x r\n", ("r.txt:1",)),
        ("1 Q0 a\n", ("r.txt:1",)),
        (b"\xff\xfe garbage \x00\x01", ("r.txt",)),
    ],
)
def test_bad_runs(cli, tmp_file, files, run, mentions):
    fails(cli, files["qrels"], tmp_file("r.txt", run), mentions=mentions)


@pytest.mark.parametrize(
    ("metrics", "mentions"),
    [
        ("NoSuchMetric(1)\n", ("m.txt:1", "unknown cwl_eval metric 'NoSuchMetric'")),
        ("RBPCWLMetric 0.5\n", ("m.txt:1", "parentheses")),
        ("\nRBPCWLMetric(x)\n", ("m.txt:2", "'x' is not a number")),
        ("PrecisionCWLMetric(2.5)\n", ("m.txt:1", "k must be an integer")),
        ("NDCGCWLMetric()\n", ("m.txt:1", "needs its parameter k")),
        ("RBPCWLMetric(0.5,0.5)\n", ("m.txt:1", "at most 1")),
        ("RBPCWLMetric(2.0)\n", ("theta",)),
        ("\n\n", ("m.txt", "no metrics")),
        (b"RBP\xff(0.5)\n", ("m.txt", "UTF-8")),
    ],
)
def test_bad_metrics_files(cli, tmp_file, files, metrics, mentions):
    m = tmp_file("m.txt", metrics)
    fails(cli, files["qrels"], files["run"], "-m", m, mentions=mentions)


@pytest.mark.parametrize(
    ("costs", "mentions"),
    [
        ("1 a -1\n", ("c.txt", "cost -1")),
        ("1 a nan\n", ("c.txt", "finite")),
        ("1 a x\n", ("c.txt", "cost")),
        ("1 a\n", ("c.txt", "three columns")),
        ("1 a 1\n1 a 2\n", ("c.txt", "two costs")),
        ("", ("c.txt",)),
    ],
)
def test_bad_cost_files(cli, tmp_file, files, costs, mentions):
    c = tmp_file("c.txt", costs)
    fails(cli, files["qrels"], files["run"], "--doc-costs", c, mentions=mentions)


def test_costs_change_the_cost_columns(cli, tmp_file, files):
    c = tmp_file("c.txt", "1 a 2\n1 c 3\n2 a 0.5\n")
    m = tmp_file("m.txt", "PrecisionCWLMetric(2)\n")
    status, out, err = cli("cwl", files["qrels"], files["run"], "-m", m, "--doc-costs", c)
    assert status == 0, err
    # P@2 on topic 1: EC = (2 + 3) / 2, ETC = 5; items past the run cost --max_cost
    assert out.splitlines()[0].split("\t")[4:7] == ["2.5000", "5.0000", "2.0000"]


def test_a_model_refusing_its_gains(cli, tmp_file, files):
    q = tmp_file("q.txt", "1 0 a 2\n")
    m = tmp_file("m.txt", "INSTCWLMetric(1.0)\n")
    fails(cli, q, files["run"], "-m", m, "--max_gain", "2", mentions=("INST-T=1.0", "[0, 1]"))


@pytest.mark.parametrize(
    ("option", "mentions"),
    [
        (("--max_depth", "0"), ("--max_depth",)),
        (("--max_depth", "ten"), ("--max_depth",)),
        (("--max_gain", "nan"), ("--max_gain",)),
    ],
)
def test_usage_errors(cli, files, option, mentions):
    fails(cli, files["qrels"], files["run"], *option, mentions=mentions)


@pytest.mark.parametrize(
    ("costs", "mentions"),
    [
        ("web -1\n", ("c.txt:1", "cost -1")),
        ("web 1\nimg inf\n", ("c.txt:2", "finite")),
        ("web nan\n", ("c.txt", "finite")),
        ("web x\n", ("c.txt", "cost")),
        ("web\n", ("c.txt", "two columns")),
        ("web 1 2\n", ("c.txt", "two columns")),
        ("web 1\nweb 2\n", ("c.txt", "two costs")),
        ("", ("c.txt",)),
    ],
)
def test_bad_element_type_cost_files(cli, tmp_file, files, costs, mentions):
    c = tmp_file("c.txt", costs)
    fails(cli, files["qrels"], files["run"], "-c", c, mentions=mentions)


def test_both_cost_files_refused(cli, tmp_file, files):
    c = tmp_file("c.txt", "Q0 1\n")
    d = tmp_file("d.txt", "1 a 1\n")
    fails(cli, files["qrels"], files["run"], "-c", c, "--doc-costs", d, mentions=("not both",))


@pytest.mark.parametrize(("option", "mentions"), [("-b", "BibTeX")])
def test_refused_cwl_eval_options(capsys, files, option, mentions):
    from cranfield.cli.main import main

    with pytest.raises(SystemExit) as exc:
        main(["cwl", str(files["qrels"]), str(files["run"]), option, "x"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and mentions in err


def test_as_a_process_with_stdout_closed(files):
    out = run_cli("cwl", files["qrels"], files["run"], close_stdout=True)
    assert_clean_failure(out, "standard output", status=None)


def test_element_type_costs_from_a_gzip_run(cli, tmp_file, files, tmp_path):
    import gzip

    c = tmp_file("c.txt", "Q0 2\n")
    plain = cli("cwl", files["qrels"], files["run"], "-c", c)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(files["run"].read_bytes()))
    assert cli("cwl", files["qrels"], packed, "-c", c)[:2] == plain[:2]
    assert plain[0] == 0 and "2.0000" in plain[1]


def test_element_type_costs_need_a_run_file(cli, tmp_file, files):
    c = tmp_file("c.txt", "Q0 2\n")
    fails(cli, files["qrels"], "-", "-c", c, mentions=("standard input",))
