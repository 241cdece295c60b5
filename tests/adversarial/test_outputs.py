"""Outputs under faults: full disk, signals, concurrent writers, inputs as outputs, closed streams.

Every subcommand that writes a file (``eval -o``, ``plot -o``, ``report -o``) must leave
the target either as it was or complete, never a part, and no temporary file behind; it
must refuse to write over one of its inputs. Every subcommand must cope with a closed
standard stream. And a mean over zero queries is an error, not ``0.0000``.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import SRC, Unchanged, assert_clean_failure, assert_success, run_cli

# --- inputs -------------------------------------------------------------------------------


def _collection(directory: Path, queries: int, docs: int) -> dict[str, Path]:
    rng = random.Random(13)
    qrels, run_a, run_b, half, other = [], [], [], [], []
    for q in range(1, queries + 1):
        for d in range(docs):
            if rng.random() < 0.3:
                qrels.append(f"{q} 0 D{d} {rng.choice((1, 1, 2))}\n")
        for tag, lines in (("alpha", run_a), ("beta", run_b)):
            for rank, d in enumerate(rng.sample(range(docs * 2), docs)):
                lines.append(f"{q} Q0 D{d} {rank} {docs - rank} {tag}\n")
    half = [line.replace("alpha", "half") for line in run_a if not line.startswith("1 ")]
    other = [f"x{line}".replace("alpha", "other") for line in run_a]  # no query in common
    files = {"qrels": qrels, "a": run_a, "b": run_b, "half": half, "other": other}
    paths = {}
    for name, lines in files.items():
        paths[name] = directory / f"{name}.txt"
        paths[name].write_text("".join(lines))
    paths["cls"] = directory / "labels.csv"
    rows = [f"{rng.choice('ab')},{rng.choice('ab')}\n" for _ in range(40)]
    paths["cls"].write_text("truth,pred\n" + "".join(rows))
    return paths


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return _collection(tmp_path_factory.mktemp("inputs"), queries=6, docs=20)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict[str, Path]:
    """A run large enough that writing its per-query table takes a while."""
    return _collection(tmp_path_factory.mktemp("big"), queries=400, docs=200)


def inputs(files) -> list[Path]:
    return [files[k] for k in ("qrels", "a", "b", "half", "other", "cls")]


# Every subcommand with -o: its arguments before "-o TARGET" (a file name of that kind).
def output_commands(files) -> dict[str, tuple[list[str], str]]:
    q, a, b = str(files["qrels"]), str(files["a"]), str(files["b"])
    return {
        "eval": (["eval", q, a, b, "-m", "AP", "P@5", "-q"], "out.txt"),
        "plot": (["plot", "avg", q, a, b], "out.svg"),
        "plot pdf": (["plot", "avg", q, a, b], "out.pdf"),
        "plot png": (["plot", "avg", q, a, b], "out.png"),
        "report": (
            ["report", q, a, b, "-m", "AP", "--max-depth", "3", "--images", "svg"],
            "out.html",
        ),
    }


OUTPUT_KINDS = ("eval", "plot", "plot pdf", "plot png", "report")


def leftovers(directory: Path, expected: set[str]) -> list[str]:
    """Files in ``directory`` other than ``expected`` (a temporary file left behind)."""
    return sorted(p.name for p in directory.iterdir() if p.name not in expected)


def popen_cli(argv, prelude: str = "") -> subprocess.Popen:
    """Start cranfield as :func:`run_cli` does, after running ``prelude`` in the process."""
    code = (
        "import runpy, sys\n"
        + prelude
        + "sys.argv = ['cranfield', *sys.argv[1:]]\n"
        + "runpy.run_module('cranfield', run_name='__main__')\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, argv)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": SRC},
    )


def finish(proc: subprocess.Popen, timeout: float = 60) -> tuple[int, str]:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        proc.kill()
        proc.communicate()
        raise AssertionError("cranfield did not end in time") from exc
    return proc.returncode, err.decode("utf-8", "replace")


# --- file systems -------------------------------------------------------------------------


def _mount(directory: Path, options: str) -> bool:
    if os.geteuid() != 0:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _umount(directory: Path) -> None:
    subprocess.run(["umount", "-l", str(directory)], capture_output=True, check=False)


@pytest.fixture
def full_disk(tmp_path):
    """A directory on a full file system (a 256 KiB tmpfs) holding ``old.txt``; None
    when this process may not mount one (the tests then inject ENOSPC in-process)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if not _mount(disk, "size=256k,mode=0755"):
        yield None
        return
    try:
        yield disk
    finally:
        _umount(disk)


