"""Behaviour shared by :class:`~cranfield.Qrels` and :class:`~cranfield.Run`.

Both hold one Arrow table ``(query_id: string, doc_id: string, <value>)`` in the order
the rows were read; only the value column (``relevance: int64`` or ``score: float64``)
and the TREC layout differ.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import pyarrow as pa

from ..errors import InputError
from .io import tabular, trec

T = TypeVar("T")


def frame_kind(obj) -> str | None:
    """``"pandas"`` or ``"polars"`` for their DataFrames (without importing either)."""
    module = type(obj).__module__.split(".")[0]
    return module if module in ("pandas", "polars") and hasattr(obj, "columns") else None


def is_ranx(obj) -> bool:
    """A ranx ``Qrels`` or ``Run`` (without importing ranx)."""
    return type(obj).__module__.split(".")[0] == "ranx" and hasattr(obj, "to_dict")


def is_records(obj) -> bool:
    """A list or tuple of records with ``query_id`` and ``doc_id`` fields: ir_measures'
    ``Qrel`` / ``ScoredDoc`` namedtuples, or any namedtuple of that shape."""
    if not isinstance(obj, (list, tuple)) or not obj or hasattr(obj, "_fields"):
        return False
    fields = getattr(obj[0], "_fields", ())
    return "query_id" in fields and "doc_id" in fields


def is_in_memory(obj) -> bool:
    """A dict, an Arrow table, a pandas/polars DataFrame, a ranx object or a list of
    records (what the constructors take)."""
    return (
        isinstance(obj, (Mapping, pa.Table))
        or frame_kind(obj) is not None
        or is_ranx(obj)
        or is_records(obj)
    )


def records_table(rows, value: str) -> pa.Table:
    """Records (:func:`is_records`) as an Arrow table of query id, doc id and ``value``
    (``relevance`` or ``score``); a record without that field is refused."""
    from ..errors import InputError

    if value not in rows[0]._fields:
        have = ", ".join(rows[0]._fields)
        raise InputError(f"records need a {value!r} field, these have {have}", "<records>")
    columns = zip(*((r.query_id, r.doc_id, getattr(r, value)) for r in rows), strict=True)
    return pa.table(dict(zip(("query_id", "doc_id", value), map(list, columns), strict=True)))


def arrow_of(obj) -> pa.Table:
    """An Arrow table or a pandas/polars DataFrame as an Arrow table (index dropped)."""
    kind = frame_kind(obj)
    if kind == "pandas":
        return pa.Table.from_pandas(obj, preserve_index=False)
    if kind == "polars":
        return obj.to_arrow()
    return obj


class Columnar:
    _value: ClassVar[str]
    _layout: ClassVar[trec.Layout]
    #: the keyword arguments of the constructors beyond the table's (a run's ``name``)
    _extra_names: ClassVar[tuple[str, ...]] = ()

    table: pa.Table
    source: str | None

    def __init__(
        self,
        table: pa.Table,
        source: str | None = None,
        *,
        duplicates: str = "error",
        fractional: bool = False,
    ):
        self.table = tabular.normalise(
            table, self._value, source, duplicates, fractional=fractional
        )
        self.source = source

    @classmethod
    def of_table(cls, table: pa.Table, source: str | None, **extra: Any):
        """An object holding ``table`` as it is: a table already in this class's layout
        and checked (a reader's, or a filtered or joined table of such objects), so
        neither copied nor checked again. ``extra``: further attributes (a run's
        ``name``)."""
        obj = cls.__new__(cls)
        obj.table = table
        obj.source = source
        for key, val in extra.items():
            setattr(obj, key, val)
        return obj

    # -- derived data, built once per table -----------------------------------------------

    def derived(self, key: str, build: Callable[[], T]) -> T:
        """A value computed from :attr:`table`, kept by this object.

        ``build()`` runs on the first call with ``key``; later calls return the same
        value. What judging derives from a table (the qrels' topic offsets and grades
        of ``judged.qrels_side``) is kept here, so that many runs judged against one
        ``Qrels`` build it once. This is a cache the object owns: Arrow tables are
        immutable, so a value stays valid as long as :attr:`table` is the same object;
        assigning a new table drops every cached value. Other modules read and fill it
        only through this method, never through attributes of their own.
        """
        cache = self.__dict__.get("_derived")
        if cache is None or cache[0] is not self.table:
            cache = self._derived = (self.table, {})
        store = cache[1]
        if key not in store:
            store[key] = build()
        return store[key]

    def __getstate__(self) -> dict:
        """The state pickled (a Dask worker's copy): without the derived values, which
        the copy builds again on first use (the engine's index cannot be pickled)."""
        state = dict(self.__dict__)
        state.pop("_derived", None)
        return state

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def read_table(
        cls,
        path_or_file,
        format: str | None,
        duplicates: str,
        encoding: str = "utf-8",
        fractional: bool = False,
    ):
        """``(table, source, TREC tag or None)``: the checked table read from any
        supported format, before it is wrapped (:meth:`of_table`; a reader that names
        the run by its tag itself) (``fractional``: qrels relevance as real numbers, see
        :meth:`Qrels.read`)."""
        fmt = tabular.infer_format(path_or_file, format)
        if fmt == "trec":
            layout = trec.FRACTIONAL_QRELS if fractional else cls._layout
            parsed, source = trec.read(path_or_file, layout, duplicates, encoding=encoding)
            return parsed.table, source, parsed.tag
        if encoding != "utf-8":
            from ..errors import ParameterError

            raise ParameterError("encoding", "'utf-8' for Parquet, CSV and TSV", encoding)
        if fmt == "parquet":
            table, source = tabular.read_parquet(path_or_file, cls._value, duplicates, fractional)
        else:
            delim = "\t" if fmt == "tsv" else ","
            table, source = tabular.read_delimited(
                path_or_file, cls._value, delim, duplicates, fractional
            )
        return table, source, None

    @classmethod
    def from_arrow(cls, table: pa.Table, *, duplicates: str = "error", **kw):
        return cls(table, kw.pop("source", "<arrow table>"), duplicates=duplicates, **kw)

    @classmethod
    def from_pandas(cls, df, *, duplicates: str = "error", **kw):
        return cls._from_frame(tabular.from_pandas, df, "<pandas DataFrame>", duplicates, kw)

    @classmethod
    def from_polars(cls, df, *, duplicates: str = "error", **kw):
        return cls._from_frame(tabular.from_polars, df, "<polars DataFrame>", duplicates, kw)

    @classmethod
    def _from_frame(cls, convert, df, default_source: str, duplicates: str, kw: dict):
        source = kw.pop("source", default_source)
        fractional = kw.pop("fractional", False)
        return cls.of_table(
            convert(df, cls._value, source, duplicates, fractional),
            source,
            **cls._extra(kw, source),
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]], *, duplicates: str = "error", **kw):
        source = kw.pop("source", "<dict>")
        fractional = kw.pop("fractional", False)
        return cls.of_table(
            tabular.from_dict(d, cls._value, source, duplicates, fractional),
            source,
            **cls._extra(kw, source),
        )

    @classmethod
    def from_parquet(cls, path: str | os.PathLike, *, duplicates: str = "error", **kw):
        return cls.read(path, format="parquet", duplicates=duplicates, **kw)

    @classmethod
    def _extra(cls, kw: dict, source: str | None) -> dict:
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        return {}

    @classmethod
    def _from_object(cls, obj, *, duplicates: str = "error", **kw):
        """From a dict, an Arrow table, a pandas/polars DataFrame, a ranx ``Qrels`` /
        ``Run`` or a list of records (ir_measures' namedtuples); None for anything else."""
        if isinstance(obj, Mapping):
            return cls.from_dict(obj, duplicates=duplicates, **kw)
        if is_ranx(obj):
            kw.setdefault("source", f"<ranx {type(obj).__name__}>")
            if "name" in cls._extra_names and getattr(obj, "name", None):
                kw.setdefault("name", obj.name)
            return cls.from_dict(obj.to_dict(), duplicates=duplicates, **kw)
        if is_records(obj):
            kw.setdefault("source", "<records>")
            return cls.from_arrow(records_table(obj, cls._value), duplicates=duplicates, **kw)
        if isinstance(obj, pa.Table):
            return cls.from_arrow(obj, duplicates=duplicates, **kw)
        kind = frame_kind(obj)
        if kind == "pandas":
            return cls.from_pandas(obj, duplicates=duplicates, **kw)
        if kind == "polars":
            return cls.from_polars(obj, duplicates=duplicates, **kw)
        return None

    @classmethod
    def _read_object(cls, obj, format: str | None, duplicates: str, **kw):
        """``read()`` of in-memory data: the matching ``from_*`` constructor, or None."""
        if not is_in_memory(obj):
            return None
        if format is not None:
            from ..errors import ParameterError

            raise ParameterError(
                "format", "None for in-memory data (it names file formats)", format
            )
        return cls._from_object(obj, duplicates=duplicates, **kw)

    @classmethod
    def coerce(cls, obj):
        """Accept an instance, a path, a dict, a pandas/polars DataFrame or an Arrow table."""
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, (str, os.PathLike)):
            return cls.read(obj)
        if hasattr(obj, "__next__"):  # an iterator of records (ir_measures' qrels_iter())
            obj = list(obj)
        made = cls._from_object(obj)
        if made is not None:
            return made
        raise InputError(
            f"cannot make {cls.__name__} from {type(obj).__name__}: expected {cls.__name__}, "
            "a path, a dict {qid: {docid: value}} (pytrec_eval's shape), a pandas or polars "
            "DataFrame, a pyarrow.Table, a ranx Qrels/Run or a list of ir_measures records"
        )

    # -- export -----------------------------------------------------------------------------

    def to_arrow(self) -> pa.Table:
        return self.table

    def to_pandas(self):
        from ..errors import require

        require("pandas", "pandas")
        return self.table.to_pandas()

    def to_polars(self):
        from ..errors import require

        pl = require("polars", "polars")
        return pl.from_arrow(self.table)

    def to_parquet(self, path: str | os.PathLike) -> None:
        import pyarrow.parquet as pq

        from .io.atomic import atomic_path

        with atomic_path(path) as tmp:
            pq.write_table(self.table, str(tmp))

    def to_dict(self) -> dict[str, dict]:
        return tabular.to_dict(self.table, self._value)

    # -- inspection -------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.table.num_rows

    def query_ids(self) -> list[str]:
        """Distinct query ids, sorted in byte order (as trec_eval lists topics)."""
        import pyarrow.compute as pc

        return pc.unique(self.table["query_id"]).sort().to_pylist()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.table.equals(other.table) and getattr(self, "name", None) == getattr(
            other, "name", None
        )

    __hash__ = None  # type: ignore[assignment]
