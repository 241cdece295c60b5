"""Read label and score columns (gold classes, predictions, cluster assignments) from files.

The one reader behind ``cranfield classify`` and ``cranfield cluster``.

Files are read by the one table reader (:mod:`cranfield.core.io.table`: gzip and the
format recognised by content, ``-`` for standard input):

- Parquet or Arrow IPC (by their magic bytes): columns keep their types and names.
- ``.csv`` / ``.tsv`` / ``.tab`` (a trailing ``.gz`` ignored): delimited text. Every
  column is read as text, so labels such as ``01`` and ``1`` stay distinct.
- anything else (``.txt``, no suffix, ...): plain text, one value per line (the whole
  line, stripped), as written by ``np.savetxt`` or ``cut -f2``.

Header row. Delimited and plain files may or may not start with a header. ``header=True``
or ``False`` says so; ``header=None`` (the default) decides from the data and never
guesses: the first line is a header when, column by column, its cell is *not a value of
the data* — not a number while the rest of the column is numbers, or a text never seen
below while every text value below occurs at least twice — and it is data when its cells
are numbers or values seen below. When the columns disagree, or no column tells (e.g.
every value occurs once), reading stops with an error asking for ``--header`` or
``--no-header``. A column name given by the caller that appears in the first line also
makes it a header. Without a header, columns are named ``1``, ``2``, ...

A column is chosen by name, or by 1-based position when no column has that name. Rows of
two files are matched by position, or by an id column present in both. Empty or missing
labels, duplicated column names and undecodable text are errors that name the file (and
line); reading stops at the first NUL byte, so binary data and special files such as
``/dev/zero`` end at once.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError

__all__ = ["LabelTable", "header_hint", "read_label_pair", "read_table"]

#: Bytes a fixed-width array of text labels may take beyond 4x their Arrow size.
_WIDE_LABELS = 1 << 20


def shown(value: object, limit: int = 60) -> str:
    """``repr`` of a cell or name for a message, cut to about ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# ------------------------------------------------------------------------ the table


