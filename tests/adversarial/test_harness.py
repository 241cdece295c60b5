"""The harness itself: a hang, a traceback and a second stderr line are all caught."""

from __future__ import annotations

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli


def test_version_succeeds():
    out = run_cli("--version")
    assert_success(out, quiet=True)
    assert out.stdout.startswith(b"cranfield ")


def test_missing_file_is_one_clean_line(tmp_path):
    out = run_cli("eval", str(tmp_path / "nope"), str(tmp_path / "nope2"), "-m", "AP")
    assert_clean_failure(out, "nope")


def test_a_hang_fails_the_test(tmp_path):
    fifo = tmp_path / "fifo"
    import os

    os.mkfifo(fifo)
    with pytest.raises(AssertionError, match="did not end"):
        # nobody writes to the FIFO, so opening it blocks: the harness must notice
        run_cli("eval", str(fifo), str(fifo), "-m", "AP", timeout=3)


def test_unchanged_notices_a_write(tmp_path):
    f = tmp_path / "f"
    f.write_text("a")
    with pytest.raises(AssertionError, match="modified"):
        with Unchanged(f):
            f.write_text("b")
