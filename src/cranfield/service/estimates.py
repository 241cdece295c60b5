"""A campaign's prediction-powered estimates as the dashboard shows them.

Each run's mean measure is estimated from machine labels on the whole pool and human
judgments on a random sample of topics, by :func:`cranfield.judgments.ppi.ppi_evaluate`
(prediction-powered inference: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023,
*Science* 382; PPI++: Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453). This module
only orders the runs and says where the intervals of adjacent runs separate; it holds no
second copy of the estimator.
"""

from __future__ import annotations

from ..judgments.ppi import ppi_evaluate


def campaign_estimates(
    machine,
    human,
    runs,
    measure: str = "AP",
    *,
    inclusion: dict[str, float] | float | None = None,
    confidence: float = 0.95,
    rel_level: int = 1,
) -> dict:
    """Each run's PPI++ estimate of the mean ``measure``, best first.

    Parameters
    ----------
    machine, human, runs, measure, inclusion, confidence, rel_level
        As :func:`cranfield.judgments.ppi.ppi_evaluate` takes them.

    Returns
    -------
    dict with ``measure``, ``confidence``, ``judged_fraction`` (sampled topics / pool
    topics), ``runs`` (a list, by decreasing estimate: ``run``, ``estimate``, ``low``,
    ``high``, ``machine_only``, ``separated_from_next``: the run's interval and the next
    run's do not overlap, ``low > next.high``) and ``checks``.
    """
    out = ppi_evaluate(
        machine,
        human,
        runs,
        measure,
        estimator="ppi++",
        inclusion=inclusion,
        confidence=confidence,
        rel_level=rel_level,
    )
    rows = sorted(
        (
            {
                "run": name,
                **{k: float(v[k]) for k in ("estimate", "low", "high", "machine_only")},
            }
            for name, v in out["runs"].items()
        ),
        key=lambda r: (-r["estimate"], r["run"]),
    )
    for this, after in zip(rows, rows[1:] + [None], strict=True):
        this["separated_from_next"] = after is not None and this["low"] > after["high"]
    return {
        "measure": measure,
        "confidence": out["confidence"],
        "judged_fraction": out["sampled"] / out["topics"],
        "runs": rows,
        "checks": out["checks"],
    }
