"""How far a machine assessor's labels can be trusted: its labels against people's.

:func:`judge_validation` compares a machine's qrels with human qrels on the pairs both
judged: the confusion matrix (rows: human label, columns: machine label), Cohen's kappa
(unweighted, linear and quadratic weights, Cohen 1960/1968) and Krippendorff's alpha
(Krippendorff 2011) from :mod:`cranfield.judgments.agreement`, and the bias per human
grade (the machine's mean label and how often it is above or below). With runs, it
evaluates them under both qrels and compares the system rankings (Kendall's tau and
tau_AP, Yilmaz, Aslam & Robertson 2008), the effect-of-assessor analysis of Voorhees
(2000) from :mod:`cranfield.judgments.effect`. With repeated samples of the machine's
labels (``cranfield judge --samples N -f judgments``), its self-consistency: the
agreement of the samples with each other.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .agreement import WEIGHTS, cohen_kappa, confusion_matrices, count_statistics
from .data import Judgments, Scale


def _both(human, machine, scale) -> Judgments:
    """The two qrels as judgments of two assessors, ``human`` (code 0) and ``machine``."""
    return Judgments.from_qrels([human, machine], scale=scale, names=["human", "machine"])


def judge_validation(
    human,
    machine,
    *,
    scale: Scale | str | None = None,
    runs=None,
    measure: str = "AP",
    rel_level: int = 1,
    samples: Judgments | None = None,
) -> dict:
    """A machine assessor's labels against human ones, as a JSON-ready dict.

    Parameters
    ----------
    human, machine
        Qrels (files or :class:`~cranfield.core.qrels.Qrels`); compared on the pairs both
        judged.
    scale
        The label scale (default: the integer labels present in either).
    runs
        Runs to evaluate under both qrels (anything :func:`cranfield.evaluate` takes).
    measure, rel_level
        The measure of the ranking comparison and the smallest relevant grade (also the
        threshold of the binary statistics).
    samples
        Repeated machine labels: one assessor per sample.

    Returns
    -------
    dict with ``pairs`` (judged by both), ``confusion`` (``labels``, ``matrix``),
    ``cohen_kappa_{unweighted,linear,quadratic}``, ``krippendorff_alpha`` (at the scale's
    level), ``binary`` (kappa, precision and recall of "relevant" at ``rel_level``),
    ``bias`` (per human grade: ``pairs``, ``machine_mean``, ``mean_difference``,
    ``above``, ``below``), ``mean_difference`` and, when asked for, ``rankings`` and
    ``self_consistency``.
    """
    j = _both(human, machine, scale)
    both = np.bincount(j.item, minlength=j.n_items) == 2
    if not both.any():
        raise InputError("no topic-document pair was judged by both the people and the machine")
    common = j.subset(both[j.item])
    _, mats = confusion_matrices(common)
    conf = mats[0]  # rows: human (code 0), columns: machine
    values = np.asarray(common.scale.values, np.float64)
    stats = count_statistics(common.counts(), values=common.scale.values, level=common.scale.level)
    report: dict = {
        "pairs": int(conf.sum()),
        "human_only": int(((np.bincount(j.item, minlength=j.n_items) == 1) & _only(j, 0)).sum()),
        "machine_only": int(((np.bincount(j.item, minlength=j.n_items) == 1) & _only(j, 1)).sum()),
        "scale": common.scale.describe(),
        "level": common.scale.level,
        "confusion": {
            "rows": "human",
            "labels": list(common.scale.values),
            "matrix": conf.tolist(),
        },
        **{f"cohen_kappa_{w}": float(cohen_kappa(conf, w)) for w in WEIGHTS},
        "krippendorff_alpha": float(stats["krippendorff_alpha"][0]),
        "percent_agreement": float(np.trace(conf) / conf.sum()),
    }
    rel = values >= rel_level
    b = np.array(
        [
            [conf[np.ix_(~rel, ~rel)].sum(), conf[np.ix_(~rel, rel)].sum()],
            [conf[np.ix_(rel, ~rel)].sum(), conf[np.ix_(rel, rel)].sum()],
        ]
    )
    report["binary"] = {
        "rel_level": rel_level,
        "matrix": b.tolist(),
        "cohen_kappa": float(cohen_kappa(b)),
        "precision": _share(b[1, 1], b[:, 1].sum()),
        "recall": _share(b[1, 1], b[1, :].sum()),
    }
    per = conf.sum(axis=1)
    position = np.arange(len(values))
    with np.errstate(invalid="ignore", divide="ignore"):
        machine_mean = (conf * values[None, :]).sum(axis=1) / per
        above = (conf * (position[None, :] > position[:, None])).sum(axis=1) / per
        below = (conf * (position[None, :] < position[:, None])).sum(axis=1) / per
    report["bias"] = [
        {
            "human_label": int(v),
            "pairs": int(per[g]),
            "machine_mean": _num(machine_mean[g]),
            "mean_difference": _num(machine_mean[g] - v),
            "above": _num(above[g]),
            "below": _num(below[g]),
        }
        for g, v in enumerate(common.scale.values)
    ]
    total = conf.sum()
    report["mean_difference"] = float(
        ((conf * values[None, :]).sum() - (conf * values[:, None]).sum()) / total
    )
    if runs is not None:
        from .effect import effect_on_rankings

        eff = effect_on_rankings(j, runs, measure, rel_level=rel_level)
        pair = eff["pairs"][0]
        report["rankings"] = {
            "measure": measure,
            "scores": eff["scores"],
            "kendall_tau": pair["kendall_tau"],
            "tau_ap": pair["tau_ap"],
            "largest_change": pair["largest_change"],
            "run": pair["run"],
        }
    if samples is not None:
        report["self_consistency"] = self_consistency(samples)
    return report


def self_consistency(samples: Judgments) -> dict:
    """Agreement of repeated samples of one machine assessor (one assessor per sample):
    Krippendorff's alpha, Fleiss' kappa and percent agreement over the pairs labelled
    more than once, and the share of those pairs on which every sample gave one label."""
    if samples.n_assessors < 2:
        raise InputError("self-consistency needs two or more samples (judge --samples N)")
    counts = samples.counts()
    stats = count_statistics(counts, values=samples.scale.values, level=samples.scale.level)
    m = counts.sum(axis=1)
    repeated = m >= 2
    unanimous = (counts.max(axis=1) == m) & repeated
    return {
        "samples": samples.n_assessors,
        "pairs": int(repeated.sum()),
        "krippendorff_alpha": float(stats["krippendorff_alpha"][0]),
        "fleiss_kappa": float(stats["fleiss_kappa"][0]),
        "percent_agreement": float(stats["percent_agreement"][0]),
        "unanimous": _share(unanimous.sum(), repeated.sum()),
    }


def _only(j: Judgments, assessor: int) -> np.ndarray:
    mine = np.zeros(j.n_items, bool)
    mine[j.item[j.assessor == assessor]] = True
    return mine


def _share(a, b) -> float:
    return float(a / b) if b else float("nan")


def _num(v) -> float:
    return float(v)
