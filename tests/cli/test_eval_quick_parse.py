"""``cranfield eval`` reads plain command lines without argparse
(:func:`cranfield.cli.eval_cmd.quick`): whatever it accepts, the subcommand's argparse
parser (with the measure lists expanded, as cli/main.py parses) must read to the same
options, and what is not plain is left to argparse."""

from __future__ import annotations

import random

import pytest

from cranfield.cli import eval_cmd
from cranfield.cli._common import UsageError
from cranfield.cli.main import parse, subcommand_parser

# every option of the parser (not of the quick parser's table: one missing there is tried too)
FLAGS = [f for a in subcommand_parser("eval")[1]._actions for f in a.option_strings]
ODD = ["-qc", "-mAP", "--measure=AP", "--meas", "--", "-1", "-", "", "-h", "--no", "-x"]
WORDS = [
    "qrels",
    "run",
    "run2",
    "AP",
    "nDCG@10",
    " P@5 ",
    "AP,nDCG@10",
    "P.5,10",
    "9",
    "10",
    "3",
    "x1",
    "local",
    "dask",
    "json",
    "micro",
    "first",
]


_PARSER = []


def argparse_options(argv: list[str]) -> dict | None:
    if not _PARSER:
        _PARSER.append(subcommand_parser("eval")[1])
    parser = _PARSER[0]
    try:
        return vars(parse(parser, argv))
    except UsageError:
        return None


@pytest.mark.parametrize(
    "argv",
    [
        ["qrels", "run", "-m", "AP"],
        ["qrels", "run"],
        ["qrels", "run", "run2", "-m", "AP", "-m", "nDCG@10", "-q"],
        ["qrels", "run", "-l", "2", "-M", "100", "-J", "-c", "--duplicates", "max"],
        ["qrels", "-", "--aggregate", "micro", "--skip-no-relevant", "-N", "1000"],
        ["--compat", "9", "--stream", "--fractional", "qrels", "run", "--no-stream"],
        ["--engine", "dask", "--scheduler", "tcp://h:1", "-f", "json", "--digits", "6", "q", "r"],
        ["-o", "out.txt", "--format", "csv", "qrels", "run", "--measure", " P@5 "],
    ],
)
def test_plain_command_lines_are_read_as_argparse_reads_them(argv):
    quick = eval_cmd.quick(argv)
    assert quick is not None
    assert vars(quick) == argparse_options(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["qrels", "run", "-m", "AP", "nDCG@10"],  # names after one -m
        ["qrels", "run", "-m", "AP,nDCG@10"],  # a comma list
        ["-m", "AP", "qrels", "run"],  # (is 'qrels' a measure? expand_measure_lists says)
        ["-qc", "qrels", "run"],
        ["--per", "qrels", "run"],  # an abbreviation
        ["-l", "x", "qrels", "run"],  # not an integer
        ["-f", "xml", "qrels", "run"],  # not a choice
        ["qrels", "-q", "run"],  # files apart
        ["qrels"],
        ["-h"],
        ["--", "qrels", "run"],
    ],
)
def test_other_command_lines_are_left_to_argparse(argv):
    assert eval_cmd.quick(argv) is None


def test_random_command_lines_read_alike(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no word is an existing file
    rng = random.Random(20)
    accepted = 0
    for _ in range(2500):
        argv = [rng.choice((FLAGS, FLAGS, ODD, WORDS, WORDS)) for _ in range(rng.randint(0, 9))]
        argv = [rng.choice(pool) for pool in argv]
        if rng.random() < 0.8:  # the files together somewhere
            at = rng.randint(0, len(argv))
            argv[at:at] = ["qrels", "run", "run2"][: rng.randint(2, 3)]
        quick = eval_cmd.quick(argv)
        if quick is not None:
            accepted += 1
            assert vars(quick) == argparse_options(argv), argv
    assert accepted > 200  # the comparison above is not vacuous
