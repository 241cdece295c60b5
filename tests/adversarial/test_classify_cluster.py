"""Hostile input for `cranfield classify` and `cranfield cluster`, run as real processes.

Each case ends in bounded time and memory with the right status and exactly one line on
stderr (no traceback), and leaves its input files as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

COMMANDS = ("classify", "cluster")

GOOD_TRUTH = "".join(f"{v}\n" for v in [1, 0, 1, 1, 0, 0, 1, 0])
GOOD_PRED = "".join(f"{v}\n" for v in [1, 0, 0, 1, 0, 1, 1, 0])


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def fail(command: str, *args, mentions=(), status: int = 2, **kw) -> str:
    files = [a for a in args if isinstance(a, Path) and a.is_file()]
    with Unchanged(*files):
        out = run_cli(command, *args, **kw)
    return assert_clean_failure(out, *mentions, status=status)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", ["empty.csv", "empty.txt", "empty.tsv"])
def test_empty_file(tmp_path, command, name):
    path = write(tmp_path / name, b"")
    fail(command, path, write(tmp_path / "p.txt", GOOD_PRED), mentions=(name, "empty"))


@pytest.mark.parametrize("command", COMMANDS)
def test_header_only(tmp_path, command):
    path = write(tmp_path / "h.csv", "truth,pred\n")
    fail(command, path, "--header", mentions=("h.csv", "no labels"))


@pytest.mark.parametrize("command", COMMANDS)
def test_binary_garbage(tmp_path, command):
    garbage = bytes(range(256)) * 64 + os.urandom(4096)
    path = write(tmp_path / "garbage.csv", garbage)
    fail(command, path, mentions=("garbage.csv", "binary"))
    fail(command, write(tmp_path / "g.txt", garbage), mentions=("g.txt",))


@pytest.mark.parametrize("command", COMMANDS)
def test_non_utf8(tmp_path, command):
    path = write(tmp_path / "latin1.txt", "caf\u00e9\nth\u00e9\ncaf\u00e9\n".encode("latin-1"))
    fail(command, path, write(tmp_path / "p.txt", "1\n2\n1\n"), mentions=("latin1.txt:1", "UTF-8"))


@pytest.mark.parametrize("cell", ["nan", "inf", "-inf", "NaN", "1e999", "", "0x1p-2"])
def test_nan_and_inf_scores(tmp_path, cell):
    path = write(tmp_path / "s.csv", f"y,s\n1,0.9\n0,{cell}\n1,0.4\n")
    err = fail("classify", path, "--scores", mentions=("s.csv:3", "finite number"))
    assert repr(cell) in err


@pytest.mark.parametrize("command", COMMANDS)
def test_mismatched_lengths(tmp_path, command):
    truth = write(tmp_path / "t.txt", GOOD_TRUTH)
    pred = write(tmp_path / "p.txt", GOOD_PRED + "1\n")
    fail(command, truth, pred, mentions=("8", "9"))


@pytest.mark.parametrize("command", COMMANDS)
def test_directory_as_input(tmp_path, command):
    (tmp_path / "d.csv").mkdir()
    fail(
        command,
        tmp_path / "d.csv",
        write(tmp_path / "p.txt", GOOD_PRED),
        mentions=("d.csv", "directory"),
    )
    fail(command, write(tmp_path / "t.txt", GOOD_TRUTH), tmp_path, mentions=("directory",))


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_null_as_input(tmp_path, command):
    fail(
        command, "/dev/null", write(tmp_path / "p.txt", GOOD_PRED), mentions=("/dev/null", "empty")
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_dev_zero_ends_at_once(tmp_path, command):
    fail(
        command,
        "/dev/zero",
        write(tmp_path / "p.txt", GOOD_PRED),
        mentions=("/dev/zero", "binary"),
        timeout=30,
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_file(tmp_path, command):
    fail(
        command, tmp_path / "nope.csv", write(tmp_path / "p.txt", GOOD_PRED), mentions=("nope.csv",)
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_huge_single_field(tmp_path, command):
    """A 16 MiB label in one line: read and counted like any other label."""
    big = "x" * (16 << 20)
    truth = write(tmp_path / "t.txt", f"{big}\n{big}\nsmall\nsmall\n")
    pred = write(tmp_path / "p.txt", "a\na\nb\nb\n")
    with Unchanged(truth, pred):
        out = run_cli(command, truth, pred, "--format", "json")
    assert_success(out)
    if command == "cluster":
        assert b'"n_items": 4' in out.stdout and b'"purity": 1.0' in out.stdout
    else:
        assert b'"accuracy": 0.0' in out.stdout


def test_huge_score_field(tmp_path):
    path = write(tmp_path / "s.csv", "y,s\n1," + "9" * (8 << 20) + "\n0,0.5\n1,0.2\n")
    err = fail("classify", path, "--scores", mentions=("s.csv:2", "finite number"))
    assert len(err) < 2000  # the message does not echo the 8 MiB cell
    with Unchanged(path):
        out = run_cli("cluster", path, "--format", "json")  # as labels, a long one is fine
    assert_success(out, quiet=True)
    assert b'"n_items": 3' in out.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_duplicated_header_column(tmp_path, command):
    path = write(tmp_path / "dup.csv", "y,y\n1,0\n0,1\n1,1\n")
    fail(command, path, mentions=("dup.csv:1", "'y'", "twice"))


@pytest.mark.parametrize("command", COMMANDS)
def test_ragged_rows(tmp_path, command):
    path = write(tmp_path / "r.csv", "y,p\n1,0\n0,1,1\n1,1\n")
    fail(command, path, mentions=("r.csv",))


@pytest.mark.parametrize("command", COMMANDS)
def test_closed_stdout(tmp_path, command):
    truth = write(tmp_path / "t.txt", GOOD_TRUTH)
    pred = write(tmp_path / "p.txt", GOOD_PRED)
    with Unchanged(truth, pred):
        out = run_cli(command, truth, pred, close_stdout=True)
    assert_clean_failure(out, status=None)


@pytest.mark.parametrize("command", COMMANDS)
def test_good_input_succeeds_quietly(tmp_path, command):
    truth = write(tmp_path / "t.txt", GOOD_TRUTH)
    pred = write(tmp_path / "p.txt", GOOD_PRED)
    with Unchanged(truth, pred):
        out = run_cli(command, truth, pred)
    assert_success(out, quiet=True)


def test_library_messages_show_numpy_labels_as_numbers():
    """NumPy 2's repr (np.int64(7)) never reaches a message: labels given as arrays are
    shown as the numbers they are."""
    import numpy as np

    from cranfield.classification import BinaryConfusion, ConfusionMatrix
    from cranfield.errors import InputError

    truth, predicted = np.array([3, 5, 5]), np.array([3, 3, 5])
    cases = [
        (lambda: BinaryConfusion.from_labels(truth, predicted), "among [3, 5];"),
        (
            lambda: BinaryConfusion.from_labels(truth, predicted, positive=np.int64(7)),
            "unknown positive label 7; the labels are [3, 5]",
        ),
        (
            lambda: ConfusionMatrix.from_labels(truth, predicted).one_vs_rest(np.int64(7)),
            "unknown class 7; the classes are [3, 5]",
        ),
    ]
    for call, expected in cases:
        with pytest.raises(InputError) as caught:
            call()
        assert expected in str(caught.value) and "np." not in str(caught.value)
