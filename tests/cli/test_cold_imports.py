"""The command line's cold path: what ``cranfield trec_eval`` and ``cranfield eval`` on
TREC files import.

Their whole evaluation runs in the compiled engine, so the process needs neither NumPy
nor PyArrow, and the front end keeps its imports to what it uses (issue 21's goal:
``cranfield trec_eval`` on one run at least twice as fast as trec_eval, where the
interpreter's start and the imports are most of the time). Each module listed here was
once on the path and was taken off it; the tests fail if one comes back.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

# heavy or needless on the engine path: NumPy/PyArrow (0.1-0.3 s), dataclasses (imports
# inspect, ast, dis, tokenize: ~10 ms), pathlib (urllib.parse, ipaddress), shutil (zlib,
# bz2, lzma), typing, and what only error messages need (difflib)
NOT_IMPORTED = (
    "numpy",
    "pyarrow",
    "pandas",
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "pathlib",
    "urllib.parse",
    "ipaddress",
    "shutil",
    "typing",
    "difflib",
)

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n2 Q0 x 2 0.5 r\n"


# ... and on a command line read without argparse (which imports re, and re enum and
# functools): functools and what it brings (collections, keyword, reprlib: ~5 ms of a
# 40 ms process; cranfield._memo remembers answers instead)
QUICK_NOT_IMPORTED = (*NOT_IMPORTED, "argparse", "functools", "collections")


def imported(
    argv: list[str], stdin: str = "", modules: tuple[str, ...] = QUICK_NOT_IMPORTED
) -> tuple[int, list[str], str]:
    """(status, the ``modules`` loaded, stdout) of ``main(argv)`` in a fresh interpreter
    (standard output is kept apart from the report)."""
    script = (
        "import io, sys\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "from cranfield.cli.main import main\n"
        f"status = main({argv!r})\n"
        "text, sys.stdout = sys.stdout.getvalue(), out\n"
        f"loaded = sorted(m for m in {modules!r} if m in sys.modules)\n"
        "print(repr((status, loaded, text)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=stdin, capture_output=True, text=True, check=True
    )
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


@pytest.mark.parametrize(
    "argv",
    [
        ["trec_eval", "-q", "-m", "all_trec"],
        ["trec_eval"],
        ["trec_eval", "-c", "-m", "P.5,10", "-m", "ndcg_cut.10"],
    ],
)
def test_trec_eval_imports_nothing_it_does_not_need(files, argv):
    status, loaded, text = imported([*argv, *files])
    assert status == 0
    assert loaded == []
    assert "\tall\t" in text and ("num_q" in text or "P_5" in text)  # it did evaluate


@pytest.mark.parametrize(
    "measures", [["-m", "AP"], ["-m", "AP", "nDCG@10", "P@5", "GMAP", "NumRet"], []]
)
def test_eval_imports_nothing_it_does_not_need(files, measures):
    quick = len(measures) < 3  # (a list after -m is read by argparse)
    modules = QUICK_NOT_IMPORTED if quick else NOT_IMPORTED
    status, loaded, text = imported(["eval", *files, *measures], modules=modules)
    assert status == 0
    assert loaded == []
    assert text.splitlines()[1].startswith("r ")  # one row of values for run r


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_a_run_on_standard_input_imports_nothing_it_does_not_need(files, command):
    status, loaded, text = imported([command, files[0], "-"], stdin=RUN)
    assert status == 0
    assert loaded == []
    assert "\tall\tr\n" in text or "\nr " in text  # run r's values


@pytest.mark.parametrize("command", ["eval", "trec_eval"])
def test_qrels_on_standard_input_import_nothing_they_do_not_need(files, command):
    status, loaded, text = imported([command, "-", files[1]], stdin=QRELS)
    assert status == 0
    assert loaded == []
    assert "\tall\tr\n" in text or "\nr " in text  # run r's values


def test_the_general_path_still_imports_what_it_needs(files, tmp_path):
    # the checks above can fail: a path that needs NumPy (qrels in CSV are read by the
    # general path) does import it
    qrels = tmp_path / "qrels.csv"
    qrels.write_text("query_id,doc_id,relevance\n" + QRELS.replace(" 0 ", ",").replace(" ", ","))
    status, loaded, _ = imported(["eval", str(qrels), files[1], "-m", "AP"])
    assert status == 0 and "numpy" in loaded
    status, loaded, _ = imported(["eval", *files, "-m", "AP", "P@5"])
    assert status == 0 and {"argparse", "functools", "collections"} <= set(loaded)


def test_a_subcommand_does_not_build_the_parser_of_every_subcommand(files, monkeypatch, capsys):
    # the parser of the subcommand names (one parser and one module look-up for each of
    # them) is for `cranfield`, --help, --version and unknown names only
    from cranfield.cli import main as cli

    def refused():
        raise AssertionError("the top-level parser was built for a subcommand")

    monkeypatch.setattr(cli, "_available", refused)
    assert cli.main(["trec_eval", "-m", "num_ret", *files]) == 0
    assert cli.main(["eval", *files, "-m", "NumRet"]) == 0
    assert "num_ret" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="top-level parser"):
        cli.main(["--help"])


def imported_modules(argv: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules ``main(argv)`` loads in a fresh interpreter (its status must be 0) that
    are one of ``prefixes`` or inside one (a prefix ending in '.': its submodules)."""
    script = (
        "import io, sys\n"
        "before = set(sys.modules)\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "from cranfield.cli.main import main\n"
        f"status = main({argv!r})\n"
        "sys.stdout = out\n"
        "assert status == 0, status\n"
        f"prefixes = {prefixes!r}\n"
        "print(sorted(m for m in set(sys.modules) - before if any(\n"
        "    m.startswith(p) if p.endswith('.') else m == p or m.startswith(p + '.')\n"
        "    for p in prefixes)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr


# plain command lines are read without argparse (which imports re, enum, gettext and
# locale), and measures named without parameters need no measure family
# (cli/trec_eval_cmd.quick_parse, cli/eval_cmd.quick, core/trec_eval.quick_columns)
PLAIN = ("argparse", "re", "enum", "gettext", "locale", "json", "csv")
FAMILIES = ("cranfield.core.measures.",)


# and what the console script (`cranfield`, which imports only sys) has not loaded:
# importlib (with warnings), contextlib (with collections and functools), math
UNLOADED = ("importlib", "warnings", "contextlib")


@pytest.mark.parametrize(
    "argv", [["trec_eval", "-q", "-m", "all_trec"], ["trec_eval"], ["trec_eval", "-m", "map"]]
)
def test_plain_trec_eval_reads_its_arguments_and_measures_cheaply(files, argv):
    loaded = imported_modules([*argv, *files], PLAIN + UNLOADED + FAMILIES)
    assert loaded == []
    assert imported_modules([*argv, *files], ("collections", "functools", "math")) == []


def test_plain_eval_reads_its_arguments_cheaply(files):
    loaded = imported_modules(["eval", *files, "-m", "AP"], PLAIN + UNLOADED)
    assert loaded == []


def test_other_command_lines_still_use_argparse(files):
    # the checks above can fail: a line that is not plain is read by argparse
    assert "argparse" in imported_modules(["trec_eval", "-qc", *files], ("argparse",))
    assert "argparse" in imported_modules(["eval", *files, "-m", "AP,P@5"], ("argparse",))
