"""Every registered measure family has an engine kernel, and the engine equals the
family's specification (its NumPy kernel) bit for bit on measures generated from the
declaration: each cutoff kind, each parameter's choices and a few values of its
declared range.

A new family is checked here without a line of test code; the ``test_kernels_<module>``
files add the adversarial variants of their module (extreme gains, int64 grades,
refusals). A family the engine does not compute must say why in its declaration
(``no_engine_kernel=``).
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_cases import SEEDS, _compare, extreme_runs, judged_runs

from cranfield.core.measures import engine
from cranfield.core.measures.registry import all_definitions
from generators import measure_variants, parameter_values

# The diversity families read subtopic judgments, not a judged run's grades: the
# engine computes them with _engine.diversity_measures (rust/eval/src/diversity.rs),
# checked against ndeval itself (tests/reference/test_ndeval.py), not a NumPy kernel.
DIVERSITY = [d for d in all_definitions() if d.family == "diversity"]
DEFINITIONS = [d for d in all_definitions() if d.family != "diversity"]


def test_every_diversity_family_has_an_engine_kernel():
    from cranfield import _engine

    assert {d.name for d in DIVERSITY} == set(_engine.diversity_families())
    assert not engine.families() & set(_engine.diversity_families())


def test_every_family_has_an_engine_kernel_or_says_why():
    names = {d.name for d in DEFINITIONS}
    assert engine.families() <= names, engine.families() - names
    for d in DEFINITIONS:
        if d.no_engine_kernel:
            assert d.name not in engine.families(), f"{d.name}: no_engine_kernel is stale"
        else:
            assert d.name in engine.families(), (
                f"{d.name} has no engine kernel (rust/eval/src/measures/): add one, or say "
                "why in its declaration (no_engine_kernel=...)"
            )


def test_every_declared_micro_average_has_an_engine_formula():
    """A family's micro average is the formula its declaration names (``micro=
    Micro(formula, specification)``), computed by the engine (rust/eval/src/micro.rs,
    which knows formulas, not families); every declared formula is one it has."""
    from cranfield import _engine

    declared = {d.micro.formula for d in DEFINITIONS if d.micro is not None}
    assert declared <= set(_engine.micro_formulas()), declared - set(_engine.micro_formulas())


@pytest.mark.parametrize(
    "definition", [d for d in DEFINITIONS if d.micro is not None], ids=lambda d: d.name
)
def test_engine_micro_averages_equal_their_specification(definition):
    """The engine's micro average (``Measure.micro``) equals the declaration's NumPy
    specification (``Measure.micro_reference``) bit for bit, on generated measures and
    judged runs."""
    compared = 0
    for m in measure_variants(definition):
        m = m if "collection_size" not in m.param_values() else _sized(m)
        for _, jr in [*judged_runs(SEEDS), *extreme_runs()]:
            try:
                want = m.micro_reference(jr)
            except Exception as exc:  # noqa: BLE001 - the engine must refuse alike
                with pytest.raises(type(exc)):
                    m.micro(jr)
                continue
            got = m.micro(jr)
            assert np.float64(got).view(np.uint64) == np.float64(want).view(np.uint64), (
                str(m),
                got,
                want,
            )
            compared += 1
    assert compared > 0


def _sized(m):
    from cranfield.core.results import with_collection_size

    return m if m.param_values()["collection_size"] is not None else with_collection_size(m, 997)


def test_the_generator_varies_every_parameter():
    for d in DEFINITIONS:
        measures = measure_variants(d)
        assert measures, d.name
        for p in d.params:
            seen = {m.param_values()[p.name] for m in measures}
            assert len(seen) > 1 or not parameter_values(p), (d.name, p.name)


@pytest.mark.parametrize(
    "definition", [d for d in DEFINITIONS if not d.no_engine_kernel], ids=lambda d: d.name
)
@pytest.mark.parametrize("fractional", [False, True], ids=["grades", "fractional"])
def test_engine_equals_specification(definition, fractional):
    runs = judged_runs(range(20) if fractional else SEEDS, fractional)
    compared = refused = 0
    for i, m in enumerate(measure_variants(definition)):
        # each variant on every other judged run, alternating: every run is checked
        # by half the variants, in half the time
        done, no = _compare(m, runs[i % 2 :: 2], same_message=True)
        compared, refused = compared + done, refused + no
        if not fractional:
            _compare(m, extreme_runs(), same_message=True)
    if fractional and definition.fractional_use == "refused":
        assert refused > 0, f"{definition.name}: fractional qrels were not refused"
    else:
        assert compared > 0, f"{definition.name}: every generated measure was refused"
