"""``cranfield trec_eval`` reads plain command lines without argparse
(:func:`cranfield.cli.trec_eval_cmd.quick_parse`): whatever it accepts, argparse's parser
(:func:`~cranfield.cli.trec_eval_cmd.build_parser`) must read to the same options, and
whatever is not plain is left to argparse (so its messages stay argparse's)."""

from __future__ import annotations

import random

import pytest

from cranfield.cli._common import UsageError
from cranfield.cli.trec_eval_cmd import build_parser, quick_parse

# every option of the parser (not of the quick parser's table: one missing there is tried too)
FLAGS = [flag for action in build_parser()._actions for flag in action.option_strings]
# values, files and what argparse reads its own way: clusters, attached values,
# abbreviations, '--', negative numbers, '-' (standard input), empty words
ODD = ["-qc", "-mP.5", "--measure=P", "--meas", "--Z", "--", "-1", "-", "", "-x", "--no"]
WORDS = ["qrels", "run", "all_trec", "P.5,10", "9", "10", "11", "local", "dask", "a b", "0"]


def argparse_options(argv: list[str]) -> dict | None:
    try:
        return vars(build_parser().parse_args(argv))
    except UsageError:
        return None


@pytest.mark.parametrize(
    "argv",
    [
        ["-q", "-m", "all_trec", "qrels", "run"],
        ["qrels", "run"],
        ["qrels", "run", "-q", "-c", "-m", "P.5,10", "-m", "ndcg_cut.10"],
        ["-l", "2", "-M", "100", "-J", "-N", "500", "qrels", "-"],
        ["--compat", "9", "--stream", "-Z", "z.txt", "-n", "qrels", "run", "--no-stream"],
        ["--engine", "dask", "--scheduler", "tcp://h:1", "-R", "qrels", "-T", "x", "q", "r"],
        ["-D", "3", "-o", "-v", "--measure", "map", "--level_for_rel", "0", "q", "r"],
        ["-h", "q", "r"],
        ["-", "run", "-m", ""],
    ],
)
def test_plain_command_lines_are_read_as_argparse_reads_them(argv):
    quick = quick_parse(argv)
    assert quick is not None
    assert vars(quick) == argparse_options(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["-qc", "qrels", "run"],  # a cluster of switches
        ["-mP.5", "qrels", "run"],  # a value attached to its option
        ["--measure=P", "qrels", "run"],
        ["--query", "qrels", "run"],  # an abbreviation
        ["-m", "-q", "qrels", "run"],  # an option where a value should be
        ["-l", "-1", "qrels", "run"],  # a negative number (argparse decides)
        ["--compat", "11", "qrels", "run"],  # a value out of its choices
        ["qrels", "-q", "run"],  # files apart: argparse refuses the second
        ["qrels"],
        ["qrels", "run", "extra"],
        ["--", "qrels", "run"],
        ["-m"],
        [],
    ],
)
def test_other_command_lines_are_left_to_argparse(argv):
    assert quick_parse(argv) is None


def test_random_command_lines_read_alike():
    rng = random.Random(21)
    accepted = 0
    for _ in range(2500):
        argv = [rng.choice((FLAGS, FLAGS, ODD, WORDS, WORDS)) for _ in range(rng.randint(0, 9))]
        argv = [rng.choice(pool) for pool in argv]
        if rng.random() < 0.7:  # two files together somewhere
            at = rng.randint(0, len(argv))
            argv[at:at] = ["qrels", "run"]
        quick = quick_parse(argv)
        if quick is not None:
            accepted += 1
            assert vars(quick) == argparse_options(argv), argv
    assert accepted > 200  # the comparison above is not vacuous
