"""How closely a reproduced or replicated experiment matches the original one
(Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer & Soboroff, SIGIR 2020).

An experiment is an advanced run A compared with a baseline run B. A *reproduction*
runs both again on the same collection (B', A'); a *replication* runs them on another
collection (other topics, other qrels). Measured here, as the reference implementation
`repro_eval` (Breuer et al., 0.5.0) measures them:

* document order (reproduction only): Kendall's tau union (KTU) and rank-biased
  overlap (RBO) of each original ranking and its reproduction, topic by topic;
* effectiveness (reproduction only): the RMSE of the per-topic scores;
* overall effect: the effect ratio (ER) and the delta relative improvement (ΔRI);
* significance: a paired t-test of each original run against its reproduction, an
  unpaired t-test against its replication.

Where cranfield's result differs from repro_eval's (rankings of different lengths,
topics missing from one run, undefined ratios), docs/meta-evaluation.md says how.
"""

from __future__ import annotations

import math

from .._lazy import lazy
from ..core.declarations import Param, integer_in, number_in
from ..errors import InputError
from .registry import META_STATISTICS, MetaStatistic

np = lazy("numpy", __name__, "np")


__all__ = [
    "RUN_LENGTH",
    "RBO_P",
    "kendall_tau_union",
    "rbo_prefix",
    "rmse",
    "effect_ratio",
    "delta_ri",
    "unpaired_t_test",
    "same_run_t_test",
    "rankings",
]

#: Documents of each ranking compared by KTU and RBO (repro_eval's RUN_LENGTH and
#: RBO_DEPTH).
RUN_LENGTH = 1000
#: RBO's persistence by default (repro_eval's RBO_P).
RBO_P = 0.95
# Terms of RBO's tail summed at once.
_TAIL_BLOCK = 1 << 20


class Rankings:
    """The rankings of one run as arrays: ``topics`` (sorted ids), and per topic
    ``start[t]:start[t+1]`` of ``codes`` (the documents in trec_eval order, as integer
    codes whose order is the doc ids' order, shared by the runs coded together)."""

    __slots__ = ("topics", "start", "codes")

    def __init__(self, topics: np.ndarray, start: np.ndarray, codes: np.ndarray) -> None:
        self.topics, self.start, self.codes = topics, start, codes

    def lengths(self) -> np.ndarray:
        return np.diff(self.start)


def rankings(runs, depth: int = RUN_LENGTH) -> list[Rankings]:
    """The top ``depth`` documents of every topic of each of ``runs`` (trec_eval order:
    score descending, doc id descending), their doc ids coded together."""
    tables = [run.ranked() for run in runs]
    kept = []
    for t in tables:
        keep = np.asarray(t["rank"].to_numpy()) <= depth
        q = np.asarray(t["query_id"].to_numpy(zero_copy_only=False), dtype=object)[keep]
        d = np.asarray(t["doc_id"].to_numpy(zero_copy_only=False), dtype=object)[keep]
        kept.append((q, d))
    all_docs = np.concatenate([d for _, d in kept]) if kept else np.zeros(0, dtype=object)
    _, codes = np.unique(all_docs.astype(str), return_inverse=True)
    out, at = [], 0
    for q, d in kept:
        c = codes[at : at + d.size].astype(np.int64)
        at += d.size
        topics, first = np.unique(q.astype(str), return_index=True)
        out.append(Rankings(topics, np.append(first, q.size).astype(np.int64), c))
    return out


