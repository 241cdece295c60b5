"""One way to write a number in a table cell (``output.number_cell``), enforced: no
command formats undefined values or rounds floats its own way."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from cranfield.output import UNDEFINED, number_cell, number_cells

SRC = Path(__file__).resolve().parents[2] / "src" / "cranfield"


@pytest.mark.parametrize(
    ("value", "kwargs", "text"),
    [
        (None, {}, ""),
        (math.nan, {}, UNDEFINED),
        (np.float64("nan"), {}, UNDEFINED),
        (-0.0, {}, "0.0000"),
        (-0.00001, {}, "0.0000"),
        (-0.00005, {"digits": 4}, "-0.0001"),
        (np.float64(-5.0), {"digits": 1}, "-5.0"),
        (3, {}, "3"),
        (np.int64(7), {}, "7"),
        (True, {}, "yes"),
        (0.123456, {"significant": 3}, "0.123"),
        (-1e-12, {"significant": 4}, "-1e-12"),
        (-0.0, {"significant": 4}, "0"),
        (1e307, {"digits": 3}, "1.000e+307"),
        (12.0, {"digits": 0}, "12"),
    ],
)
def test_number_cell(value, kwargs, text):
    assert number_cell(value, **kwargs) == text


def test_no_module_writes_undefined_cells_its_own_way():
    """The patterns of the copies that were folded into number_cell."""
    pattern = re.compile(
        r'UNDEFINED if (?:v|value) != (?:v|value)|"nan" if v != v|"-" if math\.isnan\('
    )
    offenders = [
        f"{path.relative_to(SRC)}:{no}"
        for path in SRC.rglob("*.py")
        if path.name != "output.py"
        for no, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == [], "use cranfield.output.number_cell: " + ", ".join(offenders)


@pytest.mark.parametrize("digits", [0, 1, 2, 4, 6])
def test_number_cells_is_number_cell_cell_for_cell(digits):
    """The column version writes what number_cell writes for each value: random values
    of every scale and the edges (NaN, infinities, both zeros, negatives that round to
    zero, 1e15 and up, values just below it)."""
    rng = np.random.default_rng(digits or 0)
    edges = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1e-9, -0.00004, -0.00005, -0.5,
             -0.99999, -1.0, 1e15, -1e15, 999999999999999.9, 1e308, 5e-324, -5e-324, 2.5,
             -2.5, 3.0, 123456.0]  # fmt: skip
    values = np.concatenate([
        edges,
        rng.normal(0, 1, 2000),
        rng.normal(0, 1, 500) * 10.0 ** rng.integers(-12, 18, 500),
        -rng.uniform(0, 10.0 ** -(digits or 0), 500),
    ])  # fmt: skip
    assert number_cells(values, digits) == [number_cell(float(v), digits) for v in values]
    assert number_cells(np.array([], dtype=np.float64), digits) == []
