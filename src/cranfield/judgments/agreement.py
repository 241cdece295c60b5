"""Agreement between assessors: percent agreement, Cohen's kappa, Scott's pi, Fleiss'
kappa, Krippendorff's alpha and Gwet's AC1.

The multi-assessor statistics are functions of the items × labels count matrix
``n[u, c]`` (how many assessors gave label ``c`` to item ``u``; ``m_u = sum_c n[u, c]``).
Only *pairable* items (``m_u >= 2``) carry information about agreement. Every statistic
is computed for many groups at once (topics, bootstrap replicates) with ``bincount``
over the items; nothing loops over items, topics or assessor pairs in Python.

Undefined values are NaN, with the reason in the report's ``notes``: no pairable item
(nothing to compare), or a chance agreement of 1 (every judgment has the same label, so
``1 - p_e = 0``; Krippendorff's expected disagreement ``D_e = 0``).

References: Cohen 1960 and 1968 (weighted kappa); Scott 1955; Fleiss 1971;
Krippendorff, *Content Analysis*, 2004/2013, ch. 12 and "Computing Krippendorff's
alpha-reliability" (2011); Gwet 2008 and *Handbook of Inter-Rater Reliability* (2014).
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from .data import LEVELS, Judgments

WEIGHTS = ("unweighted", "linear", "quadratic")


# -- sums per group -------------------------------------------------------------------------


def _group_sum(x: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum the rows of ``x`` (items × ...) per group: (n_groups × ...)."""
    shape = x.shape[1:]
    cols = int(np.prod(shape)) if shape else 1
    flat = x.reshape(len(x), cols).astype(np.float64)
    idx = (group[:, None] * cols + np.arange(cols)).ravel()
    out = np.bincount(idx, weights=flat.ravel(), minlength=n_groups * cols)
    return out.reshape((n_groups, *shape))


