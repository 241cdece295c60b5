"""``cranfield clicks`` (compare, fit, relevance, models) under hostile input."""

from __future__ import annotations

import gzip
import json
import math

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

LOG = "q1\ta,b,c : b;\nq2\tb,d : b , d;\nq1\ta,b,c : a;\nq1\tb,a,c : c;\n"


@pytest.fixture
def log(tmp_path):
    p = tmp_path / "train.pyclick"
    p.write_text(LOG)
    return p


def test_compare_formats(log, tmp_path):
    test = tmp_path / "test.pyclick"
    test.write_text(LOG + "q9\ta : a;\n")
    out = run_cli("clicks", "compare", log, test, "--models", "dctr,pbm,dbn", "-f", "json")
    assert_success(out, quiet=True)
    rows = json.loads(out.stdout)
    assert [r["model"] for r in rows] == ["dctr", "pbm", "dbn"]
    assert all(r["sessions_left_out"] == 1 and r["sessions"] == 4 for r in rows)
    out = run_cli("clicks", "compare", log, test, "--models", "gctr", "-f", "markdown")
    assert_success(out, quiet=True)
    assert out.stdout.startswith(b"| model |") and b"1 left out" in out.stdout
    table = run_cli("clicks", "compare", log, test, "--models", "gctr,dbn", "-f", "text")
    values = {line.split()[0]: line.split()[1:] for line in table.stdout.decode().splitlines()[1:3]}
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        out = run_cli("clicks", "compare", log, test, "--models", "gctr,dbn", "-f", fmt)
        assert_success(out)
        lines = out.stdout.decode().splitlines()
        assert lines[0].split(sep)[:3] == ["model", "log-likelihood", "perplexity"]
        assert {r.split(sep)[0]: r.split(sep)[1:] for r in lines[1:]} == values  # same cells
        assert out.stderr == (
            "cranfield clicks compare: note: 4 test sessions scored; 1 left out "
            "(their query is not in the training log)\n"
        )
    out = run_cli("clicks", "compare", log, test, "--models", "gctr", "--digits", "2")
    two = out.stdout.decode().splitlines()[1].split()
    assert two[1] == f"{float(values['gctr'][0]):.2f}" and len(two[1].split(".")[1]) == 2


def test_fit_writes_model_file_atomically(log, tmp_path):
    target = tmp_path / "model.json"
    with Unchanged(log):
        assert_success(run_cli("clicks", "fit", log, "--model", "ubm", "-o", target), quiet=True)
    model = json.loads(target.read_text())
    assert model["model"] == "ubm" and model["format"] == "cranfield-click-model"
    assert {p["doc"] for p in model["pairs"] if p["query"] == "q1"} == {"a", "b", "c"}


def test_relevance_qrels(log):
    out = run_cli(
        "clicks", "relevance", log, "--model", "dctr", "--qrels", "--thresholds", "0.3,0.6"
    )
    assert_success(out, quiet=True)
    lines = out.stdout.decode().splitlines()
    assert "q2 0 d 2" in lines and "q1 0 c 1" in lines  # d 1/1; c 1/3


def test_models_list():
    out = run_cli("clicks", "models")
    assert_success(out, quiet=True)
    for name in ("gctr", "pbm", "ubm", "dbn", "sdbn", "ccm", "dcm", "cm"):
        assert f"\n{name} ".encode() in b"\n" + out.stdout


