"""The quick parsers' option tables (cli/_quick_tables.py) are generated from the
argparse declarations of ``eval`` and ``trec_eval`` (cli/_quick_gen.py): an option
added, removed or changed in argparse and not regenerated fails here. That the two
readings agree on the command lines the quick parsers accept is checked by
test_eval_quick_parse.py and test_trec_eval_quick_parse.py."""

from __future__ import annotations

import argparse

from cranfield.cli import _quick_gen, _quick_tables
from cranfield.cli._args import add_measures
from cranfield.cli._common import quick_scan

REGENERATE = "stale: run PYTHONPATH=src python -m cranfield.cli._quick_gen"


def test_the_committed_tables_are_the_generated_ones():
    assert _quick_gen.TARGET.read_text() == _quick_gen.render(), REGENERATE


def test_an_option_added_to_argparse_makes_the_tables_stale():
    parsers = _quick_gen.parsers()
    parsers["EVAL"].add_argument("--new-switch", action="store_true")
    parsers["TREC_EVAL"].add_argument("-X", "--extra", type=int, choices=[1, 2], default=2)
    text = _quick_gen.render(parsers)
    assert text != _quick_gen.TARGET.read_text()
    namespace: dict = {}
    exec(compile(text, "generated", "exec"), namespace)
    assert namespace["EVAL"]["--new-switch"] == ("new_switch", "const", True)
    assert namespace["EVAL_DEFAULTS"]["new_switch"] is False
    assert namespace["TREC_EVAL"]["-X"] == ("extra", "int", (1, 2))
    assert namespace["TREC_EVAL_DEFAULTS"]["extra"] == 2


def test_a_changed_meaning_makes_the_tables_stale():
    parsers = _quick_gen.parsers()
    for action in parsers["EVAL"]._actions:
        if action.dest == "aggregate":
            action.choices = ["macro", "micro", "median"]
        if action.dest == "rel_level":
            action.default = 2
    text = _quick_gen.render(parsers)
    assert '"--aggregate": ("aggregate", "text", ("macro", "micro", "median")),' in text
    assert '    "rel_level": 2,\n' in text
    assert text != _quick_gen.TARGET.read_text()


def test_options_only_argparse_reads_keep_their_defaults():
    p = argparse.ArgumentParser()
    p.add_argument("--ratio", type=float, default=0.5)  # no quick kind: argparse reads it
    p.add_argument("--pair", nargs=2)
    p.add_argument("--count", action="count", default=0)
    p.add_argument("--mode", choices=["a", "b"], default="a")
    p.add_argument("--stream", action="store_const", const=True, dest="stream")
    p.add_argument("--no-stream", action="store_const", const=False, dest="stream")
    add_measures(p, "measures")
    p.set_defaults(_outputs=("out",))
    options, defaults = _quick_gen.tables(p)
    assert set(options) == {"--mode", "--stream", "--no-stream", "-m", "--measure"}
    assert options["--no-stream"] == ("stream", "const", False)
    assert options["-m"] == ("measures", "measure", None)
    assert defaults == vars(p.parse_args([])) | {"_outputs": ("out",)}
    # a line with an option the table lacks is argparse's; one without is read alike
    assert quick_scan(["--ratio", "2", "f"], options, defaults) is None
    args, files = quick_scan(["--mode", "b", "f", "--no-stream"], options, defaults)
    assert files == ["f"] and vars(args) == vars(p.parse_args(["--mode", "b", "--no-stream"]))


def test_defaults_that_are_lists_are_not_shared_between_calls():
    first, _ = quick_scan(
        ["-m", "P.5", "q", "r"], _quick_tables.TREC_EVAL, _quick_tables.TREC_EVAL_DEFAULTS
    )
    second, _ = quick_scan(["q", "r"], _quick_tables.TREC_EVAL, _quick_tables.TREC_EVAL_DEFAULTS)
    assert first.measures == ["P.5"] and second.measures == []
    assert _quick_tables.TREC_EVAL_DEFAULTS["measures"] == []
