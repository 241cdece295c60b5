"""Remembered answers of pure functions: :func:`memo`, cranfield's one memoising
decorator.

It does what ``functools.lru_cache`` does for cranfield's uses (positional, hashable
arguments; answers kept up to a bound; exceptions not kept) without importing
``functools``, which brings ``collections``, ``keyword``, ``reprlib`` and ``types``:
about 5 ms of the 40 ms a ``cranfield eval`` of one line takes as a whole process
(``tests/cli/test_cold_imports.py`` keeps them off that path).
"""

from __future__ import annotations

__all__ = ["memo"]


def memo(limit: int | None = None):
    """A decorator keeping a function's answers by its positional arguments.

    Parameters
    ----------
    limit
        The most answers kept (the oldest is forgotten first); None for no bound.

    The decorated function has ``cache_clear()`` and ``__wrapped__`` (the function
    itself), as ``functools.lru_cache``'s do.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")

    def decorate(function):
        answers: dict = {}

        def remembered(*args):
            try:
                return answers[args]
            except KeyError:
                pass
            answer = function(*args)
            if limit is not None and len(answers) >= limit:
                answers.pop(next(iter(answers), None), None)
            answers[args] = answer
            return answer

        remembered.__wrapped__ = function
        remembered.__name__ = function.__name__
        remembered.__qualname__ = function.__qualname__
        remembered.__doc__ = function.__doc__
        remembered.__module__ = function.__module__
        remembered.cache_clear = answers.clear
        return remembered

    return decorate