@dataclass(frozen=True)
class LabelTable:
    """A label file as read: an Arrow table plus where its rows are in the file.

    Attributes
    ----------
    path
        The file.
    table
        One column per file column (text for delimited and plain files).
    first_line
        The 1-based file line of the first data row (``None`` for Parquet and Arrow,
        whose rows are named by their number).
    header
        Whether the file's first line was a header.
    lines
        For delimited text, the table reader's result (``Table``), which knows the line
        of every row past blank lines and quoted line breaks.
    """

    path: Path
    table: object
    first_line: int | None
    header: bool
    lines: object = None

    @property
    def names(self) -> list[str]:
        return list(self.table.column_names)

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    def where(self, row: int) -> tuple[str, int | None, str]:
        """(source, line, message prefix) naming data row ``row`` (0-based)."""
        if self.first_line is None:
            return str(self.path), None, f"row {row + 1}: "
        if self.lines is not None:  # the reader's table: its lines, header row included
            return str(self.path), self.lines.line(row + int(self.header)), ""
        return str(self.path), self.first_line + row, ""

    def find(self, spec: str) -> str | None:
        """The column called ``spec``, or the ``spec``-th (1-based) column, or None."""
        names = self.names
        if spec in names:
            return spec
        if spec.isdigit() and 1 <= int(spec) <= len(names):
            return names[int(spec) - 1]
        return None

    def pick(self, spec: str | None, default_index: int, role: str) -> str:
        """The column ``spec`` (name or 1-based number), else the one at ``default_index``."""
        names = self.names
        if spec is not None:
            found = self.find(spec)
            if found is None:
                raise InputError(
                    f"no {role} column {shown(spec)}; the columns are {shown(names, 200)}",
                    str(self.path),
                )
            return found
        if default_index >= len(names):
            raise InputError(
                f"expected a {role} column at position {default_index + 1} but the file has "
                f"{len(names)} column(s); name it with --{role}-column",
                str(self.path),
            )
        return names[default_index]

    def labels(self, name: str) -> np.ndarray:
        """A label column as an array; an empty or missing cell is an error naming its line."""
        import pyarrow as pa
        import pyarrow.compute as pc

        col = self.table.column(name).combine_chunks()
        bad = pc.is_null(col)
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            bad = pc.or_(bad, pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(col)), 0))
        elif pa.types.is_floating(col.type):
            bad = pc.or_(bad, pc.is_nan(col))
        if len(col) and pc.any(bad).as_py():
            row = int(pc.index(bad, True).as_py())
            source, line, prefix = self.where(row)
            raise InputError(f"{prefix}empty label in column {shown(name)}", source, line)
        values = col.to_numpy(zero_copy_only=False)
        if values.dtype == object and (
            pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
        ):
            # a fixed-width NumPy string array costs n * longest label * 4 bytes: one
            # huge label would multiply memory, so such columns stay Python strings
            longest = pc.max(pc.utf8_length(col)).as_py() or 0
            if len(values) * longest * 4 <= _WIDE_LABELS + 4 * col.nbytes:
                values = values.astype(str)
        return values

    def scores(self, name: str) -> np.ndarray:
        """A numeric column as float64; a cell that is not a finite number names its line."""
        import pyarrow as pa
        import pyarrow.compute as pc

        col = self.table.column(name).combine_chunks()
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            text = pc.utf8_trim_whitespace(col)
            try:
                values = text.cast(pa.float64())
                ok = pc.and_(pc.is_valid(values), pc.is_finite(values))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                values = None
                ok = pa.array(_numbers(text.to_pylist()), type=pa.bool_())
        elif pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
            values = col.cast(pa.float64())
            ok = pc.and_(pc.is_valid(values), pc.is_finite(values))
        else:
            raise InputError(
                f"column {shown(name)} holds {col.type}, expected numbers", str(self.path)
            )
        if len(col) and not pc.all(ok).as_py():
            row = int(pc.index(ok, False).as_py())
            source, line, prefix = self.where(row)
            cell = col[row].as_py()
            raise InputError(
                f"{prefix}score {shown(cell)} in column {shown(name)} is not a finite number",
                source,
                line,
            )
        return values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)


def _numbers(cells: list) -> list[bool]:
    """Which text cells are finite numbers (only on the error path, one by one)."""
    out = []
    for cell in cells:
        try:
            out.append(cell is not None and math.isfinite(float(cell)))
        except ValueError:
            out.append(False)
    return out


def read_table(
    path: str | os.PathLike, *, header: bool | None = None, names: tuple[str, ...] = ()
) -> LabelTable:
    """Read a label file (see the module docstring for formats and the header rule).

    Parameters
    ----------
    path
        The file.
    header
        ``True``/``False``: the first line of a delimited or plain file is / is not a
        header; ``None``: decide from the data (an error when it cannot be told).
    names
        Column names the caller will ask for; one found in the first line makes it a
        header.
    """
    from .core.io.formats import extension_format
    from .core.io.table import holds_binary_table

    path = Path(path)
    if holds_binary_table(path):
        return _read_binary(path)
    hint = extension_format(path)
    if hint in ("csv", "tsv"):
        cells, lines = _split_delimited(path, hint)
    else:
        cells, lines = _split_plain(path), None
    if not cells or len(cells[0]) == 0:
        raise InputError("empty file: no header and no labels", str(path))
    first = [column[0].as_py() for column in cells]
    if header is None:
        # a column *name* in the first line marks a header; a number ("2") says nothing
        header = any(n in first for n in names if not n.isdigit()) or _has_header(cells, path)
    import pyarrow as pa

    if header:
        from .core.io.table import unique_names

        unique_names(first, str(path))
        columns = dict(zip(first, (column.slice(1) for column in cells), strict=True))
        return LabelTable(path, pa.table(columns), 2, True, lines)
    columns = {str(i + 1): column for i, column in enumerate(cells)}
    return LabelTable(path, pa.table(columns), 1, False, lines)


def _read_binary(path: Path) -> LabelTable:
    from .core.io.table import BINARY
    from .core.io.table import read_table as read_any

    read = read_any(path, formats=BINARY, rows=False)
    return LabelTable(path, read.table, None, True)


