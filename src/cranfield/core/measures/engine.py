"""Measure kernels computed by the compiled engine (``rust/eval``, ``cranfield._engine``).

A family whose name is in :func:`families` is computed by the engine, one query at a
time; the NumPy kernel declared with the family in the registry is then the reference
it is tested against, bit for bit (tests/engine/kernel_cases.py).
"""

from __future__ import annotations

import os

from ..._lazy import lazy
from ..._memo import memo

np = lazy("numpy", __name__, "np")

# a run this large is split between threads (each computes every measure of its queries)
_THREADS_FROM = 1_000_000


@memo()
def families() -> frozenset[str]:
    """The measure families the engine computes."""
    from ... import _engine

    return frozenset(_engine.measure_families())


def threads_for(num_labels: int) -> int:
    """The kernels' threads for a judged run of ``num_labels`` ranked documents."""
    return min(2, os.cpu_count() or 1) if num_labels >= _THREADS_FROM else 1


def _labels(a: np.ndarray) -> np.ndarray:
    if a.dtype not in (np.int8, np.int64, np.float64):
        a = a.astype(np.float64 if a.dtype.kind == "f" else np.int64)
    return np.ascontiguousarray(a)


def compute(specs, judged_run) -> list:
    """Per-query values of several measures on one judged run.

    ``specs`` are ``(family, cutoff, params)`` with every parameter filled in (as
    :meth:`Measure.param_values` gives them, ``judged_only`` already applied). Returns
    one float64 array per spec (a tuple of str for text families).
    """
    from ... import _engine

    threads = threads_for(len(judged_run.labels))
    return _engine.compute_measures(
        [(f, c, dict(p)) for f, c, p in specs], *_arrays(judged_run), threads
    )


def micro(specs, formulas: list[str], judged_run) -> list[float]:
    """Micro averages of several measures on one judged run: spec ``i`` (as
    :func:`compute` takes them) by the formula named ``formulas[i]`` (its declaration's
    ``micro=``, :class:`~cranfield.core.measures.declaration.Micro`)."""
    from ... import _engine

    return _engine.micro_averages(
        [(f, c, dict(p)) for f, c, p in specs], list(formulas), *_arrays(judged_run)
    )


def _arrays(jr) -> tuple:
    """A judged run's arrays as the engine's bindings take them."""
    return (
        np.ascontiguousarray(jr.offsets, dtype=np.int64),
        _labels(jr.labels),
        np.ascontiguousarray(jr.qrels_offsets, dtype=np.int64),
        _labels(jr.qrels_grades),
        np.ascontiguousarray(jr.in_run, dtype=bool),
        int(jr.rel_level),
        int(jr.compat),
    )


def compute_many(measures, judged_run) -> list[np.ndarray]:
    """Per-query values of several measures on one judged run, as
    ``[m.compute(judged_run) for m in measures]`` gives them.

    Every measure whose family the engine computes goes into one engine call per run
    the measures see (the run itself, or its ``judged_only`` view: see
    ``Measure._prepared``); the others (the diversity families) to their declared
    kernels, which call the engine themselves. When any of this
    raises, the measures are computed again one at a time, so that the error raised is
    the one the first failing measure raises on its own.
    """
    try:
        return _batched(measures, judged_run)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - re-raised below, measure by measure
        return [m.compute(judged_run) for m in measures]


def _batched(measures, judged_run) -> list[np.ndarray]:
    names = families()
    out: list = [None] * len(measures)
    groups: dict[int, tuple] = {}  # id(prepared run) -> (run, [(index, spec)])
    rest = []
    for i, m in enumerate(measures):
        run, values = m._prepared(judged_run)
        if m.name in names:
            groups.setdefault(id(run), (run, []))[1].append((i, (m.name, m.cutoff, values)))
        else:
            rest.append((i, m, run, values))
    for run, items in groups.values():
        columns = compute([spec for _, spec in items], run)
        for (i, _), column in zip(items, columns, strict=True):
            out[i] = as_array(column)
    for i, m, run, values in rest:
        out[i] = m.definition.kernel(run, m.cutoff, **values)
    return out


def as_array(column) -> np.ndarray:
    """An engine column as the NumPy kernels return it (text families: object array)."""
    if isinstance(column, np.ndarray):
        return column
    out = np.empty(len(column), dtype=object)
    out[:] = column
    return out
