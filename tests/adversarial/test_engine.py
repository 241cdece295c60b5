"""The compiled readers through the command line, on inputs larger than one of the
engine's 8 MiB pieces: one line, one message, bounded memory, whatever piece holds the
problem."""

from __future__ import annotations

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

QRELS = b"1 0 d0 1\n2 0 d1 1\n"
LINE = b"1 Q0 d%d %d 1.5 tag\n"


def _run(n: int) -> bytes:
    return b"".join(LINE % (i, i) for i in range(n))


def test_one_endless_line_stops_at_the_limit(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_bytes(QRELS)
    run.write_bytes(b"1 Q0 " + b"x" * (100 << 20))  # 100 MB, no line end
    with Unchanged(qrels, run):
        out = run_cli("eval", qrels, run, memory=2 << 30)
    assert "longer than 64 MiB" in assert_clean_failure(out, f"{run}:1:")


def test_a_bad_score_in_a_later_piece_names_its_line(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_bytes(QRELS)
    head = _run(400_000)  # > 8 MiB: the problem is in the engine's second piece or later
    run.write_bytes(head + b"2 Q0 x 1 1,5 tag\n" + _run(1000))
    line = head.count(b"\n") + 1
    for command in (["eval"], ["trec_eval"]):
        out = run_cli(*command, qrels, run)
        assert "'1,5' is not a number" in assert_clean_failure(out, f"{run}:{line}:", status=None)


def test_a_nul_byte_anywhere_in_a_file_is_reported_first(tmp_path):
    """Read from a file, the text is checked as it arrives: a NUL byte far into the
    file is found before a bad line near its start is reported (as when a file was read
    whole before parsing)."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_bytes(QRELS)
    head = b"1 Q0 d\n" + _run(500_000)
    run.write_bytes(head + b"2 Q0 \0 1 1 tag\n")
    line = head.count(b"\n") + 1
    out = run_cli("eval", qrels, run)
    assert "NUL byte" in assert_clean_failure(out, f"{run}:{line}:")


def test_large_clean_run_reads(tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_bytes(QRELS)
    run.write_bytes(_run(300_000).replace(b"\n", b"\r\n"))  # CRLF, three pieces
    out = run_cli("eval", qrels, run, "-m", "P@10", "-f", "csv")
    assert_success(out)  # (a note: query 2 of the qrels has no results)
    assert b"P@10" in out.stdout and b"tag" in out.stdout
