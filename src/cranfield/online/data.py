"""Per-unit logs of an A/B test: one row per unit (user or session), a variant column
and numeric metric columns, from CSV, Parquet or JSON lines."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

FORMATS = ("csv", "parquet", "jsonl")


@dataclass
class UnitLog:
    """``variant`` (strings, one per unit) and ``columns`` (name -> Arrow column)."""

    variant: np.ndarray
    columns: dict
    source: str

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
            raise InputError(
                f"column {name!r}: missing or non-finite value in row {bad[0] + 1}", self.source
            )
        return values


def _format(path: str, fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    low = path.lower()
    if low.endswith((".parquet", ".pq")):
        return "parquet"
    if low.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    return "csv"


def read_units(path: str | os.PathLike, variant_column: str, fmt: str | None = None) -> UnitLog:
    """Read a per-unit log (format from the extension unless ``fmt`` is given:
    ``.parquet``/``.pq``, ``.jsonl``/``.ndjson``/``.json``, else CSV with a header)."""
    path = os.fspath(path)
    fmt = _format(path, fmt)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        elif fmt == "jsonl":
            import pyarrow.json as pj

            table = pj.read_json(path)
        else:
            import pyarrow.csv as pc

            table = pc.read_csv(
                path, convert_options=pc.ConvertOptions(column_types={variant_column: "string"})
            )
    except OSError as e:  # pyarrow's parse errors are OSError/ArrowInvalid (a ValueError)
        raise InputError(" ".join(str(e).split())[:300], path) from None
    except ValueError as e:
        raise InputError(" ".join(str(e).split())[:300], path) from None
    names = table.column_names
    if len(set(names)) != len(names):
        raise InputError("duplicate column names", path)
    if variant_column not in names:
        raise InputError(f"no variant column {variant_column!r}", path)
    if table.num_rows == 0:
        raise InputError("the log holds no unit", path)
    variant = table.column(variant_column).to_pylist()
    if any(v is None for v in variant):
        row = next(i for i, v in enumerate(variant) if v is None)
        raise InputError(f"missing variant in row {row + 1}", path)
    columns = {n: table.column(n) for n in names if n != variant_column}
    return UnitLog(np.array([str(v) for v in variant], dtype=object), columns, path)
