"""System runs: ranked, scored documents per query."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from .columnar import Columnar, arrow_of, frame_kind
from .io import trec
from .io.arrays import ints
from .results import default_run_name

# columns naming the run of each row in a table holding several runs (case-insensitive,
# the first present wins)
RUN_NAME_COLUMNS = ("run", "run_id", "runid", "run_name", "runname", "tag", "system", "name")


def run_name_column(columns) -> str | None:
    """The column of ``columns`` that names the run of each row, or None."""
    lower = {str(c).lower(): c for c in columns}
    return next((lower[a] for a in RUN_NAME_COLUMNS if a in lower), None)


def _columns(obj) -> list:
    return list(obj.column_names if isinstance(obj, pa.Table) else obj.columns)


def _plural(n: int) -> str:
    return f"{n} query" if n == 1 else f"{n} queries"


def trec_order(query, score, doc_id) -> pa.Array:
    """Row positions in trec_eval's ranking order: the one definition of that order.

    ``query`` ascending (query ids in byte order, or integer codes that sort as they
    do), then ``score`` descending, then ``doc_id`` descending in byte order (or integer
    codes that sort as the ids do: the recommender path's, ``rec/codes.py``): trec_eval
    10.0 sorts each topic's documents by score and breaks ties by document id,
    descending; the rank column of the file is ignored. One stable Arrow sort; the
    arguments are equal-length Arrow (or NumPy) columns.
    """
    return pc.sort_indices(
        pa.table({"q": query, "s": score, "d": doc_id}),
        sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")],
    )


class Run(Columnar):
    """A system's retrieved documents with their scores, in reading order.

    Columns: ``query_id: string``, ``doc_id: string``, ``score: float64``. The ranking
    is not stored: it follows trec_eval (score descending, ties by doc id descending)
    and is computed when the run is judged.

    Parameters
    ----------
    table
        Any Arrow table with query id, doc id and score columns (aliases such as
        ``qid``, ``docno``, ``sim`` are accepted).
    source
        File name or description, used in messages.
    name
        The run's name; by default the file name without extension, or ``"run"``.
    duplicates
        A document retrieved twice for one query: ``"error"`` (default, as
        trec_eval), ``"first"`` (keep the first row) or ``"max"`` (keep the highest
        score).
    """

    _value = "score"
    _layout = trec.RUN
    _extra_names = ("name",)
    name: str

    def __init__(
        self,
        table: pa.Table,
        source: str | None = None,
        *,
        name: str | None = None,
        duplicates: str = "error",
    ):
        super().__init__(table, source, duplicates=duplicates)
        self.name = name if name is not None else default_run_name(source)

    @classmethod
    def _extra(cls, kw: dict, source: str | None) -> dict:
        name = kw.pop("name", None)
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        return {"name": name if name is not None else default_run_name(source)}

    @classmethod
    def split(cls, table, *, duplicates: str = "error", source: str | None = None) -> list[Run]:
        """One Run per run name of a table that holds several runs.

        ``table`` is a pandas or polars DataFrame or an Arrow table whose rows carry the
        run's name in a column named ``run`` (or ``run_id``, ``run_name``, ``tag``,
        ``system``, ``name``: :data:`RUN_NAME_COLUMNS`, case-insensitive). The runs come
        in the order their names first appear, each with its rows in table order. A table
        without such a column is one run.
        """
        column = run_name_column(_columns(table))
        kind = frame_kind(table) or "arrow"
        source = source or f"<{kind} {'table' if kind == 'arrow' else 'DataFrame'}>"
        if column is None:
            return [cls._from_object(table, duplicates=duplicates, source=source)]
        t = arrow_of(table)
        names = t[column]
        if pa.types.is_dictionary(names.type):  # pandas/polars categoricals
            names = names.cast(names.type.value_type)
        if names.null_count:
            row = int(np.flatnonzero(names.is_null().to_numpy())[0]) + 1
            raise InputError(f"row {row}: no run name in column {column!r}", source=source)
        values = pc.unique(names)  # in order of first appearance
        which = pc.index_in(names, value_set=values).to_numpy()
        order = np.argsort(which, kind="stable")
        starts = np.concatenate(([0], np.cumsum(np.bincount(which, minlength=len(values)))))
        rows = t.remove_column(t.column_names.index(column)).take(pa.array(order))
        return [
            cls(rows.slice(a, b - a), source, name=str(v), duplicates=duplicates)
            for v, a, b in zip(values.to_pylist(), starts[:-1], starts[1:], strict=True)
        ]

    @classmethod
    def _one(cls, table, duplicates: str, kw: dict, build) -> Run:
        """A table holding one run; its name from a run-name column unless ``name``."""
        column = run_name_column(_columns(table))
        if column is None or not len(table):
            return build(table, duplicates=duplicates, **kw)
        name = kw.pop("name", None)
        runs = cls.split(table, duplicates=duplicates, source=kw.pop("source", None))
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        if len(runs) > 1:
            shown = ", ".join(repr(r.name) for r in runs[:5]) + (", ..." if len(runs) > 5 else "")
            raise InputError(
                f"the table holds {len(runs)} runs (column {column!r}: {shown}); "
                "cranfield.evaluate() evaluates each of them, Run.split() makes one Run per "
                "name",
                source=runs[0].source,
            )
        if name is not None:
            runs[0].name = name
        return runs[0]

    @classmethod
    def from_arrow(cls, table: pa.Table, *, duplicates: str = "error", **kw) -> Run:
        """A run from an Arrow table; a ``run``/``tag``/... column gives its name."""
        return cls._one(table, duplicates, kw, super().from_arrow)

    @classmethod
    def from_pandas(cls, df, *, duplicates: str = "error", **kw) -> Run:
        """A run from a pandas DataFrame; a ``run``/``tag``/... column gives its name."""
        return cls._one(df, duplicates, kw, super().from_pandas)

    @classmethod
    def from_polars(cls, df, *, duplicates: str = "error", **kw) -> Run:
        """A run from a polars DataFrame; a ``run``/``tag``/... column gives its name."""
        return cls._one(df, duplicates, kw, super().from_polars)

    @classmethod
    def read(
        cls,
        path_or_file,
        *,
        name: str | None = None,
        format: str | None = None,
        duplicates: str = "error",
        encoding: str = "utf-8",
    ) -> Run:
        """Read a run: TREC (default; ``-`` is stdin, gzip detected), Parquet, CSV or TSV;
        or take it from a dict ``{qid: {docid: score}}``, a pandas or polars DataFrame or
        an Arrow table (as :meth:`from_dict`, :meth:`from_pandas`, :meth:`from_polars`,
        :meth:`from_arrow`; a table holding several runs is refused, see :meth:`split`).

        TREC lines are ``qid iter docno rank score tag`` (at least six fields; ``iter``,
        ``rank`` and extra fields are ignored; the score is a double). The run's name is
        ``name`` if given, else the tag of the last line (as trec_eval), else the file
        name without extension. ``encoding`` (TREC files only): ``"utf-8"`` (default)
        or ``"latin-1"`` (ids as bytes, one character per byte, as ``cranfield
        trec_eval`` reads them; see docs/input-formats.md).
        """
        kw = {} if name is None else {"name": name}
        made = cls._read_object(path_or_file, format, duplicates, **kw)
        if made is not None:
            return made
        table, source, tag = cls.read_table(path_or_file, format, duplicates, encoding)
        if name is None:
            name = tag if tag is not None else default_run_name(source)
        return cls.of_table(table, source, name=name)

    def ranked(self) -> pa.Table:
        """The rows in trec_eval order (:func:`trec_order`): query id ascending (byte
        order), then score descending, then doc id descending; with a 1-based ``rank``
        column."""
        t = self.table
        t = t.take(trec_order(t["query_id"], t["score"], t["doc_id"]))
        q = t["query_id"].combine_chunks()
        n = len(q)
        starts = np.zeros(n, dtype=bool)
        if n:
            starts[0] = True
            starts[1:] = np.asarray(pc.not_equal(q[1:], q[:-1]))
        pos = np.arange(n)
        rank = pos - np.maximum.accumulate(np.where(starts, pos, 0)) + 1
        return t.append_column("rank", ints(rank))

    def to_trec(self, path_or_file: str | os.PathLike) -> None:
        """Write ``qid Q0 docno rank score tag`` lines in trec_eval order (``-`` = stdout).

        Scores are written in the shortest form that reads back to the same double.
        """
        trec.check_writable_ids(self.table, self.source)
        if not self.name or any(c.isspace() for c in self.name):
            raise InputError(f"run name {self.name!r} cannot be a TREC tag (empty or has spaces)")
        t = self.ranked()
        trec.write(
            t, path_or_file, [t["query_id"], "Q0", t["doc_id"], t["rank"], t["score"], self.name]
        )

    def __repr__(self) -> str:
        src = f", source={self.source!r}" if self.source else ""
        return f"Run({self.name!r}, {_plural(len(self.query_ids()))}, {len(self)} documents{src})"
