"""Read truth, prediction and score columns from CSV, TSV or Parquet files.

CSV and TSV files have a header line; a data row i (0-based) is on line i + 2, which
is the line an :class:`~cranfield.errors.InputError` names. Parquet rows are named
by their 0-based row number.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError


def read_table(path: str | Path):
    """A pyarrow Table from ``.csv``, ``.tsv``/``.tab`` (tab-separated) or ``.parquet``/``.pq``.

    CSV/TSV columns are read as strings; conversion happens in :func:`labels_column`
    and :func:`scores_column`, which know the line of each value.
    """
    path = Path(path)
    suffixes = [x.lower() for x in path.suffixes if x.lower() != ".gz"]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path)
        except OSError as exc:
            if not path.exists():
                raise
            raise InputError(f"not a readable Parquet file ({exc})", source=str(path)) from None
    import pyarrow as pa
    import pyarrow.csv as pcsv

    delimiter = "\t" if suffix in (".tsv", ".tab") else ","
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    try:
        # read everything as text: labels keep their spelling, scores are checked here
        parse = pcsv.ParseOptions(delimiter=delimiter)
        header = pcsv.open_csv(path, parse_options=parse).schema
        types = {name: pa.string() for name in header.names}
        convert = pcsv.ConvertOptions(column_types=types, strings_can_be_null=False)
        return pcsv.read_csv(path, parse_options=parse, convert_options=convert)
    except pa.ArrowInvalid as exc:
        raise InputError(
            f"cannot parse as delimited text: {exc}".splitlines()[0], source=str(path)
        ) from None


def pick_column(table, path, name: str | None, default_index: int, role: str) -> str:
    """The column called ``name``, or the one at ``default_index`` when no name is given."""
    names = table.column_names
    if name is not None:
        if name not in names:
            raise InputError(
                f"no {role} column {name!r}; the columns are {names!r}", source=str(path)
            )
        return name
    if default_index >= len(names):
        raise InputError(
            f"expected a {role} column at position {default_index + 1} but the file has "
            f"{len(names)} column(s); name it with --{role}-column",
            source=str(path),
        )
    return names[default_index]


def _where(path, i: int, parquet: bool) -> tuple[str, int | None, str]:
    if parquet:
        return str(path), None, f"row {i}: "
    return str(path), i + 2, ""


def _is_parquet(path) -> bool:
    return Path(path).suffix.lower() in (".parquet", ".pq")


def labels_column(table, path, column: str) -> np.ndarray:
    """A label column as an array; empty or null cells are an error naming the line."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table.column(column)
    missing = col.is_null()
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        missing = pc.or_(missing, pc.equal(pc.utf8_trim_whitespace(col), ""))
    nulls = np.flatnonzero(missing.to_numpy(zero_copy_only=False))
    values = col.to_numpy(zero_copy_only=False)
    if len(nulls):
        source, line, prefix = _where(path, int(nulls[0]), _is_parquet(path))
        raise InputError(f"{prefix}empty value in column {column!r}", source=source, line=line)
    if values.dtype == object:
        values = values.astype(str)
    return values


def scores_column(table, path, column: str) -> np.ndarray:
    """A numeric score column as float64; a non-numeric cell is an error naming its line."""
    col = table.column(column)
    values = col.to_numpy(zero_copy_only=False)
    if values.dtype.kind in "biuf":
        out = values.astype(float)
        bad = np.flatnonzero(~np.isfinite(out))
    else:
        text = np.asarray(values, dtype=object)
        out = np.full(len(text), np.nan)
        ok = np.zeros(len(text), dtype=bool)
        try:
            out = text.astype(float)
            ok = np.isfinite(out)
        except (TypeError, ValueError):
            # find the offending cell: only on this error path
            for i, v in enumerate(text):
                try:
                    out[i] = float(v)
                    ok[i] = np.isfinite(out[i])
                except (TypeError, ValueError):
                    ok[i] = False
        bad = np.flatnonzero(~ok)
    if len(bad):
        i = int(bad[0])
        source, line, prefix = _where(path, i, _is_parquet(path))
        raise InputError(
            f"{prefix}score {values[i]!r} in column {column!r} is not a finite number",
            source=source,
            line=line,
        )
    return out


def check_labels(values: np.ndarray, allowed, path, column: str) -> None:
    """Every value of a label column must be one of ``allowed`` (error names the line)."""
    bad = np.flatnonzero(~np.isin(values.astype(str), np.asarray(list(allowed), dtype=str)))
    if len(bad):
        i = int(bad[0])
        source, line, prefix = _where(path, i, _is_parquet(path))
        raise InputError(
            f"{prefix}label {str(values[i])!r} in column {column!r} is not one of {list(allowed)!r}",
            source=source,
            line=line,
        )
