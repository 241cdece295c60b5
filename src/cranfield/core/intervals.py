r"""Per-run 95% confidence intervals of a measure's mean over topics (``cranfield eval
--ci``), two kinds:

* the t interval, the topics as the sampling units (every measure averaged by its
  mean): :math:`\bar x \pm t_{0.975,\,T-1}\, s / \sqrt T`, with :math:`s` the standard
  deviation of the :math:`T` per-topic values — for an estimator, it holds both the
  topics' spread and each estimate's own sampling error
  (:func:`cranfield.judgments.sampled.mean_interval`, as ``sample_eval --ci`` prints it);
* the Horvitz–Thompson interval of the sampled estimators that estimate their per-topic
  variance :math:`\hat V_t` (statAP and statPC, :mod:`cranfield.judgments.statap`):
  :math:`\bar x \pm z_{0.975} \sqrt{\sum_t \hat V_t} / T`, the topics fixed and only the
  judging sample random (topics sampled independently of each other). It answers "how
  far is this estimate from the value complete judgments of these topics would give",
  the t interval "how far from the mean over a population of topics".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._lazy import lazy

np = lazy("numpy", __name__, "np")

#: the level of the intervals
LEVEL = 0.95


@dataclass(frozen=True)
class RunInterval:
    """One run's intervals on one measure (NaN bounds where there is none)."""

    run: str
    measure: str
    topics: int
    mean: float
    t_low: float
    t_high: float
    ht_low: float
    ht_high: float

    def to_row(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _variances(result, measure):
    """The per-topic variances of a sampled estimator of ``result``'s queries, or None."""
    from ..judgments.sampled_run import is_sampled, sampled_of

    if not is_sampled(measure.definition) or result.judged is None:
        return None
    family = measure.definition.name
    return sampled_of(result.judged, family).columns(family, measure.cutoff, result.query_ids)[1]


def run_intervals(results) -> list[RunInterval]:
    """The intervals of every run and measure averaged by its mean (a measure aggregated
    otherwise, or a text one, has none), in the results' order."""
    from ..judgments.sampled import Z95, mean_interval

    out = []
    for r in results.runs:
        for m in results.measures:
            if m.definition.aggregate != "mean" or m.definition.kind == "str":
                continue
            values = np.asarray(r.values[m], dtype=np.float64)
            if not len(values):
                continue
            t_low, t_high = (
                mean_interval(values.tolist()) if len(values) > 1 else (math.nan, math.nan)
            )
            var = _variances(r, m)
            ht_low = ht_high = math.nan
            mean = float(np.mean(values))
            if var is not None and np.all(np.isfinite(var)):
                half = Z95 * math.sqrt(float(np.sum(var))) / len(values)
                ht_low, ht_high = mean - half, mean + half
            out.append(
                RunInterval(r.name, str(m), len(values), mean, t_low, t_high, ht_low, ht_high)
            )
    return out


def interval_table(rows: list[RunInterval], fmt: str = "text", digits: int = 4) -> str:
    """The intervals as a table (one row per run and measure) in ``fmt``
    (:func:`cranfield.output.table`); an interval that does not exist is ``-``."""
    from ..output import number_cell, table

    head = ["run", "measure", "topics", "mean", "t_low", "t_high", "ht_low", "ht_high"]
    body = [
        [x.run, x.measure, str(x.topics)]
        + [
            "-" if math.isnan(v) else number_cell(v, digits)
            for v in (x.mean, x.t_low, x.t_high, x.ht_low, x.ht_high)
        ]
        for x in rows
    ]
    return table(head, body, fmt, left=2)
