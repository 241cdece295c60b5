"""Assessor quality: who to retrain or exclude, with the reasons.

Per assessor: accuracy on gold (honeypot) pairs, agreement with the aggregate, the
Dawid–Skene confusion matrix and the chance-corrected accuracy it implies, time per
judgment, straight-lining and implausibly fast work, combined into a score in [0, 1]
with the reasons listed. Everything is computed with ``bincount`` over judgments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .aggregate import Aggregate, dawid_skene
from .data import Judgments


@dataclass(frozen=True)
class Thresholds:
    """When a reason is given (each can be tuned).

    Attributes
    ----------
    min_kappa
        Dawid–Skene chance-corrected accuracy below this: answers barely depend on the
        true label (a spammer's are independent of it: 0).
    min_gold_accuracy
        Accuracy on gold pairs below this (with at least ``min_gold`` gold pairs).
    min_agreement
        Share of labels equal to the aggregate's below this.
    fast_fraction
        Median seconds per judgment below this fraction of the crowd's median.
    min_judgments
        Straight-lining is judged only from this many judgments on.
    """

    min_kappa: float = 0.2
    min_gold_accuracy: float = 0.7
    min_gold: int = 3
    min_agreement: float = 0.5
    fast_fraction: float = 0.25
    min_judgments: int = 10

    def __post_init__(self) -> None:
        for name in ("min_kappa", "min_gold_accuracy", "min_agreement", "fast_fraction"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 0 <= v <= 1):
                raise ParameterError(name, "a number from 0 to 1", v)
        for name in ("min_gold", "min_judgments"):
            v = getattr(self, name)
            if not (isinstance(v, int) and v >= 1):
                raise ParameterError(name, "an integer >= 1", v)


#: The per-assessor columns of :func:`assessor_columns`, in the order of the rows.
COLUMNS = (
    "judgments",
    "gold_pairs",
    "gold_accuracy",
    "agreement_with_aggregate",
    "accuracy",
    "kappa",
    "median_seconds",
    "top_label_share",
    "score",
)

#: The keys of an assessor's row (:func:`assessor_rows`, ``cranfield assessors -f json``),
#: in their order.
ROW_FIELDS = ("assessor", *COLUMNS[:6], "confusion", *COLUMNS[6:], "reasons")


def assessor_columns(
    j: Judgments,
    *,
    gold=None,
    aggregate: Aggregate | None = None,
    thresholds: Thresholds | None = None,
) -> dict:
    """Every assessor's quality as whole arrays (one entry per assessor code).

    Returns a dict with the arrays of :data:`COLUMNS`, ``confusion`` (assessors × true
    label × given label), the reason flags ``spammer``, ``low_gold``, ``disagrees``,
    ``straight``, ``fast`` (booleans), ``order`` (assessor codes, worst first: by score,
    then name), ``crowd_median`` and ``thresholds``. Time and memory are
    O(judgments + assessors × labels²): nothing loops over assessors or pairs of them.
    :func:`assessor_rows` turns it into :func:`assessor_quality`'s dicts.
    """
    th = thresholds or Thresholds()
    agg = aggregate if aggregate is not None else dawid_skene(j)
    n_a, k = j.n_assessors, j.scale.size
    per = np.bincount(j.assessor, minlength=n_a).astype(np.float64)
    decided = agg.label[j.item] >= 0
    same = (agg.label[j.item] == j.label) & decided
    agreement = np.bincount(j.assessor, weights=same, minlength=n_a) / np.maximum(
        np.bincount(j.assessor, weights=decided, minlength=n_a), 1
    )
    conf = agg.info.get("confusion")
    priors = np.asarray(agg.info.get("priors", []), np.float64)
    if conf is None:  # estimate with Dawid–Skene anyway for the confusion matrices
        ds = dawid_skene(j)
        conf, priors = ds.info["confusion"], np.asarray(ds.info["priors"])
    accuracy = np.einsum("k,akk->a", priors, conf)
    rate = np.einsum("l,alk->ak", priors, conf)
    chance = rate @ priors
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(chance < 1, (accuracy - chance) / (1 - chance), np.nan)
    gold_n = np.zeros(n_a)
    gold_acc = np.full(n_a, np.nan)
    if gold is not None:
        g = j.gold_codes(gold)[j.item]
        has = g >= 0
        gold_n = np.bincount(j.assessor, weights=has, minlength=n_a)
        right = np.bincount(j.assessor, weights=has & (g == j.label), minlength=n_a)
        gold_acc = np.where(gold_n > 0, right / np.maximum(gold_n, 1), np.nan)
    label_counts = np.bincount(j.assessor * k + j.label, minlength=n_a * k).reshape(n_a, k)
    top_share = label_counts.max(axis=1) / np.maximum(per, 1)
    crowd_labels = int((np.bincount(j.label, minlength=k) > 0).sum())
    median_s = np.full(n_a, np.nan)
    crowd_median = np.nan
    if j.seconds is not None and np.isfinite(j.seconds).any():
        ok = np.isfinite(j.seconds)
        m = int(ok.sum())
        mid = np.partition(j.seconds[ok], [(m - 1) // 2, m // 2])[[(m - 1) // 2, m // 2]]
        crowd_median = float(mid[0] + (mid[1] - mid[0]) / 2)  # no overflow near 1e308
        order = np.lexsort((j.seconds[ok], j.assessor[ok]))
        who, secs = j.assessor[ok][order], j.seconds[ok][order]
        n_ok = np.bincount(who, minlength=n_a)
        start = np.concatenate([[0], np.cumsum(n_ok)[:-1]])
        has_t = n_ok > 0
        lo = start + (n_ok - 1) // 2
        hi = start + n_ok // 2
        low, high = secs[lo[has_t]], secs[hi[has_t]]
        median_s[has_t] = low + (high - low) / 2  # seconds >= 0: no overflow near 1e308
    finite = np.isfinite(kappa)
    score = np.where(finite, np.clip(np.where(finite, kappa, 0), 0, 1), 0.0)
    enough_gold = gold_n >= th.min_gold
    score = np.where(enough_gold, np.minimum(score, gold_acc), score)
    straight = (per >= th.min_judgments) & (label_counts.max(axis=1) == per) & (crowd_labels > 1)
    with np.errstate(invalid="ignore"):
        fast = np.isfinite(median_s) & (median_s < th.fast_fraction * crowd_median)
    score = np.where(straight, score / 2, score)
    score = np.where(fast, score / 2, score)
    names = np.asarray(j.assessors, dtype=str)
    order = np.lexsort((np.argsort(np.argsort(names, kind="stable")), score))
    return {
        "judgments": per.astype(np.int64),
        "gold_pairs": gold_n.astype(np.int64),
        "gold_accuracy": gold_acc,
        "agreement_with_aggregate": agreement,
        "accuracy": accuracy,
        "kappa": kappa,
        "median_seconds": median_s,
        "top_label_share": top_share,
        "score": score,
        "confusion": conf,
        "spammer": finite & (np.where(finite, kappa, 0) < th.min_kappa),
        "low_gold": enough_gold & (np.where(enough_gold, gold_acc, 1) < th.min_gold_accuracy),
        "disagrees": agreement < th.min_agreement,
        "straight": straight,
        "fast": fast,
        "order": order,
        "crowd_median": crowd_median,
        "thresholds": th,
    }


#: The reason flags of :func:`assessor_columns`, in the order the reasons are given.
FLAGS = ("spammer", "low_gold", "disagrees", "straight", "fast")


def _texts(flag: str, cols: dict, codes: np.ndarray) -> list[str]:
    """The reason of ``flag`` for each assessor code in ``codes`` (all flagged)."""
    th: Thresholds = cols["thresholds"]
    if flag == "spammer":
        return [
            f"answers barely depend on the true label (Dawid-Skene chance-corrected "
            f"accuracy {v:.2f} < {th.min_kappa:g}): a likely spammer"
            for v in cols["kappa"][codes].tolist()
        ]
    if flag == "low_gold":
        return [
            f"accuracy {v:.2f} on {n} gold pairs < {th.min_gold_accuracy:g}"
            for v, n in zip(
                cols["gold_accuracy"][codes].tolist(),
                cols["gold_pairs"][codes].tolist(),
                strict=True,
            )
        ]
    if flag == "disagrees":
        return [
            f"agrees with the aggregate on {v:.2f} of the pairs < {th.min_agreement:g}"
            for v in cols["agreement_with_aggregate"][codes].tolist()
        ]
    if flag == "straight":
        return [
            f"the same label for all {n} judgments (straight-lining)"
            for n in cols["judgments"][codes].tolist()
        ]
    crowd = cols["crowd_median"]
    return [
        f"median {v:.3g} s per judgment, under {th.fast_fraction:g} of the crowd's median "
        f"{crowd:.3g} s (implausibly fast)"
        for v in cols["median_seconds"][codes].tolist()
    ]


def assessor_reasons(cols: dict, codes: np.ndarray) -> list[list[str]]:
    """The reasons given for each assessor code in ``codes``, in :data:`FLAGS` order
    (one pass per flag over the flagged assessors only)."""
    out: list[list[str]] = [[] for _ in range(len(codes))]
    for flag in FLAGS:
        hit = np.flatnonzero(cols[flag][codes])
        for i, text in zip(hit.tolist(), _texts(flag, cols, codes[hit]), strict=True):
            out[i].append(text)
    return out


def assessor_rows(
    j: Judgments, cols: dict, start: int = 0, stop: int | None = None, *, undefined=np.nan
):
    """The dicts of :func:`assessor_quality` for positions ``start:stop`` of the worst-
    first order (a slice, so a caller can write a million assessors in pieces);
    ``undefined`` stands for every non-finite number (None: ready for JSON)."""
    fields = assessor_fields(j, cols, cols["order"][start:stop])
    columns = [_values(v, undefined) if isinstance(v, np.ndarray) else v for v in fields.values()]
    return [dict(zip(fields, row, strict=True)) for row in zip(*columns, strict=True)]


def assessor_fields(j: Judgments, cols: dict, codes: np.ndarray) -> dict:
    """The fields of the rows of the assessors ``codes`` (of :func:`assessor_columns`),
    a column each, keyed in :data:`ROW_FIELDS` order: the names and the reasons as lists
    of strings and lists, every other field an array (``confusion``: assessors × true
    label × given label)."""
    fields = {
        "assessor": [j.assessors[a] for a in codes.tolist()],
        "confusion": cols["confusion"][codes],
        "reasons": assessor_reasons(cols, codes),
        **{c: cols[c][codes] for c in COLUMNS},
    }
    return {f: fields[f] for f in ROW_FIELDS}


def _values(x: np.ndarray, undefined) -> list:
    """``x.tolist()`` with ``undefined`` for every non-finite float."""
    if x.dtype.kind != "f" or (undefined is not None and np.isnan(undefined)):
        return x.tolist()
    finite = np.isfinite(x)
    if finite.all():
        return x.tolist()
    out = x.astype(object)
    out[~finite] = undefined
    return out.tolist()


def assessor_quality(
    j: Judgments,
    *,
    gold=None,
    aggregate: Aggregate | None = None,
    thresholds: Thresholds | None = None,
) -> list[dict]:
    """One dict per assessor (sorted by score, worst first).

    Keys: ``assessor``, ``judgments``, ``gold_pairs``, ``gold_accuracy``,
    ``agreement_with_aggregate`` (share of the assessor's labels equal to the aggregate
    label of the pair, abstentions left out), ``accuracy`` (Dawid–Skene estimate
    ``sum_k p_k pi[k, k]``), ``kappa`` (``(accuracy - chance) / (1 - chance)``,
    ``chance = sum_k p_k q_k`` with ``q_k = sum_l p_l pi[l, k]`` the assessor's rate of
    label ``k``; 0 for a spammer, whose rows of ``pi`` are equal: Raykar & Yu 2012),
    ``confusion`` (rows: true label, columns: given), ``median_seconds``,
    ``top_label_share``, ``score`` and ``reasons``.

    The score is ``kappa`` clipped to [0, 1], capped by the gold accuracy when there
    are at least ``min_gold`` gold pairs, and halved for each behavioural reason
    (straight-lining, implausibly fast work). Computed whole-array by
    :func:`assessor_columns`.
    """
    cols = assessor_columns(j, gold=gold, aggregate=aggregate, thresholds=thresholds)
    return assessor_rows(j, cols)


def judgments_needed(
    accuracies,
    *,
    target: float = 0.95,
    labels: int = 2,
    spammers=None,
    method: str = "majority",
    items: int = 2000,
    seed: int = 0,
) -> dict:
    """How many judgments per pair reach ``target`` label accuracy, by simulation.

    For ``n = 1, 2, ...`` up to the number of assessors, ``items`` pairs with uniformly
    drawn true labels are judged by ``n`` distinct assessors of the crowd (see
    :func:`~cranfield.judgments.simulate.simulate_crowd`) and aggregated by ``method``
    (``majority`` with random ties, or ``dawid-skene``). Returns ``{"accuracy": {n:
    share of pairs labelled correctly}, "needed": the smallest n reaching target, or
    None}``.
    """
    from .aggregate import aggregate as combine
    from .simulate import simulate_crowd

    if not 0 < target <= 1:
        raise ParameterError("target", "a number in (0, 1]", target)
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, labels, items)
    acc: dict[int, float] = {}
    needed = None
    for n in range(1, len(accuracies) + 1):
        j = simulate_crowd(
            truth,
            accuracies,
            labels=labels,
            per_item=n,
            spammers=spammers,
            seed=seed + n,
        )
        options = {"seed": seed} if method == "majority" else {}
        result = combine(j, method, **options)
        order = np.array([int(d[1:]) for d in j.documents])
        acc[n] = float(np.mean(result.label == truth[order]))
        if acc[n] >= target:
            needed = n
            break
    return {"accuracy": acc, "needed": needed, "target": target, "method": method}
