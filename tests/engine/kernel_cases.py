"""The harness of the engine's measure kernels: judged runs of random qrels and runs
(:func:`generators.judging_case`), and the check that the engine's values equal the
registry's NumPy kernel bit for bit.

``test_kernels_registry.py`` checks every registered family on measures generated
from its declaration; each ``test_kernels_<module>.py`` adds the adversarial variants
of one Python module (extreme gains and grades, refusals) and calls
:func:`check_measure`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cranfield.core.judged import judge
from cranfield.core.measures import engine
from cranfield.core.measures.names import parse
from cranfield.core.measures.registry import Measure
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from generators import judging_case

SEEDS = range(60)

# judging options each measure is checked under (with rel_level, compat and the rest)
OPTIONS = [
    JudgeOptions(),
    JudgeOptions(rel_level=2),
    JudgeOptions(rel_level=0),
    JudgeOptions(compat=9),
    JudgeOptions(judged_only=True),
    JudgeOptions(complete=True),
    JudgeOptions(depth=5, complete=True),
]


def judged_runs(seeds=SEEDS, fractional: bool = False) -> list:
    """(description, JudgedRun) for every seed and judging option; runs whose judging
    fails (e.g. nothing to evaluate) are skipped. Judged once per process (the kernels
    never modify a judged run; the tests of every measure share them)."""
    return _judged_runs(tuple(seeds), fractional)


@cache
def _judged_runs(seeds: tuple, fractional: bool) -> list:
    return list(_judge_all(seeds, fractional))


def _judge_all(seeds, fractional: bool):
    for seed in seeds:
        qrels, run = judging_case(seed, fractional)
        if not qrels or not run:
            continue
        q = Qrels.from_dict(qrels, fractional=fractional)
        r = Run.from_dict(run)
        for options in OPTIONS:
            try:
                jr = judge(q, r, options)
            except Exception:  # noqa: BLE001 - e.g. no query in common: nothing to compare
                continue
            yield f"seed={seed} {options}", jr


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal values, bit for bit (the sign of zero and NaN's sign count: trec_eval
    prints them)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == object or b.dtype == object:
        return a.shape == b.shape and list(a) == list(b)
    if a.shape != b.shape:
        return False
    return bool(
        np.array_equal(a.astype(np.float64).view(np.int64), b.astype(np.float64).view(np.int64))
    )


def _measure(measure: str | Measure) -> Measure:
    m = measure if isinstance(measure, Measure) else parse(measure)
    assert m.name in engine.families(), f"{m.name} is not computed by the engine"
    return m


def _compare(m: Measure, runs, same_message: bool) -> tuple[int, int]:
    """(runs where the engine gave the NumPy kernel's values bit for bit, runs both
    refused with the same exception type — and message, with ``same_message``)."""
    compared = refused = 0
    for what, jr in runs:
        try:
            expected = m.reference(jr)
        except Exception as exc:  # noqa: BLE001 - the engine must refuse the same input
            try:
                m.compute(jr)
            except type(exc) as mine:
                if same_message:
                    assert str(mine) == str(exc), f"{m} on {what}: {mine!r} != {exc!r}"
                refused += 1
                continue
            raise AssertionError(
                f"{m} on {what}: the NumPy kernel raised {exc!r}, the engine did not"
            ) from None
        got = m.compute(jr)
        assert same_bits(got, expected), f"{m} on {what}:\n engine {got!r}\n numpy  {expected!r}"
        compared += 1
    return compared, refused


def check_measure(measure: str | Measure, fractional: bool = False, seeds=SEEDS) -> int:
    """Compare the engine with the NumPy kernel on every random judged run; returns the
    number of runs compared (asserted > 0)."""
    compared, _ = _compare(_measure(measure), judged_runs(seeds, fractional), False)
    assert compared > 0
    return compared


def check_refusal(measure: str | Measure, fractional: bool = False, seeds=SEEDS) -> int:
    """Like :func:`check_measure` for parameters the data may refuse: on every random
    judged run the engine gives the NumPy kernel's values, or raises the same exception
    with the same message; returns the number of refusals (asserted > 0)."""
    _, refused = _compare(_measure(measure), judged_runs(seeds, fractional), True)
    assert refused > 0
    return refused


@cache
def _generated() -> frozenset[str]:
    from cranfield.core.measures.registry import all_definitions
    from generators import measure_variants

    return frozenset(str(m) for d in all_definitions() for m in measure_variants(d))


def beyond_generated(measures) -> list:
    """The measures of a module's list that ``test_kernels_registry.py`` does not
    already check (on the same runs, at the extremes too): its adversarial variants."""
    return [m for m in measures if str(_measure(m)) not in _generated()]


def extreme_runs():
    """(description, JudgedRun) with labels and grades at the int64 extremes, huge and
    tiny fractional gains, an empty ranking (-c) and a query without judgments."""
    from cranfield.core.judged import JudgedRun

    big, small = 2**63 - 1, -(2**63)
    cases = {
        "int64": (
            [[big, small, -1, -2, 0, 1, big - 1], [], [3, -1, 0], [1, 2]],
            [[big, big - 1, 1, 0], [2, 1], [], [5, 2, 2, 1]],
            np.int64,
        ),
        "float64": (
            [[1e300, 5e-324, -1.0, -2.0, 0.5, 0.0], [], [3.25, -1.0], [1.0]],
            [[1e300, 0.5, 5e-324, 0.0], [2.0], [], [1.0]],
            np.float64,
        ),
    }
    for what, (ranked, judged, dtype) in cases.items():

        def csr(parts, dtype=dtype):
            offsets = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
            return offsets, np.concatenate([np.asarray(p, dtype=dtype) for p in parts])

        offsets, labels = csr(ranked)
        q_offsets, grades = csr(judged)
        yield (
            what,
            JudgedRun(
                query_ids=np.array([f"q{i}" for i in range(len(ranked))], dtype=object),
                offsets=offsets,
                labels=labels,
                qrels_offsets=q_offsets,
                qrels_grades=grades,
                in_run=np.array([True, False, True, True]),
            ),
        )


def check_extremes(measure: str | Measure) -> None:
    """The engine gives the NumPy kernel's values on :func:`extreme_runs`, or raises the
    same exception with the same message."""
    _compare(_measure(measure), extreme_runs(), True)
