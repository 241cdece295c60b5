"""Evaluate recommendation lists: accuracy through the measure language (users as
queries, held-out items as relevant documents) and the beyond-accuracy measures of
:data:`~cranfield.rec.measures.REC_MEASURES`, on the top-k of each list."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .._lazy import lazy
from ..errors import InputError, MeasureError, ParameterError
from .codes import Ranked, distinct, positions, vocabulary
from .data import Interactions
from .measures import REC_MEASURES, Lists, Truth

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")
pc = lazy("pyarrow.compute", __name__, "pc")


#: recommender names of measures of the measure language (case-insensitive)
ALIASES = {
    "hr": "Success",
    "hitrate": "Success",
    "hit": "Success",
    "mrr": "RR",
    "map": "AP",
    "precision": "P",
    "recall": "R",
    "ndcg": "nDCG",
}
DEFAULT_CUTOFF = 10
#: the measures that read the held-out interactions besides the lists (Truth)
NEEDS_TRUTH = {"epc", "efd", "poprsp", "popreo", "serendipity", "user_mad", "item_mad"}
#: the measures that read the training log (the catalogue, popularity, long tail)
NEEDS_TRAIN = {
    "user_mad",
    "item_mad",
    "serendipity",
    "coverage",
    "gini",
    "novelty",
    "arp",
    "aplt",
    "aclt",
    "epc",
    "efd",
    "poprsp",
    "popreo",
}


@dataclass
class RecEvaluation:
    """``accuracy``: the :class:`~cranfield.core.results.Results` of the accuracy
    measures (or None); ``beyond``: ``{name: value}`` of the beyond-accuracy measures;
    ``notes``: what the evaluation changed or assumed (training items removed...)."""

    accuracy: object | None
    beyond: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def table(self) -> dict[str, float]:
        """Every measure's value, accuracy first (the run's aggregates)."""
        out = {}
        if self.accuracy is not None:
            out.update(self.accuracy[self.accuracy.run_names[0]])
        out.update(self.beyond)
        return out


def beyond_name(name: str) -> tuple[str, int] | None:
    match = re.fullmatch(r"([A-Za-z_]+)(?:@(\d+))?", name.strip())
    if match is None or match.group(1).lower() not in REC_MEASURES:
        return None
    return match.group(1).lower(), int(match.group(2) or DEFAULT_CUTOFF)


def accuracy_name(name: str) -> str:
    """A recommender spelling as the measure language's (``HR@10`` -> ``Success@10``)."""
    head, at, tail = name.partition("@")
    return ALIASES.get(head.lower(), head) + at + tail


