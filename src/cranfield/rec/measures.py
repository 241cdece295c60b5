"""Beyond-accuracy measures of recommendation lists, each declared once (:data:`REC_MEASURES`).

Every measure sees the top-``k`` lists of the evaluated users (:class:`Lists`, whole
arrays: one row per recommended item, sorted by user then rank) and the training log's
item popularity; none loops over users or items in Python.

Conventions (docs/recommenders.md): the catalogue is the set of items with a training
interaction; an item's popularity ``phi(i)`` is its number of training interactions;
the short head is the most popular items that together hold 20% of the training
interactions (with every item as popular as the last of them, so that ties do not
depend on an order), the long tail the rest (items never seen in training among them).
"""

from __future__ import annotations

from .._lazy import lazy
from .._record import Record
from ..core.declarations import Declaration, Registry

np = lazy("numpy", __name__, "np")


REC_MEASURES: Registry = Registry("recommender measure")
HEAD_SHARE = 0.2


class Truth(Record):
    """What the relevance-aware and group measures read besides the lists: per row,
    whether the item is relevant to its user (``relevant``); per item code, the
    training users who interacted with it (``item_users``) out of ``n_train_users``;
    per user, the relevant held-out items in the short head and the long tail that the
    user has not interacted with in training (``test_head``, ``test_tail``), the user's
    training items in the head and the tail (``train_head``, ``train_tail``), and
    whether the user has a relevant item (``has_relevant``); the head and tail sizes
    over the catalogue (``n_head``, ``n_tail``); per row, one minus the item's mean
    co-occurrence cosine similarity to the user's training items (``unexpected``), and
    per user whether they have a training item (``has_train``)."""

    __slots__ = (
        "relevant",
        "item_users",
        "n_train_users",
        "test_head",
        "test_tail",
        "train_head",
        "train_tail",
        "has_relevant",
        "n_head",
        "n_tail",
        "unexpected",
        "has_train",
        "n_relevant",
        "train_pairs",
    )
    relevant: np.ndarray
    item_users: np.ndarray
    n_train_users: int
    test_head: np.ndarray
    test_tail: np.ndarray
    train_head: np.ndarray
    train_tail: np.ndarray
    has_relevant: np.ndarray
    n_head: int
    n_tail: int
    unexpected: np.ndarray | None
    has_train: np.ndarray | None
    n_relevant: np.ndarray | None
    train_pairs: tuple | None  # (user code, item code) of the evaluated users'

    _defaults = {"unexpected": None, "has_train": None, "n_relevant": None, "train_pairs": None}


class Lists(Record):
    """The top-k lists: ``user`` (codes 0..n_users-1; each user's rows together, in rank
    order, sorted by code unless ``position`` gives each row's rank), ``item`` (codes into
    ``catalogue_items``: training items first, then items only recommended), ``n_users``
    (evaluated users: the test users), ``popularity`` (training interactions per item
    code, 0 for items only recommended), ``n_train`` (training interactions),
    ``features`` (unit-norm rows per item code, or None)."""

    __slots__ = (
        "user",
        "item",
        "n_users",
        "popularity",
        "n_catalogue",
        "n_train",
        "features",
        "truth",
        "user_group",
        "item_group",
        "position",
    )
    user: np.ndarray
    item: np.ndarray
    n_users: int
    popularity: np.ndarray
    n_catalogue: int
    n_train: int
    features: np.ndarray | None
    truth: Truth | None
    user_group: np.ndarray | None  # per user: group code, -1 none
    item_group: np.ndarray | None  # per item code: group code, -1 none
    position: np.ndarray | None  # per row: 0-based rank in its list (None: rows sorted)

    _defaults = {
        "features": None,
        "truth": None,
        "user_group": None,
        "item_group": None,
        "position": None,
    }

    def list_lengths(self) -> np.ndarray:
        return np.bincount(self.user, minlength=self.n_users)

    def positions(self) -> np.ndarray:
        """Each row's 0-based rank within its user's list."""
        if self.position is not None:
            return self.position
        starts = np.concatenate([[0], np.cumsum(self.list_lengths())[:-1]])
        return np.arange(len(self.user)) - starts[self.user]

    def need_truth(self, name: str) -> Truth:
        if self.truth is None:
            from ..errors import MeasureError

            raise MeasureError(f"{name} needs the held-out and the training interactions")
        return self.truth

    def long_tail(self) -> np.ndarray:
        """Per item code: whether it is in the long tail (not in the short head)."""
        pop = self.popularity[: self.n_catalogue]
        ordered = np.sort(pop)[::-1]
        share = np.cumsum(ordered) / max(self.n_train, 1)
        # the head: the most popular items until they hold HEAD_SHARE of the interactions,
        # with every item as popular as the last of them (ties do not depend on order)
        boundary = (
            ordered[min(int(np.searchsorted(share, HEAD_SHARE, side="left")), len(ordered) - 1)]
            if len(ordered)
            else np.inf
        )
        in_head = np.zeros(len(self.popularity), bool)
        in_head[: self.n_catalogue] = pop >= boundary
        return ~in_head

    def per_user_mean(self, values: np.ndarray) -> float:
        """Mean over users with a list of the mean of ``values`` within each list."""
        lengths = self.list_lengths()
        sums = np.bincount(self.user, weights=values, minlength=self.n_users)
        has = lengths > 0
        return float(np.mean(sums[has] / lengths[has])) if has.any() else float("nan")


