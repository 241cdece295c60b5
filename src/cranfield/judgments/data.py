"""Judgments from several assessors: the table, its label scale, integer codes.

A judgments table has one row per judgment: ``topic``, ``document``, ``assessor``,
``label`` and optionally ``seconds`` (time spent) and ``timestamp``. It is read from
CSV/TSV/Parquet/JSONL files, pandas or polars DataFrames, Arrow tables, or from
several qrels files, one per assessor (the assessor is the file's stem).

Internally every judgment is three integer codes held as NumPy arrays: the item (a
``(topic, document)`` pair), the assessor and the label (an index into the declared
:class:`Scale`). Labels not on the scale are an :class:`~cranfield.errors.InputError`
naming the file and line.

A negative grade that the declared scale does not hold (``-1`` in the packages of
``cranfield pool assign``: pooled, not yet judged) is no judgment: such rows are left
out, as ``cranfield pool merge`` leaves them out, and counted in
:attr:`Judgments.unjudged`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError, ParameterError, number_shown

LEVELS = ("nominal", "ordinal", "interval", "ratio")

COLUMNS: dict[str, tuple[str, ...]] = {
    "topic": ("topic", "topic_id", "query_id", "qid", "query", "queryid", "q_id"),
    "document": ("document", "doc_id", "docid", "docno", "doc", "document_id", "did", "pid"),
    "assessor": ("assessor", "assessor_id", "worker", "worker_id", "annotator", "rater", "judge"),
    "label": ("label", "relevance", "rel", "grade", "judgment", "judgement"),
    "seconds": ("seconds", "time", "duration", "time_spent", "seconds_spent"),
    "timestamp": ("timestamp", "time_stamp", "submitted", "submitted_at"),
}
_REQUIRED = ("topic", "document", "assessor", "label")


@dataclass(frozen=True)
class Scale:
    """A declared label scale: its level of measurement and its values (with names).

    Parameters
    ----------
    values
        The integer labels, in scale order (ascending for ordinal and interval scales).
    names
        A name per value (``""`` when none); a label may be written as its value or name.
    level
        ``"nominal"``, ``"ordinal"`` or ``"interval"`` (``"ratio"`` too: interval with a
        true zero). It chooses the default distance of Krippendorff's alpha.
    """

    values: tuple[int, ...]
    names: tuple[str, ...] = ()
    level: str = "ordinal"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ParameterError("scale level", "one of " + ", ".join(LEVELS), self.level)
        if not self.values:
            raise ParameterError("scale", "at least one label value", "")
        if len(set(self.values)) != len(self.values):
            raise ParameterError("scale", "distinct label values", list(self.values))
        if self.level != "nominal" and list(self.values) != sorted(self.values):
            raise ParameterError(
                "scale", f"ascending values for a {self.level} scale", list(self.values)
            )
        if not self.names:
            object.__setattr__(self, "names", ("",) * len(self.values))
        if len(self.names) != len(self.values):
            raise ParameterError("scale names", "one name per value", list(self.names))

    @classmethod
    def parse(cls, text: str, level: str = "ordinal") -> Scale:
        """``"0,1,2"`` or ``"0=non,1=rel,2=high"`` (names optional per value)."""
        values, names = [], []
        for part in str(text).split(","):
            value, _, name = part.partition("=")
            try:
                values.append(int(value.strip()))
            except ValueError:
                raise ParameterError(
                    "--scale", "integer labels as 0,1,2 or 0=non,1=rel,2=high", text
                ) from None
            names.append(name.strip())
        pairs = sorted(zip(values, names, strict=True)) if level != "nominal" else None
        if pairs is not None:
            values, names = [v for v, _ in pairs], [n for _, n in pairs]
        return cls(tuple(values), tuple(names), level)

    @property
    def size(self) -> int:
        return len(self.values)

    def codes_of(self, labels: np.ndarray) -> np.ndarray:
        """Codes (indices into ``values``) of string labels; -1 where not on the scale."""
        lookup = {str(v): i for i, v in enumerate(self.values)}
        lookup.update({n: i for i, n in enumerate(self.names) if n})
        return np.array([lookup.get(s.strip(), -1) for s in labels], dtype=np.int64)

    def describe(self) -> str:
        return ",".join(
            f"{v}={n}" if n else str(v) for v, n in zip(self.values, self.names, strict=True)
        )


@dataclass
class Judgments:
    """Judgments as integer codes: one entry per judgment in the arrays below.

    Attributes
    ----------
    item, assessor, label
        ``int64`` codes: ``item`` indexes ``topics``/``documents``, ``assessor`` indexes
        ``assessors``, ``label`` indexes ``scale.values``.
    topics, documents
        The topic and document id of each item (``object`` arrays of str).
    assessors
        The assessor names.
    seconds, timestamp
        Time spent per judgment (float64, NaN if unknown) and the timestamp as given
        (strings), or None when the table has no such column.
    unjudged
        How many rows of the input were left out as not yet judged (a negative grade
        not on the declared scale, e.g. the ``-1`` of an assessment package).
    """

    item: np.ndarray
    assessor: np.ndarray
    label: np.ndarray
    topics: np.ndarray
    documents: np.ndarray
    assessors: list[str]
    scale: Scale
    source: str = "<judgments>"
    seconds: np.ndarray | None = None
    timestamp: np.ndarray | None = field(default=None, repr=False)
    unjudged: int = 0

    # -- construction ------------------------------------------------------------------

    @classmethod
    def read(cls, obj, *, scale: Scale | str | None = None, level: str = "ordinal") -> Judgments:
        """A judgments table from a file (CSV/TSV/Parquet/Arrow/JSONL, told from the content;
        ``-`` is standard input), a pandas or
        polars DataFrame, or an Arrow table. ``scale`` declares the labels (a
        :class:`Scale` or text like ``"0,1,2"``); without it the integer labels present
        form an ordinal scale."""
        if isinstance(obj, (str, os.PathLike)):
            table, line_of, source = _read_file(obj)
        else:
            table, source = _arrow(obj), f"<{type(obj).__name__}>"
            line_of = None
        return cls.from_table(table, scale=scale, level=level, source=source, line_of=line_of)

    @classmethod
    def from_qrels(
        cls,
        paths: Sequence,
        *,
        scale: Scale | str | None = None,
        level: str = "ordinal",
        names: Sequence[str] | None = None,
    ) -> Judgments:
        """One qrels per assessor (files read with :meth:`Qrels.read`, or Qrels objects);
        each assessor is named after its file stem (or ``names``)."""
        from ..core.qrels import Qrels

        if isinstance(scale, str):
            scale = Scale.parse(scale, level)
        tables, seen = [], set()
        for i, p in enumerate(paths):
            q = p if isinstance(p, Qrels) else Qrels.read(p)
            if scale is not None:
                _check_qrels_labels(q, p, scale)
            name = names[i] if names is not None else _stem(p, i)
            if name in seen:
                name = f"{name}#{i + 1}"
            seen.add(name)
            t = q.table
            tables.append(
                pa.table(
                    {
                        "topic": t["query_id"],
                        "document": t["doc_id"],
                        "assessor": pa.array([name] * t.num_rows, pa.string()),
                        "label": t["relevance"],
                    }
                )
            )
        if not tables:
            raise ParameterError("qrels", "at least one qrels file", 0)
        return cls.from_table(
            pa.concat_tables(tables), scale=scale, level=level, source="qrels", line_of=None
        )

    @classmethod
    def from_table(
        cls,
        table: pa.Table,
        *,
        scale: Scale | str | None = None,
        level: str = "ordinal",
        source: str = "<judgments>",
        line_of=None,
    ) -> Judgments:
        """Build from an Arrow table whose columns are named as in ``COLUMNS``."""
        from ..core.io.tabular import id_column

        cols = _columns(table, source)
        if table.num_rows == 0:
            raise InputError("no judgments", source=source)
        if isinstance(scale, str):
            scale = Scale.parse(scale, level)
        unjudged = _unjudged_rows(table[cols["label"]], scale)
        kept = np.flatnonzero(~unjudged)  # row r below is row kept[r] of the input
        if unjudged.any():
            if len(kept) == 0:
                raise InputError(
                    "no judgments (every grade is negative: pooled, not yet judged)",
                    source=source,
                )
            table = table.take(pa.array(kept))

        def row_of(r: int) -> str:
            r = int(kept[r])
            return f"line {line_of(r)}" if line_of is not None else f"row {r + 1}"

        def where(r: int) -> int | None:
            return line_of(int(kept[r])) if line_of is not None else None

        ids = {k: id_column(table[cols[k]], k, source, row_of) for k in _REQUIRED[:3]}
        raw = table[cols["label"]]
        if pa.types.is_floating(raw.type):
            vals = raw.to_numpy(zero_copy_only=False)
            bad = ~np.isfinite(vals) | (vals != np.round(vals))
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"label {number_shown(vals[r])} is not an integer", source, where(r)
                )
            big = np.abs(vals) >= 2.0**53  # beyond, floats are not every integer
            if big.any():
                r = int(np.flatnonzero(big)[0])
                raise InputError(
                    f"label {number_shown(vals[r])} is out of range (labels are integers "
                    "of magnitude below 2^53)",
                    source,
                    where(r),
                )
            raw = pa.chunked_array([pa.array(vals.astype(np.int64))])
        if raw.null_count:
            r = int(np.flatnonzero(raw.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(f"label is missing in {row_of(r)}", source=source)
        text = raw.cast(pa.string()) if not pa.types.is_string(raw.type) else raw
        enc = pc.dictionary_encode(text).combine_chunks()
        dictionary = np.asarray(enc.dictionary.to_pylist(), dtype=object)
        indices = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        if scale is None:
            scale = _infer_scale(dictionary, indices, level, source, where)
        codes_of_dict = scale.codes_of(dictionary)
        label = codes_of_dict[indices]
        if (label < 0).any():
            r = int(np.flatnonzero(label < 0)[0])
            raise InputError(
                f"label {dictionary[indices[r]]!r} is not on the scale {scale.describe()}",
                source,
                where(r),
            )
        pair = pc.binary_join_element_wise(ids["topic"], ids["document"], "\x00")
        penc = pc.dictionary_encode(pair).combine_chunks()
        item = penc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        first = np.full(len(penc.dictionary), -1, np.int64)
        first[item[::-1]] = np.arange(len(item) - 1, -1, -1)
        aenc = pc.dictionary_encode(ids["assessor"]).combine_chunks()
        assessor = aenc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        _check_unique(item, assessor, len(aenc.dictionary), source, where)
        seconds = None
        if "seconds" in cols:
            seconds = _seconds(table[cols["seconds"]], source, where)
        timestamp = None
        if "timestamp" in cols:
            timestamp = table[cols["timestamp"]].cast(pa.string()).to_numpy(zero_copy_only=False)
        return cls(
            item=item,
            assessor=assessor,
            label=label,
            topics=_strings(ids["topic"].take(first)),
            documents=_strings(ids["document"].take(first)),
            assessors=[str(a) for a in aenc.dictionary.to_pylist()],
            scale=scale,
            source=source,
            seconds=seconds,
            timestamp=timestamp,
            unjudged=int(unjudged.sum()),
        )

    # -- views -------------------------------------------------------------------------

    @property
    def n_items(self) -> int:
        return len(self.topics)

    @property
    def n_assessors(self) -> int:
        return len(self.assessors)

    def __len__(self) -> int:
        return len(self.item)

    def counts(self) -> np.ndarray:
        """Items × labels matrix: how many assessors gave each label to each item."""
        k = self.scale.size
        flat = np.bincount(self.item * k + self.label, minlength=self.n_items * k)
        return flat.reshape(self.n_items, k)

    def matrix(self) -> np.ndarray:
        """Items × assessors matrix of label codes, -1 where the assessor gave none."""
        m = np.full((self.n_items, self.n_assessors), -1, np.int64)
        m[self.item, self.assessor] = self.label
        return m

    def values(self) -> np.ndarray:
        """The label value (on the scale) of each judgment."""
        return np.asarray(self.scale.values, np.int64)[self.label]

    def subset(self, mask: np.ndarray) -> Judgments:
        """The judgments where ``mask`` holds (items and assessors renumbered)."""
        mask = np.asarray(mask, bool)
        items, item = np.unique(self.item[mask], return_inverse=True)
        people, assessor = np.unique(self.assessor[mask], return_inverse=True)
        return Judgments(
            item=item.astype(np.int64),
            assessor=assessor.astype(np.int64),
            label=self.label[mask],
            topics=self.topics[items],
            documents=self.documents[items],
            assessors=[self.assessors[i] for i in people],
            scale=self.scale,
            source=self.source,
            seconds=None if self.seconds is None else self.seconds[mask],
            timestamp=None if self.timestamp is None else self.timestamp[mask],
        )

    def binarised(self, threshold: int) -> Judgments:
        """Labels ``>= threshold`` become 1, the others 0 (a nominal 0/1 scale)."""
        binary = (self.values() >= threshold).astype(np.int64)
        out = Judgments(**{**self.__dict__})
        out.label = binary
        out.scale = Scale((0, 1), ("", ""), "nominal")
        return out

    def gold_codes(self, gold) -> np.ndarray:
        """Per item, the code of its gold label (-1: none). ``gold`` is a qrels (file or
        :class:`~cranfield.core.qrels.Qrels`); a gold label not on the scale is an error,
        except a negative one (pooled, not yet judged), which is no gold label."""
        from ..core.qrels import Qrels

        q = gold if isinstance(gold, Qrels) else Qrels.read(gold)
        t = q.table
        lookup = dict(
            zip(
                zip(t["query_id"].to_pylist(), t["doc_id"].to_pylist(), strict=True),
                t["relevance"].to_pylist(),
                strict=True,
            )
        )
        code = {v: i for i, v in enumerate(self.scale.values)}
        out = np.full(self.n_items, -1, np.int64)
        for i, pair in enumerate(zip(self.topics, self.documents, strict=True)):
            if pair in lookup:
                if lookup[pair] < 0 and lookup[pair] not in code:
                    continue  # pooled, not yet judged (as in pool merge): no gold label
                if lookup[pair] not in code:
                    raise InputError(
                        f"gold label {lookup[pair]} of topic {pair[0]}, document {pair[1]} "
                        f"is not on the scale {self.scale.describe()}",
                        q.source,
                    )
                out[i] = code[lookup[pair]]
        return out

    def item_topic_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct topics (sorted) and each item's index among them."""
        return np.unique(self.topics.astype(str), return_inverse=True)


