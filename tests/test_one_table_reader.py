"""One reader per input kind: only ``cranfield/core/io/`` decides a table's format or
reads a table file.

The test reads every module of the package (its syntax tree, not by importing it) and
fails when one outside the reader

* calls a reading function of ``pyarrow.parquet``, ``pyarrow.csv``, ``pyarrow.json``,
  ``pyarrow.ipc`` or ``pyarrow.feather`` (``read_table``, ``read_csv``, ``ParquetFile``,
  ``open_file``, ...), or
* holds a magic number (``b"PAR1"``, ``b"ARROW1"``) or a table file extension
  (``".parquet"``, ``".pq"``, ``".feather"``, ``".arrow"``): the format told by hand.

Writers are not readers (``write_table``, ``write_csv`` stay allowed). The few
exceptions are listed with the reason they are not tables read whole.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cranfield"
READER = ("core/io/",)
READING_MODULES = {
    "pyarrow.parquet",
    "pyarrow.csv",
    "pyarrow.json",
    "pyarrow.ipc",
    "pyarrow.feather",
    "pyarrow.dataset",
}
READING_CALLS = {
    "read_table",
    "read_csv",
    "read_json",
    "read_schema",
    "read_metadata",
    "read_feather",
    "ParquetFile",
    "ParquetDataset",
    "open_csv",
    "open_file",
    "open_stream",
    "dataset",
}
MAGIC = {b"PAR1", b"ARROW1"}
EXTENSIONS = {".parquet", ".pq", ".feather", ".arrow", ".ipc"}
ALLOWED = {
    # documents of a collection: a Parquet file streamed row group by row group (it may
    # not fit in memory), and its own magic-byte test; not a table of records
    "collection/parquet_docs.py": "streams a collection's documents",
    "collection/_input.py": "streams a collection's documents",
    # a run's name from its file name: the extension is cut off, no format is decided
    "core/results.py": "names a run after its file",
    # the Dask workers' partition reader (owned by the distributed orchestration): reads a
    # run partition to split it by its run-name column; the format from core/io/formats
    "distributed/evaluation.py": "splits a Parquet run partition by run name",
}


def _aliases(tree: ast.AST) -> set[str]:
    """Names bound to a reading module (``import pyarrow.parquet as pq``, ``from pyarrow
    import csv``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in READING_MODULES:
                    names.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module == "pyarrow":
            for a in node.names:
                if f"pyarrow.{a.name}" in READING_MODULES:
                    names.add(a.asname or a.name)
    return names


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def offences(path: Path) -> list[str]:
    """Where ``path`` reads a table or tells a format itself (``line: what``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = _dotted(node.func.value)
            if base in aliases and node.func.attr in READING_CALLS:
                found.append(f"{node.lineno}: {base}.{node.func.attr}(...)")
        elif isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes) and any(value.startswith(m) for m in MAGIC):
                found.append(f"{node.lineno}: magic bytes {value!r}")
            elif isinstance(value, str) and value.lower() in EXTENSIONS:
                found.append(f"{node.lineno}: extension {value!r}")
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith(READER):
            yield rel, path


def test_only_the_reader_reads_tables_or_tells_formats():
    bad = {
        rel: found for rel, path in _modules() if (found := offences(path)) and rel not in ALLOWED
    }
    assert not bad, (
        "read tables with cranfield.core.io.table.read_table (and tell binary formats with "
        f"its binary_format), not by hand: {bad}"
    )


def test_the_exceptions_are_still_needed():
    """An allowed module that no longer offends leaves the list (it cannot grow silently)."""
    clean = [rel for rel in ALLOWED if not offences(PACKAGE / rel)]
    assert not clean, f"no longer needed in ALLOWED: {clean}"


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The scanner itself, on the patterns the old readers used."""
    sample = tmp_path / "m.py"
    sample.write_text(
        "import pyarrow.parquet as pq\nfrom pyarrow import csv as c\n"
        "def f(p):\n"
        "    if p.endswith(('.parquet', '.pq')):\n"
        "        return pq.read_table(p)\n"
        "    if open(p, 'rb').read(4) == b'PAR1':\n"
        "        return pq.ParquetFile(p)\n"
        "    return c.read_csv(p)\n"
        "def g(t, p):\n"
        "    pq.write_table(t, p)\n"
    )
    found = offences(sample)
    assert sorted(int(f.split(":")[0]) for f in found) == [4, 4, 5, 6, 7, 8]