def _coverage(x: Lists) -> float:
    recommended = np.bincount(x.item[x.item < x.n_catalogue], minlength=x.n_catalogue)
    return np.count_nonzero(recommended) / x.n_catalogue


def _user_coverage(x: Lists) -> float:
    return float(np.count_nonzero(x.list_lengths())) / x.n_users


def _exposure(x: Lists) -> np.ndarray:
    return np.bincount(x.item, minlength=len(x.popularity)).astype(np.float64)


def _gini(x: Lists) -> float:
    c = np.sort(_exposure(x))
    n = c.size
    total = c.sum()
    if total == 0:
        return float("nan")
    i = np.arange(1, n + 1)
    return float(np.sum((2 * i - n - 1) * c) / (n * total))


def _entropy(x: Lists) -> float:
    c = _exposure(x)
    p = c[c > 0] / c.sum()
    return float(-np.sum(p * np.log2(p)))


def _novelty(x: Lists) -> float:
    pop = x.popularity[x.item]
    info = np.zeros(len(pop))
    seen = pop > 0
    info[seen] = -np.log2(pop[seen] / x.n_train)
    return float(info.sum() / len(pop)) if len(pop) else float("nan")


def _arp(x: Lists) -> float:
    return x.per_user_mean(x.popularity[x.item].astype(np.float64))


def _aplt(x: Lists) -> float:
    return x.per_user_mean(x.long_tail()[x.item].astype(np.float64))


def _aclt(x: Lists) -> float:
    counts = np.bincount(
        x.user, weights=x.long_tail()[x.item].astype(np.float64), minlength=x.n_users
    )
    has = x.list_lengths() > 0
    return float(np.mean(counts[has])) if has.any() else float("nan")


def _ild(x: Lists) -> float:
    if x.features is None:
        from ..errors import ParameterError

        raise ParameterError("--item-features", "a file of item features (for ILD)", None)
    e = x.features[x.item]
    n = x.list_lengths()
    sums = np.zeros((x.n_users, e.shape[1]))
    np.add.at(sums, x.user, e)
    pairs = n * (n - 1) / 2
    # sum over pairs of cosine similarity of unit vectors: (|sum e|^2 - sum |e|^2) / 2
    sim = (
        np.einsum("ij,ij->i", sums, sums)
        - np.bincount(x.user, weights=np.einsum("ij,ij->i", e, e), minlength=x.n_users)
    ) / 2
    ok = pairs > 0
    return float(np.mean(1 - sim[ok] / pairs[ok])) if ok.any() else float("nan")


def _discounted_mean(x: Lists, gain: np.ndarray) -> float:
    """Mean over the users with a list and a relevant item of
    ``sum_k disc(k) rel(i_k) gain(i_k) / sum_k disc(k)``, ``disc(k) = 1 / log2(k + 2)``
    for the 0-based rank ``k`` (Castells & Vargas 2011's rank and relevance-aware
    expectation, normalised by the discounts as RankSys and Elliot do)."""
    t = x.need_truth("EPC/EFD")
    disc = 1.0 / np.log2(x.positions() + 2.0)
    num = np.bincount(x.user, weights=disc * t.relevant * gain, minlength=x.n_users)
    den = np.bincount(x.user, weights=disc, minlength=x.n_users)
    users = (x.list_lengths() > 0) & t.has_relevant
    return float(np.mean(num[users] / den[users])) if users.any() else float("nan")


def _epc(x: Lists) -> float:
    t = x.need_truth("EPC")
    seen = t.item_users / max(t.n_train_users, 1)  # 0 for items never in training
    return _discounted_mean(x, 1.0 - seen[x.item])