# -- helpers -------------------------------------------------------------------------------


def _check_qrels_labels(q, path, scale: Scale) -> None:
    """A qrels grade off the scale is an error naming the file and its line (a negative
    one is "not yet judged", left out by :meth:`Judgments.from_table`)."""
    grades = q.table["relevance"].to_numpy()
    bad = ~np.isin(grades, np.asarray(scale.values, np.int64)) & (grades >= 0)
    if not bad.any():
        return
    value = int(grades[np.flatnonzero(bad)[0]])
    line = None
    if isinstance(path, (str, os.PathLike)) and os.path.isfile(path):
        line = _line_with_grade(path, value)
    raise InputError(f"label '{value}' is not on the scale {scale.describe()}", q.source, line)


def _line_with_grade(path, value: int) -> int | None:
    """The first data line of a TREC qrels file whose grade reads as ``value``."""
    import gzip

    with open(path, "rb") as fh:
        opener = gzip.open if fh.read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            fields = line.split()
            if len(fields) == 4 and not line.startswith("#"):
                try:
                    if int(float(fields[3])) == value:
                        return number
                except ValueError:
                    continue
    return None


def _unjudged_rows(labels: pa.ChunkedArray, scale: Scale | None) -> np.ndarray:
    """Per row: is the label a negative integer the scale does not hold (pooled, not
    yet judged: ``pool assign`` writes -1, ``pool merge`` skips every negative grade)?"""
    if pa.types.is_integer(labels.type) or pa.types.is_floating(labels.type):
        vals = labels.to_numpy(zero_copy_only=False)
        negative = (vals < 0) & (vals == np.round(vals))
    else:
        text = pc.utf8_trim_whitespace(labels.cast(pa.string()))
        whole = pc.match_substring_regex(text, r"^-[0-9]+$")
        negative = whole.to_numpy(zero_copy_only=False).astype(bool) & ~np.asarray(
            pc.is_null(labels).to_numpy(zero_copy_only=False), bool
        )
        vals = np.zeros(len(negative), np.float64)
        if negative.any():
            vals[negative] = [float(s) for s in text.filter(whole.fill_null(False)).to_pylist()]
    if scale is not None and negative.any():
        negative &= ~np.isin(vals, np.asarray(scale.values, np.float64))
    return np.asarray(negative, bool)


