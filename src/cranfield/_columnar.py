"""Behaviour shared by :class:`~cranfield.Qrels` and :class:`~cranfield.Run`.

Both hold one Arrow table ``(query_id: string, doc_id: string, <value>)`` in the order
the rows were read; only the value column (``relevance: int64`` or ``score: float64``)
and the TREC layout differ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa

from .errors import InputError
from .io import tabular, trec


class Columnar:
    _value: ClassVar[str]
    _layout: ClassVar[trec.Layout]

    table: pa.Table
    source: str | None

    def __init__(self, table: pa.Table, source: str | None = None, *, duplicates: str = "error"):
        self.table = tabular.normalise(table, self._value, source, duplicates)
        self.source = source

    @classmethod
    def _wrap(cls, table: pa.Table, source: str | None, *, index=None, **extra: Any):
        """Build from an already validated table (no second check).

        ``index`` is the table's ``io.keys.PairIndex`` when the reader built one (kept
        so that judging does not sort the pair keys again).
        """
        obj = cls.__new__(cls)
        obj.table = table
        obj.source = source
        if index is not None:
            obj._pair_index = (table, index)
        for key, val in extra.items():
            setattr(obj, key, val)
        return obj

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def _read_table(
        cls, path_or_file, format: str | None, duplicates: str, encoding: str = "utf-8"
    ):
        """(table, source, TREC tag or None, PairIndex or None) from any supported format."""
        fmt = tabular.infer_format(path_or_file, format)
        if fmt == "trec":
            parsed, source = trec.read(path_or_file, cls._layout, duplicates, encoding=encoding)
            return parsed.table, source, parsed.tag, parsed.index
        if encoding != "utf-8":
            from .errors import ParameterError

            raise ParameterError("encoding", "'utf-8' for Parquet, CSV and TSV", encoding)
        if fmt == "parquet":
            table, source = tabular.read_parquet(path_or_file, cls._value, duplicates)
        else:
            delim = "\t" if fmt == "tsv" else ","
            table, source = tabular.read_delimited(path_or_file, cls._value, delim, duplicates)
        return table, source, None, None

    @classmethod
    def from_arrow(cls, table: pa.Table, *, duplicates: str = "error", **kw):
        return cls(table, kw.pop("source", "<arrow table>"), duplicates=duplicates, **kw)

    @classmethod
    def from_pandas(cls, df, *, duplicates: str = "error", **kw):
        source = kw.pop("source", "<pandas DataFrame>")
        return cls._wrap(
            tabular.from_pandas(df, cls._value, source, duplicates),
            source,
            **cls._extra(kw, source),
        )

    @classmethod
    def from_polars(cls, df, *, duplicates: str = "error", **kw):
        source = kw.pop("source", "<polars DataFrame>")
        return cls._wrap(
            tabular.from_polars(df, cls._value, source, duplicates),
            source,
            **cls._extra(kw, source),
        )

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]], *, duplicates: str = "error", **kw):
        source = kw.pop("source", "<dict>")
        return cls._wrap(
            tabular.from_dict(d, cls._value, source, duplicates), source, **cls._extra(kw, source)
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
    def coerce(cls, obj):
        """Accept an instance, a path, a dict, a pandas/polars DataFrame or an Arrow table."""
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, (str, os.PathLike)):
            return cls.read(obj)
        if isinstance(obj, Mapping):
            return cls.from_dict(obj)
        if isinstance(obj, pa.Table):
            return cls.from_arrow(obj)
        module = type(obj).__module__.split(".")[0]
        if module == "pandas":
            return cls.from_pandas(obj)
        if module == "polars":
            return cls.from_polars(obj)
        raise InputError(
            f"cannot make {cls.__name__} from {type(obj).__name__}: expected {cls.__name__}, "
            "a path, a dict, a pandas or polars DataFrame or a pyarrow.Table"
        )

    # -- export -----------------------------------------------------------------------------

    def to_arrow(self) -> pa.Table:
        return self.table

    def to_pandas(self):
        from .errors import require

        require("pandas", "pandas")
        return self.table.to_pandas()

    def to_polars(self):
        from .errors import require

        pl = require("polars", "polars")
        return pl.from_arrow(self.table)

    def to_parquet(self, path: str | os.PathLike) -> None:
        import pyarrow.parquet as pq

        pq.write_table(self.table, str(Path(path)))

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