@pytest.mark.parametrize(
    "content, mentions",
    [
        ("q1\ta,,b : a;\n", ("train.pyclick:1", "document id")),
        ("q1 a,b : a;\n", ("train.pyclick:1", "TAB")),
        ("", ("no session",)),
        ("\x00\x01\x02", ("train.pyclick",)),
        ("q1\ta,b : a;\nq1\ta,b : x : b;\n", ("train.pyclick:2",)),
        # read as it arrives: a gzip stream cut short, lines ended by CR alone
        (gzip.compress(LOG.encode(), mtime=0)[:-12].decode("latin-1"), ("train.pyclick", "gzip")),
        ("q1\ta : a;\rq2\tb : b;\r\rq3\tb : x : y;\r", ("train.pyclick:4", "':'")),
    ],
)
def test_bad_logs_fail_cleanly(tmp_path, content, mentions):
    p = tmp_path / "train.pyclick"
    p.write_bytes(content.encode("latin-1"))
    for argv in (
        ("fit", p, "--model", "pbm"),
        ("compare", p, p),
        ("relevance", p, "--model", "dbn"),
    ):
        assert_clean_failure(run_cli("clicks", *argv), *mentions)


YANDEX = "1\t0\tQ\tq1\t0\ta\tb\n1\t5\tC\tb\n2\t0\tQ\tq2\t0\tb\tc\n"


@pytest.mark.parametrize(
    "name, content, mentions",
    [
        # read in pieces by the engine (the Yandex log, the tables a batch at a time)
        ("train.yandex", YANDEX + "2\t3\tC\n", ("train.yandex:4", "click record")),
        ("train.yandex", YANDEX + "3\t3\tC\tb\n", ("train.yandex:4", "before any query")),
        ("train.yandex", YANDEX.replace("\n", "\r") + "\r2\t-1\tC\tb\r", (":5:", "time")),
        ("train.yandex.gz", gzip.compress(YANDEX.encode() * 50, mtime=0)[:-12], ("gzip",)),
        ("train.yandex", YANDEX + "2\t1\tC\t\xff\n", ("train.yandex:4", "UTF-8")),
        ("train.csv", 'query,docs,clicks\nq,a b,0 1\nq,"a\nb",0 2\n', ("train.csv:3", "0 or 1")),
        ("train.tsv", "query\tdocs\tclicks\nq\ta\t0\t9\n", ("train.tsv:2", "fields")),
        ("train.csv", "query,docs,clicks\n", ("no session",)),
        ("train.csv", "docs,clicked\na b,1\n", ("train.csv:2", "'query'")),
        ("train.parquet", b"PAR1" + b"\x00" * 40, ("train.parquet", "Parquet")),
    ],
)
def test_bad_logs_read_in_pieces_fail_cleanly(tmp_path, name, content, mentions):
    p = tmp_path / name
    p.write_bytes(content if isinstance(content, bytes) else content.encode("latin-1"))
    for argv in (("fit", p, "--model", "pbm"), ("compare", p, p)):
        assert_clean_failure(run_cli("clicks", *argv), *mentions)