def _strings(col) -> np.ndarray:
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=object)


def _stem(p, i: int) -> str:
    if isinstance(p, (str, os.PathLike)):
        name = Path(p).name
        return re.sub(r"(\.(txt|qrels|tsv|csv|gz))+$", "", name) or name
    return f"assessor{i + 1}"


def _arrow(obj) -> pa.Table:
    from ..core.columnar import arrow_of

    if isinstance(obj, pa.Table):
        return obj
    try:
        return arrow_of(obj)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"expected a file, a DataFrame or an Arrow table, got {type(obj).__name__}"
        ) from exc


def _read_file(path) -> tuple[pa.Table, object, str]:
    """Read a judgments table with the one table reader (CSV, TSV, Parquet, Arrow or
    JSON lines, told from the content); returns table, line_of, source."""
    from ..core.io.table import read_table

    strings = [
        a for k in ("topic", "document", "assessor", "label", "timestamp") for a in COLUMNS[k]
    ]
    read = read_table(path, strings=strings)
    return read.table, (read.line if read.has_lines else None), read.source


def _columns(table: pa.Table, source: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in table.column_names:
        for key, aliases in COLUMNS.items():
            if name.strip().lower() in aliases:
                if key in found:
                    raise InputError(
                        f"columns {found[key]!r} and {name!r} both name the {key}", source
                    )
                found[key] = name
    missing = [k for k in _REQUIRED if k not in found]
    if missing:
        raise InputError(
            f"no {', '.join(missing)} column (columns: {', '.join(table.column_names)}; "
            f"expected {', '.join(_REQUIRED)})",
            source,
        )
    return found


def _infer_scale(dictionary, indices, level, source, where) -> Scale:
    values = []
    for i, s in enumerate(dictionary):
        try:
            values.append(int(str(s).strip()))
        except ValueError:
            r = int(np.flatnonzero(indices == i)[0])
            raise InputError(
                f"label {s!r} is not an integer (declare the scale to use names)",
                source,
                where(r),
            ) from None
    values = sorted(set(values))
    return Scale(tuple(values), (), level)


def _check_unique(item, assessor, n_assessors, source, where) -> None:
    key = item * max(n_assessors, 1) + assessor
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(dup):
        r = int(order[dup + 1].min())
        raise InputError("the assessor judged this topic and document twice", source, where(r))


def _seconds(col: pa.ChunkedArray, source, where) -> np.ndarray:
    try:
        vals = col.cast(pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise InputError("seconds column is not numeric", source) from None
    bad = vals < 0
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise InputError(f"negative time spent: {number_shown(vals[r])} seconds", source, where(r))
    return np.where(np.isnan(vals), np.nan, vals)
