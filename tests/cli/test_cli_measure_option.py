"""``-m/--measure`` in every subcommand that has it: the three ways users write it.

One measure per ``-m`` (repeated), comma lists, and several names after one ``-m``
ended by the first word that is not a measure name; options before the files (as
trec_eval users type them) must work, and nothing ambiguous is guessed.
"""

from __future__ import annotations

import argparse
import csv
import io

import pytest

import cranfield
from cranfield import sample
from cranfield.cli._args import split_measures
from cranfield.cli.main import main, subcommand_parser
from cranfield.cli.main import parse as parse_command_line

# subcommand -> (module, positional words before the files, attribute holding the measures)
COMMANDS = {
    "eval": ("eval_cmd", [], "measures"),
    "compare": ("compare_cmd", [], "measure"),
    "report": ("report_cmd", [], "measures"),
    "plot": ("plot_cmd", ["dist"], "measures"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sample")
    paths = [str(p) for p in sample.write(d)]
    return paths[0], paths[1:3], d


def parse(command: str, *argv) -> argparse.Namespace:
    """The arguments as cranfield.cli.main parses them for a subcommand."""
    tail = ["-o", "out.html"] if command in ("report", "plot") else []
    _, parser = subcommand_parser(command)
    return parse_command_line(parser, [*COMMANDS[command][1], *map(str, argv), *tail])


def measures_of(args, command):
    return getattr(args, COMMANDS[command][2])


TWO = ["AP", "nDCG@10"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("form", "measures"),
    [
        (["-m", "AP", "{q}", "{a}", "{b}"], ["AP"]),  # options first, one measure
        (["-m", "AP", "-m", "nDCG@10", "{q}", "{a}", "{b}"], TWO),
        (["-m", "AP,nDCG@10", "{q}", "{a}", "{b}"], TWO),
        (["-m", "AP", "nDCG@10", "{q}", "{a}", "{b}"], TWO),
        (["{q}", "{a}", "{b}", "-m", "AP", "nDCG@10"], TWO),  # the form of the README
        (["{q}", "{a}", "{b}", "--measure", "AP", "--measure=nDCG@10"], TWO),
        (["{q}", "{a}", "{b}", "-m", "P.5,10", "map"], ["P.5,10", "map"]),
    ],
)
def test_every_form_gives_the_measures_and_the_files(command, form, measures, files):
    qrels, (a, b), _ = files
    args = parse(command, *(w.format(q=qrels, a=a, b=b) for w in form))
    assert measures_of(args, command) == measures
    assert args.qrels == qrels and list(args.runs) == [a, b]


@pytest.mark.parametrize("command", ["eval", "report", "plot"])
def test_measures_between_qrels_and_runs(command, files):
    # compare's files are optional (--from-per-query), and argparse gives optional
    # positionals no second chance after an option: there the files come together
    qrels, (a, b), _ = files
    args = parse(command, qrels, "-m", "AP", "nDCG@10", a, b)
    assert measures_of(args, command) == TWO
    assert args.qrels == qrels and list(args.runs) == [a, b]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_name_that_is_also_a_file_is_refused(command, files, capsys, monkeypatch):
    qrels, (a, b), d = files
    monkeypatch.chdir(d)
    (d / "map").write_text("")
    with pytest.raises(SystemExit) as exc:
        parse(command, "-m", "AP", "map", qrels, a, b)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and "'map'" in err
        and "both a measure name and an existing file" in err
    )
    # the two unambiguous spellings work
    assert measures_of(parse(command, "-m", "AP", "-m", "map", qrels, a, b), command) == [
        "AP",
        "map",
    ]
    assert measures_of(parse(command, "-m", "AP,map", qrels, a, b), command) == ["AP", "map"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelt_measure_after_the_files_gets_the_suggestion(command, files, capsys):
    qrels, (a, b), _ = files
    with pytest.raises(SystemExit) as exc:
        parse(command, qrels, a, b, "-m", "AP", "nDGC@10")
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean nDCG" in err and "No such file" not in err


@pytest.mark.parametrize("command", ["eval", "compare", "report", "plot"])
def test_a_misspelt_first_measure_gets_the_suggestion(command, files, capsys, tmp_path):
    qrels, (a, b), _ = files
    argv = [command, *COMMANDS[command][1], "-m", "nDGC@10", qrels, a, b]
    if command in ("report", "plot"):
        argv += ["-o", str(tmp_path / "out.png")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean nDCG" in err


def test_demo_takes_every_word_after_m_as_a_measure(tmp_path, capsys):
    _, parser = subcommand_parser("demo")
    args = parse_command_line(parser, ["-m", "AP", "nDCG@10,P@5", "--dir", str(tmp_path)])
    assert args.measures == ["AP", "nDCG@10", "P@5"]
    assert main(["demo", "--dir", str(tmp_path), "-m", "AP", "nDGC@10"]) == 2
    assert "did you mean nDCG" in capsys.readouterr().err


def test_eval_with_options_first_equals_the_readme_form(files, capsys):
    qrels, (a, b), _ = files
    assert main(["eval", "-m", "AP", "-m", "nDCG@10", qrels, a, b, "-f", "csv"]) == 0
    first = capsys.readouterr().out
    assert main(["eval", qrels, a, b, "-m", "AP", "nDCG@10", "-f", "csv"]) == 0
    assert capsys.readouterr().out == first
    rows = list(csv.reader(io.StringIO(first)))
    expected = cranfield.evaluate(qrels, [a, b], ["AP", "nDCG@10"])
    assert rows[0] == ["run", "AP", "nDCG@10"] and len(rows) == 3
    assert float(rows[1][1]) == pytest.approx(expected.aggregate(0, "AP"), abs=5e-5)


def test_compare_with_options_first(files, capsys):
    qrels, (a, b), _ = files
    assert main(["compare", "-m", "AP,P@10", "--complete", qrels, a, b]) == 0
    out = capsys.readouterr().out
    assert "AP" in out and "P@10" in out


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("AP", ["AP"]),
        ("AP,nDCG@10", ["AP", "nDCG@10"]),
        ("nDCG(gains={0:0,1:1})@10,AP", ["nDCG(gains={0:0,1:1})@10", "AP"]),
        ("P.5,10", ["P.5,10"]),
        ("P.5,10,AP", ["P.5,10", "AP"]),
        ("ndcg.1=3,2=9,map", ["ndcg.1=3,2=9", "map"]),
        ("utility.1,-1,0,0", ["utility.1,-1,0,0"]),
        ("P.5,11pt_avg", ["P.5", "11pt_avg"]),
        ("P@5,10", ["P@5", "10"]),  # a readable cutoff takes no list: '10' is then refused
        ("rbp(p='0,8'),AP", ["rbp(p='0,8')", "AP"]),
    ],
)
def test_split_measures(text, items):
    assert split_measures(text) == items


def test_trec_parameter_lists_keep_their_meaning(files, capsys):
    qrels, (a, _), _ = files
    assert main(["eval", "-m", "P.5,10", qrels, a, "-f", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header == "run,P@5,P@10"
