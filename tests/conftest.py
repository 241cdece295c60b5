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
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile("deterministic")


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
