"""Settings and fixtures for the whole suite.

Hypothesis runs derandomised (the same examples on every run, no example database), so a
property test can never pass once and fail the next time: a flaky test is a defect. To
search more widely while developing, run with ``--hypothesis-profile=explore``.

Shared fixtures (random qrels and runs come from ``generators.py``, subprocess runs of
the command from ``adversarial/harness.py``):

* ``sample_paths``: the bundled sample collection written once per session, read-only;
* ``cli``: the command run in-process, returning ``(status, stdout, stderr)``;
* ``tmp_file``: write text or bytes to a named file under the test's ``tmp_path``;
* ``postgres_url``: a real PostgreSQL server started once per session (``postgres.py``),
  as an SQLAlchemy URL; a test that needs an empty database makes one with
  ``postgres.create_database(postgres_url, NAME)``;
* ``browser``: a headless chromium WebDriver started once per session (``browser.py``);
  ``browser.screenshot(driver, NAME)`` keeps a picture of the page as a test artefact.

Markers (registered in pyproject.toml, ``--strict-markers``) put aside the slow kinds of
test, so that ``make quick`` can run the rest in a few minutes:

* ``browser``, ``postgres``, ``dask``, ``trec_eval``: the test uses the ``browser``,
  ``postgres_url``, ``dask_client`` or ``trec_eval_bin`` fixture (directly or through
  another fixture): :func:`pytest_collection_modifyitems` marks it, nobody writes it;
* ``process``: the test starts a process (``run_cli``, ``subprocess``, a server). It is
  marked (``marking.py``) when its function, a fixture it uses, or a helper either of them calls (in
  tests/, followed through module globals) refers to ``subprocess`` or
  ``multiprocessing``; a test that starts one some other way fails (:func:`_spawn_guard`)
  until it says ``@pytest.mark.process``.

``make test`` runs the suite on every core with pytest-xdist (``-n auto``): each worker
process has its own session fixtures (its own PostgreSQL server, browser, trec_eval
build, all in private temporary directories), so a test may never rely on another
test having run in the same process, nor write to a fixed path outside ``tmp_path``.
"""

from __future__ import annotations

import multiprocessing.util
import os

# ranx (an oracle of tests/fusion and tests/core) runs its numba functions interpreted:
# the same source, the reference's own code, without compiling them again in every
# worker of a fresh machine (tests/fusion: 6 minutes with numba's cache empty, 21 s
# interpreted). NUMBA_DISABLE_JIT=0 in the environment runs the compiled path.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from marking import SLOW_MARKS, mark

settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("deterministic")


def pytest_collection_modifyitems(items) -> None:
    """Mark each test by the external programs it needs (see the module's docstring)."""
    mark(items)


@pytest.fixture(autouse=True)
def _spawn_guard(request, monkeypatch) -> None:
    """Fail a test that starts a process without a marker saying so: the static look of
    :func:`pytest_collection_modifyitems` missed it; add ``@pytest.mark.process``."""
    if any(request.node.get_closest_marker(m) is not None for m in SLOW_MARKS):
        return
    name = request.node.nodeid

    def refuse(*args, **kwargs):
        pytest.fail(f"{name} starts a process but is not marked: add @pytest.mark.process")

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    monkeypatch.setattr(multiprocessing.util, "spawnv_passfds", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)


@pytest.fixture(scope="session")
def sample_paths(tmp_path_factory) -> list[Path]:
    """``[qrels, run, run, ...]`` of ``cranfield.sample``, written once per session.

    Shared by every test that asks for it: never write into their directory (use
    ``tmp_path``); a test that needs the files changed copies them first.
    """
    from cranfield import sample

    return sample.write(tmp_path_factory.mktemp("sample"))


@pytest.fixture
def cli(capsys) -> Callable[..., tuple[int, str, str]]:
    """``cli(*argv)``: ``cranfield ARGV`` in this process -> (status, stdout, stderr)."""
    from adversarial.harness import run_main

    return lambda *argv: run_main(capsys, *argv)


@pytest.fixture
def tmp_file(tmp_path) -> Callable[[str, str | bytes], Path]:
    """``tmp_file(name, content)``: ``content`` (str or bytes) written to
    ``tmp_path / name``; returns the path."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    return write


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """SQLAlchemy URL of a PostgreSQL database on a private server, for the whole session."""
    from postgres import postgres_server

    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator:
    """A selenium WebDriver on headless chromium, shared by the session's tests."""
    from browser import chromium_driver

    with chromium_driver() as driver:
        yield driver


# How many command lines tests/reference compared with the trec_eval 10.0 binary
# (reference/oracle.py counts them): summed over pytest-xdist's workers when there are any.
_COMPARED = "trec_eval_compared"
_COMPARED_KEY = pytest.StashKey[dict]()


def _oracle_counts() -> dict[str, int] | None:
    oracle = sys.modules.get("reference.oracle")
    return dict(oracle.COMPARED) if oracle is not None else None


def pytest_sessionfinish(session) -> None:
    """On an xdist worker, hand this process's comparison counts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    counts = _oracle_counts()
    if output is not None and counts is not None:
        output[_COMPARED] = counts


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """On the xdist controller: add up the counts each worker handed over."""
    counts = getattr(node, "workeroutput", {}).get(_COMPARED)
    if counts:
        total = node.config.stash.setdefault(_COMPARED_KEY, {})
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value


def pytest_terminal_summary(terminalreporter, config) -> None:
    """How many command lines were compared with the binary, and how they ended."""
    c = config.stash.get(_COMPARED_KEY, None) or _oracle_counts()
    if c and c["commands"]:
        terminalreporter.write_line(
            f"trec_eval 10.0 comparisons: {c['commands']} command lines; "
            f"{c['identical']} byte-identical, {c['both_refused']} refused by both, "
            f"{c['deviation_applied']} identical but for a documented deviation"
        )