def _common(a: Rankings, b: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    topics, ia, ib = np.intersect1d(a.topics, b.topics, return_indices=True)
    return topics, ia, ib


def _flat(r: Rankings, idx: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """The first ``lengths`` documents of topics ``idx`` of ``r``: (row of the topic in
    ``idx``, 0-based rank, code) of each, topic by topic."""
    n = int(lengths.sum())
    row = np.repeat(np.arange(idx.size), lengths)
    rank = np.arange(n) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return row, rank, r.codes[np.repeat(r.start[idx], lengths) + rank]


def _discordant(row: np.ndarray, a: np.ndarray, b: np.ndarray, topics: int) -> np.ndarray:
    """Per topic, the pairs of ranks ordered one way by ``a`` and the other by ``b``
    (values distinct within a topic): the inversions of ``b`` taken in ``a``'s order,
    counted by merge levels over all topics at once. At level ``s`` every block of
    ``2s`` consecutive elements is split in halves, and each element of a right half
    counts the elements of its left half above it: both halves sorted by (block, b), the
    right ones searched in the left ones (sorted queries: a merge, not random access)."""
    width = int(a.max()) + 1 if a.size else 1
    order = np.argsort(row * width + a)  # (a lexsort is several times slower)
    t, v = row[order], b[order]
    first = np.searchsorted(t, np.arange(topics))
    pos = np.arange(t.size) - first[t]
    longest = int(pos.max()) + 1 if pos.size else 0
    big = int(v.max()) + 1 if v.size else 1
    counts = np.zeros(topics)
    s = 1
    while s < longest:
        per_topic = longest // (2 * s) + 1
        key = (t * per_topic + pos // (2 * s)) * big + v
        left = pos % (2 * s) < s
        lk, rk = np.sort(key[left]), np.sort(key[~left])
        block = rk // big
        above = np.searchsorted(lk, (block + 1) * big) - np.searchsorted(lk, rk, "right")
        counts += np.bincount(block // per_topic, weights=above, minlength=topics)
        s *= 2
    return counts


def kendall_tau_union(orig: Rankings, rpd: Rankings) -> tuple[np.ndarray, np.ndarray]:
    r"""Kendall's tau union (KTU) per topic both runs answer: ``(topics, values)``.

    As repro_eval: each ranking becomes the sequence of its documents' positions in the
    union of the two rankings ordered by doc id, and KTU is Kendall's tau-b of the two
    sequences rank by rank (positions are distinct within a ranking, so tau-b is
    :math:`1 - 2D / \binom{L}{2}` with :math:`D` the discordant pairs of ranks).
    repro_eval needs rankings of equal length (SciPy refuses others); here both are cut
    to the shorter one's length :math:`L`. NaN where :math:`L < 2`. Time
    :math:`O(N \log^2 L)` and memory :math:`O(N)` over all :math:`N` ranks compared.
    """
    topics, io, ir = _common(orig, rpd)
    length = np.minimum(orig.lengths()[io], rpd.lengths()[ir])
    row, _, a = _flat(orig, io, length)
    _, _, b = _flat(rpd, ir, length)
    d = _discordant(row, a, b, topics.size)
    n = length.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n >= 2, 1.0 - 2.0 * d / (n * (n - 1) / 2), math.nan)
    return topics, values


def rbo_prefix(
    orig: Rankings, rpd: Rankings, p: float = RBO_P, depth: int = RUN_LENGTH
) -> tuple[np.ndarray, np.ndarray]:
    r"""Rank-biased overlap per topic both runs answer, in the normalised prefix form
    repro_eval uses (after Clarke, Vtyurina & Smucker, TOIS 2020): ``(topics, values)``.

    .. math:: \mathrm{RBO} = \frac{\sum_{d=1}^{D} p^{d-1} X_d / d}{\sum_{d=1}^{D} p^{d-1}}

    with :math:`X_d` the overlap of the two top-:math:`d` prefixes and :math:`D` the
    ``depth`` (the prefixes stop growing at the end of a ranking, so two identical
    rankings shorter than :math:`D` score below 1; Webber et al.'s extrapolated
    RBO_ext is ``cranfield correlate``'s). A document in both prefixes from depth
    :math:`e` on adds :math:`H_e = \sum_{d=e}^{D} p^{d-1}/d` (a suffix sum, shared by all
    topics) to the numerator; terms below :math:`2^{-80}` of the first are left out.
    """
    topics, io, ir = _common(orig, rpd)
    if not topics.size:
        return topics, np.zeros(0)
    lo, lr = orig.lengths()[io], rpd.lengths()[ir]
    span = int(min(depth, max(int(lo.max()), int(lr.max()))))
    # the depth at which each shared document is in both prefixes: join on (topic, doc)
    base = int(max(orig.codes.max(initial=0), rpd.codes.max(initial=0))) + 1
    to, po, co = _flat(orig, io, np.minimum(lo, span))
    tr, pr, cr = _flat(rpd, ir, np.minimum(lr, span))
    shared, jo, jr = np.intersect1d(
        to * base + co, tr * base + cr, assume_unique=True, return_indices=True
    )
    enter = np.maximum(po[jo], pr[jr])  # 0-based depth
    # beyond the longest ranking the weights p^(d-1)/d are summed in blocks
    tail_end = min(int(depth), span + math.ceil(80 * math.log(2) / -math.log(p)))
    tail = 0.0
    for s in range(span + 1, tail_end + 1, _TAIL_BLOCK):
        dd = np.arange(s, min(tail_end, s + _TAIL_BLOCK - 1) + 1, dtype=np.float64)
        tail += float(np.sum(float(p) ** (dd - 1) / dd))
    d = np.arange(1, span + 1, dtype=np.float64)
    h = np.cumsum((float(p) ** (d - 1) / d)[::-1])[::-1] + tail
    score = np.bincount(shared // base, weights=h[enter], minlength=topics.size)
    norm = (1.0 - float(p) ** int(depth)) / (1.0 - float(p))
    return topics, score / norm


def rmse(orig: np.ndarray, rpd: np.ndarray) -> np.ndarray:
    r"""Root mean square error of per-topic scores, along the last axis:
    :math:`\sqrt{\frac1n\sum_i (o_i - r_i)^2}`."""
    diff = np.asarray(orig, dtype=np.float64) - np.asarray(rpd, dtype=np.float64)
    return np.sqrt(np.mean(diff * diff, axis=-1))


def effect_ratio(orig_b, orig_a, rpd_b, rpd_a) -> np.ndarray:
    r"""ER: the mean per-topic improvement of the reproduction over the original's,
    :math:`\overline{a' - b'} / \overline{a - b}` (along the last axis; the two
    experiments may have different topics). NaN where the original shows no
    improvement (a zero denominator)."""
    num = np.mean(np.asarray(rpd_a) - np.asarray(rpd_b), axis=-1)
    den = np.mean(np.asarray(orig_a) - np.asarray(orig_b), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), math.nan)


def delta_ri(orig_b, orig_a, rpd_b, rpd_a) -> np.ndarray:
    r"""ΔRI: :math:`RI - RI'` with :math:`RI = (\bar a - \bar b)/\bar b` the relative
    improvement of the mean scores (along the last axis). NaN where a baseline's mean
    is 0."""
    mb, ma = np.mean(orig_b, axis=-1), np.mean(orig_a, axis=-1)
    mb2, ma2 = np.mean(rpd_b, axis=-1), np.mean(rpd_a, axis=-1)
    ok = (mb != 0) & (mb2 != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ri = (ma - mb) / np.where(ok, mb, 1.0)
        ri2 = (ma2 - mb2) / np.where(ok, mb2, 1.0)
    return np.where(ok, ri - ri2, math.nan)


def same_run_t_test(orig: np.ndarray, rpd: np.ndarray, paired: bool) -> float:
    """Two-sided p-value that ``orig`` and ``rpd`` (per-topic scores) have the same mean:
    paired (Student's paired t-test, a reproduction) or unpaired (a replication).

    As repro_eval, identical score lists give 1 (SciPy's 0/0 is NaN there); other
    constant differences give SciPy's 0 (means differ, no variance) or NaN (one topic:
    no variance to estimate, NaN stays NaN)."""
    from ..compare.stats import paired_t_test

    orig = np.asarray(orig, dtype=np.float64)
    rpd = np.asarray(rpd, dtype=np.float64)
    if orig.shape == rpd.shape and np.array_equal(orig, rpd):
        return 1.0
    if paired:
        return paired_t_test(rpd, orig).pvalue
    return unpaired_t_test(orig, rpd)


def unpaired_t_test(x, y) -> float:
    r"""Two-sided p-value of Student's two-sample t-test with pooled variance (as
    :func:`scipy.stats.ttest_ind`, ``equal_var=True``):

    .. math:: t = \frac{\bar x - \bar y}{s_p\sqrt{1/n_x + 1/n_y}}, \quad
              s_p^2 = \frac{(n_x-1)s_x^2 + (n_y-1)s_y^2}{n_x+n_y-2}, \quad
              \nu = n_x + n_y - 2

    NaN with fewer than 3 scores in all; 0 when the pooled variance is 0 and the means
    differ."""
    from ..errors import require

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    nx, ny = x.size, y.size
    df = nx + ny - 2
    if nx < 1 or ny < 1 or df < 1:
        return math.nan
    ss = np.sum((x - x.mean()) ** 2) + np.sum((y - y.mean()) ** 2)
    diff = x.mean() - y.mean()
    se = math.sqrt(ss / df * (1.0 / nx + 1.0 / ny))
    if se == 0:
        return math.nan if diff == 0 else 0.0
    stats = require("scipy.stats", "stats")
    return float(min(1.0, 2.0 * stats.t(df).sf(abs(diff / se))))


def _check_topics(orig: tuple, rpd: tuple, what: str) -> None:
    if orig != rpd:
        only_o = sorted(set(orig) - set(rpd))
        only_r = sorted(set(rpd) - set(orig))
        parts = []
        if only_o:
            parts.append(f"{len(only_o)} topics only in the original ({', '.join(only_o[:5])})")
        if only_r:
            parts.append(f"{len(only_r)} topics only in the {what} ({', '.join(only_r[:5])})")
        raise InputError(
            f"a reproduction is paired by topic, but the runs are not scored on the same "
            f"topics: {'; '.join(parts)} (--complete scores missing topics as 0; a "
            "different collection is a replication: give --rpd-qrels)",
            "runs",
        )


def _only(table: dict, names: tuple[str, ...]) -> dict:
    """The per-query table of runs ``names`` only."""
    return {m: {n: per_run[n] for n in names} for m, per_run in table.items()}


def repro(
    orig_baseline,
    orig_advanced,
    rpd_baseline,
    rpd_advanced,
    qrels,
    measures,
    rpd_qrels=None,
    *,
    rbo_p: float = RBO_P,
    depth: int = RUN_LENGTH,
    complete: bool = False,
) -> dict:
    """Reproducibility (``rpd_qrels`` None: same collection) or replicability measures of
    an experiment (baseline and advanced run) and its reproduction.

    The runs are :class:`~cranfield.Run` objects, ``qrels`` a :class:`~cranfield.Qrels`
    or path. Returns a dict: ``mode``, ``topics`` (original, reproduced), ``measures``,
    ``document_order`` (``ktu``/``rbo``: ``{baseline, advanced}``, reproduction only),
    ``per_measure`` (``{measure: {"arp": {...}, "rmse": {...}, "p": {...}, "er",
    "delta_ri"}}``) and ``notes`` (why a value is undefined, topics left out).
    """
    from ..compare.compare import align_scores
    from ..core.evaluation import as_measures, as_runs, evaluate

    measures = as_measures(measures)
    runs = as_runs([orig_baseline, orig_advanced, rpd_baseline, rpd_advanced])
    # named by role (a mapping: the caller's Run objects keep their names)
    named = dict(zip(("B", "A", "B'", "A'"), runs, strict=True))
    replication = rpd_qrels is not None
    notes: list[str] = []
    if replication:
        orig_tab = evaluate(qrels, dict(list(named.items())[:2]), measures, complete=complete)
        rpd_tab = evaluate(rpd_qrels, dict(list(named.items())[2:]), measures, complete=complete)
        orig = align_scores(orig_tab.per_query_table(), complete=complete)
        rpd = align_scores(rpd_tab.per_query_table(), complete=complete)
    else:
        table = evaluate(qrels, named, measures, complete=complete).per_query_table()
        orig = align_scores(_only(table, ("B", "A")), complete=complete)
        rpd = align_scores(_only(table, ("B'", "A'")), complete=complete)
        for m in orig:
            _check_topics(orig[m][1], rpd[m][1], "reproduction")
    out: dict = {
        "mode": "replicability" if replication else "reproducibility",
        "measures": [str(m) for m in orig],
        "topics": {
            "original": len(next(iter(orig.values()))[1]),
            "reproduced": len(next(iter(rpd.values()))[1]),
        },
    }
    per_measure = {}
    for m in orig:
        (ob, oa), (rb, ra) = orig[m][2], rpd[m][2]
        er = float(effect_ratio(ob, oa, rb, ra))
        dri = float(delta_ri(ob, oa, rb, ra))
        entry = {
            "arp": {
                "orig_baseline": float(ob.mean()),
                "orig_advanced": float(oa.mean()),
                "rpd_baseline": float(rb.mean()),
                "rpd_advanced": float(ra.mean()),
            },
            "p": {
                "baseline": same_run_t_test(ob, rb, paired=not replication),
                "advanced": same_run_t_test(oa, ra, paired=not replication),
            },
            "er": er,
            "delta_ri": dri,
        }
        if not replication:
            entry["rmse"] = {"baseline": float(rmse(ob, rb)), "advanced": float(rmse(oa, ra))}
        per_measure[m] = entry
        if math.isnan(er):
            notes.append(
                f"{m}: ER undefined: the original advanced run does not improve on "
                "the baseline (mean difference 0)"
            )
        if math.isnan(dri):
            notes.append(f"{m}: ΔRI undefined: a baseline's mean score is 0")
    out["per_measure"] = per_measure
    if not replication:
        ranked = rankings(runs, depth)
        order: dict = {"ktu": {}, "rbo": {}, "rbo_p": rbo_p, "depth": depth}
        for role, o, r in (("baseline", ranked[0], ranked[2]), ("advanced", ranked[1], ranked[3])):
            topics, tau = kendall_tau_union(o, r)
            _, overlap = rbo_prefix(o, r, rbo_p, depth)
            left = sorted(set(o.topics) ^ set(r.topics))
            if left:
                notes.append(
                    f"{role}: KTU and RBO over the {topics.size} topics both rankings "
                    f"answer ({len(left)} answered by one only)"
                )
            defined = tau[~np.isnan(tau)]
            order["ktu"][role] = float(defined.mean()) if defined.size else math.nan
            order["rbo"][role] = float(overlap.mean()) if overlap.size else math.nan
            if not defined.size:
                notes.append(f"{role}: KTU undefined: no topic has two documents in both rankings")
        out["document_order"] = order
    out["notes"] = notes
    return out


#: Most documents per ranking KTU and RBO compare (--depth).
MAX_DEPTH = 10**7
DEPTH = Param(
    "depth",
    int,
    RUN_LENGTH,
    "documents of each ranking compared (--depth)",
    **integer_in(1, MAX_DEPTH),
)
PERSISTENCE = Param(
    "p", float, RBO_P, "persistence (--rbo-p)", **number_in(0, 1, open_lo=True, open_hi=True)
)


def _declare(name, behaviour, summary, formula, reference, label, params=()):
    META_STATISTICS.register(
        MetaStatistic(
            name, behaviour, summary, formula, reference, params, command="repro", label=label
        )
    )


_BREUER = "Breuer et al. 2020 (SIGIR); as `repro_eval` 0.5.0"
_declare(
    "ktu",
    kendall_tau_union,
    "Kendall's tau union of an original ranking and its reproduction, mean over topics.",
    "tau-b of the rankings' positions in the doc-id-ordered union, rank by rank",
    _BREUER,
    "KTU",
    (DEPTH,),
)
_declare(
    "rbo",
    rbo_prefix,
    "Rank-biased overlap of an original ranking and its reproduction, mean over topics.",
    "$\\sum_{d\\le D} p^{d-1} X_d/d \\,/\\, \\sum_{d \\le D} p^{d-1}$",
    "Webber, Moffat & Zobel 2010; Clarke et al. 2020; " + _BREUER,
    "RBO",
    (PERSISTENCE, DEPTH),
)
_declare(
    "rmse",
    rmse,
    "Root mean square error of the per-topic scores of a run and its reproduction.",
    "$\\sqrt{\\frac1n \\sum_i (o_i - r_i)^2}$",
    _BREUER,
    "RMSE",
)
_declare(
    "er",
    effect_ratio,
    "Effect ratio: the reproduced mean improvement over the original one.",
    "$\\overline{a'-b'} / \\overline{a-b}$",
    _BREUER,
    "ER",
)
_declare(
    "delta_ri",
    delta_ri,
    "Delta relative improvement: original minus reproduced relative improvement.",
    "$(\\bar a-\\bar b)/\\bar b - (\\bar a'-\\bar b')/\\bar b'$",
    _BREUER,
    "ΔRI",
)
_declare(
    "same_run_t",
    same_run_t_test,
    "t-test of a run against its reproduction (paired) or replication (unpaired).",
    "Student's paired t / two-sample t (pooled variance); identical scores: p = 1",
    _BREUER + "; `scipy.stats.ttest_rel`, `ttest_ind`",
    "p",
)
