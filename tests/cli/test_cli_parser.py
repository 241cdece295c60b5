"""The CLI's one parser and one table of subcommands (cranfield.cli.main, cli/_args.py)."""

from __future__ import annotations

import importlib

import pytest

from cranfield.cli._args import Parser, UsageError
from cranfield.cli.main import SUBCOMMANDS, main, subcommand_parser


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_the_description_has_one_home(name):
    module = importlib.import_module(f"cranfield.cli.{SUBCOMMANDS[name][0]}")
    assert not hasattr(module, "HELP")  # the table in main.py is the only copy
    if not hasattr(module, "main"):  # parsed by main.py: its --help shows the table's line
        _, parser = subcommand_parser(name)
        assert isinstance(parser, Parser)
        assert parser.description == SUBCOMMANDS[name][1]


@pytest.mark.parametrize("name", [n for n in SUBCOMMANDS if n not in ("trec_eval", "pool")])
def test_subcommand_help_starts_with_its_description(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([name, "--help"])
    assert done.value.code == 0
    assert SUBCOMMANDS[name][1] in " ".join(capsys.readouterr().out.split())


def test_usage_error_is_one_line_with_the_status(capsys):
    parser = Parser(prog="cranfield x", usage_status=5)
    parser.add_argument("--n", type=int)
    with pytest.raises(UsageError) as done:
        parser.parse_args(["--n", "two"])
    assert done.value.code == 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("cranfield x: error: argument --n: invalid int value")
    assert err.endswith(" (see cranfield x --help)\n")


def test_a_multi_line_message_becomes_one_line(capsys):
    with pytest.raises(SystemExit):
        Parser(prog="p").error("first\nsecond")
    assert capsys.readouterr().err == "p: error: first second (see p --help)\n"


def test_parser_records_its_arguments():
    parser = Parser(prog="p")
    action = parser.add_argument("files", nargs="*")
    assert action in parser.arguments and parser.measure_action is None


def test_test_is_one_option_in_every_command_that_has_it():
    """compare, report and ltr cv read --test alike: repeatable, comma lists, checked."""
    import argparse

    from cranfield.cli import compare_cmd, ltr_cmd, report_cmd

    parsers = []
    for module in (compare_cmd, report_cmd):
        p = argparse.ArgumentParser(exit_on_error=False)
        module.add_arguments(p)
        parsers.append(p)
    parsers.append(ltr_cmd._parser("cv"))
    for p in parsers:
        (action,) = [a for a in p._actions if "--test" in a.option_strings]
        assert action.dest == "tests" and action.metavar == "TEST[,TEST...]"
        assert type(action).__name__ == "_TestList"
        ns = argparse.Namespace(tests=None)
        action(p, ns, "t,wilcoxon")
        action(p, ns, "sign")
        assert ns.tests == ["t", "wilcoxon", "sign"]