def _efd(x: Lists) -> float:
    t = x.need_truth("EFD")
    counts = t.item_users[: x.n_catalogue].astype(np.float64)
    total = counts.sum()
    if total == 0:
        return float("nan")
    info = np.full(len(t.item_users), -np.log2(counts[counts > 0].min() / total))
    trained = np.flatnonzero(counts > 0)
    info[trained] = -np.log2(counts[trained] / total)
    return _discounted_mean(x, info[x.item])


def _serendipity(x: Lists) -> float:
    t = x.need_truth("serendipity")
    users = (x.list_lengths() > 0) & t.has_train
    values = t.unexpected * t.relevant
    sums = np.bincount(x.user, weights=values, minlength=x.n_users)
    mean = sums[users] / x.list_lengths()[users]
    return float(np.mean(mean)) if users.any() else float("nan")


def _mean_absolute_difference(values: np.ndarray, groups: np.ndarray) -> float:
    """The mean over pairs of groups of ``|mean_g1 - mean_g2|`` of ``values`` (codes
    ``groups``, -1 in none); groups without a member are left out."""
    keep = groups >= 0
    n = int(groups[keep].max()) + 1 if keep.any() else 0
    count = np.bincount(groups[keep], minlength=n)
    sums = np.bincount(groups[keep], weights=values[keep], minlength=n)
    means = sums[count > 0] / count[count > 0]
    i, j = np.triu_indices(len(means), k=1)
    return float(np.mean(np.abs(means[i] - means[j]))) if len(i) else float("nan")


def _user_ndcg(x: Lists, t: Truth) -> np.ndarray:
    """Per user with a list: binary nDCG@k of its list (discount 1/log2(rank + 2) from
    rank 0; the ideal list holds min(k, relevant held-out items) relevant items)."""
    from ..core import libm

    pos = x.positions()
    k = int(pos.max()) + 1 if len(pos) else 0
    discount = 1.0 / libm.log2(np.arange(k, dtype=np.float64) + 2.0)
    dcg = np.bincount(x.user, weights=discount[pos] * t.relevant, minlength=x.n_users)
    ideal_prefix = np.concatenate([[0.0], np.cumsum(discount)])
    ideal = ideal_prefix[np.minimum(t.n_relevant, k)]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(dcg > 0, dcg / ideal, 0.0)


def _need_groups(x: Lists, which: str, option: str) -> np.ndarray:
    groups = x.user_group if which == "user" else x.item_group
    if groups is None:
        from ..errors import MeasureError

        raise MeasureError(f"{which} fairness needs the {which} groups ({option} FILE)")
    return groups


def _user_mad(x: Lists) -> float:
    t = x.need_truth("user_mad")
    groups = _need_groups(x, "user", "--user-groups")
    users = np.flatnonzero(x.list_lengths() > 0)
    return _mean_absolute_difference(_user_ndcg(x, t)[users], groups[users])


def _item_mad(x: Lists) -> float:
    t = x.need_truth("item_mad")
    groups = _need_groups(x, "item", "--item-groups")
    count = np.bincount(x.item, minlength=len(x.popularity))
    gain = np.bincount(x.item, weights=t.relevant.astype(np.float64), minlength=len(count))
    items = np.flatnonzero(count > 0)
    return _mean_absolute_difference(gain[items] / count[items], groups[items])


def _exposure_mad(x: Lists) -> float:
    groups = _need_groups(x, "item", "--item-groups")
    users = max(int(np.count_nonzero(x.list_lengths())), 1)
    attention = 1.0 / np.log2(x.positions() + 2.0)  # 1/log2(1 + rank), rank from 1
    exposure = np.bincount(x.item, weights=attention, minlength=len(groups)) / users
    return _mean_absolute_difference(exposure, groups)


