"""Every way of evaluating a TREC run under address-space limits from very tight to
comfortable: the result is right, or one clean line on stderr and status 2 — never an
abort of the compiled engine ("memory allocation of N bytes failed"), a Rust panic
(a worker thread the system refuses) or a Python traceback.

The engine paths (``eval`` and ``trec_eval`` on TREC files) and the general path
(``eval`` with CSV qrels: PyArrow loaded, the run judged by the engine's
``judge_trec_files``) read the run from a file, a gzip file and standard input.
"""

from __future__ import annotations

import gzip
import random

import pytest

from .harness import assert_clean_failure, run_cli

LIMITS_MB = [20, 30, 150, 200, 250, 300]  # from where Python only just starts
RUNS = ["plain", "gzip", "stdin"]
PATHS = {
    "engine eval": ("eval", "qrels.txt", "-m", "AP"),
    "general eval": ("eval", "qrels.csv", "-m", "AP"),
    "trec_eval": ("trec_eval", "qrels.txt", "-m", "map"),
}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Qrels as TREC and CSV text (the same judgments), a run as text and gzip, and
    each command's output without a limit."""
    root = tmp_path_factory.mktemp("memory")
    rng = random.Random(7)
    judged = [(f"q{q}", f"d{d}", rng.randint(0, 2)) for q in range(40) for d in range(30)]
    (root / "qrels.txt").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in judged))
    (root / "qrels.csv").write_text(
        "query_id,doc_id,relevance\n" + "".join(f"{q},{d},{r}\n" for q, d, r in judged)
    )
    lines = [
        f"q{q} Q0 d{rng.randrange(60)}x{r} {r + 1} {rng.random():.6f} tag\n"
        for q in range(40)
        for r in range(100)
    ]
    run = "".join(lines).encode()
    (root / "run.txt").write_bytes(run)
    (root / "run.txt.gz").write_bytes(gzip.compress(run))
    return root, run


def command(root, run: bytes, path: str, how: str):
    name, qrels, *options = PATHS[path]
    run_arg = {"plain": "run.txt", "gzip": "run.txt.gz", "stdin": "-"}[how]
    argv = [name, root / qrels, run_arg if how == "stdin" else root / run_arg, *options]
    return argv, (run if how == "stdin" else None)


@pytest.fixture(scope="module")
def expected(data):
    """Each command's output with the harness's usual (comfortable) limit."""
    root, run = data
    out = {}
    for path in PATHS:
        argv, stdin = command(root, run, path, "plain")
        done = run_cli(*argv)
        assert done.status == 0 and done.stdout, done
        out[path] = done.stdout
    # the two readings of the same judgments agree
    assert out["engine eval"] == out["general eval"]
    return out


@pytest.mark.parametrize("limit", LIMITS_MB)
@pytest.mark.parametrize("how", RUNS)
@pytest.mark.parametrize("path", list(PATHS))
def test_right_result_or_one_clean_line(data, expected, path, how, limit):
    root, run = data
    argv, stdin = command(root, run, path, how)
    done = run_cli(*argv, stdin=stdin, memory=limit << 20)
    for never in ("memory allocation of", "panicked", "Traceback", "internal error", "<jemalloc>"):
        assert never not in done.stderr, done
    if done.status == 0:
        assert done.stdout == expected[path], done
    else:
        assert_clean_failure(done, "memory")


def test_memory_lacking_outside_python_is_the_out_of_memory_line(capsys):
    """A library that cannot be mapped, an Arrow thread that cannot start (memory the
    system refuses outside Python's allocator) is the out-of-memory line; any other
    error is left alone (a bug stays a traceback for the tests to see)."""
    from cranfield.cli.main import _guard

    def raising(exc):
        def call():
            raise exc

        return call

    no_map = ImportError("libarrow.so.2600: failed to map segment from shared object")
    assert _guard(raising(no_map), "eval") == 2
    assert capsys.readouterr().err == (
        "cranfield eval: error: out of memory; --stream reads a run in pieces of bounded size\n"
    )
    pa = pytest.importorskip("pyarrow")
    no_thread = pa.lib.ArrowException("Unknown error: Failed to launch worker thread: EAGAIN")
    assert _guard(raising(no_thread), "compare") == 2
    assert capsys.readouterr().err == "cranfield compare: error: out of memory\n"
    for other in (ImportError("No module named 'x'"), pa.lib.ArrowException("bad"), ValueError()):
        with pytest.raises(type(other)):
            _guard(raising(other), "eval")


@pytest.fixture(scope="module")
def large_qrels(tmp_path_factory):
    """Qrels of 600,000 judgments (about 12 MB of text) and a run ranking ten documents
    for each of their 2,000 queries, with the output without a limit."""
    root = tmp_path_factory.mktemp("large-qrels")
    rng = random.Random(11)
    with open(root / "qrels.txt", "w") as out:
        for q in range(2000):
            out.writelines(f"q{q} 0 d{d} {rng.randint(0, 3)}\n" for d in range(300))
    with open(root / "run.txt", "w") as out:
        for q in range(2000):
            out.writelines(f"q{q} Q0 d{d * 7} {d + 1} {10 - d} t\n" for d in range(10))
    done = run_cli("trec_eval", root / "qrels.txt", root / "run.txt", "-m", "map", "-m", "P.5")
    assert done.status == 0 and b"map" in done.stdout, done
    return root, done.stdout


@pytest.mark.parametrize("limit", [40, 60, 80, 100, 120, 160, 240])
def test_large_qrels_right_result_or_one_clean_line(large_qrels, limit):
    """Memory for what is sized by the qrels (their text, columns, index, and the judged
    run's copy of their grades) lacking at any point is the clean line."""
    root, expected = large_qrels
    argv = ("trec_eval", root / "qrels.txt", root / "run.txt", "-m", "map", "-m", "P.5")
    done = run_cli(*argv, memory=limit << 20)
    for never in ("memory allocation of", "panicked", "Traceback", "internal error"):
        assert never not in done.stderr, done
    if done.status == 0:
        assert done.stdout == expected, done
    else:
        assert_clean_failure(done, "memory")