def _weighted_group_sum(weights: np.ndarray | None):
    """:func:`_group_sum` with each row counted ``weights[row]`` times (None: once)."""
    if weights is None:
        return _group_sum
    w = np.asarray(weights, np.float64)

    def weighted(x: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
        x = np.asarray(x, np.float64)
        return _group_sum(x * w.reshape(-1, *[1] * (x.ndim - 1)), group, n_groups)

    return weighted


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _chance_corrected(observed, chance):
    """``(p_o - p_e) / (1 - p_e)``; NaN when ``p_e`` is 1 (or either is undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        undefined = ~np.isfinite(observed) | ~np.isfinite(chance) | (chance >= 1 - 1e-12)
        return np.where(undefined, np.nan, (observed - chance) / np.where(undefined, 1, 1 - chance))


def distance(values, level: str, marginals: np.ndarray | None = None) -> np.ndarray:
    """Krippendorff's squared difference ``delta^2(c, k)`` between labels (K × K).

    nominal: 0 if ``c == k`` else 1; interval: ``(v_c - v_k)^2``; ratio:
    ``((v_c - v_k) / (v_c + v_k))^2`` (0 when both are 0); ordinal:
    ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2`` with ``n_g`` the label totals of the
    coincidence matrix (``marginals``, labels in ascending order). ``marginals`` may
    be (groups × K), giving (groups × K × K).
    """
    v = np.asarray(values, np.float64)
    k = len(v)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        return (v[:, None] - v[None, :]) ** 2
    if level == "ratio":
        s = v[:, None] + v[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(s == 0, 0.0, ((v[:, None] - v[None, :]) / np.where(s == 0, 1, s)) ** 2)
    if level == "ordinal":
        n = np.atleast_2d(np.asarray(marginals, np.float64))
        cum = np.concatenate([np.zeros((len(n), 1)), np.cumsum(n, axis=1)], axis=1)
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[:, hi + 1] - cum[:, lo]  # sum of n_g for g from lo to hi
        d = (between - (n[:, :, None] + n[:, None, :]) / 2) ** 2
        return d if np.ndim(marginals) == 2 else d[0]
    raise ParameterError("level", "one of " + ", ".join(LEVELS), level)


def count_statistics(
    counts: np.ndarray,
    group: np.ndarray | None = None,
    n_groups: int = 1,
    values=None,
    level: str = "nominal",
    *,
    weights: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Percent agreement, Fleiss' kappa, Gwet's AC1 and Krippendorff's alpha per group.

    Parameters
    ----------
    counts
        Items × labels: ``n[u, c]``.
    group
        The group of each item (0 .. n_groups-1); all items in group 0 by default.
    values
        The label values (for alpha's interval and ratio distances; default 0..K-1).
    level
        Krippendorff's level of measurement: nominal, ordinal, interval or ratio.
    weights
        How many times each row counts (default once): a row of weight ``w`` gives the
        statistics of ``w`` copies of it (the bootstrap's resampled items, collapsed).

    Returns
    -------
    dict of arrays (n_groups,): ``percent_agreement``, ``fleiss_kappa``, ``gwet_ac1``,
    ``krippendorff_alpha``, ``pairable_items``, ``judgments`` (pairable values).

    Notes
    -----
    * percent agreement ``= sum_u sum_c n_uc (n_uc - 1) / sum_u m_u (m_u - 1)``: the
      share of agreeing ordered pairs of judgments of one item, over pairable items.
    * Fleiss' kappa (Fleiss 1971) ``= (P - P_e) / (1 - P_e)`` with
      ``P = mean_u sum_c n_uc (n_uc - 1) / (m_u (m_u - 1))`` and
      ``P_e = sum_c p_c^2``, ``p_c = sum_u n_uc / sum_u m_u`` over pairable items (with
      equal ``m_u`` this is Fleiss' formula; otherwise its usual generalisation).
    * Gwet's AC1 (Gwet 2008) ``= (P - P_e) / (1 - P_e)`` with the same ``P`` and
      ``P_e = sum_c pi_c (1 - pi_c) / (K - 1)``, ``pi_c = mean_u n_uc / m_u`` over all
      judged items, ``K`` the number of labels on the scale (NaN when ``K = 1``).
    * Krippendorff's alpha ``= 1 - D_o / D_e = 1 - (n - 1) sum_ck o_ck delta_ck /
      sum_ck n_c n_k delta_ck`` with the coincidence matrix
      ``o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (m_u - 1)`` over pairable items,
      ``n_c = sum_k o_ck`` and ``n = sum_c n_c`` (Krippendorff 2011).
    """
    counts = np.asarray(counts, np.float64)
    n_items, k = counts.shape
    group = np.zeros(n_items, np.int64) if group is None else np.asarray(group, np.int64)
    values = np.arange(k) if values is None else np.asarray(values)
    _group_sum = _weighted_group_sum(weights)  # every sum below counts a row `weight` times
    m = counts.sum(axis=1)
    pairable = m >= 2
    agree = (counts * (counts - 1)).sum(axis=1)
    pairs = m * (m - 1)
    g_p = np.where(pairable, group, n_groups)  # unpairable items go to a discarded group
    ng = n_groups + 1
    sum_agree = _group_sum(agree, g_p, ng)[:n_groups]
    sum_pairs = _group_sum(pairs, g_p, ng)[:n_groups]
    n_pairable = _group_sum(np.ones(n_items), g_p, ng)[:n_groups]
    per_item = _ratio(agree, pairs)
    mean_item = _ratio(_group_sum(np.where(pairable, per_item, 0), g_p, ng)[:n_groups], n_pairable)
    totals = _group_sum(counts, g_p, ng)[:n_groups]  # (G, K)
    n_values = totals.sum(axis=1)
    p = _ratio(totals, n_values[:, None])
    fleiss = _chance_corrected(mean_item, (p**2).sum(axis=1))
    share = counts / np.where(m > 0, m, 1)[:, None]
    judged = _group_sum(np.ones(n_items), group, n_groups)
    pi = _ratio(_group_sum(share, group, n_groups), judged[:, None])
    pe_ac1 = (pi * (1 - pi)).sum(axis=1) / (k - 1) if k > 1 else np.full(n_groups, np.nan)
    ac1 = _chance_corrected(mean_item, pe_ac1)
    # coincidence matrices per group: sum_u (n_u n_u^T - diag n_u) / (m_u - 1)
    # one label c at a time, so memory stays items × K whatever the number of labels
    w = np.where(pairable, 1 / np.where(pairable, m - 1, 1), 0.0)
    weighted = counts * w[:, None]
    coincidence = np.empty((n_groups, k, k))
    for c in range(k):
        row = weighted[:, c : c + 1] * counts
        row[:, c] -= weighted[:, c]
        coincidence[:, c, :] = _group_sum(row, g_p, ng)[:n_groups]
    marg = coincidence.sum(axis=2)
    n = marg.sum(axis=1)
    if level == "ordinal":
        delta = distance(values, level, marg)
    else:
        delta = np.broadcast_to(distance(values, level), (n_groups, k, k))
    observed = (coincidence * delta).sum(axis=(1, 2))
    expected = (marg[:, :, None] * marg[:, None, :] * delta).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.where(
            (expected > 0) & (n > 1),
            1 - (n - 1) * observed / np.where(expected > 0, expected, 1),
            np.nan,
        )
    return {
        "percent_agreement": _ratio(sum_agree, sum_pairs),
        "fleiss_kappa": fleiss,
        "gwet_ac1": ac1,
        "krippendorff_alpha": alpha,
        "pairable_items": n_pairable,
        "judgments": n_values,
    }


def krippendorff_alpha(judgments: Judgments, level: str | None = None) -> float:
    """Krippendorff's alpha of all judgments (missing values allowed): see
    :func:`count_statistics`. ``level`` defaults to the scale's level."""
    level = level or judgments.scale.level
    stats = count_statistics(judgments.counts(), values=judgments.scale.values, level=level)
    return float(stats["krippendorff_alpha"][0])


def fleiss_kappa(judgments: Judgments) -> float:
    """Fleiss' kappa of all judgments: see :func:`count_statistics`."""
    return float(count_statistics(judgments.counts())["fleiss_kappa"][0])


def gwet_ac1(judgments: Judgments) -> float:
    """Gwet's AC1 of all judgments: see :func:`count_statistics`."""
    return float(count_statistics(judgments.counts())["gwet_ac1"][0])


def percent_agreement(judgments: Judgments) -> float:
    """Share of agreeing pairs of judgments of one item: see :func:`count_statistics`."""
    return float(count_statistics(judgments.counts())["percent_agreement"][0])


# -- pairs of assessors --------------------------------------------------------------------


#: Most rows of the pairwise table: pairs of assessors with an item in common. The
#: count statistics (percent agreement, Fleiss' kappa, alpha, AC1) cover any number.
MAX_PAIRS = 20_000
#: Most pairs of judgments of one item the pairwise table may look at (its work).
MAX_JUDGMENT_PAIRS = 50_000_000
#: Pairs of judgments reduced at once (bounds memory with many judgments per item).
PAIR_CHUNK = 5_000_000
#: Most (assessor, label) × (assessor, label) cells counted with one ``bincount``.
DENSE_CELLS = 1 << 20


def judgment_pairs(judgments: Judgments) -> int:
    """Pairs of judgments of the same item: ``sum_u m_u (m_u - 1) / 2``."""
    sizes = np.bincount(judgments.item, minlength=judgments.n_items).astype(np.int64)
    return int((sizes * (sizes - 1) // 2).sum())


def pairwise_limit(judgments: Judgments) -> str | None:
    """Why the pairwise table is left out (None when it is computed).

    Its rows are at most ``min(P, A (A - 1) / 2)`` for ``P`` pairs of judgments of one
    item and ``A`` assessors, and its work is ``P``: above :data:`MAX_PAIRS` rows or
    :data:`MAX_JUDGMENT_PAIRS` pairs of judgments it is refused, so time and memory
    follow the judgments, not the pairs of assessors.
    """
    n_a, k = judgments.n_assessors, judgments.scale.size
    p = judgment_pairs(judgments)
    rows = min(p, n_a * (n_a - 1) // 2)
    if rows > MAX_PAIRS:
        return f"{n_a} assessors make up to {rows:,} pairs (at most {MAX_PAIRS:,})"
    if p > MAX_JUDGMENT_PAIRS:
        return (
            f"{p:,} pairs of judgments of the same topic-document pair "
            f"(at most {MAX_JUDGMENT_PAIRS:,})"
        )
    if n_a * n_a * k * k >= 2**62:
        return f"{n_a} assessors x {k} labels overflow the pair keys"
    return None


def pairwise_feasible(judgments: Judgments) -> bool:
    """Whether the pairwise table is computed: see :func:`pairwise_limit`."""
    return pairwise_limit(judgments) is None


def confusion_matrices(judgments: Judgments) -> tuple[np.ndarray, np.ndarray]:
    """For every pair of assessors who judged an item in common: the pair (a, b) with
    ``a < b`` (codes) and the K × K confusion matrix (rows: a's label, columns: b's).

    Returns ``(pairs (P, 2), matrices (P, K, K))``, pairs in ascending order. The
    judgments are sorted by item, then assessor, and each judgment coded
    ``c = assessor × K + label``; the pairs of judgments of one item are then the
    positions ``(p, p + d)`` in the same item, for ``d = 1, 2, ...`` up to the most
    judgments of an item, and each is the cell ``c_p × A K + c_{p+d}`` (A assessors;
    ``a_p < a_{p+d}`` by the sort). The positions still in their item shrink with
    ``d``, so the work is the pairs of judgments, not items × the largest item (a
    mask over all positions while at least an eighth of them are still in their item,
    then their indices). Cells are counted by ``bincount`` over the A K × A K cells
    when those are at most :data:`DENSE_CELLS`, else reduced to their distinct values
    with their counts in pieces of about :data:`PAIR_CHUNK`, so memory follows the
    judgments and the table's own size, never assessors²; refused (:class:`ParameterError`) beyond
    :func:`pairwise_limit`.
    """
    k = judgments.scale.size
    n_a = judgments.n_assessors
    why = pairwise_limit(judgments)
    if why is not None:
        raise ParameterError("pairs of assessors for pairwise statistics", "fewer", why)
    width = n_a * k
    cells = width * width
    dense = cells <= DENSE_CELLS
    assessor = judgments.assessor.astype(np.int64)
    if judgments.n_items * n_a < 2**62:
        order = np.argsort(judgments.item * n_a + assessor, kind="stable")
    else:
        order = np.lexsort((assessor, judgments.item))
    item = judgments.item[order]
    code = assessor[order] * k + judgments.label[order].astype(np.int64)
    totals = np.zeros(cells if dense else 0, np.int64)
    keys = np.zeros(0, np.int64)
    pending: list[np.ndarray] = []
    buffered = 0

    def reduce(keys, totals, pending):
        if dense:
            return keys, totals + np.bincount(np.concatenate(pending), minlength=cells)
        new, n_new = np.unique(np.concatenate(pending), return_counts=True)
        keys, inverse = np.unique(np.concatenate([keys, new]), return_inverse=True)
        totals = np.bincount(
            inverse, weights=np.concatenate([totals, n_new]), minlength=len(keys)
        ).astype(np.int64)
        return keys, totals

    # positions p whose item holds p + d: a mask over all positions while at least
    # an eighth of them have a partner, then their indices (the work stays ~ the pairs)
    same = item[1:] == item[:-1]
    mask, first, d = same, None, 1
    while True:
        if first is None and 8 * np.count_nonzero(mask) <= len(mask):
            first = np.flatnonzero(mask)
        if first is None:
            piece = code[:-d][mask] * width + code[d:][mask]
            mask = mask[:-1] & same[d:]
        elif len(first):
            piece = code[first] * width + code[first + d]
            first = first[first + d + 1 < len(item)]
            first = first[item[first + d + 1] == item[first]]
        else:
            break
        d += 1
        pending.append(piece)
        buffered += len(piece)
        if buffered >= PAIR_CHUNK:
            keys, totals = reduce(keys, totals, pending)
            pending, buffered = [], 0
    if pending:
        keys, totals = reduce(keys, totals, pending)
    if dense:
        keys = np.flatnonzero(totals)
        totals = totals[keys]
    left, right = keys // width, keys % width
    pair_key = (left // k) * n_a + right // k
    pair_keys, cell_pair = np.unique(pair_key, return_inverse=True)
    mats = np.zeros((len(pair_keys), k * k), np.int64)
    mats[cell_pair, (left % k) * k + right % k] = totals
    pairs = np.stack([pair_keys // n_a, pair_keys % n_a], axis=1)
    return pairs, mats.reshape(len(pair_keys), k, k)


def kappa_weights(k: int, weights: str) -> np.ndarray:
    """Disagreement weights (Cohen 1968) on label positions: 0/1, ``|i-j|``, ``(i-j)^2``."""
    i = np.arange(k)
    if weights == "unweighted":
        return 1.0 - np.eye(k)
    if weights == "linear":
        return np.abs(i[:, None] - i[None, :]).astype(np.float64)
    if weights == "quadratic":
        return ((i[:, None] - i[None, :]) ** 2).astype(np.float64)
    raise ParameterError("weights", "one of " + ", ".join(WEIGHTS), weights)


def cohen_kappa(confusion: np.ndarray, weights: str = "unweighted") -> np.ndarray:
    """Cohen's kappa of confusion matrices (..., K, K).

    ``kappa = 1 - sum_ij w_ij o_ij / sum_ij w_ij e_ij`` with ``o`` the observed and
    ``e_ij = r_i c_j / n`` the chance counts (Cohen 1960; weights Cohen 1968); NaN when
    the chance disagreement is 0 (both assessors used one and the same label only).
    """
    c = np.asarray(confusion, np.float64)
    w = kappa_weights(c.shape[-1], weights)
    n = c.sum(axis=(-2, -1))
    expected = c.sum(axis=-1)[..., :, None] * c.sum(axis=-2)[..., None, :]
    expected = expected / np.where(n > 0, n, 1)[..., None, None]
    num = (w * c).sum(axis=(-2, -1))
    den = (w * expected).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 1 - num / np.where(den > 0, den, 1), np.nan)


def scott_pi(confusion: np.ndarray) -> np.ndarray:
    """Scott's pi (Scott 1955) of confusion matrices (..., K, K):
    ``(p_o - p_e) / (1 - p_e)``, ``p_e = sum_c ((r_c + c_c) / 2n)^2``."""
    c = np.asarray(confusion, np.float64)
    n = c.sum(axis=(-2, -1))
    safe = np.where(n > 0, n, 1)
    p_o = np.where(n > 0, np.trace(c, axis1=-2, axis2=-1) / safe, np.nan)
    pi = (c.sum(axis=-1) + c.sum(axis=-2)) / (2 * safe[..., None])
    return _chance_corrected(p_o, (pi**2).sum(axis=-1))


PAIR_STATISTICS = (
    "percent_agreement",
    "cohen_kappa_unweighted",
    "cohen_kappa_linear",
    "cohen_kappa_quadratic",
    "scott_pi",
)


def pairwise(judgments: Judgments, statistics=PAIR_STATISTICS) -> list[dict]:
    """Per pair of assessors with items in common: items, percent agreement, Cohen's
    kappa (unweighted, linear, quadratic) and Scott's pi (only those of
    ``statistics``, names of :data:`PAIR_STATISTICS`, are computed)."""
    pairs, mats = confusion_matrices(judgments)
    if not len(pairs):
        return []
    n = mats.sum(axis=(1, 2))
    cols = {}
    for s in PAIR_STATISTICS:
        if s not in statistics:
            continue
        if s == "percent_agreement":
            cols[s] = np.trace(mats, axis1=1, axis2=2) / n
        elif s == "scott_pi":
            cols[s] = scott_pi(mats)
        else:
            cols[s] = cohen_kappa(mats, s.removeprefix("cohen_kappa_"))
    names = judgments.assessors
    return [
        {
            "a": names[a],
            "b": names[b],
            "items": int(n[p]),
            **{key: float(v[p]) for key, v in cols.items()},
        }
        for p, (a, b) in enumerate(pairs.tolist())
    ]


# -- bootstrap -----------------------------------------------------------------------------

STATISTICS = ("percent_agreement", "fleiss_kappa", "gwet_ac1", "krippendorff_alpha")


def bootstrap(
    counts: np.ndarray,
    *,
    values=None,
    level: str = "nominal",
    replicates: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    chunk_rows: int = 1_000_000,
) -> dict[str, tuple[float, float]]:
    """Percentile bootstrap intervals (Efron & Tibshirani 1993) of the count statistics,
    resampling items with replacement (``numpy.random.default_rng(seed)``).

    A replicate draws ``n_items`` item indices (``rng.integers``, ``chunk_rows`` draws
    of several replicates at a time). The statistics are sums over the drawn items of
    per-item terms that depend only on the item's row of counts, and items share few
    distinct rows (patterns: one per way the assessors split over the labels), so each
    replicate is reduced to how many times it drew each pattern, and all replicates of a
    chunk are one weighted call of :func:`count_statistics` with a group per replicate
    (rows: replicate × pattern, weights: the number of draws). The cost is the draws,
    not ``replicates × items`` rows of statistics. A replicate whose statistic is
    undefined is left out; the interval is (nan, nan) when fewer than half are defined.
    A bar is drawn on a terminal (:class:`cranfield.progress.Progress`).
    """
    from ..progress import Progress

    counts = np.asarray(counts)
    n_items = len(counts)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, chunk_rows // max(n_items, 1))
    out: dict[str, list] = {s: [] for s in STATISTICS}
    if n_items:
        patterns, pattern_of = np.unique(counts, axis=0, return_inverse=True)
        pattern_of = pattern_of.reshape(-1)
    done = 0
    with Progress(replicates, "bootstrap") as bar:
        while done < replicates and n_items:
            b = min(per_chunk, replicates - done)
            stats = _replicate_statistics(
                rng.integers(0, n_items, size=(b, n_items)), pattern_of, patterns, values, level
            )
            for s in STATISTICS:
                out[s].append(stats[s])
            done += b
            bar.set(done, "replicates")
    alpha = (1 - confidence) / 2
    result = {}
    for s in STATISTICS:
        v = np.concatenate(out[s]) if out[s] else np.array([])
        v = v[np.isfinite(v)]
        if n_items == 0 or len(v) < replicates / 2:
            result[s] = (float("nan"), float("nan"))
        else:
            lo, hi = np.quantile(v, [alpha, 1 - alpha])
            result[s] = (float(lo), float(hi))
    return result


def _replicate_statistics(
    draws: np.ndarray, pattern_of: np.ndarray, patterns: np.ndarray, values, level: str
) -> dict[str, np.ndarray]:
    """:func:`count_statistics` of each row of ``draws`` (replicates × item indices):
    the patterns each replicate drew, with how many times, as weighted rows."""
    b = len(draws)
    n_patterns = len(patterns)
    key = (np.arange(b)[:, None] * n_patterns + pattern_of[draws]).ravel()
    times = np.bincount(key, minlength=b * n_patterns)
    drawn = np.flatnonzero(times)
    return count_statistics(
        patterns[drawn % n_patterns],
        drawn // n_patterns,
        b,
        values,
        level,
        weights=times[drawn],
    )


# -- the report ----------------------------------------------------------------------------


#: Every statistic ``agreement_report`` can show (``statistics=``).
REPORT_STATISTICS = (*STATISTICS, *PAIR_STATISTICS[1:])


def _stats_dict(stats: dict, g: int, chosen=STATISTICS) -> dict:
    out = {s: float(stats[s][g]) for s in STATISTICS if s in chosen}
    out["pairable_items"] = int(stats["pairable_items"][g])
    return out


def _notes(j: Judgments, stats: dict) -> list[str]:
    notes = []
    if stats["pairable_items"][0] == 0:
        notes.append("no item was judged by two assessors: agreement is undefined (nan)")
    elif j.scale.size < 2:
        # Gwet (2008): chance agreement sum_k pi_k (1 - pi_k) / (K - 1) needs K >= 2
        notes.append(
            "the scale has one label: the chance agreement of the kappas, pi and alpha is "
            "1, and Gwet's AC1 (whose chance agreement divides by the number of labels "
            "minus 1) is undefined too, so all are undefined (nan); give the whole scale "
            "(--scale) if other labels were possible"
        )
    elif len(np.unique(j.label)) < 2:
        notes.append(
            "every judgment has the same label: the chance agreement of the kappas, pi "
            "and alpha is 1, so they are undefined (nan); Gwet's AC1 is 1"
        )
    return notes


def _section(
    j: Judgments,
    level: str,
    replicates: int,
    confidence: float,
    seed: int,
    chosen=REPORT_STATISTICS,
) -> dict:
    counts = j.counts()
    values = j.scale.values
    overall = count_statistics(counts, None, 1, values, level)
    topics, group = j.item_topic_codes()
    per = count_statistics(counts, group, len(topics), values, level)
    section: dict = {"scale": j.scale.describe(), "level": level}
    section["overall"] = _stats_dict(overall, 0, chosen)
    if replicates > 0 and any(s in chosen for s in STATISTICS):
        ci = bootstrap(
            counts,
            values=values,
            level=level,
            replicates=replicates,
            confidence=confidence,
            seed=seed,
        )
        section["overall"]["ci"] = {s: list(v) for s, v in ci.items() if s in chosen}
    section["per_topic"] = {str(t): _stats_dict(per, g, chosen) for g, t in enumerate(topics)}
    pair_stats = [s for s in PAIR_STATISTICS if s in chosen]
    wanted = any(s in chosen for s in PAIR_STATISTICS[1:])  # not percent agreement alone
    why = pairwise_limit(j) if wanted else None
    if wanted:
        section["pairs"] = pairwise(j, pair_stats) if why is None else []
    if wanted and j.n_assessors == 2:
        _, mats = confusion_matrices(j)
        section["confusion"] = {
            "rows": j.assessors[0],
            "columns": j.assessors[1],
            "labels": list(values),
            "matrix": mats[0].tolist() if len(mats) else [],
        }
    section["notes"] = _notes(j, overall)
    if why is not None:
        section["notes"].append(
            f"pairwise statistics left out: {why} (percent agreement, Fleiss' kappa, "
            "alpha and AC1 cover them all)"
        )
    return section


def agreement_report(
    judgments: Judgments,
    *,
    threshold: int | None = None,
    level: str | None = None,
    replicates: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    statistics=None,
) -> dict:
    """Everything ``cranfield agreement`` shows, as a JSON-ready dict.

    ``graded``: the statistics on the declared scale; ``binary`` (when ``threshold``
    is given): the same with labels ``>= threshold`` as relevant (nominal level). Each
    has ``overall`` (with percentile bootstrap intervals over items when
    ``replicates > 0``), ``per_topic``, ``pairs`` (every pair of assessors with items
    in common) and, for two assessors, their ``confusion`` matrix.

    ``statistics`` (names of :data:`REPORT_STATISTICS`; None: all) chooses what is
    computed and shown: ``overall`` and ``per_topic`` hold the chosen ones of
    :data:`STATISTICS` (and ``pairable_items``); ``pairs`` and ``confusion`` are there
    only when a pairwise statistic other than percent agreement is chosen (Cohen's
    kappas, Scott's pi), with the chosen ones of :data:`PAIR_STATISTICS`.
    """
    if replicates < 0:
        raise ParameterError("bootstrap replicates", "an integer >= 0", replicates)
    if not 0 < confidence < 1:
        raise ParameterError("confidence", "a number in (0, 1)", confidence)
    chosen = REPORT_STATISTICS if statistics is None else tuple(statistics)
    unknown = [s for s in chosen if s not in REPORT_STATISTICS]
    if unknown or not chosen:
        raise ParameterError(
            "statistics", "names among " + ", ".join(REPORT_STATISTICS), ",".join(unknown)
        )
    level = level or judgments.scale.level
    report = {
        "source": judgments.source,
        "judgments": len(judgments),
        "items": judgments.n_items,
        "assessors": list(judgments.assessors),
        "bootstrap": {
            "replicates": replicates,
            "confidence": confidence,
            "seed": seed,
        },
        "graded": _section(judgments, level, replicates, confidence, seed, chosen),
    }
    if threshold is not None:
        report["threshold"] = threshold
        report["binary"] = _section(
            judgments.binarised(threshold), "nominal", replicates, confidence, seed, chosen
        )
    return report