def _group_ratio(num: np.ndarray, den: np.ndarray) -> float:
    """std / mean (population std) of the two groups' ``num / den`` (Zhu, Wang &
    Caverlee 2021's relative standard deviation over groups)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = num / den
        return float(np.std(p) / np.mean(p))


def _head_rows(x: Lists) -> tuple[np.ndarray, np.ndarray]:
    """Per row: whether the item is in the short head, in the long tail (items outside
    the catalogue -- never in training -- are in neither group, as in Elliot)."""
    in_catalogue = x.item < x.n_catalogue
    tail = x.long_tail()[x.item] & in_catalogue
    return ~x.long_tail()[x.item] & in_catalogue, tail


def _pop_rsp(x: Lists) -> float:
    t = x.need_truth("PopRSP")
    head, tail = _head_rows(x)
    users = x.list_lengths() > 0
    num = np.array([head.sum(), tail.sum()], dtype=np.float64)
    den = np.array(
        [
            (t.n_head - t.train_head[users]).sum(),
            (t.n_tail - t.train_tail[users]).sum(),
        ],
        dtype=np.float64,
    )
    return _group_ratio(num, den)


def _pop_reo(x: Lists) -> float:
    t = x.need_truth("PopREO")
    head, tail = _head_rows(x)
    users = (x.list_lengths() > 0) & t.has_relevant
    keep = users[x.user] & t.relevant
    num = np.array([(head & keep).sum(), (tail & keep).sum()], dtype=np.float64)
    den = np.array([t.test_head[users].sum(), t.test_tail[users].sum()], dtype=np.float64)
    return _group_ratio(num, den)


for _name, _fn, _summary, _formula, _ref in (
    (
        "coverage",
        _coverage,
        "catalogue coverage: share of the catalogue recommended",
        "|{i in top-k lists}| / |catalogue|",
        "Ge, Delgado-Battenfeld & Jannach, Beyond accuracy, RecSys 2010; as recommenders' catalog_coverage",
    ),
    (
        "user_coverage",
        _user_coverage,
        "share of the evaluated users with a recommendation",
        "|{u : L_u non-empty}| / |U_test|",
        "Ge, Delgado-Battenfeld & Jannach, RecSys 2010",
    ),
    (
        "gini",
        _gini,
        "Gini index of the items' exposure (0 equal, 1 concentrated)",
        "sum_j (2j - n - 1) c_(j) / (n sum_j c_j), c sorted ascending over the catalogue",
        "Fleder & Hosanagar, Management Science 2009; as RecBole's GiniIndex",
    ),
    (
        "entropy",
        _entropy,
        "Shannon entropy of the items' exposure, in bits",
        "-sum_i p_i log2 p_i, p_i = share of the recommendations that are item i",
        "Shani & Gunawardana, Evaluating recommendation systems, 2011; as recommenders' distributional_coverage",
    ),
    (
        "novelty",
        _novelty,
        "mean self-information of the recommended items",
        "mean over recommendations of -log2(phi(i) / |train|) (items unseen in training: 0)",
        "Castells & Vargas, Novelty and diversity metrics for recommender systems, ECIR 2011 (item choice model); as recommenders' novelty",
    ),
    (
        "arp",
        _arp,
        "average recommendation popularity",
        "mean_u (1/|L_u|) sum_{i in L_u} phi(i)",
        "Abdollahpouri, Burke & Mobasher, Managing popularity bias in recommender systems with personalized re-ranking, FLAIRS 2019",
    ),
    (
        "aplt",
        _aplt,
        "average percentage of long-tail items in a list",
        "mean_u |L_u & tail| / |L_u|",
        "Abdollahpouri, Burke & Mobasher, FLAIRS 2019",
    ),
    (
        "aclt",
        _aclt,
        "average number of long-tail items in a list",
        "mean_u |L_u & tail|",
        "Abdollahpouri, Burke & Mobasher, FLAIRS 2019",
    ),
    (
        "ild",
        _ild,
        "intra-list diversity: mean pairwise cosine distance of item features",
        "mean_u (2 / (n_u (n_u - 1))) sum_{i<j in L_u} (1 - cos(e_i, e_j))",
        "Ziegler, McNee, Konstan & Lausen, Improving recommendation lists through topic diversification, WWW 2005",
    ),
    (
        "epc",
        _epc,
        "expected popularity complement: how unpopular the relevant recommended items are",
        "mean_u sum_k disc(k) rel(u, i_k) (1 - |U_train(i_k)| / |U_train|) / sum_k disc(k), "
        "disc(k) = 1 / log2(k + 2), k from 0",
        "Castells & Vargas, Novelty and diversity metrics for recommender systems, ECIR 2011 (and Vargas & Castells, RecSys 2011); as Elliot's EPC",
    ),
    (
        "efd",
        _efd,
        "expected free discovery: self-information of the relevant recommended items",
        "mean_u sum_k disc(k) rel(u, i_k) (-log2(|U_train(i_k)| / sum_j |U_train(j)|)) / sum_k disc(k); "
        "items unseen in training: the largest value",
        "Vargas & Castells, Rank and relevance in novelty and diversity metrics, RecSys 2011; as Elliot's EFD",
    ),
    (
        "serendipity",
        _serendipity,
        "relevant and unexpected: relevant items unlike the user's training items",
        "mean_u (1/|L_u|) sum_{i in L_u} rel(u, i) (1 - (1/|T_u|) sum_{j in T_u} "
        "co(i, j) / sqrt(c_i c_j)), co: training users with both, c: with one",
        "Zhang, Séaghdha, Quercia & Jambor, Auralist, WSDM 2012; as recommenders' serendipity (item co-occurrence)",
    ),
    (
        "user_mad",
        _user_mad,
        "user fairness: mean absolute difference of the user groups' mean nDCG@k",
        "mean over pairs of groups |mean_{u in g1} nDCG_u - mean_{u in g2} nDCG_u| (--user-groups)",
        "Deldjoo, Anelli, Zamani, Bellogín & Di Noia, A flexible framework for evaluating user and item fairness in recommender systems, UMUAI 2021; as Elliot's UserMADranking",
    ),
    (
        "item_mad",
        _item_mad,
        "provider fairness: mean absolute difference of the item groups' mean gain",
        "mean over pairs of groups |mean_{i in g1} gain_i - mean_{i in g2} gain_i|, gain_i = "
        "share of the lists holding i where it is relevant (--item-groups)",
        "Deldjoo et al., UMUAI 2021; as Elliot's ItemMADranking",
    ),
    (
        "exposure_mad",
        _exposure_mad,
        "provider fairness of exposure: mean absolute difference of the item groups' mean exposure",
        "mean over pairs of groups |mean_{i in g1} E_i - mean_{i in g2} E_i|, E_i = (1/|U|) "
        "sum_u [i in L_u] / log2(1 + rank_u(i)), over every item of the catalogue and the "
        "lists (an item never recommended: 0) (--item-groups)",
        "Singh & Joachims, Fairness of exposure in rankings, KDD 2018 (exposure, parity of "
        "groups); groups compared as Deldjoo et al., UMUAI 2021",
    ),
    (
        "poprsp",
        _pop_rsp,
        "popularity-based ranking-based statistical parity (0: head and tail recommended alike)",
        "std/mean over g in {head, tail} of sum_u |L_u & g| / sum_u |g - train_u|",
        "Zhu, Wang & Caverlee, Measuring and mitigating item under-recommendation bias, SIGIR 2020; as Elliot's PopRSP",
    ),
    (
        "popreo",
        _pop_reo,
        "popularity-based ranking-based equal opportunity (0: relevant head and tail items recommended alike)",
        "std/mean over g in {head, tail} of sum_u |L_u & g & test_u| / sum_u |(g & test_u) - train_u|",
        "Zhu, Wang & Caverlee, SIGIR 2020; as Elliot's PopREO",
    ),
):
    REC_MEASURES.register(Declaration(_name, _fn, _summary, _formula, _ref))


def reference_markdown() -> str:
    """The tables of docs/recommenders.md: every split and beyond-accuracy measure."""
    from ..output import markdown_table
    from .splits import SPLITS

    splits = []
    for name, d in SPLITS.items():
        params = ", ".join(f"`{p.name}` ({p.allowed_text}, default {p.default})" for p in d.params)
        splits.append([f"`{name}`", d.summary, d.formula, params or "—"])
    measures = [
        [f"`{name}@k`", d.summary, d.formula, d.citation] for name, d in REC_MEASURES.items()
    ]
    return (
        "\n\n".join(
            [
                markdown_table(
                    ["split", "what it does", "test set", "parameters"], splits, left=4, escape=True
                ),
                markdown_table(
                    ["measure", "what it measures", "formula", "reference"],
                    measures,
                    left=4,
                    escape=True,
                ),
            ]
        )
        + "\n"
    )


if __name__ == "__main__":  # python -m cranfield.rec.measures docs/recommenders.md
    import sys

    from ..core.generated import rewrite

    rewrite(sys.argv[1], "reference", reference_markdown())


def popularity_profile(x: Lists) -> dict:
    """Per evaluated user with a list and a training item: the mean popularity of their
    training items (``profile``) and of their top-k list (``recommended``), popularity
    being an item's share of the training users (Abdollahpouri, Mansoury, Burke &
    Mobasher 2019, "The unfairness of popularity bias in recommendation"), as whole
    arrays."""
    t = x.need_truth("the popularity-bias plot")
    share = t.item_users / max(t.n_train_users, 1)
    users, items = t.train_pairs
    count = np.bincount(users, minlength=x.n_users)
    profile = np.bincount(users, weights=share[items], minlength=x.n_users)
    lengths = x.list_lengths()
    recommended = np.bincount(x.user, weights=share[x.item], minlength=x.n_users)
    keep = (count > 0) & (lengths > 0)
    return {
        "profile": profile[keep] / count[keep],
        "recommended": recommended[keep] / lengths[keep],
        "users": np.flatnonzero(keep),
    }
