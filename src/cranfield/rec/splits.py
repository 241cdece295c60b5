"""Splits of an interaction log into training and test interactions that avoid leakage.

Each split is declared once (:data:`SPLITS`) and computed with whole-array operations
(one stable sort by user and time; no loop per user):

- ``loo-last``: each user's last interaction (by timestamp, ties by reading order) is the
  test item, the rest train (leave-one-out; He et al., NCF, WWW 2017);
- ``loo-random``: one interaction per user drawn at random (seeded);
- ``temporal``: every interaction at or after the ``fraction`` quantile of the
  timestamps is test (a global time cut: no test interaction precedes a training one;
  Meng, McCreadie, Macdonald & Ounis, RecSys 2020);
- ``temporal-user``: each user's last ``1 - fraction`` of interactions (by time) is test;
- ``ratio``: a random ``1 - fraction`` of each user's interactions is test (seeded).

Users with a single interaction stay in train in the leave-one-out and per-user splits
(they have nothing to hold out), as RecBole and Elliot do.
"""

from __future__ import annotations

from .._lazy import lazy
from ..core.declarations import Declaration, Param, Registry, number_in
from ..errors import InputError
from .data import Interactions

np = lazy("numpy", __name__, "np")


SPLITS: Registry = Registry("split")
_FRACTION = Param(
    "fraction",
    float,
    0.8,
    "share of the interactions kept for training",
    **number_in(0, 1, open_lo=True, open_hi=True),
)


def _order(
    log: Interactions, random: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows sorted by user then time -- or a random order within each user --, the
    position of each sorted row within its user, the user's count), whole-array."""
    codes = np.unique(log.users, return_inverse=True)[1]
    if random is not None:
        within = random.permutation(len(log))
    elif log.timestamps is not None:
        within = np.argsort(log.timestamps, kind="stable")
    else:
        within = np.arange(len(log))
    key = np.empty(len(log), np.int64)
    key[within] = np.arange(len(log))
    order = np.lexsort((key, codes))
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    counts = np.diff(np.r_[starts, len(log)])
    position = np.arange(len(log)) - np.repeat(starts, counts)
    return order, position, np.repeat(counts, counts)


def _need_time(log: Interactions, name: str) -> None:
    if log.timestamps is None:
        raise InputError(f"the {name} split needs a timestamp column", log.source)


def _loo(log: Interactions, random: np.random.Generator | None) -> np.ndarray:
    order, position, count = _order(log, random)
    test = np.zeros(len(log), bool)
    test[order] = (position == count - 1) & (count > 1)
    return test


def _loo_last(log: Interactions, seed: int, fraction: float) -> np.ndarray:
    _need_time(log, "loo-last")
    return _loo(log, None)


def _loo_random(log: Interactions, seed: int, fraction: float) -> np.ndarray:
    return _loo(log, np.random.default_rng(seed))


def _temporal(log: Interactions, seed: int, fraction: float) -> np.ndarray:
    _need_time(log, "temporal")
    cut = np.quantile(log.timestamps.astype(np.float64), fraction, method="inverted_cdf")
    return log.timestamps >= cut


def _per_user(log: Interactions, random: np.random.Generator | None, fraction: float) -> np.ndarray:
    order, position, count = _order(log, random)
    keep = np.maximum(np.floor(count * fraction).astype(np.int64), 1)
    test = np.zeros(len(log), bool)
    test[order] = position >= keep
    return test


def _temporal_user(log: Interactions, seed: int, fraction: float) -> np.ndarray:
    _need_time(log, "temporal-user")
    return _per_user(log, None, fraction)


def _ratio(log: Interactions, seed: int, fraction: float) -> np.ndarray:
    return _per_user(log, np.random.default_rng(seed), fraction)


for _name, _fn, _summary, _formula, _params in (
    (
        "loo-last",
        _loo_last,
        "each user's last interaction is the test item",
        "test = argmax_t of each user's interactions (users with one interaction: train)",
        (),
    ),
    (
        "loo-random",
        _loo_random,
        "one random interaction per user is the test item",
        "test = one interaction per user drawn uniformly (seeded)",
        (),
    ),
    (
        "temporal",
        _temporal,
        "a global time cut: interactions from the fraction quantile on are test",
        "test = {t >= Q_fraction(timestamps)}",
        (_FRACTION,),
    ),
    (
        "temporal-user",
        _temporal_user,
        "each user's latest 1 - fraction interactions are test",
        "test = each user's interactions after the first max(1, floor(n_u * fraction)) by time",
        (_FRACTION,),
    ),
    (
        "ratio",
        _ratio,
        "a random 1 - fraction of each user's interactions is test",
        "test = each user's interactions after the first max(1, floor(n_u * fraction)) in a random order",
        (_FRACTION,),
    ),
):
    SPLITS.register(
        Declaration(
            _name,
            _fn,
            _summary,
            _formula,
            "He et al., Neural Collaborative Filtering, WWW 2017 (leave-one-out); Meng et al., "
            "Exploring Data Splitting Strategies for the Evaluation of Recommendation "
            "Models, RecSys 2020 (temporal and per-user splits)",
            params=_params,
        )
    )


def split(
    log: Interactions, method: str = "loo-last", *, seed: int = 0, **params
) -> tuple[Interactions, Interactions]:
    """``(train, test)`` of ``log`` by the split ``method`` (:data:`SPLITS`)."""
    declared = SPLITS.lookup(method)
    values = declared.resolve(params)
    test = declared.behaviour(log, seed, values.get("fraction"))
    return log.take(np.flatnonzero(~test)), log.take(np.flatnonzero(test))
