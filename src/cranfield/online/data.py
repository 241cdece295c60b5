"""Per-unit logs of an A/B test: one row per unit (user or session), a variant column
and numeric metric columns, from CSV, TSV, Parquet, Arrow or JSON lines."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

FORMATS = ("csv", "tsv", "parquet", "arrow", "jsonl")


@dataclass
class UnitLog:
    """``variant`` (strings, one per unit) and ``columns`` (name -> Arrow column)."""

    variant: np.ndarray
    columns: dict
    source: str
    read: object = None  # the reader's Table: the source line of each row

    def metric(self, name: str) -> np.ndarray:
        """A numeric column as floats; every value must be a finite number."""
        if name not in self.columns:
            raise InputError(
                f"no column {name!r} (columns: {', '.join(sorted(self.columns))})", self.source
            )
        import pyarrow as pa

        col = self.columns[name]
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            raise InputError(f"column {name!r} holds values that are not numbers", self.source)
        values = col.to_numpy(zero_copy_only=False).astype(float)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            message = f"column {name!r}: missing or non-finite value"
            if self.read is None:
                raise InputError(f"{message} in row {bad[0] + 1}", self.source)
            raise self.read.error(int(bad[0]), message)
        return values


def read_units(path: str | os.PathLike, variant_column: str, fmt: str | None = None) -> UnitLog:
    """Read a per-unit log with the one table reader
    (:func:`cranfield.core.io.table.read_table`: CSV, Parquet or JSON lines, told from
    the content unless ``fmt`` names it; ``-`` is standard input)."""
    from ..core.io.table import read_table

    read = read_table(path, format=fmt, formats=FORMATS, strings=[variant_column])
    table, source = read.table, read.source
    if variant_column not in table.column_names:
        raise read.missing(variant_column, "variant")
    variant = table.column(variant_column)
    if variant.null_count:
        row = int(np.flatnonzero(variant.is_null().to_numpy(zero_copy_only=False))[0])
        raise read.error(row, "missing variant")
    columns = {n: table.column(n) for n in table.column_names if n != variant_column}
    strings = variant.cast("string").to_numpy(zero_copy_only=False)
    return UnitLog(np.asarray(strings, dtype=object), columns, source, read)
