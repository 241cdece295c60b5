"""Fractional qrels grades read as integers (truncated toward zero, as trec_eval's
``atol`` does) are said on standard error, in one note naming ``--fractional``."""

from __future__ import annotations

import gzip

import pytest

from cranfield import _engine
from cranfield.cli.main import main
from cranfield.core import files

RUN = "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 a 1 1 r\n"
QRELS = "# soft labels\n1 0 a 1\n1 0 b 0\n1 0 c 2.5\n2 0 a 1.0\n2 0 b 0.25\n"
TRUNCATED = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 1\n2 0 b 0\n"
NOTE = (
    "note: {}:4: grade 2.5 is read as 2 (fractional grades are truncated toward zero, as "
    "trec_eval does); {} keeps them\n"
)


@pytest.fixture
def paths(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "int.txt").write_text(TRUNCATED)
    (tmp_path / "r.txt").write_text(RUN)
    with gzip.open(tmp_path / "q.txt.gz", "wt") as fh:
        fh.write(QRELS)
    return tmp_path


@pytest.mark.parametrize("path", ["engine", "general"])
@pytest.mark.parametrize("qrels", ["q.txt", "q.txt.gz"])
def test_eval_notes_truncated_grades(paths, capsys, monkeypatch, path, qrels):
    calls = []
    real = _engine.evaluate_trec_files
    monkeypatch.setattr(
        _engine, "evaluate_trec_files", lambda *a, **k: calls.append(a[0]) or real(*a, **k)
    )
    if path == "general":
        monkeypatch.setattr(files, "_engine_results", lambda job: None)
    q = str(paths / qrels)
    assert main(["eval", q, str(paths / "r.txt"), "-m", "nDCG@10"]) == 0
    out, err = capsys.readouterr()
    # the engine path reads the qrels file; the general path reads it in Python and
    # the engine evaluates the run against its index
    assert [isinstance(q, str) for q in calls] == [path == "engine"]
    assert err == "cranfield eval: " + NOTE.format(q, "--fractional")
    assert main(["eval", str(paths / "int.txt"), str(paths / "r.txt"), "-m", "nDCG@10"]) == 0
    assert capsys.readouterr() == (out, "")  # the numbers of the truncated grades, no note
    assert main(["eval", q, str(paths / "r.txt"), "-m", "nDCG@10", "--fractional"]) == 0
    fractional = capsys.readouterr()
    assert fractional.err == "" and fractional.out != out


def test_trec_eval_output_unchanged_and_noted(paths, capsys):
    q = str(paths / "q.txt")
    assert main(["trec_eval", "-q", "-m", "all_trec", q, str(paths / "r.txt")]) == 0
    out, err = capsys.readouterr()
    assert err == "cranfield trec_eval: " + NOTE.format(q, "cranfield eval --fractional")
    assert (
        main(["trec_eval", "-q", "-m", "all_trec", str(paths / "int.txt"), str(paths / "r.txt")])
        == 0
    )
    assert capsys.readouterr() == (out, "")  # byte for byte what the integer grades give


def test_whole_decimals_and_dotted_ids_are_no_fractional_grades(tmp_path, capsys):
    (tmp_path / "q.txt").write_text("1 0 doc.5 2.0\n1 0 a.b 1.\n1 0 x 0.000\n")
    (tmp_path / "r.txt").write_text("1 Q0 doc.5 1 3 r\n")
    assert main(["eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "AP"]) == 0
    assert capsys.readouterr().err == ""


def _first_by_lines(data: bytes):
    """The first fractional grade found line by line (Python's own line splitting, as
    ``readlines`` gives the lines): the oracle of the chunked scan."""
    import io

    from cranfield.core.io.grades import _fractional

    for number, line in enumerate(io.BytesIO(data).readlines(), 1):
        fields = line.split()
        if len(fields) == 4 and not fields[0].startswith(b"#") and _fractional(fields[3]):
            return number, fields[3].decode("ascii")
    return None


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 16, 64, 8 << 20])
def test_chunked_scan_finds_the_line_that_line_by_line_reading_finds(tmp_path, monkeypatch, chunk):
    import random

    from cranfield.core.io import grades

    monkeypatch.setattr(grades, "_CHUNK", chunk)
    rng = random.Random(chunk)
    grades_ = ["0", "1", "2", "1.0", "2.", "0.000", "2.5", ".25", "-0.5", "1e3", "3.0"]
    for case in range(60):
        lines = []
        for _ in range(rng.randint(0, 12)):
            qid = rng.choice(["1", "2", "#c", "10.5"])
            doc = rng.choice(["a", "doc.5", "x.y.z", "b"])
            fields = [qid, "0", doc, rng.choice(grades_)][: rng.choice([3, 4, 4, 4, 5])]
            lines.append(" ".join(fields) + rng.choice(["\n", "\r\n", "\n\n", "\r"]))
        data = "".join(lines).encode()
        if rng.random() < 0.3:
            data = data.rstrip(b"\n")  # no last line end
        path = tmp_path / f"q{case}.txt"
        path.write_bytes(data)
        assert grades.first_fractional_grade(path) == _first_by_lines(data), data
        with gzip.open(tmp_path / f"q{case}.gz", "wb") as fh:
            fh.write(data)
        assert grades.first_fractional_grade(tmp_path / f"q{case}.gz") == _first_by_lines(data)