def fill(disk: Path) -> None:
    """Take every free block of the file system."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        with pytest.raises(OSError) as info:
            while True:
                os.write(fd, b"\0" * 4096)
        assert info.value.errno == errno.ENOSPC
    finally:
        os.close(fd)


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory holding ``old.txt`` that this process cannot write into."""
    directory = tmp_path / "ro"
    directory.mkdir()
    if _mount(directory, "size=64k,mode=0755"):
        (directory / "old.txt").write_text("old\n")
        if subprocess.run(
            ["mount", "-o", "remount,ro", str(directory)], capture_output=True, check=False
        ).returncode:
            _umount(directory)
            pytest.fail("a tmpfs could be mounted but not remounted read-only")
        try:
            yield directory
        finally:
            _umount(directory)
        return
    if os.geteuid() == 0:
        pytest.skip("root without mount: no directory is read-only to this process")
    (directory / "old.txt").write_text("old\n")
    directory.chmod(0o555)
    try:
        yield directory
    finally:
        directory.chmod(0o755)


# --- 13.1: full disk, signals, concurrent writers -------------------------------------------


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_full_disk_keeps_the_old_file(kind, files, full_disk, monkeypatch, capsys):
    argv, name = output_commands(files)[kind]
    if full_disk is None:  # no tmpfs: make every flush to disk fail as a full disk would
        from cranfield.cli.main import main
        from cranfield.core.io import atomic

        target = Path(str(files["qrels"].parent / f"fallback-{name}"))
        target.write_text("old\n")

        def enospc(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(atomic.os, "fsync", enospc)
        with Unchanged(*inputs(files), target):
            status = main([*argv, "-o", str(target)])
        err = capsys.readouterr().err
        assert status == 2 and err.count("\n") == 1 and "No space left" in err, err
        return
    target = full_disk / name
    target.write_text("old\n")
    fill(full_disk)
    with Unchanged(*inputs(files), target):
        out = run_cli(*argv, "-o", target)
    assert_clean_failure(out, str(target), "No space left on device")
    assert leftovers(full_disk, {name, "filler"}) == []


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_sigterm_while_the_output_is_written(kind, files, tmp_path):
    """The signal arrives when the new content is on disk but not yet in place."""
    argv, name = output_commands(files)[kind]
    target = tmp_path / name
    target.write_text("old\n")
    prelude = (
        "import os, signal\n"
        "def _fsync(fd):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "os.fsync = _fsync\n"
    )
    with Unchanged(*inputs(files), target):
        status, err = finish(popen_cli([*argv, "-o", target], prelude))
    assert status == -signal.SIGTERM, err
    assert "Traceback" not in err
    assert leftovers(tmp_path, {name}) == []


def test_sigterm_at_any_moment_leaves_old_or_complete(big, tmp_path):
    argv = ["eval", big["qrels"], big["a"], "-m", "AP", "nDCG@10", "P@5", "RR", "-q"]
    expected = tmp_path / "expected.txt"
    assert_success(run_cli(*argv, "-o", expected))
    complete = expected.read_bytes()
    target = tmp_path / "out.txt"
    for delay in (0.3, 0.8, 1.5, 3.0):
        target.write_bytes(b"old\n")
        with Unchanged(big["qrels"], big["a"]):
            proc = popen_cli([*argv, "-o", target])
            time.sleep(delay)
            proc.send_signal(signal.SIGTERM)
            status, err = finish(proc)
        assert status in (0, -signal.SIGTERM), err
        assert "Traceback" not in err
        content = target.read_bytes()
        assert content in (b"old\n", complete), content[:200]
        assert leftovers(tmp_path, {"expected.txt", "out.txt"}) == []


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_concurrent_writers_leave_one_complete_output(kind, files, tmp_path):
    argv, name = output_commands(files)[kind]
    target = tmp_path / name
    variants = [argv, [str(files["half"]) if a == str(files["a"]) else a for a in argv]]
    procs = [popen_cli([*v, "-o", target]) for v in variants]
    with Unchanged(*inputs(files)):
        for proc in procs:
            status, err = finish(proc)
            assert status == 0, err
    final = target.read_bytes()
    # What each writer alone produces at that path: the final file is one of them, whole.
    # (Not told apart by a run's name: a report's text may contain any word.)
    complete = []
    for v in variants:
        assert_success(run_cli(*v, "-o", target))
        complete.append(target.read_bytes())
    assert complete[0] != complete[1]
    assert final in complete
    assert leftovers(tmp_path, {name}) == []


# --- 13.2: an output that is an input -------------------------------------------------------


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_output_that_is_an_input_is_refused(kind, files, tmp_path):
    argv, _ = output_commands(files)[kind]
    soft = tmp_path / "soft.txt"
    soft.symlink_to(files["a"])
    hard = tmp_path / "hard.txt"
    os.link(files["b"], hard)
    for target in (files["qrels"], files["a"], soft, hard):
        with Unchanged(*inputs(files), soft, hard):
            out = run_cli(*argv, "-o", target)
        assert_clean_failure(out, "is also an input")


def test_output_that_is_standard_input_is_refused(files, tmp_path):
    run = tmp_path / "run.txt"
    run.write_bytes(files["a"].read_bytes())
    with Unchanged(run, files["qrels"]), open(run, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "cranfield", "eval", str(files["qrels"]), "-", "-o", str(run)],
            stdin=stdin,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": SRC},
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr.decode().count("\n") == 1
    assert b"is also an input (standard input)" in done.stderr


# --- 13.1: targets that cannot be written ---------------------------------------------------


@pytest.mark.parametrize("kind", OUTPUT_KINDS)
def test_unwritable_targets_fail_with_one_line(kind, files, tmp_path, read_only_dir):
    argv, name = output_commands(files)[kind]
    cases = [
        (tmp_path / "missing" / name, "no such directory"),
        (tmp_path, "is a directory"),
        (read_only_dir / name, "cannot write"),
        (read_only_dir / "old.txt", "cannot write"),
    ]
    for target, message in cases:
        if kind != "eval" and target == read_only_dir / "old.txt":
            target = read_only_dir / f"old{Path(name).suffix}"
        with Unchanged(*inputs(files), read_only_dir / "old.txt"):
            out = run_cli(*argv, "-o", target)
        assert_clean_failure(out, str(target), message)
    assert not (tmp_path / "missing").exists()
    assert leftovers(read_only_dir, {"old.txt"}) == []


# --- 13.8: closed standard streams ----------------------------------------------------------


def stream_commands(files, tmp_path, noted: bool = True) -> dict[str, list[str]]:
    """Each subcommand; with ``noted``, eval and trec_eval print a note on stderr."""
    q, a, b = str(files["qrels"]), str(files["a"]), str(files["b"])
    half = str(files["half"]) if noted else a
    return {
        "eval": ["eval", q, half, "-m", "AP", "-f", "csv"],
        "trec_eval": ["trec_eval", q, half],
        "measures": ["measures"],
        "compare": ["compare", q, a, b, "-m", "AP"],
        "correlate": ["correlate", "--runs", a, b],
        "curve": ["curve", "pr", q, a],
        "classify": ["classify", str(files["cls"])],
        "cluster": ["cluster", str(files["cls"])],
        "report": ["report", q, a, b, "-m", "AP", "--max-depth", "3", "--images", "svg",
                   "-o", str(tmp_path / "r.html")],
        "plot": ["plot", "avg", q, a, b, "-o", str(tmp_path / "p.svg")],
        "runs": ["runs", "describe", a, b],
    }  # fmt: skip


WRITES_FILE = {"report", "plot"}
ALL_COMMANDS = (
    "eval", "trec_eval", "measures", "compare", "correlate", "curve", "classify", "cluster",
    "report", "plot", "runs",
)  # fmt: skip


@pytest.fixture(scope="module")
def normal_runs(files, tmp_path_factory):
    """Each subcommand run with all streams open: (stdout, stderr) to compare with."""
    tmp = tmp_path_factory.mktemp("normal")
    result = {}
    for name, argv in stream_commands(files, tmp).items():
        out = run_cli(*argv)
        assert_success(out)
        result[name] = out
    return result


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_closed_stdout(name, files, tmp_path):
    argv = stream_commands(files, tmp_path, noted=False)[name]
    with Unchanged(*inputs(files)):
        out = run_cli(*argv, close_stdout=True)
    if name in WRITES_FILE:  # nothing goes to standard output: the file is written
        assert_success(out)
        assert Path(argv[-1]).stat().st_size > 0
    else:
        assert_clean_failure(out, f"cranfield {name}", "standard output is closed")
    assert leftovers(tmp_path, {Path(argv[-1]).name} if name in WRITES_FILE else set()) == []


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_closed_stdin(name, files, tmp_path, normal_runs):
    argv = stream_commands(files, tmp_path)[name]
    with Unchanged(*inputs(files)):
        out = run_cli(*argv, close_stdin=True)
    assert_success(out)
    if name not in WRITES_FILE:
        assert out.stdout == normal_runs[name].stdout


@pytest.mark.parametrize("name", ["eval", "trec_eval", "curve"])
def test_reading_closed_stdin_is_one_line(name, files, tmp_path):
    q = str(files["qrels"])
    argv = {
        "eval": ["eval", q, "-"],
        "trec_eval": ["trec_eval", q, "-"],
        "curve": ["curve", "pr", "-", str(files["a"])],
    }[name]
    with Unchanged(*inputs(files)):
        out = run_cli(*argv, close_stdin=True)
    assert_clean_failure(out, "standard input is closed")


@pytest.mark.parametrize("name", ALL_COMMANDS)
def test_closed_stderr(name, files, tmp_path, normal_runs):
    argv = stream_commands(files, tmp_path)[name]
    if name in ("eval", "trec_eval"):
        assert "note:" in normal_runs[name].stderr  # so the test would see it leak
    with Unchanged(*inputs(files)):
        out = run_cli(*argv, close_stderr=True)
    assert_success(out)
    if name not in WRITES_FILE:
        assert out.stdout == normal_runs[name].stdout  # no note, no warning mixed in


def test_closed_stderr_error_keeps_its_status(files):
    out = run_cli("eval", files["qrels"], files["other"], close_stderr=True)
    assert out.status == 2 and out.stdout == b""


def test_output_file_never_lands_on_a_standard_descriptor(files, tmp_path):
    """With descriptors 1 and 2 closed, the output still goes to its file, whole."""
    target = tmp_path / "out.txt"
    out = run_cli(
        *output_commands(files)["eval"][0], "-o", target, close_stdout=True, close_stderr=True
    )
    assert out.status == 0 and out.stdout == b""
    reference = tmp_path / "ref.txt"
    assert_success(run_cli(*output_commands(files)["eval"][0], "-o", reference))
    assert target.read_bytes() == reference.read_bytes()


# --- 13.11: zero queries --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["eval", "trec_eval", "compare", "report"])
def test_no_query_in_common_is_an_error(name, files, tmp_path):
    q, other, a = str(files["qrels"]), str(files["other"]), str(files["a"])
    argv = {
        "eval": ["eval", q, other],
        "trec_eval": ["trec_eval", q, other],
        "compare": ["compare", q, a, other, "-m", "AP"],
        "report": ["report", q, other, "-o", str(tmp_path / "r.html")],
    }[name]
    with Unchanged(*inputs(files)):
        out = run_cli(*argv)
    assert_clean_failure(out, "no query to evaluate", "'other'", "share no query")
    assert out.stdout == b""
    assert leftovers(tmp_path, set()) == []


def test_empty_parquet_run_is_an_error(files, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    empty = tmp_path / "empty.parquet"
    schema = {"query_id": pa.string(), "doc_id": pa.string(), "score": pa.float64()}
    pq.write_table(pa.table({k: pa.array([], t) for k, t in schema.items()}), empty)
    out = run_cli("eval", files["qrels"], empty)
    assert_clean_failure(out, "no query to evaluate")
    # with --complete every qrels topic is evaluated (an empty ranking scores 0), as trec_eval -c
    assert_success(run_cli("eval", files["qrels"], empty, "--complete"))


def run_started_closed(argv, fd: int) -> tuple[int, bytes, str]:
    """Run cranfield with descriptor ``fd`` closed before the interpreter starts, as the
    shell's ``<&-``, ``>&-``, ``2>&-`` do (Python then has no ``sys.stdin`` etc. at all)."""
    done = subprocess.run(
        [sys.executable, "-m", "cranfield", *map(str, argv)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        preexec_fn=lambda: os.close(fd),  # after the pipes are in place, before exec
        env={**os.environ, "PYTHONPATH": SRC},
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("name", ["eval", "trec_eval", "measures", "compare", "classify"])
def test_streams_closed_from_the_start(name, files, tmp_path, normal_runs):
    noted = stream_commands(files, tmp_path)[name]
    status, stdout, _ = run_started_closed(noted, 2)
    assert status == 0 and stdout == normal_runs[name].stdout  # notes never reach stdout
    status, stdout, err = run_started_closed(stream_commands(files, tmp_path, False)[name], 1)
    assert status == 2 and err.count("\n") == 1 and "standard output is closed" in err, err
    assert "Traceback" not in err
    if name in ("eval", "trec_eval"):
        status, stdout, err = run_started_closed([*noted[:2], "-"], 0)
        assert status == 2 and err.endswith("standard input is closed\n"), err


def test_demo_never_writes_over_an_edited_collection(tmp_path):
    target = tmp_path / "sample-collection"
    assert_success(run_cli("demo", "--dir", target))
    (target / "qrels.txt").write_text("301 0 mine 2\n")  # edited: one of the user's files
    (target / "hybrid.txt").unlink()  # a missing file alone would be written
    files = sorted(target.iterdir())
    with Unchanged(*files):
        err = assert_clean_failure(run_cli("demo", "--dir", target), "qrels.txt", "--force")
    assert "differs from the sample collection" in err
    assert not (target / "hybrid.txt").exists()  # nothing written when refused
    assert_success(run_cli("demo", "--dir", target, "--force"))
    assert (target / "hybrid.txt").exists() and "mine" not in (target / "qrels.txt").read_text()


@pytest.mark.parametrize("name", ["compare", "correlate", "curve", "classify", "cluster"])
def test_printed_results_go_to_o_atomically(name, files, tmp_path, normal_runs):
    """The commands that print their result take -o like every other (one meaning): the
    file holds exactly what they print, and '-' is standard output."""
    argv = stream_commands(files, tmp_path, noted=False)[name]
    target = tmp_path / "out.txt"
    with Unchanged(*inputs(files)):
        out = run_cli(*argv, "-o", target)
    assert_success(out)
    assert out.stdout == b"" and target.read_bytes() == normal_runs[name].stdout
    assert leftovers(tmp_path, {"out.txt"}) == []
    dash = run_cli(*argv, "-o", "-", cwd=tmp_path)
    assert dash.stdout == normal_runs[name].stdout and not (tmp_path / "-").exists()
    # a failure leaves an existing file as it was
    target.write_text("keep\n")
    assert_clean_failure(run_cli(*argv[:-1], tmp_path / "missing", "-o", target))
    assert target.read_text() == "keep\n"


def test_agreement_and_assessors_take_o_and_f(tmp_path):
    table = tmp_path / "j.csv"
    table.write_text(
        "topic,doc,assessor,label\n"
        + "".join(f"1,d{d},{a},{(d + (a == 'c')) % 2}\n" for d in range(6) for a in "abc")
    )
    for command in ("agreement", "assessors"):
        plain = run_cli(command, "--judgments", table, "-f", "json")
        assert_success(plain)
        target = tmp_path / f"{command}.json"
        assert_success(run_cli(command, "--judgments", table, "-f", "json", "-o", target))
        assert target.read_bytes() == plain.stdout
