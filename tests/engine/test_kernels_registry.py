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

import pytest
from kernel_cases import _compare, judged_runs

from cranfield.core.measures import engine
from cranfield.core.measures.registry import Measure, MeasureDef, all_definitions
from cranfield.errors import CranfieldError

DEFINITIONS = all_definitions()
SEEDS = range(24)
CUTOFFS = {None: [None], "rank": [None, 1, 5], "recall": [None, 0.5], "positive": [0.5, 2.0]}
# candidate values of numeric parameters; those outside a parameter's range are dropped
INTS = [0, 2, 3, 40, 1_000_000]
FLOATS = [0.5, 0.95, 2.0, 3.0, -1.0, 0.0]


def _values(p) -> list:
    """Values of parameter ``p`` worth checking besides its default."""
    if p.choices:
        values = list(p.choices)
    elif p.kind is bool:
        values = [not p.default]
    elif p.kind == "gains":
        values = [((1, 2.0), (2, 0.5)), ((0, 1.0), (3, 7.0))]
    elif p.kind == "floats":
        values = [(0.0, 0.25, 1.0)]
    elif p.kind is int:
        values = INTS
    elif p.kind is float:
        values = FLOATS
    else:
        values = []
    ok = [v for v in values if v != p.default and (p.check is None or p.check(v))]
    return ok[:3]


def _of(name: str, cutoff, params: dict) -> Measure | None:
    try:
        return Measure.of(name, cutoff, **params)
    except CranfieldError:  # a combination the declaration refuses
        return None


def variants(d: MeasureDef) -> list[Measure]:
    """Measures of family ``d``: defaults at each cutoff, then one parameter at a time
    (parameters without a default, such as a collection size, get their first value)."""
    cutoffs = [c for c in CUTOFFS[d.cutoff] if c is not None or not d.cutoff_required]
    base = {}
    if _of(d.name, cutoffs[-1], {}) is None:
        base = {p.name: _values(p)[0] for p in d.params if p.default is None and _values(p)}
    out = [_of(d.name, c, base) for c in cutoffs]
    for p in d.params:
        out += [_of(d.name, cutoffs[-1], {**base, p.name: v}) for v in _values(p)]
    return [m for m in out if m is not None]


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


def test_micro_averages_are_the_declared_ones():
    """The engine's micro averages (rust/eval/src/micro.rs, ``MICRO``) are those of the
    families that declare ``micro=``, no more, no fewer (their values are compared in
    tests/cli/test_eval_engine_path.py)."""
    from cranfield import _engine

    declared = {d.name for d in DEFINITIONS if d.micro is not None}
    assert set(_engine.micro_families()) == declared


def test_the_generator_varies_every_parameter():
    for d in DEFINITIONS:
        measures = variants(d)
        assert measures, d.name
        for p in d.params:
            seen = {m.param_values()[p.name] for m in measures}
            assert len(seen) > 1 or not _values(p), (d.name, p.name)


@pytest.mark.parametrize(
    "definition", [d for d in DEFINITIONS if not d.no_engine_kernel], ids=lambda d: d.name
)
@pytest.mark.parametrize("fractional", [False, True], ids=["grades", "fractional"])
def test_engine_equals_specification(definition, fractional):
    runs = judged_runs(SEEDS, fractional)
    compared = refused = 0
    for m in variants(definition):
        done, no = _compare(m, runs, same_message=True)
        compared, refused = compared + done, refused + no
    if fractional and definition.fractional_use == "refused":
        assert refused > 0, f"{definition.name}: fractional qrels were not refused"
    else:
        assert compared > 0, f"{definition.name}: every generated measure was refused"
