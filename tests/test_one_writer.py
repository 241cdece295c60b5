"""One writer of outputs: only ``cranfield/cli/_output.py`` writes a command's result
(``deliver``, ``emit``, ``printed_into``; a file atomically, or standard output), and
only ``cranfield/core/io/atomic.py`` writes a file whole or not at all.

The test reads every module of the package (its syntax tree, not by importing it) and
fails when one outside those two

* calls ``open`` (the built-in, ``io.open``, ``gzip.open``, ``Path.open``, ...) with a mode
  that writes (``w``, ``a``, ``x``, ``+``) or a mode that is not a constant;
* calls ``os.open`` with ``O_WRONLY``, ``O_RDWR``, ``O_CREAT`` or ``O_APPEND``, ``os.write``,
  ``os.fdopen``, ``os.replace``, ``os.rename``, or makes a named temporary file;
* calls a ``write_text`` / ``write_bytes`` method (``Path``'s), or a library's file writer
  (``savefig``, ``write_table``, ``write_csv``, ``write_feather``, ``np.save``, ``to_csv``);
* imports the atomic writers (``atomic_path``, ``write_bytes``, ``write_text``), or
* writes to standard output by hand (``sys.stdout.write``, ``sys.stdout.buffer``, a
  ``csv`` writer on ``sys.stdout``).

Opening ``os.devnull`` (a closed standard stream) is not writing an output. The few
library writers are listed with the reason they write files themselves; each must still
write (the list cannot keep a module that no longer needs it).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cranfield"
WRITERS = {"cli/_output.py", "core/io/atomic.py"}
ALLOWED = {
    # the library's public writers (not commands): each writes through core/io/atomic
    "core/io/trec.py": "Qrels.to_trec / Run.to_trec write a TREC file (atomically)",
    "core/columnar.py": "to_parquet of the library's tables (atomically)",
    "ltr/model.py": "Model.save writes a model file (atomically)",
    "ltr/protocol.py": "cross_validate(runs_dir=) writes one run per method into a folder",
    "pooling/assign.py": "write_packages writes a folder of assessment packages",
    "report/html.py": "write_report writes the HTML report (atomically)",
    "report/plots.py": "save_figure writes a figure (atomically)",
    "sample.py": "writes the bundled sample collection into a folder",
    "core/io/source.py": "spool copies standard input to a temporary file (deleted when "
    "closed) to read it in pieces: an input, not an output",
    # the service's own storage: uploads land in files, then move into the campaign's folder
    "service/uploads.py": "an upload's parts are files on disk",
    "service/api.py": "gives an uploaded file its original extension before reading it",
    "service/submissions.py": "moves a submitted run into the campaign's folder",
    "service/demo.py": "writes the demo campaign's runs as submissions",
    "service/results.py": "keeps the results' HTML report with the campaign",
    # developer tools regenerating files of the repository (python -m ...)
    "cli/_quick_gen.py": "regenerates cli/_quick_tables.py",
    "core/reference_docs.py": "regenerates the reference tables in docs/",
    "core/measures/docs.py": "prints docs/measures.md for regeneration",
    "core/measures/families.py": "write_index() regenerates core/measures/_index.py",
    "core/trec_eval_columns.py": "regenerates core/_trec_columns.py",
    "core/generated.py": "rewrites the generated parts of docs pages (collections, recommenders)",
    # not an output: the one line of Ctrl-C, written to descriptor 2 from a signal watcher
    "_interrupt.py": "writes 'interrupted' to standard error without Python's buffers",
}

ATOMIC = {"atomic_path", "write_bytes", "write_text"}
OPENERS = {"open"}  # open(), io.open, gzip.open, bz2.open, lzma.open, Path.open, ...
LIBRARY_WRITERS = {
    "savefig",
    "write_table",
    "write_csv",
    "write_feather",
    "to_csv",
}
NUMPY_WRITERS = {"save", "savez", "savez_compressed", "savetxt", "tofile"}
OS_WRITERS = {"write", "fdopen", "replace", "rename", "pwrite", "writev"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
TEMP_FILES = {"mkstemp", "NamedTemporaryFile", "TemporaryFile", "SpooledTemporaryFile"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _mode(call: ast.Call, position: int) -> ast.AST | None:
    """The mode argument of an ``open`` call (keyword ``mode`` or at ``position``)."""
    for k in call.keywords:
        if k.arg == "mode":
            return k.value
    return call.args[position] if len(call.args) > position else None


def _writes_mode(mode: ast.AST | None) -> bool:
    if mode is None:
        return False  # the default, "r"
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return True  # not a constant: it may write


def _flags(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} | {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name)
    }


def _is_devnull(call: ast.Call) -> bool:
    return bool(call.args) and _dotted(call.args[0]) == "os.devnull"


def offences(path: Path) -> list[str]:
    """Where ``path`` writes a file or standard output itself (``line: what``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "atomic":
            names = sorted(a.name for a in node.names if a.name in ATOMIC)
            if names:
                found.append(f"{node.lineno}: imports {', '.join(names)} from core.io.atomic")
            continue
        if isinstance(node, ast.Attribute) and _dotted(node) == "sys.stdout.buffer":
            found.append(f"{node.lineno}: sys.stdout.buffer")
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = _dotted(func)
        attr = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("sys.stdout.write", "sys.stdout.writelines"):
            found.append(f"{node.lineno}: {name}(...)")
        elif (
            attr in ("writer", "DictWriter")
            and node.args
            and _dotted(node.args[0]) == ("sys.stdout")
        ):
            found.append(f"{node.lineno}: a csv writer on sys.stdout")
        elif name == "os.open":
            if not _is_devnull(node) and len(node.args) > 1 and _flags(node.args[1]) & WRITE_FLAGS:
                found.append(f"{node.lineno}: os.open(..., write flags)")
        elif name.startswith("os.") and attr in OS_WRITERS:
            found.append(f"{node.lineno}: {name}(...)")
        elif attr in OPENERS:
            # Path.open(mode) takes the mode first; the others the file, then the mode
            is_path_open = isinstance(func, ast.Attribute) and not name.endswith(
                ("io.open", "gzip.open", "bz2.open", "lzma.open", "codecs.open", "tarfile.open")
            )
            mode = _mode(node, 0 if is_path_open and name != "open" else 1)
            if not _is_devnull(node) and _writes_mode(mode):
                found.append(f"{node.lineno}: {name or attr}(..., mode that writes)")
        elif isinstance(func, ast.Attribute) and attr in ("write_text", "write_bytes"):
            found.append(f"{node.lineno}: .{attr}(...)")
        elif isinstance(func, ast.Attribute) and (
            attr in LIBRARY_WRITERS
            or (attr in NUMPY_WRITERS and name.split(".")[0] in ("np", "numpy"))
            or attr == "tofile"
        ):
            found.append(f"{node.lineno}: {name or attr}(...)")
        elif attr in TEMP_FILES:
            found.append(f"{node.lineno}: {attr}(...)")
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel not in WRITERS:
            yield rel, path


def test_only_the_output_module_writes_outputs():
    bad = {
        rel: found for rel, path in _modules() if (found := offences(path)) and rel not in ALLOWED
    }
    assert not bad, (
        "write a command's result with cranfield.cli._output.deliver (a file atomically, or "
        "standard output) and files with cranfield.core.io.atomic, not by hand; a library "
        f"writer that must write files itself joins ALLOWED with its reason: {bad}"
    )


def test_the_exceptions_are_still_needed():
    """An allowed module that no longer writes leaves the list (it cannot grow silently)."""
    clean = [rel for rel in ALLOWED if not offences(PACKAGE / rel)]
    assert not clean, f"no longer needed in ALLOWED: {clean}"


def test_the_writers_still_write():
    """The scan sees the two writers themselves (else it looks for the wrong things)."""
    for rel in WRITERS:
        assert offences(PACKAGE / rel), rel


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """The scanner itself, on the patterns the old writers used (and what is no write)."""
    sample = tmp_path / "m.py"
    sample.write_text(
        "import os, sys, csv, gzip\n"
        "from pathlib import Path\n"
        "from ..core.io.atomic import write_bytes, check_output\n"  # 3
        "def f(p, data, mode):\n"
        "    open(p, 'w').write(data)\n"  # 5
        "    open(p, mode=mode)\n"  # 6
        "    Path(p).open('ab')\n"  # 7
        "    gzip.open(p, 'wt')\n"  # 8
        "    os.open(p, os.O_CREAT | os.O_WRONLY)\n"  # 9
        "    Path(p).write_text(data)\n"  # 10
        "    sys.stdout.buffer.write(data)\n"  # 11
        "    sys.stdout.write(data)\n"  # 12
        "    csv.writer(sys.stdout)\n"  # 13
        "    fig.savefig(p)\n"  # 14
        "    os.replace(p, p + '.x')\n"  # 15
        "    np.save(p, data); data.tofile(p)\n"  # 16
        "    from .atomic import atomic_path\n"  # 17
        "def g(p, model):\n"
        "    open(p).read(); open(p, 'rb'); Path(p).open(); gzip.open(p, 'rt')\n"
        "    open(os.devnull, 'w'); os.open(os.devnull, os.O_RDWR)\n"
        "    os.open(p, os.O_RDONLY); print('x', file=sys.stderr); model.save(p)\n"
    )
    lines = sorted(int(f.split(":")[0]) for f in offences(sample))
    assert lines == [3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 17]


def test_the_old_writers_of_pool_and_trec_eval_are_found(tmp_path):
    """What cli/pool_cmd.py (``emit``) and cli/trec_eval_cmd.py (``_write``) did before
    they delivered through cli/_output.py."""
    sample = tmp_path / "old.py"
    sample.write_text(
        "import sys\n"
        "def emit(data, output):\n"
        "    if output and output != '-':\n"
        "        from ..core.io.atomic import write_bytes\n"  # 4
        "        write_bytes(output, data)\n"
        "        return\n"
        "    buf = getattr(sys.stdout, 'buffer', None)\n"
        "    buf.write(data)\n"
        "def _write(output):\n"
        "    sys.stdout.buffer.write(output)\n"  # 10
    )
    assert [int(f.split(":")[0]) for f in offences(sample)] == [4, 10]