def _split_plain(path: Path) -> list:
    """One column: each line stripped (a final newline ends the last line)."""
    import pyarrow as pa

    from .core.io.source import read_bytes
    from .core.io.table import decode

    text = decode(read_bytes(path, str(path)), str(path)).removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1].strip() == "":
        lines.pop()
    return [pa.array([line.strip() for line in lines], type=pa.string())] if lines else []


def _split_delimited(path: Path, fmt: str) -> tuple[list, object]:
    """Columns of a delimited file (RFC 4180 quoting), every one text, and the line of
    each row; every row must have as many fields."""
    from .core.io.table import read_table as read_any

    read = read_any(path, format=fmt, strings=True, header=False, rows=False)
    if read.num_rows and read.first_line != 1:
        raise InputError("the first line is empty; expected a header or labels", str(path), 1)
    columns = [read.table.column(i).combine_chunks() for i in range(read.table.num_columns)]
    return columns, read


# ------------------------------------------------------------------ header detection


def _is_number(cell: str) -> bool:
    """Whether a cell reads as a number (NaN and infinities too: data, never a name)."""
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _column_verdict(column) -> str:
    """``"header"``, ``"data"`` or ``"unknown"`` for one column (first cell vs the rest)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    head = column[0].as_py().strip()
    if head == "":
        return "header"  # an empty cell is never a label (e.g. a pandas index column)
    if _is_number(head):
        return "data"
    rest = pc.utf8_trim_whitespace(column.slice(1))
    rest = pc.filter(rest, pc.greater(pc.utf8_length(rest), 0))
    if len(rest) == 0:
        return "unknown"
    if pc.any(pc.equal(rest, head)).as_py():
        return "data"
    try:
        rest.cast(pa.float64())
        return "header"  # text above numbers
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    counts = pc.value_counts(rest).field("counts")
    if pc.min(counts).as_py() >= 2:
        return "header"  # a new text above values that each occur at least twice
    return "unknown"


def _has_header(cells: list, path: Path) -> bool:
    if len(cells) == 1 and cells[0][0].as_py().strip() == "":
        raise InputError("the first line is empty; expected a header or a label", str(path), 1)
    verdicts = {_column_verdict(column) for column in cells}
    if "header" in verdicts and "data" not in verdicts:
        return True
    if "data" in verdicts and "header" not in verdicts:
        return False
    first = ", ".join(shown(column[0].as_py(), 30) for column in cells)
    if len(first) > 80:
        first = first[:77] + "..."
    why = (
        "some cells look like column names, others like data"
        if {"header", "data"} <= verdicts
        else "no column tells: too few values below it, or one that occurs only once"
    )
    raise InputError(
        f"cannot tell whether the first line ({first}) is a header ({why}); "
        "pass --header or --no-header",
        str(path),
    )


# ------------------------------------------------------------------ pairs of columns


def _pick(table: LabelTable, spec: str | None, exclude: set[str], role: str) -> str:
    names = table.names
    if spec is not None:
        found = table.find(spec)
        if found is not None:
            return found
        raise InputError(
            f"no column {shown(spec)} for the {role} (columns: {shown(names, 200)})",
            str(table.path),
        )
    left = [n for n in names if n not in exclude]
    if len(left) != 1:
        raise InputError(
            f"{len(left)} candidate columns for the {role} ({', '.join(left) or 'none'}); "
            "name the column to use",
            str(table.path),
        )
    return left[0]


def _named(*specs: str | None) -> tuple[str, ...]:
    return tuple(s for s in specs if s is not None)


def read_label_pair(
    truth_path: str | os.PathLike,
    assignment_path: str | os.PathLike | None = None,
    *,
    truth_column: str | None = None,
    assignment_column: str | None = None,
    id_column: str | None = None,
    header: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Read gold labels and assigned labels for the same items.

    With one file, it must hold both columns (by default its two columns, or the two
    besides ``id_column``). With two files, each holds one label column (or name it);
    rows are matched by position, or by ``id_column`` when given (the two files must
    then list the same ids, each once). ``header``: see :func:`read_table`.

    Returns
    -------
    truth, assignment
        Two equally long 1-D arrays, in the order of the truth file.
    """
    truth_path = Path(truth_path)
    one_file = assignment_path is None
    wanted = _named(truth_column, id_column, assignment_column if one_file else None)
    table = read_table(truth_path, header=header, names=wanted)
    exclude = {id_column} if id_column else set()
    _require_id(table, id_column)
    if table.num_rows == 0:
        raise InputError("no labels (the file has a header only)", str(truth_path))
    if one_file:
        names = [n for n in table.names if n not in exclude]
        t_col = _pick(table, truth_column, exclude, "truth") if truth_column else None
        if t_col is None:
            if len(names) != 2:
                raise InputError(
                    f"a single file needs exactly two label columns, found {len(names)} "
                    f"({', '.join(names)}); name the truth and assignment columns",
                    str(truth_path),
                )
            t_col = names[0]
        a_col = _pick(table, assignment_column, exclude | {t_col}, "assignment")
        return table.labels(t_col), table.labels(a_col)
    assignment_path = Path(assignment_path)
    other = read_table(assignment_path, header=header, names=_named(assignment_column, id_column))
    _require_id(other, id_column)
    if other.num_rows == 0:
        raise InputError("no labels (the file has a header only)", str(assignment_path))
    t_col = _pick(table, truth_column, exclude, "truth")
    a_col = _pick(other, assignment_column, exclude, "assignment")
    truth = table.labels(t_col)
    assignment = other.labels(a_col)
    if id_column is None:
        if len(truth) != len(assignment):
            raise InputError(
                f"{len(assignment)} labels but {truth_path} has {len(truth)}; "
                "the files must list the same items in the same order (or join on an id column)"
                + header_hint(table, other, header),
                str(assignment_path),
            )
        return truth, assignment
    t_ids = _ids(table, id_column)
    a_ids = _ids(other, id_column)
    return truth, assignment[_align(t_ids, a_ids, table, other)]