def _first_by_splitlines(data: bytes):
    """The first fractional grade, lines split as ``bytes.splitlines`` splits them
    (``\\n``, ``\\r`` and ``\\r\\n``: the lines the engine numbers its messages by), the
    grades judged by :func:`~cranfield.core.io.grades._fractional`: the oracle of the
    engine's finding."""
    from cranfield.core.io.grades import _fractional

    for number, line in enumerate(data.splitlines(), 1):
        fields = line.split()
        if len(fields) == 4 and not fields[0].startswith(b"#") and _fractional(fields[3]):
            return number, fields[3].decode("ascii")
    return None


def _engine_finding(qrels_path, run_path):
    """What ``cranfield eval``'s engine path says of the qrels' truncated grades."""
    from cranfield.core.results import QrelsRead

    _, read = files.evaluate_files_counted(str(qrels_path), str(run_path), ["P@5"])
    assert isinstance(read, QrelsRead)  # the engine read the qrels
    return read.truncated


def test_the_engine_finds_the_grade_that_line_by_line_reading_finds(tmp_path):
    import random

    rng = random.Random(7)
    grades_ = ["0", "1", "2", "1.0", "2.", "0.000", "2.5", ".25", "-0.5", "+3.50", "10.01", "-2"]
    (tmp_path / "r.txt").write_text(RUN + "10.5 Q0 a 1 1 r\n")
    for case in range(150):
        lines = []
        for _ in range(rng.randint(1, 14)):
            if rng.random() < 0.1:
                lines.append(rng.choice(["# c 2.5 x", "", "  "]))
                continue
            qid, doc = rng.choice(["1", "2", "10.5"]), rng.choice(["a", "doc.5", "x.y", "b"])
            lines.append(f"{qid} 0 {doc}{len(lines)} {rng.choice(grades_)}")
        ends = [rng.choice(["\n", "\r\n", "\r", "\n\n"]) for _ in lines]
        data = "".join(a + b for a, b in zip(lines, ends, strict=True)).encode()
        if rng.random() < 0.3:
            data = data.rstrip(b"\r\n")  # no last line end
        if not data.strip():
            continue
        path = tmp_path / f"q{case}.txt"
        path.write_bytes(data)
        assert _engine_finding(path, tmp_path / "r.txt") == _first_by_splitlines(data), data
        with gzip.open(tmp_path / f"q{case}.gz", "wb") as fh:
            fh.write(data)
        assert _engine_finding(tmp_path / f"q{case}.gz", tmp_path / "r.txt") == (
            _first_by_splitlines(data)
        )


@pytest.mark.parametrize("where", ["first piece", "second piece", "none"])
def test_the_engine_numbers_lines_across_pieces(tmp_path, where):
    """Qrels of more than one of the reader's 8 MiB pieces, parsed in parallel: the
    first fractional grade of the file, counted in the file's lines (comments and
    blank lines too)."""
    lines = []
    for k in range(420_000):
        lines += [f"{k // 5000 + 1} 0 d{k} {k % 3}\n", "# comment 2.5\n", "\n"]
    assert sum(map(len, lines)) > 9 << 20  # two pieces at least
    if where != "none":
        at = 15 if where == "first piece" else len(lines) // 30 * 27  # past 8 MiB
        lines[at] = lines[at].rstrip("\n") + ".5\n"
        lines[-3] = lines[-3].rstrip("\n") + ".75\n"  # a later one, in the last piece
    data = "".join(lines).encode()
    (tmp_path / "q.txt").write_bytes(data)
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 3 r\n")
    found = _engine_finding(tmp_path / "q.txt", tmp_path / "r.txt")
    assert found == _first_by_splitlines(data)
    assert (found is None) == (where == "none")


def test_the_engine_path_does_not_read_the_qrels_again(paths, capsys, monkeypatch):
    from cranfield.core.io import grades

    def read_again(path):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(grades, "first_fractional_grade", read_again)
    q = str(paths / "q.txt")
    assert main(["eval", q, str(paths / "r.txt"), "-m", "nDCG@10"]) == 0
    assert capsys.readouterr().err == "cranfield eval: " + NOTE.format(q, "--fractional")


def test_qrels_on_standard_input_are_noted_too(paths):
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cranfield", "eval", "-", str(paths / "r.txt"), "-m", "P@5"],
        input=QRELS.encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env=dict(os.environ),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode() == "cranfield eval: " + NOTE.format("-", "--fractional")


def test_trec_eval_takes_the_engine_finding(paths, capsys, monkeypatch):
    from cranfield.core import trec_eval
    from cranfield.core.io import grades

    found = []
    real = trec_eval.trec_eval_by_engine
    monkeypatch.setattr(
        trec_eval, "trec_eval_by_engine", lambda *a, **k: found.append(1) or real(*a, **k)
    )
    monkeypatch.setattr(grades, "first_fractional_grade", lambda path: 1 / 0)
    q = str(paths / "q.txt")
    assert main(["trec_eval", "-m", "ndcg", q, str(paths / "r.txt")]) == 0
    assert found  # the engine path ran, and the file was not read again
    assert capsys.readouterr().err == "cranfield trec_eval: " + NOTE.format(
        q, "cranfield eval --fractional"
    )


def test_trec_eval_general_path_notes_from_the_file(paths, capsys, monkeypatch):
    from cranfield.core import trec_eval

    monkeypatch.setattr(trec_eval, "trec_eval_by_engine", lambda *a, **k: None)
    q = str(paths / "q.txt")
    assert main(["trec_eval", "-m", "ndcg", q, str(paths / "r.txt")]) == 0
    assert capsys.readouterr().err == "cranfield trec_eval: " + NOTE.format(
        q, "cranfield eval --fractional"
    )
