"""The Nelder-Mead simplex method (Nelder & Mead 1965) with SciPy's choices, scoring the
points it needs at once in one batch where the method allows it.

:func:`minimise` makes the decisions of ``scipy.optimize.minimize(method="Nelder-Mead")``
(SciPy 1.17, ``_minimize_neldermead`` without bounds; the conventions read from its
source): reflection, expansion, outside and inside contraction with coefficients
``rho = 1, chi = 2, psi = 0.5, sigma = 0.5``, or with ``adaptive`` Gao & Han's
dimension-dependent ``chi = 1 + 2/n, psi = 0.75 - 1/(2n), sigma = 1 - 1/n`` (Gao & Han,
"Implementing the Nelder-Mead simplex algorithm with adaptive parameters",
Computational Optimization and Applications 51, 2012); vertices ordered by NumPy's
``argsort`` of their values after each step (twice after the first, as SciPy does:
the order of tied vertices is the same); stopping when every vertex is within
``xatol`` of the best in every coordinate and every value within ``fatol`` of the best
value, or after ``maxfev`` evaluations.

The difference is only in how points are scored: the ``n + 1`` vertices of the initial
simplex and the ``n`` vertices of a shrink step, which SciPy scores one at a time, are
scored in one call of ``values`` (with ``maxfev`` cutting the batch where SciPy would
stop). A linear ranker's objective scores a batch for little more than one vector (one
pass over the features for a tile of weight vectors), so the shrink steps -- about half
of the evaluations of MGA's simplex phase on LETOR-like data -- cost a fraction of what
they did. The points evaluated, their order and every value are SciPy's
(``tests/ltr/test_simplex.py`` holds it to SciPy on generated objectives).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class _Spent(Exception):
    """``maxfev`` evaluations were made."""


def minimise(
    values: Callable[[np.ndarray], np.ndarray],
    simplex: np.ndarray,
    maxfev: int,
    *,
    xatol: float = 1e-4,
    fatol: float = 1e-4,
    adaptive: bool = False,
) -> int:
    """Minimise ``values`` (rows of points -> their values) from ``simplex``
    (``(n + 1) x n``); the number of points scored (at most ``maxfev``).

    ``values`` is called with every point the method scores, in SciPy's order (a batch
    is that order's next points); what the caller keeps of them (the best point) is its
    own business.
    """
    sim = np.array(simplex, dtype=np.float64)
    n = sim.shape[1]
    if adaptive:
        dim = float(n)
        rho, chi, psi, sigma = 1, 1 + 2 / dim, 0.75 - 1 / (2 * dim), 1 - 1 / dim
    else:
        rho, chi, psi, sigma = 1, 2, 0.5, 0.5
    calls = 0

    def score(points: np.ndarray) -> np.ndarray:
        nonlocal calls
        take = min(len(points), maxfev - calls)
        if take <= 0:
            raise _Spent
        out = np.asarray(values(points[:take]), dtype=np.float64)
        calls += take
        if take < len(points):
            raise _Spent
        return out

    fsim = np.full(n + 1, np.inf)
    try:
        fsim[:] = score(sim)
    except _Spent:
        return calls
    # (the arithmetic below is SciPy's, operation for operation; only NumPy's function
    # wrappers are left out: ndarray methods and indexing give the same arrays)
    for _ in range(2):
        order = fsim.argsort()
        sim, fsim = sim[order], fsim[order]
    add = np.add.reduce
    try:
        while calls < maxfev:
            if (
                np.abs(sim[1:] - sim[0]).max() <= xatol
                and np.abs(fsim[0] - fsim[1:]).max() <= fatol
            ):
                break
            xbar = add(sim[:-1], 0) / n
            xr = (1 + rho) * xbar - rho * sim[-1]
            fxr = score(xr[None])[0]
            shrink = False
            if fxr < fsim[0]:
                xe = (1 + rho * chi) * xbar - rho * chi * sim[-1]
                fxe = score(xe[None])[0]
                if fxe < fxr:
                    sim[-1], fsim[-1] = xe, fxe
                else:
                    sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-2]:
                sim[-1], fsim[-1] = xr, fxr
            elif fxr < fsim[-1]:  # outside contraction
                xc = (1 + psi * rho) * xbar - psi * rho * sim[-1]
                fxc = score(xc[None])[0]
                if fxc <= fxr:
                    sim[-1], fsim[-1] = xc, fxc
                else:
                    shrink = True
            else:  # inside contraction
                xcc = (1 - psi) * xbar + psi * sim[-1]
                fxcc = score(xcc[None])[0]
                if fxcc < fsim[-1]:
                    sim[-1], fsim[-1] = xcc, fxcc
                else:
                    shrink = True
            if shrink:
                # every vertex but the best moves towards it: one batch (SciPy: n calls)
                sim[1:] = sim[0] + sigma * (sim[1:] - sim[0])
                fsim[1:] = score(sim[1:])
            order = fsim.argsort()
            sim, fsim = sim[order], fsim[order]
    except _Spent:
        pass
    return calls
