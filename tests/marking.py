"""Which tests start an external program, and the marker that says so.

tests/conftest.py applies it (:func:`mark`, at collection, and the run-time guard); it
lives in a module of its own so that tests can import it (``conftest`` is not one name:
every test folder with fixtures of its own has a ``conftest.py``).
"""

from __future__ import annotations

import inspect
import multiprocessing.util
import subprocess
import types
from collections.abc import Iterator
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# the fixtures that bring an external program up, and the marker of a test using one
FIXTURE_MARKS = {
    "browser": "browser",
    "postgres_url": "postgres",
    "dask_client": "dask",
    "trec_eval_bin": "trec_eval",
}
# the markers of the tests `make quick` leaves out (every one of them starts a process)
SLOW_MARKS = ("process", *FIXTURE_MARKS.values())
_SPAWNERS = (subprocess, multiprocessing)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def is_test_helper(obj: object) -> bool:
    """Defined in a module of tests/ (followed when looking for a process start)."""
    try:
        return _in_tests(inspect.getfile(obj))
    except (TypeError, OSError):
        return False


@cache
def _in_tests(filename: str) -> bool:
    # once per file: resolving a path costs a system call per component, and the
    # collection asks for every fixture of every one of ten thousand tests
    return Path(filename).resolve().is_relative_to(TESTS)


def spawns(obj: object, seen: set[int]) -> bool:
    """Whether ``obj`` (a function, or a class's methods), or a function or class of
    tests/ it names, refers to ``subprocess`` or ``multiprocessing``."""
    if id(obj) in seen:
        return False
    seen.add(id(obj))
    if isinstance(obj, type):
        return any(spawns(v, seen) for v in vars(obj).values() if inspect.isfunction(v))
    obj = inspect.unwrap(obj)
    if not inspect.isfunction(obj):
        return False
    names = {n for code in _code_objects(obj.__code__) for n in code.co_names}
    if names & {"subprocess", "multiprocessing"}:  # also imported inside the function
        return True
    for name in names:
        value = obj.__globals__.get(name)
        if any(value is m for m in _SPAWNERS):
            return True
        if (inspect.isfunction(value) or isinstance(value, type)) and is_test_helper(value):
            if spawns(value, seen):
                return True
        if isinstance(value, types.ModuleType) and is_test_helper(value):
            for attr in names:  # module.helper(...): the attributes it may be
                member = getattr(value, attr, None)
                if member is not None and spawns(member, seen):
                    return True
    return False


def mark(items) -> None:
    """Mark each test by the external programs it needs (see the module's docstring)."""
    # whether a function spawns, once per function: the parametrized tests share theirs,
    # and every test shares the fixtures (a search cut short by ``seen`` is not kept)
    known: dict[object, bool] = {}

    def spawns_once(func) -> bool:
        if func not in known:
            known[func] = spawns(func, set())
        return known[func]

    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, mark in FIXTURE_MARKS.items():
            if fixture in names:
                item.add_marker(mark)
        if item.get_closest_marker("process") is not None:
            continue
        funcs = [getattr(item, "function", None)]
        info = getattr(item, "_fixtureinfo", None)
        for defs in info.name2fixturedefs.values() if info else ():
            funcs += [
                d.func for d in defs if d.argname != "_spawn_guard" and is_test_helper(d.func)
            ]
        if any(f is not None and spawns_once(f) for f in funcs):
            item.add_marker("process")
