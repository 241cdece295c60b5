"""The one rendering of p-values in tables: undefined, underflow, Monte Carlo bounds."""

from __future__ import annotations

import math

import pytest

from cranfield.output import UNDEFINED, UNDERFLOW, monte_carlo_bound, p_cell


@pytest.mark.parametrize(
    ("replicates", "sides", "text"),
    [(999, 1, "<0.001"), (999, 2, "<0.002"), (2000, 2, "<0.001"), (2000, 1, "<0.0005"),
     (10, 2, "<0.19"), (1, 2, "<1")],
)  # fmt: skip
def test_monte_carlo_bounds_are_written_rounded_up(replicates, sides, text):
    bound = monte_carlo_bound(replicates, sides)
    assert bound == min(1.0, sides / (replicates + 1))
    cell = p_cell(bound, bound=True)
    assert cell == text
    assert float(cell[1:]) >= bound  # "<x" stays a true statement


def test_plain_underflow_and_undefined_p_values():
    assert p_cell(0.0) == UNDERFLOW and p_cell(0.0) != "0"
    assert p_cell(None) == p_cell(math.nan) == UNDEFINED
    assert p_cell(0.012345678) == "0.01235"
