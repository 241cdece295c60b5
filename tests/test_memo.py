"""One memoising decorator: :func:`cranfield._memo.memo`, checked against
``functools.lru_cache`` (the reference it stands in for) on random call sequences, and
the only one the package uses (a syntax-tree read of every module: no
``functools.lru_cache`` or ``functools.cache``, which would bring ``functools`` and
``collections`` back to the command line's cold path)."""

from __future__ import annotations

import ast
import functools
import random
from pathlib import Path

import pytest

from cranfield._memo import memo

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cranfield"


def counted():
    calls: list[tuple] = []

    def square_sum(a, b=0):
        calls.append((a, b))
        if a == 13:
            raise ValueError("thirteen")
        return a * a + b

    return square_sum, calls


@pytest.mark.parametrize("seed", range(20))
def test_same_answers_and_calls_as_lru_cache(seed):
    """Unbounded: the same answers, and the function called exactly as often, as with
    ``lru_cache(maxsize=None)``; an exception is raised each time and never kept."""
    rng = random.Random(seed)
    ours, our_calls = counted()
    theirs, their_calls = counted()
    ours, theirs = memo()(ours), functools.lru_cache(maxsize=None)(theirs)
    for _ in range(300):
        args = (rng.randrange(20), rng.randrange(3))
        outcomes = []
        for f in (ours, theirs):
            try:
                outcomes.append(f(*args))
            except ValueError as exc:
                outcomes.append(str(exc))
        assert outcomes[0] == outcomes[1]
    assert our_calls == their_calls


@pytest.mark.parametrize("limit", [1, 2, 7])
def test_bounded_keeps_at_most_limit_answers(limit):
    rng = random.Random(limit)
    f, calls = counted()
    f = memo(limit)(f)
    seen: list[tuple] = []  # the answers kept, oldest first (first in, first out)
    for _ in range(500):
        args = (rng.randrange(12), 0)
        before = len(calls)
        assert f(*args) == args[0] ** 2
        assert len(calls) == before + (args not in seen)
        if args not in seen:
            seen = (seen + [args])[-limit:]


def test_unhashable_and_keyword_arguments_are_refused_as_by_lru_cache():
    f = memo()(lambda x: x)
    with pytest.raises(TypeError, match="unhashable"):
        f([1])
    with pytest.raises(TypeError):
        functools.lru_cache(lambda x: x)([1])
    with pytest.raises(TypeError):
        f(x=1)


def test_clear_and_wrapped():
    f, calls = counted()
    g = memo(4)(f)
    g(2), g(2), g.cache_clear(), g(2)
    assert calls == [(2, 0), (2, 0)] and g.__wrapped__ is f and g.__name__ == "square_sum"
    with pytest.raises(ValueError, match="at least 1"):
        memo(0)


def test_the_package_memoises_only_with_memo():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "functools":
                names = {a.name for a in node.names} & {"lru_cache", "cache"}
                found += [f"{path.relative_to(PACKAGE)}: functools.{n}" for n in names]
            elif isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache"):
                if isinstance(node.value, ast.Name) and node.value.id == "functools":
                    found.append(f"{path.relative_to(PACKAGE)}: functools.{node.attr}")
    assert not found, found