def header_hint(a: LabelTable, b: LabelTable, header: bool | None) -> str:
    """A hint for two files one row apart whose header rows were told from the data."""
    if header is not None or abs(a.num_rows - b.num_rows) != 1 or a.header == b.header:
        return ""
    which = a if a.header else b
    return (
        f" (the first line of {which.path} was read as a header; "
        "pass --header or --no-header if that is wrong)"
    )


def _require_id(table: LabelTable, id_column: str | None) -> None:
    if id_column is not None and id_column not in table.names:
        raise InputError(f"no id column {shown(id_column)}", str(table.path))


def _ids(table: LabelTable, id_column: str):
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = table.table.column(id_column).combine_chunks().cast(pa.string())
    counts = pc.value_counts(ids)
    dup = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    if len(dup):
        row = int(pc.indices_nonzero(pc.equal(ids, dup[0]))[1].as_py())  # second occurrence
        source, line, prefix = table.where(row)
        raise InputError(f"{prefix}id {shown(dup[0].as_py())} appears more than once", source, line)
    return ids


def _align(t_ids, a_ids, truth: LabelTable, other: LabelTable) -> np.ndarray:
    """Positions in the assignment of each truth id (both id sets must be equal)."""
    import pyarrow.compute as pc

    pos = pc.index_in(t_ids, value_set=a_ids)
    if pos.null_count:
        missing = t_ids[int(pc.index(pc.is_null(pos), True).as_py())].as_py()
        raise InputError(
            f"id {shown(missing)} from {truth.path} has no assigned label", str(other.path)
        )
    if len(a_ids) != len(t_ids):
        back = pc.is_null(pc.index_in(a_ids, value_set=t_ids))
        row = int(pc.index(back, True).as_py())
        source, line, prefix = other.where(row)
        raise InputError(
            f"{prefix}id {shown(a_ids[row].as_py())} is not in {truth.path}", source, line
        )
    return pos.to_numpy(zero_copy_only=False).astype(np.intp)