def _arrow(stream: bool = False) -> bytes:
    """A small click log as an Arrow IPC file (or stream), record batches of 2 rows."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    table = pa.table(
        {"query": ["q1", "q2", "q1"] * 20, "docs": [["a", "b"], ["b"], ["c", "a"]] * 20,
         "clicks": [[0, 1], [1], [0, 0]] * 20}
    )  # fmt: skip
    out = pa.BufferOutputStream()
    with (ipc.new_stream if stream else ipc.new_file)(out, table.schema) as writer:
        writer.write_table(table, max_chunksize=2)
    return out.getvalue().to_pybytes()


def _parquet() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = pa.BufferOutputStream()
    pq.write_table(pa.table({"query": ["q"], "docs": [["a"]], "clicks": [[1]]}), out)
    return out.getvalue().to_pybytes()


CSV_LOG = "query,docs,clicks\n" + "q1,a b,0 1\nq2,b c,1 0\n" * 40
BAD_CSV = 'query,docs,clicks\nq,a b,0 1\nq,"a\nb",0 2\n'
STREAMED = {  # name, the file's bytes, what the one line names
    "gzip CSV cut short": (
        "train.csv.gz",
        lambda: gzip.compress(CSV_LOG.encode())[:-12],
        ("gzip",),
    ),
    "gzip CSV, a bad row": (
        "train.csv.gz",
        lambda: gzip.compress(BAD_CSV.encode()),
        ("train.csv.gz:3", "0 or 1"),
    ),
    "gzip TSV corrupt": (
        "train.tsv.gz",
        lambda: (lambda z: z[:-8] + bytes([z[-8] ^ 1]) + z[-7:])(
            gzip.compress(CSV_LOG.replace(",", "\t").encode())
        ),
        ("corrupt gzip",),
    ),
    "Arrow IPC cut short": ("train.arrow", lambda: _arrow()[:-300], ("train.arrow", "Arrow IPC")),
    "Arrow IPC stream cut short": (
        "train.arrows",
        lambda: _arrow(True)[:-300],
        ("train.arrows", "Arrow IPC"),
    ),
    "gzip Arrow IPC cut short": (
        "train.arrow.gz",
        lambda: gzip.compress(_arrow())[: -len(_arrow()) // 20],
        ("gzip",),
    ),
    "gzip Arrow IPC, its footer cut": (
        "train.arrow.gz",
        lambda: gzip.compress(_arrow())[:-4],
        ("truncated gzip",),
    ),
    "Feather magic only": ("train.feather", lambda: b"ARROW1\0\0" + b"\0" * 8, ("Arrow IPC",)),
    "gzip Parquet cut short": (
        "train.parquet.gz",
        lambda: gzip.compress(_parquet())[:-9],
        ("gzip",),
    ),
    "gzip empty": ("train.csv.gz", lambda: gzip.compress(b""), ("empty",)),
}


@pytest.mark.parametrize("case", STREAMED)
def test_compressed_and_arrow_logs_streamed_fail_cleanly(tmp_path, case):
    """Gzip-compressed tables and Arrow IPC files, read a piece or a record batch at a
    time, and the same bytes on standard input: one line, naming the file."""
    name, content, mentions = STREAMED[case]
    data = content()
    p = tmp_path / name
    p.write_bytes(data)
    fmt = "csv" if ".csv" in name else "tsv" if ".tsv" in name else None
    fmt = fmt or ("parquet" if "parquet" in name else "arrow")
    assert_clean_failure(
        run_cli("clicks", "fit", p, "--model", "pbm", "--log-format", fmt), *mentions
    )
    out = run_cli("clicks", "fit", "-", "--model", "pbm", "--log-format", fmt, stdin=data)
    assert_clean_failure(out, "<stdin>", *(m.replace(name, "<stdin>") for m in mentions))


@pytest.mark.parametrize("fmt", ["csv", "arrow", "parquet"])
def test_compressed_logs_on_stdin_fit_as_the_file(tmp_path, fmt):
    data = {"csv": CSV_LOG.encode, "arrow": _arrow, "parquet": _parquet}[fmt]()
    p = tmp_path / f"train.{fmt}"
    p.write_bytes(data)
    want = run_cli("clicks", "fit", p, "--model", "dctr", "-o", tmp_path / "a.json")
    assert_success(want, quiet=True)
    for content in (data, gzip.compress(data, mtime=0)):
        got = run_cli(
            "clicks", "fit", "-", "--model", "dctr", "-o", tmp_path / "b.json", stdin=content
        )
        assert_success(got, quiet=True)
        a = json.loads((tmp_path / "a.json").read_text())
        assert a["pairs"] and a == json.loads((tmp_path / "b.json").read_text())


@pytest.mark.parametrize(
    "argv, mention",
    [
        (("fit", "{log}", "--model", "nope"), "click model"),
        (("compare", "{log}", "{log}", "--models", "pbm,zzz"), "zzz"),
        (("fit", "{log}", "--model", "pbm", "--max-iter", "0"), "max-iter"),
        (("fit", "{log}", "--model", "pbm", "--tol", "nan"), "tol"),
        (("relevance", "{log}", "--model", "pbm", "--thresholds", "0.5,0.2"), "thresholds"),
        (("relevance", "{log}", "--model", "gctr"), "per-document"),
        (("fit", "{missing}", "--model", "pbm"), "missing"),
        (("fit", "{log}", "--model", "pbm", "-o", "{log}"), "train.pyclick"),
        (("fit", "{log}", "--model", "pbm", "--log-format", "jsonl"), "JSON"),
    ],
)
def test_bad_arguments_fail_cleanly(log, tmp_path, argv, mention):
    names = {"log": str(log), "missing": str(tmp_path / "missing.pyclick")}
    with Unchanged(log):
        out = run_cli("clicks", *(a.format(**names) for a in argv))
    assert_clean_failure(out, mention)


def test_unknown_extension_asks_for_the_format(tmp_path):
    p = tmp_path / "log.txt"
    p.write_text("just some words\nand more\n")
    assert_clean_failure(run_cli("clicks", "fit", p, "--model", "dctr"), "--log-format")
    q = tmp_path / "log.txt"
    q.write_text(LOG)
    assert_success(run_cli("clicks", "fit", q, "--model", "dctr"), quiet=True)  # sniffed
    assert_success(run_cli("clicks", "fit", q, "--model", "dctr", "--log-format", "pyclick"))


def test_closed_stdout(log):
    out = run_cli("clicks", "fit", log, "--model", "dctr", close_stdout=True)
    assert out.status != 0 and "Traceback" not in out.stderr


def test_relevance_compare_with_editorial_qrels(log, tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 1\nq2 0 d 2\n")
    with Unchanged(log, qrels):
        out = run_cli(
            "clicks", "relevance", log, "--model", "dctr", "--compare", qrels,
            "--thresholds", "0.3,0.6", "-f", "json",
        )  # fmt: skip
    assert_success(out, quiet=True)
    res = json.loads(out.stdout)
    assert res["pairs"] == {"common": 3, "clicks_only": 2, "editorial_only": 0}


@pytest.mark.parametrize(
    "extra",
    [
        [],  # --compare without --thresholds
        ["--thresholds", "0.5", "--runs", "only-one.run"],
    ],
)
def test_relevance_compare_errors(log, tmp_path, extra):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\n")
    run = tmp_path / "only-one.run"
    run.write_text("q1 Q0 a 1 1 x\n")
    extra = [str(run) if e == "only-one.run" else e for e in extra]
    out = run_cli("clicks", "relevance", log, "--model", "dctr", "--compare", qrels, *extra)
    assert_clean_failure(out)


def test_relevance_runs_need_compare(log, tmp_path):
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 a 1 1 x\n")
    assert_clean_failure(run_cli("clicks", "relevance", log, "--model", "dctr", "--runs", run, run))


@pytest.mark.parametrize(
    "value", ["-1,2", "a", "1", "3,2", "nan,1", "1,inf", "1,2,3", "", "1e7,1e7", ","]
)
def test_bad_prior(log, value):
    out = run_cli("clicks", "fit", log, "--model", "dctr", f"--prior={value}")
    assert_clean_failure(out, "--prior")
    out = run_cli("clicks", "compare", log, log, "--models", "pbm", "--prior", value)
    assert_clean_failure(out, "--prior")


def test_maximum_likelihood_prior_on_zero_counts_stays_finite(tmp_path):
    """--prior 0,0 on a pair never clicked in training that the test log clicks (and a
    pair always clicked that the test log skips): the scores are finite, no warning."""
    train = tmp_path / "train.pyclick"
    train.write_text("q\ta,b,c : a;\nq\ta,b,c : a;\nq\tb,a,c :;\n")
    test = tmp_path / "test.pyclick"
    test.write_text("q\ta,b,c : b , c;\nq\tb,a,c : a;\nq\ta,c,b :;\n")
    names = "gctr,rctr,dctr,pbm,cm,ubm,dcm,ccm,dbn,sdbn"
    out = run_cli("clicks", "compare", train, test, "--models", names, "--prior", "0,0",
                  "-f", "json")  # fmt: skip
    assert_success(out, quiet=True)
    rows = json.loads(out.stdout)
    assert len(rows) == 10
    for r in rows:
        values = [r["log_likelihood"], r["perplexity"], r["ctr_error"], *r["perplexity_at"]]
        assert all(isinstance(v, float) and math.isfinite(v) for v in values), r
    out = run_cli("clicks", "fit", train, "--model", "dctr", "--prior", "0,0")
    assert_success(out, quiet=True)
    pairs = {p["doc"]: p["attractiveness"] for p in json.loads(out.stdout)["pairs"]}
    assert pairs == {"a": 2 / 3, "b": 0.0, "c": 0.0}  # plain k / n


def test_tolerance_zero_runs_exactly_the_iterations_asked(log):
    for flags in (["--tolerance", "0", "--max-iterations", "7"], ["--tol", "0", "--max-iter", "7"]):
        out = run_cli("clicks", "fit", log, "--model", "pbm", *flags)
        assert_success(out, quiet=True)
        model = json.loads(out.stdout)
        assert model["iterations"] == 7 and model["converged"] is False
    out = run_cli("clicks", "fit", log, "--model", "dbn")  # the default: PyClick's 50
    assert json.loads(out.stdout)["iterations"] == 50


def test_cascade_is_a_click_model_name_everywhere(log, tmp_path):
    out = run_cli("clicks", "compare", log, log, "--models", "cascade,dctr", "-f", "json")
    assert_success(out, quiet=True)
    assert [r["model"] for r in json.loads(out.stdout)] == ["cm", "dctr"]
    out = run_cli("clicks", "fit", log, "--model", "Cascade")
    assert_success(out, quiet=True)
    assert json.loads(out.stdout)["model"] == "cm"
    out = run_cli("clicks", "models")
    assert "\ncm  cascade model (closed form, also cascade)" in out.stdout.decode()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q 0 d{i} {int(i < 2)}\n" for i in range(6)))
    run = tmp_path / "a.txt"
    run.write_text("".join(f"q Q0 d{i} {i + 1} {9 - i} a\n" for i in range(6)))
    other = tmp_path / "b.txt"
    other.write_text("".join(f"q Q0 d{5 - i} {i + 1} {9 - i} b\n" for i in range(6)))
    out = run_cli("interleave", run, other, "--qrels", qrels, "--click-model", "cascade",
                  "--impressions", "20", "-f", "json")  # fmt: skip
    assert_success(out, quiet=True)
    out = run_cli("interleave", run, other, "--qrels", qrels, "--click-model", "ubm")
    assert_clean_failure(out, "--click-model", "cascade")


@pytest.mark.parametrize(
    "fmt, content",
    [
        ("pyclick", LOG),
        ("yandex", "1\t0\tQ\tq1\t5\ta\tb\tc\n1\t3\tC\tb\n2\t0\tQ\tq2\t5\tb\td\n"),
        ("jsonl", '{"query": "q1", "docs": ["a", "b"], "clicks": [0, 1]}\n'),
        ("csv", "query,docs,clicked\nq1,a b c,2\nq2,b d,\n"),
        ("tsv", "query\tdocs\tclicked\nq1\ta b c\t2 3\n"),
    ],
)
def test_log_format_told_from_the_content(tmp_path, fmt, content):
    """PyClick's and Yandex's files have no extension: their format is sniffed."""
    bare = tmp_path / "sessions"
    bare.write_text(content)
    named = tmp_path / f"sessions.{fmt}"
    named.write_text(content)
    out = run_cli("clicks", "fit", bare, "--model", "dctr")
    assert_success(out, quiet=True)
    assert out.stdout == run_cli("clicks", "fit", named, "--model", "dctr").stdout


def test_m_is_a_measure_everywhere_so_clicks_refuse_it_with_a_hint(log):
    for action in ("fit", "relevance"):
        out = run_cli("clicks", action, log, "-m", "pbm")
        assert_clean_failure(out, "--model MODEL")
