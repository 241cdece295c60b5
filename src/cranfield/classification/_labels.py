"""Label arrays: validation, class lists and encoding to integer codes."""

from __future__ import annotations

from collections.abc import Sequence

from .._lazy import lazy
from ..errors import InputError, shown

np = lazy("numpy", __name__, "np")

_POSITIVE_PAIRS = ({0, 1}, {-1, 1}, {False, True})


def as_labels(values, name: str) -> np.ndarray:
    """A 1-D array of labels; strings stay strings, anything else keeps its dtype."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"expected a 1-D sequence of labels, got shape {arr.shape}", source=name)
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InputError(f"label {int(np.flatnonzero(np.isnan(arr))[0])} is NaN", source=name)
    return arr


def check_same_length(a: np.ndarray, b: np.ndarray, what_a: str, what_b: str) -> None:
    if len(a) != len(b):
        raise InputError(f"{what_a} has {len(a)} items but {what_b} has {len(b)}")


def class_list(*arrays: np.ndarray) -> list:
    """The sorted union of labels (first-appearance order if labels are not orderable)."""
    parts = []
    for a in arrays:
        a = np.asarray(a)
        if a.dtype.kind in "biufUS":
            a = np.unique(a)  # vectorised; only the distinct values reach Python
        parts.append(a.astype(object))
    joined = np.concatenate(parts) if parts else []
    # dict.fromkeys keeps first appearance and collapses 1 and 1.0 like a set would
    uniq = list(dict.fromkeys(_plain(x) for x in joined))
    try:
        return sorted(uniq)
    except TypeError:
        return uniq


def _plain(x):
    """NumPy scalars to Python scalars, so labels print and hash naturally."""
    return x.item() if isinstance(x, np.generic) else x


def encode(values: np.ndarray, labels: Sequence, name: str) -> np.ndarray:
    """Integer codes of ``values`` in ``labels``; unknown labels are an InputError."""
    index = {lab: i for i, lab in enumerate(labels)}
    arr = np.asarray(values)
    if arr.dtype.kind in "biufUS" and len(arr):
        # vectorised path: map the (few) distinct values, then broadcast back
        uniq, inverse = np.unique(arr, return_inverse=True)
        codes_u = np.array([index.get(_plain(u), -1) for u in uniq], dtype=np.int64)
        codes = codes_u[inverse.reshape(-1)]
    else:  # object arrays of arbitrary hashables: no vectorised hash lookup exists
        codes = np.fromiter((index.get(_plain(v), -1) for v in arr), dtype=np.int64, count=len(arr))
    bad = np.flatnonzero(codes < 0)
    if len(bad):
        raise InputError(
            f"item {int(bad[0])} has label {shown(arr[bad[0]])}, which is not one of "
            f"the classes {shown(list(labels))}",
            source=name,
        )
    return codes


def infer_positive(labels: Sequence, positive=None):
    """The positive label: the one given (it must occur), else 1/True of a {0,1}-like pair."""
    labels = list(labels)
    if positive is not None:
        matches = [lab for lab in labels if lab == positive or str(lab) == str(positive)]
        if not matches:
            raise InputError(
                f"unknown positive label {shown(positive)}; the labels are {shown(labels)}"
            )
        return matches[0]
    # labels read from text files are strings: compare spellings too ("0"/"1", "true")
    spelled = {str(lab).lower(): lab for lab in labels}
    for pair in _POSITIVE_PAIRS:
        names = {str(x).lower() for x in pair}
        if spelled and set(spelled) <= names:
            top = str(max(pair)).lower()
            return spelled.get(top, max(pair))
    raise InputError(
        f"cannot tell which label is positive among {shown(labels)}; "
        "pass positive=<label> (--positive on the command line)"
    )


def positive_mask(values: np.ndarray, labels: Sequence, positive, name: str) -> np.ndarray:
    """Boolean "is the positive label" per item (all False if it does not occur)."""
    codes = encode(values, labels, name)
    matches = [i for i, lab in enumerate(labels) if lab == positive]
    if not matches:
        return np.zeros(len(codes), dtype=bool)
    return codes == matches[0]


def as_numbers_if_numeric(*columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """Text label columns that are all numbers become numbers, compared by value.

    ``"1"``, ``"1.0"`` and ``"1.000000000000000000e+00"`` (``np.savetxt``'s default) are
    then one class; integral values become int64 (so 0/1 labels are recognised as
    such), others float64. If any cell of any column is not a finite number, every
    column is returned unchanged (labels keep their spelling).
    """
    converted = []
    for col in columns:
        if col.dtype.kind not in "US" or col.dtype.itemsize > 64 * 4:
            return columns  # not text, or too long to be a number anyone writes
        try:
            values = col.astype(np.float64)
        except ValueError:
            return columns
        if not np.isfinite(values).all():
            return columns
        converted.append(values)
    if all(np.array_equal(v, np.round(v)) and np.abs(v).max(initial=0) < 2**53 for v in converted):
        return tuple(v.astype(np.int64) for v in converted)
    return tuple(converted)
