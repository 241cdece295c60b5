"""Ctrl-C (SIGINT) ends every command promptly with status 130 and one line on stderr,
wherever it lands: during the imports, reading, an engine call, the statistics, or as the
command ends (then the result stands: status 0 and nothing on stderr but its notes).

The child signals "ready" once ``import cranfield`` has run (the moment the command
line's handler is installed, ``cranfield/_interrupt.py``); the interpreter's own start-up
before that is out of cranfield's reach. The delays after it are a fixed spread, so the
signal lands at different points of each command; only a generous liveness bound is
timed, never a speed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .harness import SRC

DELAYS = (0.0, 0.02, 0.08, 0.25, 0.7)
LIVENESS = 60.0  # seconds for a signalled command to end (it takes well under 1 s)

CHILD = (
    "import os, runpy, sys\n"
    "sys.argv = ['cranfield', *sys.argv[1:]]\n"
    "import cranfield\n"  # installs the command line's SIGINT handler
    "os.write(1, b'R')\n"
    "runpy.run_module('cranfield', run_name='__main__')\n"
)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    from cranfield import sample

    d = tmp_path_factory.mktemp("interrupt")
    qrels, first, second, *_ = sample.write(d)
    rng = random.Random(5)
    lines = []
    for q in range(300, 2300):
        docs = rng.sample(range(50_000), 100)
        lines += [f"{q} Q0 d{x} {r} {100 - r} big\n" for r, x in enumerate(docs)]
    (d / "big.run").write_text("".join(lines))
    judgments = ["topic,doc,assessor,label"]
    judgments += [
        f"{t},d{x},a{a},{rng.randrange(3)}" for t in range(40) for x in range(60) for a in range(5)
    ]
    (d / "judgments.csv").write_text("\n".join(judgments) + "\n")
    clicks = []
    for s in range(3000):
        docs = rng.sample(range(40), 10)
        clicked = [str(x) for x in docs if rng.random() < 0.2]
        clicks.append(f"q{s % 50}\t{','.join(map(str, docs))} : {','.join(clicked)};\n")
    (d / "train.pyclick").write_text("".join(clicks))
    data = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "lambdarank-example"
    return {
        "dir": d,
        "qrels": qrels,
        "a": first,
        "b": second,
        "big": d / "big.run",
        "judgments": d / "judgments.csv",
        "clicks": d / "train.pyclick",
        "ltr": data / "rank.train",
    }


COMMANDS = {
    "eval": lambda f: ["eval", f["qrels"], f["big"], f["a"], "-m", "AP", "nDCG@10", "--per-query"],
    "eval-general": lambda f: [
        "eval",
        f["qrels"],
        f["big"],
        "-m",
        "AP",
        "--format",
        "csv",
        "--duplicates",
        "max",
    ],  # fmt: skip
    "trec_eval": lambda f: ["trec_eval", "-q", "-m", "all_trec", f["qrels"], f["big"]],
    "compare": lambda f: [
        "compare",
        f["qrels"],
        f["a"],
        f["b"],
        "-m",
        "AP",
        "--complete",
        "--test",
        "randomization",
    ],  # fmt: skip
    "pool": lambda f: ["pool", f["big"], f["a"], f["b"], "--depth", "50"],
    "meta": lambda f: [
        "meta",
        "power",
        f["qrels"],
        f["a"],
        f["b"],
        f["big"],
        "-m",
        "AP",
        "--complete",
        "--samples",
        "1000000",
    ],  # fmt: skip
    "aggregate": lambda f: ["aggregate", "--judgments", f["judgments"], "--method", "mace"],
    "agreement": lambda f: ["agreement", "--judgments", f["judgments"]],
    "clicks": lambda f: ["clicks", "fit", f["clicks"], "--model", "ubm"],
    "ltr": lambda f: [
        "ltr",
        "train",
        f["ltr"],
        "--method",
        "coordinate-ascent",
        "-o",
        f["dir"] / "model.json",
    ],  # fmt: skip
}


def _signalled(code: str, delay: float = 0.0, argv=()) -> tuple[int, str]:
    """Run ``code`` (a child that writes "R" once ready), send SIGINT ``delay`` s later;
    its status and standard error."""
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONFAULTHANDLER": ""}
    child = subprocess.Popen(
        [sys.executable, "-c", code, *map(str, argv)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert child.stdout.read(1) == b"R"
        time.sleep(delay)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=LIVENESS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise AssertionError(f"no end {LIVENESS} s after SIGINT: {argv}") from None
    return child.returncode, err.decode("utf-8", "replace")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_ctrl_c_ends_every_command_with_one_line_and_status_130(inputs, command):
    argv = COMMANDS[command](inputs)
    outcomes = []
    for delay in DELAYS:
        status, err = _signalled(CHILD, delay, argv)
        assert "Traceback" not in err and "Exception" not in err, (command, delay, err)
        if status == 130:
            assert err.count("\n") == 1 and err.endswith(": interrupted\n"), (command, delay, err)
            assert err.startswith(f"cranfield {argv[0]}"), err
        else:  # the command had finished: its result stands
            assert status == 0 and "interrupted" not in err, (command, delay, status, err)
        outcomes.append(status)
    assert outcomes[0] == 130  # signalled before the command began: always interrupted


# A command that swallows the KeyboardInterrupt, as a compiled module may (pyarrow's
# to_numpy imports pandas inside Cython and the exception was lost: `pool` then ran
# on and ended with status 0): the command still ends with the one line and 130.
SWALLOWING = (
    "import os, runpy, sys, time\n"
    "sys.argv = ['cranfield', 'pool']\n"
    "import cranfield\n"
    "import cranfield.cli.pool_cmd as command\n"
    "def main(argv):\n"
    "    os.write(1, b'R')\n"
    "    end = time.monotonic() + 20\n"
    "    while time.monotonic() < end:\n"
    "        try:\n"
    "            time.sleep(0.01)\n"
    "        except KeyboardInterrupt:\n"
    "            {after}\n"
    "    return 0\n"
    "command.main = main\n"
    "runpy.run_module('cranfield', run_name='__main__')\n"
)


@pytest.mark.parametrize("after", ["pass", "return 0"], ids=["runs-on", "finishes"])
def test_a_swallowed_interrupt_still_ends_the_command(after):
    status, err = _signalled(SWALLOWING.replace("{after}", after))
    assert (status, err) == (130, "cranfield pool: interrupted\n")


@pytest.fixture(scope="module")
def long_run(tmp_path_factory) -> Path:
    """Two million run lines: `pool --depth` on it runs for seconds (5.6 s on the
    development machine), longer than every delay below on any machine."""
    import numpy as np

    rng = np.random.default_rng(11)
    queries, depth = 20_000, 100
    rank = np.tile(np.arange(depth), queries)
    qid = np.repeat(np.arange(queries), depth)
    # distinct within a query: 7,919 is prime to 200,000
    docs = (np.repeat(rng.integers(0, 200_000, size=queries), depth) + 7_919 * rank) % 200_000
    lines = np.char.add(np.char.add(qid.astype(str), " Q0 d"), docs.astype(str))
    lines = np.char.add(np.char.add(lines, " "), rank.astype(str))
    lines = np.char.add(np.char.add(lines, " "), (depth - rank).astype(str))
    path = tmp_path_factory.mktemp("long") / "long.run"
    path.write_text("\n".join(np.char.add(lines, " long").tolist()) + "\n")
    return path


def test_ctrl_c_is_never_lost_while_pool_works(long_run):
    """A spread of moments through reading, the imports pyarrow starts (pandas) and the
    engine's work: every one ends with the line and 130, never the pool (status 0)."""
    for delay in (0.05, 0.2, 0.4, 0.6, 0.75, 0.85, 0.95, 1.05, 1.2):
        status, err = _signalled(CHILD, delay, ["pool", long_run, "--depth", "100"])
        assert (status, err) == (130, "cranfield pool: interrupted\n"), delay