def _codes(values: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """Position of each value in ``vocabulary`` (sorted unique), -1 when absent."""
    if not len(vocabulary):
        return np.full(len(values), -1, np.int64)
    pos = np.minimum(np.searchsorted(vocabulary, values), len(vocabulary) - 1)
    return np.where(vocabulary[pos] == values, pos, -1)


@dataclass(frozen=True)
class Coded:
    """An evaluation's ids interned once (:mod:`cranfield.rec.codes`): ``users`` the
    evaluated (test) users, sorted; ``people`` the test users then the other training
    users (sorted), and ``person`` each evaluated user's code among them; ``items`` the training items
    (sorted) then every other item of the lists and the held-out log (sorted), and
    ``popularity`` the training interactions of each training item; the people and item
    codes of the test (``test_user``, ``test_item``) and training interactions
    (``train_user``, ``train_item``); ``ranked`` the lists of the evaluated users
    (training items removed when asked; the rows an evaluation needs, with their
    scores) and ``dropped`` how many run rows were training interactions removed."""

    users: pa.Array
    people: pa.Array
    person: np.ndarray
    items: pa.Array
    n_train_items: int
    popularity: np.ndarray
    test_user: np.ndarray
    test_item: np.ndarray
    train_user: np.ndarray
    train_item: np.ndarray
    ranked: Ranked
    dropped: int

    def catalogue(self, codes: np.ndarray) -> np.ndarray:
        """The item ids of ``codes`` (NumPy strings)."""
        return self.items.take(pa.array(codes, pa.int64())).to_numpy(zero_copy_only=False)


def encode(
    recs, test: Interactions, train: Interactions | None, exclude_train: bool, depth=None
) -> Coded:
    """Intern the users and items of ``recs`` (a :class:`~cranfield.core.run.Run` or a
    :class:`~cranfield.rec.stream.ListsSource`), ``test`` and ``train`` and rank the
    lists of the test users, each cut to ``depth`` rows (None: whole), the lists read a
    record batch at a time (:func:`cranfield.rec.stream.top_lists`; see :class:`Coded`)."""
    from .codes import PairSet, after, positions, vocabulary
    from .stream import lists_source, top_lists

    users = vocabulary(test.user_ids())
    people = users if train is None else after(users, vocabulary(train.user_ids()))
    trained = vocabulary(train.item_ids()) if train is not None else pa.array([], pa.string())
    none = np.zeros(0, np.int64)
    train_user = none if train is None else positions(train.user_ids(), people).astype(np.int64)
    train_item = none if train is None else positions(train.item_ids(), trained).astype(np.int64)
    pairs = None
    if exclude_train and train is not None:
        pairs = PairSet(train_user, train_item, len(trained))
    kept = top_lists(lists_source(recs), people, len(users), trained, pairs, depth, test.item_ids())
    del pairs
    return Coded(
        users,
        people,
        np.arange(len(users), dtype=np.int64),
        kept.items,
        len(trained),
        np.bincount(train_item, minlength=len(trained)) if len(trained) else none,
        positions(test.user_ids(), people).astype(np.int64),
        positions(test.item_ids(), kept.items).astype(np.int64),
        train_user,
        train_item,
        kept.ranked,
        kept.dropped,
    )


def _truth(
    lists_: Lists,
    coded: Coded,
    local: np.ndarray,
    test: Interactions,
    min_rating: float | None,
    unexpected: bool = False,
) -> Truth:
    """The :class:`~cranfield.rec.measures.Truth` of the lists: (user, item) pairs as
    integer keys (``person code * codes + item code``; ``local``: each item's code in
    the lists' catalogue, -1 outside it, where held-out items get codes after it),
    ``unexpected`` (serendipity's co-occurrence joins) only when asked."""
    keep = np.ones(len(test), bool) if min_rating is None else test.ratings >= min_rating
    n_catalogue = len(lists_.popularity)
    n_codes = n_catalogue + len(coded.items)
    held = coded.test_item[keep]
    r_code = local[held]
    outside = r_code < 0
    r_code[outside] = n_catalogue + held[outside]
    n_people = len(coded.people)
    r_key = distinct(coded.test_user[keep] * n_codes + r_code)
    t_key = distinct(coded.train_user * n_codes + local[coded.train_item])
    r_user, r_code = r_key // n_codes, r_key % n_codes
    t_user, t_code = t_key // n_codes, t_key % n_codes  # distinct training pairs
    person = coded.person  # evaluated user -> person
    relevant = _sorted_in(person[lists_.user] * n_codes + lists_.item, r_key)
    item_users = np.bincount(t_code, minlength=n_catalogue).astype(np.float64)
    tail_of = lists_.long_tail()
    in_catalogue = np.zeros(n_catalogue, bool)
    in_catalogue[: lists_.n_catalogue] = True
    head_of = ~tail_of & in_catalogue
    tail_of = tail_of & in_catalogue
    evaluated = np.full(n_people, -1, np.int64)
    evaluated[person] = np.arange(len(person))
    n_users = len(person)
    tv = evaluated[t_user]
    mine = tv >= 0
    train_head = np.bincount(tv[mine], weights=head_of[t_code[mine]], minlength=n_users)
    train_tail = np.bincount(tv[mine], weights=tail_of[t_code[mine]], minlength=n_users)
    # relevant held-out items the user has not interacted with in training, by group
    rv = evaluated[r_user]
    fresh = ~_sorted_in(r_key, t_key) & (rv >= 0) & (r_code < n_catalogue)
    test_head = np.bincount(rv[fresh], weights=head_of[r_code[fresh]], minlength=n_users)
    test_tail = np.bincount(rv[fresh], weights=tail_of[r_code[fresh]], minlength=n_users)
    n_relevant = np.bincount(rv[rv >= 0], minlength=n_users)
    sizes = np.bincount(t_user, minlength=n_people)
    has_train = np.zeros(n_users, bool)
    has_train[sizes[person] > 0] = True
    surprise = None
    if unexpected:
        row_person = person[lists_.user]
        list_user = np.where(sizes[row_person] > 0, row_person, -1)
        surprise, has_train = _unexpectedness(
            lists_, list_user, t_user, t_code, item_users, n_people
        )
    return Truth(
        relevant,
        item_users,
        int(np.count_nonzero(sizes)),
        test_head,
        test_tail,
        train_head,
        train_tail,
        n_relevant > 0,
        int(head_of.sum()),
        int(tail_of.sum()),
        surprise,
        has_train,
        n_relevant,
        (tv[mine], t_code[mine]),
    )


def _sorted_in(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in ``keys`` (sorted, distinct)."""
    if not len(keys):
        return np.zeros(len(values), bool)
    at = np.minimum(np.searchsorted(keys, values), len(keys) - 1)
    return keys[at] == values


def _grouped_pairs(groups: np.ndarray, rows_of: np.ndarray, starts: np.ndarray, sizes: np.ndarray):
    """For each row ``r`` of ``groups`` (a group id), every member of its group
    ``rows_of[starts[g] : starts[g] + sizes[g]]``: ``(r repeated, member)``."""
    counts = sizes[groups]
    rep = np.repeat(np.arange(len(groups)), counts)
    offset = np.arange(len(rep)) - np.repeat(np.cumsum(counts) - counts, counts)
    return rep, rows_of[np.repeat(starts[groups], counts) + offset]


def _unexpectedness(x: Lists, list_user, t_user, t_code, item_users, n_train_users):
    """Per list row ``1 - mean_{j in T_u} co(i, j) / sqrt(c_i c_j)`` (recommenders'
    item co-occurrence cosine similarity: the training users with both items over the
    root of the product of each item's), and per evaluated user whether ``T_u`` is
    non-empty; ``list_user``: each row's user among the training users (-1: none)."""
    n_items = len(item_users)
    order = np.argsort(t_user, kind="stable")
    sizes = np.bincount(t_user, minlength=n_train_users)
    starts = np.cumsum(sizes) - sizes
    # co-occurrence counts of every pair of items some training user has both of
    a, b = _grouped_pairs(t_user[order], order, starts, sizes)
    keys, co = np.unique(t_code[order][a] * n_items + t_code[b], return_counts=True)
    # each list row against its user's training items
    known = list_user >= 0
    rows = np.flatnonzero(known)
    row, member = _grouped_pairs(list_user[rows], order, starts, sizes)
    row = rows[row]
    want = t_code[member] * n_items + x.item[row]
    at = np.minimum(np.searchsorted(keys, want), max(len(keys) - 1, 0))
    found = co[at] * (keys[at] == want) if len(keys) else np.zeros(len(want))
    weight = found / np.sqrt(item_users[t_code[member]])
    total = np.bincount(row, weights=weight, minlength=len(x.item))
    c_i = item_users[x.item]
    n_train = np.where(known, sizes[np.maximum(list_user, 0)], 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where((c_i > 0) & known, total / (n_train * np.sqrt(c_i)), 0.0)
    has_train = np.zeros(x.n_users, bool)
    has_train[x.user[known]] = True
    return np.where(known, 1.0 - mean, 0.0), has_train


def _group_codes(groups, ids: np.ndarray, what: str) -> np.ndarray | None:
    """Per id, the code of its group in ``groups`` (a :func:`read_groups` result; -1:
    in none); an id in two groups is refused."""
    if groups is None:
        return None
    members = np.asarray(groups.topics, dtype=object)
    names, code = np.unique(np.asarray(groups.groups, dtype=object), return_inverse=True)
    order = np.argsort(members, kind="stable")
    sorted_ids = members[order]
    twice = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
    if len(twice):
        raise InputError(
            f"{what} {sorted_ids[twice[0]]!r} is in two groups: a {what} belongs to one",
            groups.source,
        )
    at = _codes(ids.astype(object), sorted_ids)
    return np.where(at >= 0, code[order][np.maximum(at, 0)], -1)


def lists(
    coded: Coded,
    k: int,
    features=None,
    test: Interactions | None = None,
    min_rating: float | None = None,
    user_groups=None,
    item_groups=None,
    unexpected: bool = False,
) -> Lists:
    """The top-k :class:`Lists` of the test users (the catalogue: the training items,
    then the items only recommended in them); with ``test`` and training interactions,
    their :class:`~cranfield.rec.measures.Truth` too; with ``user_groups``/``item_groups``
    (:func:`cranfield.core.groups.read_groups` results), each user's and item's group."""
    r = coded.ranked
    top = np.flatnonzero(r.position < k)
    user = r.user[top]
    if len(user) and (user[1:] < user[:-1]).any():  # rows by user code, as the sums expect
        top = top[np.argsort(user, kind="stable")]
        user = r.user[top]
    item = r.item[top]
    n_train_items = coded.n_train_items
    extra = np.zeros(len(coded.items) - n_train_items + 1, bool)
    extra[np.maximum(item - n_train_items + 1, 0)] = True
    extra = np.flatnonzero(extra[1:]) + n_train_items  # items only recommended, in order
    local = np.full(len(coded.items), -1, np.int64)
    local[:n_train_items] = np.arange(n_train_items)
    local[extra] = n_train_items + np.arange(len(extra))
    popularity = np.concatenate([coded.popularity, np.zeros(len(extra), np.int64)])
    catalogue = None
    if features is not None or item_groups is not None:
        catalogue = coded.catalogue(np.concatenate([np.arange(n_train_items), extra]))
    out = Lists(
        user,
        local[item],
        len(coded.users),
        popularity,
        n_train_items,
        int(coded.popularity.sum()),
        None if features is None else features.rows_for(catalogue),
        None,
        None
        if user_groups is None
        else _group_codes(user_groups, coded.users.to_numpy(zero_copy_only=False), "user"),
        None if item_groups is None else _group_codes(item_groups, catalogue, "item"),
        position=r.position[top],
    )
    if test is None:
        return out
    return out._replace(truth=_truth(out, coded, local, test, min_rating, unexpected))


def evaluate_recommendations(
    test: Interactions,
    recs,
    measures,
    *,
    train: Interactions | None = None,
    exclude_train: bool = True,
    min_rating: float | None = None,
    features=None,
    complete: bool = False,
    user_groups=None,
    item_groups=None,
    sampled_negatives: int | None = None,
    gamma: float = 0.0,
) -> RecEvaluation:
    """Evaluate recommendation lists against held-out interactions.

    Parameters
    ----------
    test
        The held-out interactions: each (user, item) is a relevant document of the user.
    recs
        The recommendation lists as a :class:`~cranfield.core.run.Run`.
    measures
        Names: the measure language's (``nDCG@10``, ``R@20``...; recommender spellings
        ``HR@10``, ``MRR``, ``MAP@10``, ``Recall@10``, ``Precision@10`` accepted) and
        the beyond-accuracy ones of :data:`REC_MEASURES` (``Coverage@10``, ``Gini@10``,
        ``Novelty@10``, ``ARP@10``..., cutoff 10 by default).
    train
        The training interactions: popularity and the catalogue of the beyond-accuracy
        measures, and the items removed from the lists (``exclude_train``).
    exclude_train
        Remove each user's training items from their list before evaluating (full
        ranking, the items the user has seen are not candidates); a note says how many.
    min_rating
        Held-out interactions rated below this are not relevant.
    features
        Item features for intra-list diversity (:class:`ItemFeatures`).
    user_groups, item_groups
        Groups of users and of items (providers) for the fairness measures: paths of
        ``user group`` / ``item group`` tables, or :func:`cranfield.core.groups.read_groups`
        results.
    complete
        Average the accuracy measures over every test user, a user without a list
        scoring 0 (by default over the users with a list, as trec_eval averages over
        the topics a run answers).
    sampled_negatives, gamma
        Also report HR@k, nDCG@k and RR as a sampled evaluation with this many negatives
        would (``NAME~M``, the expectation over the draws) and Krichene & Rendle's
        corrected estimate (``NAME~M corrected``, bias-variance weight ``gamma``;
        :mod:`cranfield.rec.sampled`), from each held-out item's rank in its user's
        list, which must then hold it (lists over the whole catalogue).
    """
    from ..core.groups import read_groups

    if user_groups is not None and not hasattr(user_groups, "groups"):
        user_groups = read_groups(user_groups, ("user", "user_id"), "user")
    if item_groups is not None and not hasattr(item_groups, "groups"):
        item_groups = read_groups(item_groups, ("item", "item_id"), "item")
    notes = []
    depth = _needed_depth(measures, sampled_negatives is not None)
    coded = encode(recs, test, train, exclude_train, depth)
    if coded.dropped:
        notes.append(
            f"{coded.dropped} recommended (user, item) pair(s) are training "
            "interactions: removed before evaluating (keep them with --keep-train-items)"
        )
    accuracy_names, beyond, built = [], {}, {}
    for name in measures:
        parsed = beyond_name(str(name))
        if parsed is None:
            accuracy_names.append(accuracy_name(str(name)))
            continue
        measure, k = parsed
        if (
            measure != "user_coverage"
            and measure not in ("coverage",)
            and train is None
            and measure in NEEDS_TRAIN
        ):
            raise MeasureError(f"{name} needs the training interactions (--train or --split)")
        if measure == "coverage" and train is None:
            raise MeasureError(f"{name} needs the training interactions (the catalogue)")
        truth = measure in NEEDS_TRUTH and train is not None
        surprise = measure == "serendipity"
        key = (k, truth, surprise)
        if key not in built:  # one set of lists per cutoff and what they need
            built[key] = lists(
                coded,
                k,
                features,
                test if truth else None,
                min_rating,
                user_groups,
                item_groups,
                surprise,
            )
        beyond[str(name)] = REC_MEASURES[measure].behaviour(built[key])
    del built  # (the lists, and below the codes, are let go before the engine's turn)
    kept = None if sampled_negatives is None else _accuracy_run(recs, coded, None)
    run = _accuracy_run(recs, coded, _depth(accuracy_names)) if accuracy_names else None
    del coded
    accuracy = None
    if run is not None:
        from ..core.evaluation import evaluate

        accuracy = evaluate(test.to_qrels(min_rating), [run], accuracy_names, complete=complete)
        del run
    if sampled_negatives is not None:
        beyond.update(_sampled(kept, test, min_rating, accuracy_names, sampled_negatives, gamma))
        notes.append(
            f"sampled metrics (NAME~{sampled_negatives}) rank each held-out item among "
            f"{sampled_negatives} random negatives: they are not the full metric and can order "
            "systems differently (Krichene & Rendle 2020); report the full ranking's values"
        )
    return RecEvaluation(accuracy, beyond, notes)


def popularity_bias(
    test: Interactions,
    recs,
    train: Interactions,
    k: int = DEFAULT_CUTOFF,
    exclude_train: bool = True,
) -> dict:
    """The data of the popularity-bias plot (:func:`~cranfield.rec.measures.popularity_profile`):
    per evaluated user, profile and recommended popularity, and the user ids."""
    from .measures import popularity_profile

    coded = encode(recs, test, train, exclude_train, k)
    data = popularity_profile(lists(coded, k, None, test))
    data["users"] = coded.users.to_numpy(zero_copy_only=False)[data["users"]]
    return data


#: the accuracy measures a sampled evaluation reports: measure-language family -> metric
SAMPLED = {"Success": "hr", "nDCG": "ndcg", "RR": "rr"}


def _sampled(recs, test, min_rating, names, m: int, gamma: float) -> dict[str, float]:
    """``NAME~M`` and ``NAME~M corrected`` of the HR@k, nDCG@k and RR among ``names``."""
    from ..core.measures.names import parse
    from .sampled import rank_metric, sampled_estimates

    chosen = []
    for name in names:
        family = parse(name).definition.name
        if family in SAMPLED:
            cutoff = parse(name).cutoff if family != "RR" else None
            chosen.append((name, rank_metric(SAMPLED[family], cutoff)))
    if not chosen:
        raise MeasureError("--sampled-negatives needs HR@k, nDCG@k or RR among the measures")
    ranked = recs.ranked()
    rank = ranked["rank"].to_numpy()
    keep = np.ones(len(test), bool) if min_rating is None else test.ratings >= min_rating
    held_users, held_items = test.users[keep], test.items[keep]
    # users and items as integer codes (no Python string per row)
    people = vocabulary(ranked["query_id"], held_users)
    things = vocabulary(ranked["doc_id"], held_items)
    user = positions(ranked["query_id"], people).astype(np.int64)
    keys = user * len(things) + positions(ranked["doc_id"], things)
    order = np.argsort(keys)
    wanted = distinct(
        positions(held_users, people).astype(np.int64) * len(things) + positions(held_items, things)
    )
    at = np.minimum(np.searchsorted(keys[order], wanted), max(len(keys) - 1, 0))
    found = keys[order][at] == wanted if len(keys) else np.zeros(len(wanted), bool)
    if not found.all():
        raise InputError(
            f"a sampled evaluation needs each held-out item's rank in its user's list: "
            f"{int((~found).sum())} held-out item(s) are not in the lists (give lists over "
            "the whole catalogue)",
            getattr(recs, "source", None),
        )
    ranks = rank[order][at]
    lengths = np.bincount(user)[user[order][at]]  # each user's candidates
    if (lengths <= m).any():
        raise ParameterError(
            "--sampled-negatives", "fewer than the candidates of every user's list", m
        )
    out = {}
    for name, metric in chosen:
        e = sampled_estimates(metric, ranks, lengths, m, gamma)
        out[f"{name}~{m}"] = e["sampled"]
        out[f"{name}~{m} corrected"] = e["corrected"]
    return out


#: measure-language families whose value at cutoff k reads only the top k of a list
TOP_K_ONLY = {"Success", "P", "R", "nDCG", "AP", "RR"}


def _depth(names: list[str]) -> int | None:
    """The largest cutoff of ``names`` when each is a :data:`TOP_K_ONLY` family with a
    cutoff and no other parameter (then only the lists' top rows reach the engine),
    else None."""
    from ..core.measures.names import parse

    depth = 0
    for name in names:
        m = parse(name)
        if m.definition.name not in TOP_K_ONLY or m.params or not isinstance(m.cutoff, int):
            return None
        depth = max(depth, m.cutoff)
    return depth


def _needed_depth(measures, sampled: bool) -> int | None:
    """How many rows of each list an evaluation of ``measures`` reads: the deepest
    cutoff of the beyond-accuracy measures and of the accuracy ones (:func:`_depth`);
    None (every row) when an accuracy measure reads the whole list, a name is not
    understood (its error comes later) or the sampled metrics need every rank."""
    if sampled:
        return None
    depth, accuracy = 0, []
    for name in measures:
        parsed = beyond_name(str(name))
        if parsed is None:
            accuracy.append(accuracy_name(str(name)))
        else:
            depth = max(depth, parsed[1])
    if accuracy:
        try:
            deepest = _depth(accuracy)
        except (ValueError, TypeError):
            return None
        if deepest is None:
            return None
        depth = max(depth, deepest)
    return depth


def _accuracy_run(recs, coded: Coded, depth: int | None):
    """The run the accuracy measures see: the lists of the evaluated users without their
    training items, cut to ``depth`` rows (None: whole), in reading order."""
    from ..core.run import Run
    from .stream import lists_source

    r = coded.ranked
    rows = np.flatnonzero(r.position < depth) if depth is not None else np.arange(len(r.row))
    rows = rows[np.argsort(r.row[rows], kind="stable")]
    table = pa.table(
        {
            "query_id": coded.people.take(pa.array(r.user[rows], pa.int32())),
            "doc_id": coded.items.take(pa.array(r.item[rows], pa.int32())),
            "score": pa.array(r.score[rows], pa.float64()),
        }
    )
    source = lists_source(recs)
    return Run.of_table(table, source.source, name=source.name)


@dataclass(frozen=True)
class ItemFeatures:
    """Item feature vectors (one row per item id), for intra-list diversity."""

    items: np.ndarray
    vectors: np.ndarray
    source: str

    def rows_for(self, catalogue: np.ndarray) -> np.ndarray:
        """Unit-norm feature rows in ``catalogue`` order; an item without features is an
        error naming it."""
        from ..errors import InputError

        order = np.argsort(self.items, kind="stable")
        pos = np.searchsorted(self.items[order], catalogue)
        pos = np.minimum(pos, len(order) - 1)
        found = self.items[order][pos] == catalogue
        if not found.all():
            missing = catalogue[~found][0]
            raise InputError(f"item {missing!r} has no features", self.source)
        rows = self.vectors[order][pos]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1, norms)


def read_item_features(path) -> ItemFeatures:
    """A table of an ``item`` column and numeric feature columns (one-hot categories or
    an embedding)."""
    from ..core.io.table import read_table
    from ..errors import InputError
    from .data import ITEM, _find

    t = read_table(path, strings=list(ITEM))
    columns = {c.lower().strip(): c for c in t.table.column_names}
    item = _find(columns, ITEM)
    if item is None:
        raise t.missing("item")
    rest = [c for c in t.table.column_names if c != item]
    if not rest:
        raise InputError("no feature columns beside the item column", t.source)
    t.require(dict.fromkeys(rest, "number"))
    vectors = np.column_stack([t.column(c).to_numpy().astype(np.float64) for c in rest])
    items = np.asarray(t.column(item).cast(pa.string()).to_pylist(), dtype=object)
    if len(np.unique(items)) != len(items):
        raise InputError("an item is listed twice", t.source)
    return ItemFeatures(items, vectors, t.source)
