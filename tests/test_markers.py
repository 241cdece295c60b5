"""The markers `make quick` relies on (tests/conftest.py): set where the fixture or helper
is, and enforced at run time for a process the static look cannot see."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_an_unmarked_test_cannot_start_a_process():
    # named so that the collection hook cannot see it: the run-time guard must
    hidden = importlib.import_module("sub" + "process")
    with pytest.raises(pytest.fail.Exception, match="add @pytest.mark.process"):
        hidden.run([sys.executable, "-c", "pass"], check=False)


def test_the_static_look_follows_helpers(pytestconfig):
    from adversarial.harness import run_cli, run_main
    from marking import FIXTURE_MARKS, spawns

    assert set(FIXTURE_MARKS.values()) <= {
        line.split(":")[0] for line in pytestconfig.getini("markers")
    }
    assert spawns(run_cli, set())  # the subprocess helper of the adversarial tests
    assert not spawns(run_main, set())  # its in-process twin
