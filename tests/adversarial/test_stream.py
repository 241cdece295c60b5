"""Runs read in pieces by the compiled engine, through the command line, under an
address-space limit: a query whose lines do not fit in memory is one clean line and
exit status 2 (never an abort); a run not grouped by query is read whole when it fits,
else it is the streaming error naming the line."""

from __future__ import annotations

import gzip

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

QRELS = b"1 0 d 1\n2 0 d 1\n"


def _one_huge_query(tmp_path):
    """One query of about 400 MB of text (gzip members of 1 MB each: a small file)."""
    member = gzip.compress(b"1 Q0 d 1 1 t\n" * 80_000, 9)
    run = tmp_path / "run.gz"
    run.write_bytes(member * 400)
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS)
    return qrels, run


def test_a_query_larger_than_memory_is_one_clean_line(tmp_path):
    qrels, run = _one_huge_query(tmp_path)
    with Unchanged(qrels, run):
        for argv in (("eval", qrels, run), ("trec_eval", qrels, run)):
            out = run_cli(*argv, memory=250 << 20)
            message = assert_clean_failure(out, f"{run}: not enough memory to hold a piece")
            assert "abort" not in message.lower()


def test_a_run_not_grouped_by_query(tmp_path):
    """Query 1, query 2 (together over the engine's 64 MiB piece), then query 1 again."""
    doc = b"d" * 100  # long lines: few of them to parse
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(b"1 0 e 1\n2 0 %s 1\n" % doc)
    run = tmp_path / "run.gz"
    ones = gzip.compress(b"1 Q0 %s 1 1 t\n" % doc * 9_000, 9)
    twos = gzip.compress(b"2 Q0 %s 1 1 t\n" % doc * 9_000, 9)
    run.write_bytes(ones * 38 + twos * 38 + gzip.compress(b"1 Q0 e 2 2 t\n"))
    line = 2 * 38 * 9_000 + 1
    with Unchanged(qrels, run):
        # --stream: pieces only, the error of the NumPy streaming reader
        out = run_cli("eval", "--stream", "--duplicates", "first", "-m", "P@2", qrels, run)
        message = assert_clean_failure(out, f"{run}:{line}: query '1' appears again")
        assert "together" in message
        # by default a run that fits in memory is read whole, as when it is not streamed
        out = run_cli("eval", "--duplicates", "first", "-m", "P@2", "-q", qrels, run)
    assert_success(out, quiet=True)
    # query 1: e (the line after query 2's) ranked first, relevant; query 2: its one
    # document (the duplicates dropped), relevant
    assert out.stdout.split(b"\n")[1:4] == [
        b"t    1      0.5000",
        b"t    2      0.5000",
        b"t    all    0.5000",
    ]


def test_a_run_read_whole_beyond_the_budget_is_refused_before_reading(tmp_path):
    """``--no-stream`` on a plain run larger than the memory budget (under a 250 MB
    address-space limit the budget is its 1 MiB floor): one line naming ``--stream``,
    never an abort from an allocation failing half-way; by default the same run is
    read in pieces and evaluated."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS)
    run = tmp_path / "run.txt"
    run.write_bytes(b"".join(b"1 Q0 d%d 1 %d t\n" % (d, -d) for d in range(150_000)))
    assert run.stat().st_size > 1 << 21
    with Unchanged(qrels, run):
        for command in ("eval", "trec_eval"):
            out = run_cli(command, "--no-stream", qrels, run, memory=250 << 20)
            message = assert_clean_failure(out, f"{run}: not enough memory to read the run whole")
            assert "--stream" in message
            assert_success(run_cli(command, qrels, run, memory=250 << 20))


def test_stream_reads_gzip_qrels_whole(tmp_path):
    """``--stream`` puts the run in pieces; a gzip qrels file is still read whole (it
    was refused as 'more than 0 MiB' when the option zeroed the whole-reading budget)."""
    qrels = tmp_path / "qrels.txt.gz"
    qrels.write_bytes(gzip.compress(b"1 0 d0 1\n1 0 d2 1\n2 0 d1 1\n"))
    run = tmp_path / "run.txt"
    run.write_bytes(b"".join(b"%d Q0 d%d 1 %d t\n" % (q, d, -d) for q in (1, 2) for d in range(5)))
    with Unchanged(qrels, run):
        for command in ("eval", "trec_eval"):
            streamed = run_cli(command, "--stream", qrels, run)
            assert_success(streamed)
            assert streamed.stdout == run_cli(command, qrels, run).stdout


def test_the_general_path_reads_runs_as_the_engine_path(tmp_path):
    """Qrels in CSV take the general path; the run is still read and judged by the
    engine in pieces: a query larger than memory is one clean line, ``--no-stream``
    over the budget is refused before reading, and by default a run larger than the
    budget is evaluated."""
    _, run = _one_huge_query(tmp_path)
    qrels = tmp_path / "qrels.csv"
    qrels.write_bytes(b"query_id,doc_id,relevance\n1,d,1\n2,d,1\n")
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"".join(b"1 Q0 d%d 1 %d t\n" % (d, -d) for d in range(150_000)))
    with Unchanged(qrels, run, plain):
        out = run_cli("eval", qrels, run, memory=1 << 30)
        message = assert_clean_failure(out, f"{run}: not enough memory to ")
        # the query's text lacking room as it grows, or (when its 512 MiB buffer could
        # be had beside PyArrow) the room to parse it: which comes first depends on how
        # the address space is laid out
        assert "to hold a piece" in message or "to parse a piece" in message, out
        out = run_cli("eval", "--no-stream", qrels, plain, memory=1 << 30)
        assert_clean_failure(out, f"{plain}: not enough memory to read the run whole")
        assert_success(run_cli("eval", qrels, plain, memory=1 << 30))


def test_one_malloc_arena_is_kept_under_an_address_space_limit():
    """Under ``ulimit -v`` glibc's malloc keeps one arena (threads would each reserve
    64 MiB of address space, and a small limit then failed or not by timing); without a
    limit nothing is set."""
    import subprocess
    import sys

    code = (
        "import resource, sys\n"
        "from cranfield.core.memory import one_malloc_arena_under_a_limit as f\n"
        "print(f())\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 31, resource.RLIM_INFINITY))\n"
        "print(f())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
