"""Validation splits for evaluation experiments, at item level and at query level.

Item-level splitters divide N items (rows) into train and test parts: a single
train/test split (optionally stratified), k-fold cross-validation, leave-one-out and
leave-p-out (Arlot & Celisse, "A survey of cross-validation procedures for model
selection", Statistics Surveys 2010). Query-level
splitters take one query id per row and never separate the rows of a query: the
splitting happens over the distinct queries and is then mapped back to rows, as in the
five folds of the LETOR benchmark collections (Qin et al., 2010), where every query,
with all its judged documents, sits in exactly one test fold.

:func:`evaluate_folds` evaluates any measure per fold and reports its mean and spread
across folds.

Reproducibility
---------------
Randomised splits draw from ``numpy.random.default_rng(seed)`` (PCG64), so the same seed
gives the same split on every machine and platform. The splitters are written in NumPy
rather than wrapping scikit-learn's, whose ``random_state`` uses the legacy
``RandomState`` generator and does not accept a ``Generator``; the unshuffled k-fold,
leave-one-out and leave-p-out produce exactly scikit-learn's ``KFold``, ``LeaveOneOut``
and ``LeavePOut`` splits (tested). Train and test indices are returned sorted.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, ParameterError
from .labels import factorize

__all__ = [
    "FoldScores",
    "QuerySplit",
    "Split",
    "evaluate_folds",
    "kfold",
    "leave_one_out",
    "leave_p_out",
    "query_kfold",
    "query_leave_one_out",
    "query_leave_p_out",
    "query_train_test_split",
    "train_test_split",
]

Seed = int | np.random.Generator | None
_EMPTY = np.empty(0, dtype=np.intp)


@dataclass(frozen=True)
class Split:
    """One train/test partition of items, as sorted row indices.

    ``validation`` is empty unless the splitter was asked for a validation part.
    Unpacks as ``train, test = split`` (like scikit-learn's splitters).
    """

    train: np.ndarray
    test: np.ndarray
    validation: np.ndarray = field(default_factory=lambda: _EMPTY)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.train, self.test))

    @property
    def train_ids(self) -> np.ndarray:
        """What a fold-level score receives for training: row indices here."""
        return self.train

    @property
    def test_ids(self) -> np.ndarray:
        return self.test


@dataclass(frozen=True)
class QuerySplit(Split):
    """A split that keeps every query whole: rows plus the query ids on each side."""

    train_queries: np.ndarray = field(default_factory=lambda: _EMPTY)
    test_queries: np.ndarray = field(default_factory=lambda: _EMPTY)
    validation_queries: np.ndarray = field(default_factory=lambda: _EMPTY)

    @property
    def train_ids(self) -> np.ndarray:
        """What a fold-level score receives for training: the query ids here."""
        return self.train_queries

    @property
    def test_ids(self) -> np.ndarray:
        return self.test_queries


# ----------------------------------------------------------------- validation


def _n_items(items: Any) -> int:
    if isinstance(items, (int, np.integer)) and not isinstance(items, bool):
        if items < 0:
            raise ParameterError("items", "a count >= 0 or a sequence of items", items)
        return int(items)
    try:
        return len(items)
    except TypeError:
        raise ParameterError("items", "a count >= 0 or a sequence of items", items) from None


def _int_param(name: str, value: Any, low: int, high: int | None = None) -> int:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok or value < low or (high is not None and value > high):
        bound = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
        raise ParameterError(name, bound, value)
    return int(value)


def _n_test(test_size: Any, n: int) -> int:
    """Test-part size: a fraction of n (rounded up, as scikit-learn) or a count."""
    if isinstance(test_size, (float, np.floating)):
        if not 0.0 < test_size < 1.0:
            raise ParameterError("test_size", "a fraction in (0, 1) or a count", test_size)
        k = math.ceil(test_size * n)
    else:
        k = _int_param("test_size", test_size, 1)
    if not 1 <= k <= n - 1:
        raise ParameterError(
            "test_size", f"a size leaving both parts non-empty for {n} items", test_size
        )
    return k


def _codes(labels: Any, name: str, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    uniques, codes = factorize(labels, name)
    if n is not None and len(codes) != n:
        raise InputError(f"{name} has {len(codes)} entries for {n} items", name)
    return uniques, codes


def _order(n: int, shuffle: bool, seed: Seed) -> np.ndarray:
    if not isinstance(shuffle, (bool, np.bool_)):
        raise ParameterError("shuffle", "True or False", shuffle)
    if not shuffle:
        return np.arange(n)
    ok = seed is None or isinstance(seed, np.random.Generator)
    ok = ok or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0)
    if not ok:
        raise ParameterError("seed", "None, an integer >= 0 or a numpy.random.Generator", seed)
    return np.random.default_rng(seed).permutation(n)


def _mask_split(n: int, test_mask: np.ndarray, val_mask: np.ndarray | None = None) -> Split:
    train_mask = ~test_mask if val_mask is None else ~(test_mask | val_mask)
    val = _EMPTY if val_mask is None else np.flatnonzero(val_mask)
    return Split(np.flatnonzero(train_mask), np.flatnonzero(test_mask), val)


# ----------------------------------------------------------------- item level


def train_test_split(
    items: int | Sequence[Any],
    test_size: float | int = 0.25,
    *,
    stratify: Any = None,
    shuffle: bool = True,
    seed: Seed = None,
) -> Split:
    """Split N items once into a training and a test part.

    Parameters
    ----------
    items
        The number of items N, or any sequence whose length is N.
    test_size
        Fraction of the items in the test part (rounded up) or an absolute count.
    stratify
        Optional class label per item: each class is then split in the same proportion
        (per-class test counts by largest remainder, so they sum to the test size and
        differ from the exact proportion by less than one item).
    shuffle
        Draw the test part at random; if False, the last items form the test part.
    seed
        Seed (or ``numpy.random.Generator``) for ``numpy.random.default_rng``.
    """
    n = _n_items(items)
    k = _n_test(test_size, n)
    if stratify is None:
        order = _order(n, shuffle, seed)
        mask = np.zeros(n, dtype=bool)
        mask[order[n - k :]] = True
        return _mask_split(n, mask)
    _, cls = _codes(stratify, "stratify", n)
    counts = np.bincount(cls)
    ideal = counts * k / n
    quota = np.floor(ideal).astype(np.int64)
    # largest remainder; ties go to the larger class, then the first class
    extra = k - int(quota.sum())
    by_remainder = np.lexsort((np.arange(len(counts)), -counts, -(ideal - quota)))
    quota[by_remainder[:extra]] += 1
    order = _order(n, shuffle, seed)
    grouped = order[np.argsort(cls[order], kind="stable")]  # by class, random within class
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    rank_in_class = np.arange(n) - np.repeat(starts, counts)
    mask = np.zeros(n, dtype=bool)
    mask[grouped[rank_in_class >= np.repeat(counts - quota, counts)]] = True
    return _mask_split(n, mask)


def _fold_of(n: int, k: int, order: np.ndarray, stratify: Any) -> np.ndarray:
    """Fold number (0..k-1) of each item."""
    fold = np.empty(n, dtype=np.intp)
    if stratify is None:
        # contiguous blocks; the first n % k folds get one extra item (as sklearn KFold)
        sizes = np.full(k, n // k)
        sizes[: n % k] += 1
        fold[order] = np.repeat(np.arange(k), sizes)
        return fold
    _, cls = _codes(stratify, "stratify", n)
    grouped = order[np.argsort(cls[order], kind="stable")]
    fold[grouped] = np.arange(n) % k  # round-robin through each class in turn
    return fold


def kfold(
    items: int | Sequence[Any],
    k: int = 5,
    *,
    stratify: Any = None,
    shuffle: bool = False,
    seed: Seed = None,
) -> list[Split]:
    """k-fold cross-validation: k splits whose test parts partition the items.

    Without ``stratify`` the folds are contiguous blocks of the (optionally shuffled)
    items, sizes differing by at most one; unshuffled, they equal scikit-learn's
    ``KFold(k)``. With ``stratify`` (a class label per item) the items of each class
    are dealt round-robin to the folds, so every class is spread over the folds as
    evenly as possible and fold sizes still differ by at most one.
    """
    n = _n_items(items)
    k = _int_param("k", k, 2, max(n, 2))
    if n < 2:
        raise InputError(f"k-fold needs at least 2 items, got {n}", "items")
    fold = _fold_of(n, k, _order(n, shuffle, seed), stratify)
    return [_mask_split(n, fold == i) for i in range(k)]


def leave_one_out(items: int | Sequence[Any]) -> Iterator[Split]:
    """N splits, each testing on one item (item 0 first), as scikit-learn's LeaveOneOut."""
    return leave_p_out(items, 1)


def leave_p_out(items: int | Sequence[Any], p: int) -> Iterator[Split]:
    """All C(N, p) splits testing on p items, in lexicographic order (sklearn LeavePOut).

    The test parts overlap for p > 1. Returns a lazy iterator: C(N, p) grows fast.
    """
    n = _n_items(items)
    p = _int_param("p", p, 1, max(n - 1, 1))
    if n < 2:
        raise InputError(f"leave-p-out needs at least 2 items, got {n}", "items")

    def gen() -> Iterator[Split]:
        for combo in itertools.combinations(range(n), p):
            mask = np.zeros(n, dtype=bool)
            mask[list(combo)] = True
            yield _mask_split(n, mask)

    return gen()


# ---------------------------------------------------------------- query level


def _lift(split: Split, queries: np.ndarray, inverse: np.ndarray) -> QuerySplit:
    """Turn a split of the distinct queries into a split of their rows."""
    m = len(queries)

    def rows(part: np.ndarray) -> np.ndarray:
        member = np.zeros(m, dtype=bool)
        member[part] = True
        return np.flatnonzero(member[inverse])

    return QuerySplit(
        train=rows(split.train),
        test=rows(split.test),
        validation=rows(split.validation),
        train_queries=queries[split.train],
        test_queries=queries[split.test],
        validation_queries=queries[split.validation],
    )


def _queries(query_ids: Any) -> tuple[np.ndarray, np.ndarray]:
    return _codes(query_ids, "query_ids")


def query_train_test_split(
    query_ids: Any, test_size: float | int = 0.25, *, shuffle: bool = True, seed: Seed = None
) -> QuerySplit:
    """Train/test split of whole queries: ``test_size`` counts queries, not rows.

    ``query_ids`` holds the query of each row (e.g. the ``qid`` column of LETOR data);
    rows of one query always land on the same side.
    """
    queries, inverse = _queries(query_ids)
    split = train_test_split(len(queries), test_size, shuffle=shuffle, seed=seed)
    return _lift(split, queries, inverse)


def query_kfold(
    query_ids: Any,
    k: int = 5,
    *,
    validation: bool = False,
    shuffle: bool = False,
    seed: Seed = None,
) -> list[QuerySplit]:
    """k folds over whole queries: each query is in exactly one test part.

    The distinct queries (sorted, then shuffled if asked) are cut into k parts whose
    sizes in queries differ by at most one. Fold i tests on part i. With
    ``validation=True`` fold i also holds out part (i + 1) mod k for validation and
    trains on the other k - 2 parts, the rotation of LETOR's five folds
    (3 parts train, 1 validation, 1 test).
    """
    queries, inverse = _queries(query_ids)
    m = len(queries)
    k = _int_param("k", k, 3 if validation else 2, max(m, 3 if validation else 2))
    if m < k:
        raise InputError(f"{k} folds need at least {k} distinct queries, got {m}", "query_ids")
    if not isinstance(validation, (bool, np.bool_)):
        raise ParameterError("validation", "True or False", validation)
    fold = _fold_of(m, k, _order(m, shuffle, seed), None)
    out = []
    for i in range(k):
        val = (fold == (i + 1) % k) if validation else None
        out.append(_lift(_mask_split(m, fold == i, val), queries, inverse))
    return out


def query_leave_one_out(query_ids: Any) -> Iterator[QuerySplit]:
    """One split per query, testing on all rows of that query (sklearn LeaveOneGroupOut)."""
    return query_leave_p_out(query_ids, 1)


def query_leave_p_out(query_ids: Any, p: int) -> Iterator[QuerySplit]:
    """All C(Q, p) splits testing on p whole queries (sklearn LeavePGroupsOut)."""
    queries, inverse = _queries(query_ids)
    return (_lift(s, queries, inverse) for s in leave_p_out(len(queries), p))


# --------------------------------------------------------- per-fold evaluation


@dataclass(frozen=True)
class FoldScores:
    """A measure evaluated per fold, with its mean and spread across folds.

    Attributes
    ----------
    values
        The score of each fold (for per-query values: the mean over its test queries).
    mean, std, min, max
        Across folds; ``std`` uses ``ddof`` (0: population, 1: sample).
    fold_sizes
        Number of test ids (queries, or rows for item-level splits) per fold.
    fold_std, fold_min, fold_max
        Per fold spread of per-query values over the fold's test queries (``None``
        when the score was a callable).
    """

    values: np.ndarray
    mean: float
    std: float
    min: float
    max: float
    ddof: int
    fold_sizes: np.ndarray
    fold_std: np.ndarray | None = None
    fold_min: np.ndarray | None = None
    fold_max: np.ndarray | None = None

    def as_dict(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            return v.tolist() if isinstance(v, np.ndarray) else v

        return {k: plain(getattr(self, k)) for k in self.__dataclass_fields__}


def evaluate_folds(
    splits: Sequence[Split] | Iterator[Split],
    score: Callable[[np.ndarray, np.ndarray], float] | Mapping[Any, float],
    *,
    ddof: int = 0,
) -> FoldScores:
    """Evaluate a measure on every fold and summarise it across folds.

    Parameters
    ----------
    splits
        Splits from any splitter here (query-level ones pass query ids).
    score
        Either a callable ``score(train_ids, test_ids) -> float`` (for query-level
        splits the ids are query ids, else row indices), called once per fold; or a
        mapping ``{id: value}`` of a per-query (per-item) measure, in which case a fold's
        value is the mean over its test ids, and the per-fold std/min/max over them are
        reported too. Every test id must be in the mapping.
    ddof
        Delta degrees of freedom of the standard deviations (0 population, 1 sample).
    """
    ddof = _int_param("ddof", ddof, 0)
    splits = list(splits)
    if not splits:
        raise InputError("no folds to evaluate", "splits")
    sizes = np.array([len(s.test_ids) for s in splits], dtype=np.int64)
    if callable(score):
        values = np.array(
            [_as_float(score(s.train_ids, s.test_ids), i) for i, s in enumerate(splits)]
        )
        extra: dict[str, Any] = {}
    elif isinstance(score, Mapping):
        per_fold = [_lookup(score, s.test_ids, i) for i, s in enumerate(splits)]
        values = np.array([v.mean() if len(v) else np.nan for v in per_fold])
        extra = {
            "fold_std": np.array([_std(v, ddof) for v in per_fold]),
            "fold_min": np.array([v.min() if len(v) else np.nan for v in per_fold]),
            "fold_max": np.array([v.max() if len(v) else np.nan for v in per_fold]),
        }
    else:
        raise ParameterError("score", "a callable or a mapping {id: value}", type(score).__name__)
    return FoldScores(
        values=values,
        mean=float(values.mean()),
        std=_std(values, ddof),
        min=float(values.min()),
        max=float(values.max()),
        ddof=ddof,
        fold_sizes=sizes,
        **extra,
    )


def _std(v: np.ndarray, ddof: int) -> float:
    return float(v.std(ddof=ddof)) if len(v) > ddof else float("nan")


def _as_float(value: Any, fold: int) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(
            f"score returned {value!r} for fold {fold}; expected a number", "score"
        ) from None


def _lookup(values: Mapping[Any, float], ids: np.ndarray, fold: int) -> np.ndarray:
    # one dict lookup per test query: Python-level, but over queries (not documents)
    # and outside any measure kernel.
    out = np.empty(len(ids), dtype=np.float64)
    for j, qid in enumerate(ids.tolist()):
        try:
            out[j] = values[qid]
        except KeyError:
            raise InputError(f"no value for test id {qid!r} of fold {fold}", "score") from None
        except (TypeError, ValueError):
            raise InputError(f"value for id {qid!r} is not a number", "score") from None
    return out
