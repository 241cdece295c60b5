"""Read label columns (gold classes, cluster or class assignments) from files.

Formats, chosen by file suffix:

- ``.csv`` / ``.tsv`` / ``.tab``: delimited text with a header row (or ``header=False``:
  columns are then named ``1``, ``2``, ...). Every column is read as text, so labels
  such as ``01`` and ``1`` stay distinct.
- ``.parquet`` / ``.pq``: columns keep their Parquet types.
- anything else: plain text, one label per line (the whole line, stripped).

A column is chosen by name, or by 1-based position when no column has that name.
Rows of two files are matched by position, or by an id column present in both.
Empty or missing labels are errors that name the file and line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from .errors import InputError

__all__ = ["read_label_pair", "read_table"]

_DELIMITED = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_PARQUET = {".parquet", ".pq"}


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in _DELIMITED:
        return "delimited"
    if suffix in _PARQUET:
        return "parquet"
    return "plain"


def read_table(path: str | Path, *, header: bool = True):
    """Read a label file into a ``pyarrow.Table`` (plain files: one column ``label``).

    Returns the table and the 1-based file line of its first data row.
    """
    import pyarrow as pa

    path = Path(path)
    kind = _kind(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path), 1
        except (pa.ArrowInvalid, OSError) as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise InputError(
                f"not a readable Parquet file: {_first_line(exc)}", str(path)
            ) from None
    if kind == "delimited":
        return _read_delimited(path, _DELIMITED[path.suffix.lower()], header)
    return _read_plain(path), 1


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _read_delimited(path: Path, delimiter: str, header: bool):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    with open(path, newline="", encoding="utf-8") as fh:
        first = fh.readline()
    if not first.strip():
        raise InputError("empty file: no header or labels", str(path))
    fields = next(csv.reader(io.StringIO(first), delimiter=delimiter))
    names = fields if header else [str(i + 1) for i in range(len(fields))]
    if len(set(names)) != len(names):
        raise InputError(f"duplicate column names in header: {fields}", str(path), 1)
    try:
        table = pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1 if header else 0),
            parse_options=pcsv.ParseOptions(delimiter=delimiter),
            convert_options=pcsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False
            ),
        )
    except pa.ArrowInvalid as exc:
        raise InputError(_first_line(exc), str(path)) from None
    return table, 2 if header else 1


def _read_plain(path: Path):
    import pyarrow as pa

    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # final newline
    labels = [line.strip() for line in lines]
    return pa.table({"label": pa.array(labels, type=pa.string())})


def _pick(table, spec: str | None, exclude: set[str], path: Path, role: str) -> str:
    names = table.column_names
    if spec is not None:
        if spec in names:
            return spec
        if spec.isdigit() and 1 <= int(spec) <= len(names):
            return names[int(spec) - 1]
        raise InputError(
            f"no column {spec!r} for the {role} (columns: {', '.join(names)})", str(path)
        )
    left = [n for n in names if n not in exclude]
    if len(left) != 1:
        raise InputError(
            f"{len(left)} candidate columns for the {role} ({', '.join(left) or 'none'}); "
            "name the column to use",
            str(path),
        )
    return left[0]


def _labels(table, name: str, path: Path, first_line: int) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table.column(name).combine_chunks()
    if len(col) == 0:
        raise InputError(f"no labels in column {name!r}", str(path))
    bad = pc.is_null(col)
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        bad = pc.or_(bad, pc.equal(pc.utf8_length(col), 0))
    if pc.any(bad).as_py():
        row = int(pc.index(bad, True).as_py())
        raise InputError(f"empty label in column {name!r}", str(path), first_line + row)
    return col.to_numpy(zero_copy_only=False)


def read_label_pair(
    truth_path: str | Path,
    assignment_path: str | Path | None = None,
    *,
    truth_column: str | None = None,
    assignment_column: str | None = None,
    id_column: str | None = None,
    header: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Read gold labels and assigned labels for the same items.

    With one file, it must hold both columns (by default its two columns, or the two
    besides ``id_column``). With two files, each holds one label column (or name it);
    rows are matched by position, or by ``id_column`` when given (the two files must
    then list the same ids, each once).

    Returns
    -------
    truth, assignment
        Two equally long 1-D arrays, in the order of the truth file.
    """
    truth_path = Path(truth_path)
    table, first = read_table(truth_path, header=header)
    exclude = {id_column} if id_column else set()
    _require_id(table, id_column, truth_path)
    if assignment_path is None:
        names = [n for n in table.column_names if n not in exclude]
        t_col = _pick(table, truth_column, exclude, truth_path, "truth") if truth_column else None
        if t_col is None:
            if len(names) != 2:
                raise InputError(
                    f"a single file needs exactly two label columns, found {len(names)} "
                    f"({', '.join(names)}); name the truth and assignment columns",
                    str(truth_path),
                )
            t_col = names[0]
        a_col = _pick(table, assignment_column, exclude | {t_col}, truth_path, "assignment")
        return (
            _labels(table, t_col, truth_path, first),
            _labels(table, a_col, truth_path, first),
        )
    assignment_path = Path(assignment_path)
    other, first_b = read_table(assignment_path, header=header)
    _require_id(other, id_column, assignment_path)
    t_col = _pick(table, truth_column, exclude, truth_path, "truth")
    a_col = _pick(other, assignment_column, exclude, assignment_path, "assignment")
    truth = _labels(table, t_col, truth_path, first)
    assignment = _labels(other, a_col, assignment_path, first_b)
    if id_column is None:
        if len(truth) != len(assignment):
            raise InputError(
                f"{len(assignment)} labels but {truth_path} has {len(truth)}; "
                "the files must list the same items in the same order (or join on an id column)",
                str(assignment_path),
            )
        return truth, assignment
    t_ids = _ids(table, id_column, truth_path, first)
    a_ids = _ids(other, id_column, assignment_path, first_b)
    return truth, assignment[_align(t_ids, a_ids, truth_path, assignment_path, first_b)]


def _require_id(table, id_column: str | None, path: Path) -> None:
    if id_column is not None and id_column not in table.column_names:
        raise InputError(f"no id column {id_column!r}", str(path))


def _ids(table, id_column: str, path: Path, first_line: int):
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = table.column(id_column).combine_chunks().cast(pa.string())
    counts = pc.value_counts(ids)
    dup = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(dup):
        row = int(pc.indices_nonzero(pc.equal(ids, dup[0]))[1].as_py())  # second occurrence
        raise InputError(
            f"id {dup[0].as_py()!r} appears more than once", str(path), first_line + row
        )
    return ids


def _align(t_ids, a_ids, t_path: Path, a_path: Path, a_first: int) -> np.ndarray:
    """Positions in the assignment of each truth id (both id sets must be equal)."""
    import pyarrow.compute as pc

    pos = pc.index_in(t_ids, value_set=a_ids)
    if pos.null_count:
        missing = t_ids[int(pc.index(pc.is_null(pos), True).as_py())].as_py()
        raise InputError(f"id {missing!r} from {t_path} has no assigned label", str(a_path))
    if len(a_ids) != len(t_ids):
        back = pc.is_null(pc.index_in(a_ids, value_set=t_ids))
        row = int(pc.index(back, True).as_py())
        raise InputError(
            f"id {a_ids[row].as_py()!r} is not in {t_path}", str(a_path), a_first + row
        )
    return pos.to_numpy(zero_copy_only=False).astype(np.intp)
