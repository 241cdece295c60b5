"""The real command as users start it: a separate process, ``python -m cranfield``.

The console script ends the process with ``os._exit`` once the output is flushed
(``cli.main.entry``); these tests check that nothing is lost on the way: every byte of a
long output through a pipe, a file written with ``-o``, stderr messages and exit codes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def collection(sample_paths):
    return [str(p) for p in sample_paths]


def run(*argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "cranfield", *argv], capture_output=True, env=env, check=False
    )


def test_console_script_is_the_quick_exit_entry():
    text = (ROOT / "pyproject.toml").read_text()  # (tomllib needs Python 3.11)
    assert '\ncranfield = "cranfield.cli.main:entry"\n' in text


def test_long_output_through_a_pipe_is_complete(collection, capsys):
    qrels, *runs = collection
    argv = ["eval", qrels, *runs, "-q", "-m", "AP", "P@5", "nDCG@10", "-f", "csv"]
    done = run(*argv)
    assert done.returncode == 0, done.stderr
    assert main(argv) == 0
    in_process = capsys.readouterr().out
    assert done.stdout.decode() == in_process
    assert len(in_process.splitlines()) > 100


def test_trec_eval_output_matches_in_process(collection, capsys):
    qrels, run1 = collection[:2]
    done = run("trec_eval", "-q", "-m", "all_trec", qrels, run1)
    assert done.returncode == 0, done.stderr
    assert main(["trec_eval", "-q", "-m", "all_trec", qrels, run1]) == 0
    assert done.stdout.decode() == capsys.readouterr().out


def test_output_file_is_complete(collection, tmp_path, capsys):
    qrels, run1 = collection[:2]
    out = tmp_path / "result.json"
    done = run("eval", qrels, run1, "-q", "-f", "json", "-o", str(out))
    assert done.returncode == 0 and done.stdout == b""
    assert main(["eval", qrels, run1, "-q", "-f", "json"]) == 0
    written, printed = json.loads(out.read_text()), json.loads(capsys.readouterr().out)
    # the same result; the provenance names each command as given (with -o or not)
    assert written.pop("provenance")["command"].endswith(f"-o {out}")
    printed.pop("provenance")
    assert written == printed


def test_errors_one_line_and_status(collection, tmp_path):
    qrels, run1 = collection[:2]
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 high t\n")
    done = run("eval", qrels, str(bad))
    assert done.returncode == 2 and done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and f"{bad}:2" in lines[0] and "not a number" in lines[0]
    done = run("trec_eval", "-m", "no_such_measure", qrels, run1)
    assert done.returncode == 1 and len(done.stderr.decode().splitlines()) == 1


def test_a_closed_pipe_is_not_an_error(collection):
    qrels, *runs = collection
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    # more than a pipe's buffer (64 KiB), so the writer meets the closed pipe
    cmd = [sys.executable, "-m", "cranfield", "trec_eval", "-q", "-m", "all_trec", qrels, runs[0]]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    assert proc.wait() == 0
    assert "Traceback" not in err


def test_entry_turns_off_blas_threads_unless_set(monkeypatch):
    from cranfield.cli import main as cli

    seen = {}

    def fake_main():
        seen["blas"] = os.environ.get("OPENBLAS_NUM_THREADS")
        return 0

    def fake_exit(status):
        raise SystemExit(status)

    def patch():  # and pytest keeps its own Ctrl-C (no handler, no watcher thread)
        monkeypatch.setattr(cli, "main", fake_main)
        monkeypatch.setattr(os, "_exit", fake_exit)
        monkeypatch.setattr(cli._interrupt, "install", lambda: None)
        monkeypatch.setattr(cli._interrupt, "running", False)

    patch()
    for command, numpy_loaded, expected in [
        ("eval", False, "1"),
        ("trec_eval", False, "1"),
        ("compare", False, "1"),
        ("report", False, "1"),
        ("eval", True, None),  # too late to matter: left alone
        ("meta", False, "4"),  # the user's setting stays
    ]:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
        if expected == "4":
            monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
        monkeypatch.setattr(sys, "argv", ["cranfield", command])
        if not numpy_loaded:
            monkeypatch.delitem(sys.modules, "numpy")
        with pytest.raises(SystemExit) as done:
            cli.entry()
        assert done.value.code == 0 and seen["blas"] == expected
        monkeypatch.undo()
        patch()
