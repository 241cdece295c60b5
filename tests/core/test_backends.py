"""The execution backends' registry (core/backends.py): the core dispatches by name,
finds the Dask backend without importing it itself, and refuses unknown names.

(The Dask backend's results are checked against the local ones in tests/distributed.)
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import cranfield
from cranfield.core import backends
from cranfield.core.backends import LOCAL, Backend, backend, register
from cranfield.errors import ParameterError


def test_local_is_registered_by_the_core():
    assert backend("local") is LOCAL
    assert backends.names()[:1] == ["local"]
    assert "dask" in backends.names()


@pytest.mark.parametrize("name", ["spark", "", None, "LOCAL"])
def test_unknown_names_are_refused_with_the_known_ones(name):
    with pytest.raises(ParameterError, match="engine: expected 'local' or 'dask'"):
        backend(name)


def test_the_local_backend_refuses_a_cluster(sample_paths):
    qrels, run = sample_paths[0], sample_paths[1]
    with pytest.raises(ParameterError, match="client: expected None with engine='local'"):
        cranfield.evaluate(qrels, run, "AP", client=object())
    with pytest.raises(ParameterError, match="scheduler"):
        LOCAL.starmap(max, [(1, 2)], scheduler="tcp://host:8786")
    assert LOCAL.starmap(max, [(1, 2), (4, 3)]) == [2, 4]


def test_evaluate_and_compare_dispatch_through_the_registry(sample_paths, monkeypatch):
    """A backend registered under a new name is what ``engine=NAME`` runs."""
    calls = []
    local = cranfield.evaluate(sample_paths[0], sample_paths[1], ["AP"])

    def evaluate(qrels, runs, measures, options, **kw):
        calls.append(("evaluate", kw["client"]))
        return local, None

    def starmap(function, jobs, *, client=None, scheduler=None):
        calls.append(("starmap", client))
        return [function(*job) for job in jobs]

    monkeypatch.setattr(backends, "_REGISTERED", dict(backends._REGISTERED))
    register(Backend("recording", evaluate, None, starmap, "a test backend"))
    got = cranfield.evaluate(sample_paths[0], sample_paths[1], ["AP"], engine="recording")
    assert got is local
    from cranfield.compare import compare

    scores = {"AP": {"a": {"q1": 0.5, "q2": 0.25, "q3": 1.0}, "b": {"q1": 0, "q2": 0.5, "q3": 0.5}}}
    want = compare(scores, tests=["t"]).rows
    assert compare(scores, tests=["t"], engine="recording", client="c").rows == want
    assert calls == [("evaluate", None), ("starmap", "c")]


def test_the_dask_backend_is_found_by_name_without_importing_dask():
    """``backend("dask")`` imports the module the package root declares, which
    registers itself; neither the core nor that import loads Dask."""
    code = (
        "import sys\n"
        "from cranfield.core.backends import backend\n"
        "assert 'cranfield.distributed' not in sys.modules\n"
        "b = backend('dask')\n"
        "assert b.name == 'dask', b\n"
        "assert 'cranfield.distributed.backend' in sys.modules\n"
        "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
