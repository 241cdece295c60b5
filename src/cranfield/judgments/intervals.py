r"""95% confidence intervals of the sampled estimators: ``sample_eval --ci``'s lines
(:func:`extra_text`), and per run, of a measure's mean over topics (``cranfield eval
--ci``), two kinds:

* the t interval, the topics as the sampling units (every measure averaged by its
  mean): :math:`\bar x \pm t_{0.975,\,T-1}\, s / \sqrt T`, with :math:`s` the standard
  deviation of the :math:`T` per-topic values — for an estimator, it holds both the
  topics' spread and each estimate's own sampling error
  (:func:`cranfield.compare.mean_difference_ci` against 0; the numbers of
  :func:`mean_interval`, as ``sample_eval --ci`` prints them);
* the judging sample's interval of the sampled estimators, from their per-topic
  variances :math:`\hat V_t` (Horvitz–Thompson for statAP and statPC,
  :mod:`cranfield.core.statap`; the stratified jackknife for xinfAP and infNDCG,
  :func:`cranfield.core.sampled.jackknife_variances`):
  :math:`\bar x \pm z_{0.975} \sqrt{\sum_t \hat V_t} / T`, the topics fixed and only the
  judging sample random (topics sampled independently of each other). It answers "how
  far is this estimate from the value complete judgments of these topics would give",
  the t interval "how far from the mean over a population of topics".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._lazy import lazy
from ..core.sampled import SampledEvaluation

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
    sample_low: float
    sample_high: float

    def to_row(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _variances(result, measure):
    """The per-topic variances of a sampled estimator of ``result``'s queries, or None."""
    from ..core.sampled_run import is_sampled, sampled_of

    if not is_sampled(measure.definition) or result.judged is None:
        return None
    family = measure.definition.name
    run = sampled_of(result.judged, family)
    return run.columns(family, measure.cutoff, result.query_ids, variances=True)[1]


def run_intervals(results) -> list[RunInterval]:
    """The intervals of every run and measure averaged by its mean (a measure aggregated
    otherwise, or a text one, has none), in the results' order."""
    from ..compare import mean_difference_ci

    out = []
    for r in results.runs:
        for m in results.measures:
            if m.definition.aggregate != "mean" or m.definition.kind == "str":
                continue
            values = np.asarray(r.values[m], dtype=np.float64)
            if not len(values):
                continue
            t_low = t_high = math.nan
            if len(values) > 1:  # (the one t interval of cranfield: compare's)
                t_low, t_high = mean_difference_ci(values, np.zeros_like(values), LEVEL)
            var = _variances(r, m)
            sample_low = sample_high = math.nan
            mean = float(np.mean(values))
            if var is not None and np.all(np.isfinite(var)):
                half = Z95 * math.sqrt(float(np.sum(var))) / len(values)
                sample_low, sample_high = mean - half, mean + half
            out.append(
                RunInterval(
                    r.name, str(m), len(values), mean, t_low, t_high, sample_low, sample_high
                )
            )
    return out


def interval_table(rows: list[RunInterval], fmt: str = "text", digits: int = 4) -> str:
    """The intervals as a table (one row per run and measure) in ``fmt``
    (:func:`cranfield.output.table`); an interval that does not exist is
    :data:`cranfield.output.UNDEFINED`, as every undefined cell."""
    from ..output import number_cell, table

    head = ["run", "measure", "topics", "mean", "t_low", "t_high", "sample_low", "sample_high"]
    body = [
        [x.run, x.measure, str(x.topics)]
        + [number_cell(v, digits) for v in (x.mean, x.t_low, x.t_high, x.sample_low, x.sample_high)]
        for x in rows
    ]
    return table(head, body, fmt, left=2)


#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


def mean_interval(values: list[float], variances: list[float] | None = None) -> tuple:
    r"""95% interval of the mean over topics, the topics as the sampling units:
    :math:`\bar x \pm t_{0.975, T-1}\, s/\sqrt T` (s: the standard deviation of the
    topics' estimates, which holds both the topics' spread and each estimate's sampling
    error). One topic: its own interval from ``variances`` (none without them)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        half = Z95 * math.sqrt(variances[0]) if variances else math.nan
        return mean - half, mean + half
    from ..distributions import t_ppf

    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t_ppf(0.975, n - 1)) * spread / math.sqrt(n)
    return mean - half, mean + half


def extra_text(result: SampledEvaluation, per_topic: bool = False, ci: bool = False) -> str:
    """What ``sample_eval --statap``/``--ci`` add after sample_eval's own lines, in its
    layout: statAP and statPC@10 (when computed), and with ``ci`` the 95% intervals
    ``lo hi``: per topic (with ``per_topic``) for infAP and infNDCG (the stratified
    jackknife, when ``result`` has their variances) and statAP and statPC@10
    (Horvitz-Thompson, :mod:`cranfield.core.statap`), and of the mean over topics for
    every estimate (:func:`mean_interval`)."""
    stat = result.stat or []
    lines = []

    def interval(name: str, topic: str, lo: float, hi: float) -> None:
        tab = "\t\t" if len(name) + 5 < 8 else "\t"
        lines.append(f"{name}_ci95{tab}{topic}\t\t{lo:6.4f} {hi:6.4f}")

    def topic_lines(name: str, topic: str, value: float, var: float) -> None:
        tab = "\t\t" if len(name) < 8 else "\t"
        lines.append(f"{name}{tab}{topic}\t\t{value:6.4f}")
        if ci:
            half = Z95 * math.sqrt(var)
            interval(name, topic, value - half, value + half)

    jack = result.variances
    if per_topic and ci and jack is not None:
        for e, (var_ap, var_ndcg) in zip(result.topics, jack, strict=True):
            for name, value, var in (
                ("infAP", e.inf_ap, var_ap),
                ("infNDCG", e.inf_ndcg, var_ndcg),
            ):
                half = Z95 * math.sqrt(var)
                interval(name, e.topic, value - half, value + half)
    if per_topic:
        for e in stat:
            topic_lines("statAP", e.topic, e.stat_ap, e.stat_ap_var)
            topic_lines("statPC@10", e.topic, e.stat_pc, e.stat_pc_var)
    if stat:
        for name, value, var in (
            ("statAP", [e.stat_ap for e in stat], [e.stat_ap_var for e in stat]),
            ("statPC@10", [e.stat_pc for e in stat], [e.stat_pc_var for e in stat]),
        ):
            tab = "\t\t" if len(name) < 8 else "\t"
            lines.append(f"{name}{tab}all\t\t{sum(value) / len(value):6.4f}")
            if ci:
                interval(name, "all", *mean_interval(value, var))
    if ci and (len(result.topics) > 1 or jack is not None):  # one topic: its own interval
        var_ap = [v[0] for v in jack] if jack is not None else None
        var_ndcg = [v[1] for v in jack] if jack is not None else None
        interval("infAP", "all", *mean_interval([e.inf_ap for e in result.topics], var_ap))
        interval("infNDCG", "all", *mean_interval([e.inf_ndcg for e in result.topics], var_ndcg))
    return "\n".join(lines) + "\n" if lines else ""
