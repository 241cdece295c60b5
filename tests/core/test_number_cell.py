"""One way to write a number in a table cell (``output.number_cell``), enforced: no
command formats undefined values or rounds floats its own way."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from cranfield.output import UNDEFINED, number_cell

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
