"""Build trec_eval 10.0 from its C source once per test session (the reference oracle).

Under pytest-xdist the workers of one run share the build: the first to need it builds
it, under a file lock, in the run's temporary directory.

The source is in ``../shared/reference/trec_eval-10.0`` beside the project (see the
``.md`` file there); ``CRANFIELD_TREC_EVAL_SRC`` names another copy. The tests that use
the binary are skipped, with the reason, only when no C compiler is installed.

It is built with the Makefile's flags plus ``-ftrivial-auto-var-init=zero`` where the
compiler has it: m_rbp.c reads two uninitialised locals (docs/trec_eval.md, deviation
4), which otherwise makes the binary's rbp depend on stack garbage; zeroed, they give
the true minimum and maximum of the gains (level 0, gain 0, is always among them), the
values cranfield computes. Nothing else in a deterministic run reads such memory.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _source_dir() -> Path | None:
    env = os.environ.get("CRANFIELD_TREC_EVAL_SRC")
    candidates = [Path(env)] if env else []
    # the project's checkout sits beside ../shared (a worktree one level deeper)
    for up in (ROOT.parent, ROOT.parent.parent):
        candidates.append(up / "shared" / "reference" / "trec_eval-10.0")
    return next((c for c in candidates if (c / "trec_eval.c").is_file()), None)


def _compiler() -> str | None:
    return next((c for c in ("gcc", "cc", "clang") if shutil.which(c)), None)


def _zero_init(cc: str) -> list[str]:
    """``-ftrivial-auto-var-init=zero`` when the compiler accepts it (GCC 12, Clang 16)."""
    flag = "-ftrivial-auto-var-init=zero"
    probe = subprocess.run(
        [cc, flag, "-x", "c", "-c", "-o", os.devnull, "-"],
        input="int main(void) { return 0; }\n",
        capture_output=True,
        text=True,
    )
    return [flag] if probe.returncode == 0 else []


@pytest.fixture(scope="session")
def trec_eval_bin(tmp_path_factory) -> str:
    """Path of a freshly built trec_eval 10.0 binary."""
    src = _source_dir()
    if src is None:
        pytest.fail(
            "trec_eval 10.0 source not found (../shared/reference/trec_eval-10.0); "
            "set CRANFIELD_TREC_EVAL_SRC to its directory"
        )
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler (gcc, cc or clang) to build the trec_eval 10.0 oracle")
    zeroed = _zero_init(cc)
    flags = ["-g", "-I.", "-Wall", *zeroed]
    if not zeroed:
        from . import oracle

        oracle.RBP_UNDEFINED = True
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # pytest-xdist: the workers of this run share one build (the first one builds it)
        shared = tmp_path_factory.getbasetemp().parent
        with open(shared / "trec_eval-build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            binary = shared / "trec_eval-build" / "src" / "trec_eval"
            if binary.is_file():
                return str(binary)
            if binary.parent.exists():
                pytest.fail("building trec_eval 10.0 failed (in another pytest-xdist worker)")
            return _build(src, binary.parent, cc, flags)
    return _build(src, tmp_path_factory.mktemp("trec_eval-build") / "src", cc, flags)


def _build(src: Path, build: Path, cc: str, flags: list[str]) -> str:
    """Copy the source to ``build``, compile it there; the binary's path."""
    shutil.copytree(src, build)
    if shutil.which("make"):
        cflags = " ".join([*flags, '-DVERSIONID=\\"10.0-rc3\\"'])
        command = ["make", "-C", str(build), f"CC={cc}", f"CFLAGS={cflags}", "trec_eval"]
    else:  # the Makefile's source lists, compiled in one command
        text = (build / "Makefile").read_text().replace("\\\n", " ")
        lists = re.findall(r"^(?:TOP|FORMAT|MEAS)_SRCS\s*=(.*)$", text, flags=re.M)
        sources = [f for line in lists for f in line.split()]
        version = '-DVERSIONID="10.0-rc3"'
        command = [cc, *flags, version, "-o", "trec_eval", *sources, "-lm"]
    done = subprocess.run(command, cwd=build, capture_output=True, text=True)
    binary = build / "trec_eval"
    if done.returncode != 0 or not binary.is_file():
        pytest.fail(f"building trec_eval 10.0 failed:\n{done.stdout}\n{done.stderr}")
    return str(binary)
