"""Every output of every command is declared once (``cli/_args.add_output``) and checked
before any work: never one of the inputs, and two outputs of one command never share a
path (``cli/_output.check_outputs``). ``-`` is standard output wherever a file is written.
"""

from __future__ import annotations

import ast
import json
from argparse import Namespace
from pathlib import Path

import pytest

from adversarial.harness import assert_clean_failure, assert_success, run_cli
from cranfield.cli import ltr_cmd
from cranfield.cli._output import check_outputs
from cranfield.cli.main import SUBCOMMANDS, subcommand_parser
from cranfield.errors import OutputError

CLI = Path(__file__).resolve().parents[2] / "src" / "cranfield" / "cli"


def _parsers():
    """(label, parser) of every argparse-declared command and action."""
    for name in SUBCOMMANDS:
        module = __import__(f"cranfield.cli.{SUBCOMMANDS[name][0]}", fromlist=["_"])
        if hasattr(module, "add_arguments"):
            yield name, subcommand_parser(name)[1]
    for action in ltr_cmd.ACTIONS:
        yield f"ltr {action}", ltr_cmd._parser(action)


PARSERS = dict(_parsers())


def _writes(action) -> bool:
    """Whether ``action`` names a file the command writes (a folder to write into,
    metavar DIR, is the command's own: ``ltr cv --runs``)."""
    text = (action.help or "").lower()
    return action.metavar != "DIR" and (
        "-o" in action.option_strings
        or "--output" in action.option_strings
        or text.startswith(("write", "also write", "file to write", "the model file to write"))
    )


@pytest.mark.parametrize("label", sorted(PARSERS))
def test_every_option_that_writes_a_file_is_a_declared_output(label):
    parser = PARSERS[label]
    declared = set(parser.get_default("_outputs") or ())
    for action in parser._actions:
        if _writes(action) and action.dest not in ("help",) and action.nargs != 0:
            assert action.dest in declared, (
                f"cranfield {label} {'/'.join(action.option_strings)} writes a file but is "
                "not declared with cli._args.add_output (so it escapes check_outputs)"
            )


def test_no_command_declares_an_output_option_by_hand():
    """Also the parsers built inside functions (pool's actions): by their source."""
    offenders = []
    for path in sorted(CLI.glob("*_cmd.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
            ):
                continue
            flags = [a.value for a in node.args if isinstance(a, ast.Constant)]
            help_text = next(
                (
                    k.value.value
                    for k in node.keywords
                    if k.arg == "help" and isinstance(k.value, ast.Constant)
                ),
                "",
            )
            if {"-o", "--output"} & set(flags) and path.name != "trec_eval_cmd.py":
                offenders.append(f"{path.name}:{node.lineno}")
            elif str(help_text).lower().startswith(("write", "also write")) and not any(
                k.arg == "action" or (k.arg == "metavar" and getattr(k.value, "value", "") == "DIR")
                for k in node.keywords
            ):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == [], "declare outputs with cli._args.add_output: " + ", ".join(offenders)


MULTI = sorted(k for k, p in PARSERS.items() if len(p.get_default("_outputs") or ()) > 1)


def test_the_commands_with_several_outputs_are_found():
    assert {"aggregate", "ltr eval"} <= set(MULTI)


@pytest.mark.parametrize("label", MULTI)
def test_two_outputs_of_one_command_never_share_a_path(label, tmp_path):
    parser = PARSERS[label]
    outputs = parser.get_default("_outputs")
    target = tmp_path / "same.txt"
    for first in outputs:
        for second in outputs:
            if first == second:
                continue
            args = Namespace(**{a.dest: a.default for a in parser._actions})
            args._outputs = outputs
            setattr(args, first, str(target))
            setattr(args, second, str(tmp_path / "sub" / ".." / "same.txt"))
            (tmp_path / "sub").mkdir(exist_ok=True)
            with pytest.raises(OutputError, match="same file"):
                check_outputs(args)
            setattr(args, first, "-")
            setattr(args, second, "-")
            with pytest.raises(OutputError, match="standard output"):
                check_outputs(args)
    assert not target.exists()


def test_a_link_to_the_other_output_is_the_same_path(tmp_path):
    real = tmp_path / "real.tsv"
    real.write_text("keep\n")
    (tmp_path / "link.tsv").symlink_to(real)
    args = Namespace(_outputs=("output", "posteriors"), output=str(real))
    args.posteriors = str(tmp_path / "link.tsv")
    with pytest.raises(OutputError):
        check_outputs(args)
    args.posteriors = str(tmp_path / "other.tsv")
    check_outputs(args)


# --- the command lines of the issue --------------------------------------------------------


@pytest.fixture
def judgments(tmp_path) -> Path:
    path = tmp_path / "judgments.csv"
    rows = ["topic,doc,assessor,label"]
    rows += [
        f"{t},d{d},{a},{(t + d + (a == 'c')) % 2}" for t in (1, 2) for d in range(4) for a in "abc"
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_aggregate_refuses_one_file_for_qrels_and_posteriors(judgments, tmp_path):
    out = tmp_path / "F"
    failed = run_cli("aggregate", "--judgments", judgments, "-o", out, "--posteriors", out)
    assert_clean_failure(failed, "same file")
    assert not out.exists()
    # '-o' left out is standard output: '--posteriors -' would share it
    assert_clean_failure(
        run_cli("aggregate", "--judgments", judgments, "--posteriors", "-"), "standard output"
    )
    # each to its own file works, and --posteriors - with -o FILE writes the table to stdout
    both = run_cli("aggregate", "--judgments", judgments, "-o", out, "--posteriors", "-")
    assert_success(both)
    assert (
        both.stdout.decode().startswith("topic\t") or "\t" in both.stdout.decode().splitlines()[0]
    )
    assert out.read_text().strip()
    assert not (tmp_path / "-").exists()


def test_ltr_eval_refuses_one_file_for_run_and_output(tmp_path):
    data = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "lambdarank-example"
    model = tmp_path / "m.json"
    assert_success(
        run_cli(
            "ltr",
            "train",
            data / "rank.train",
            "--method",
            "coordinate-ascent",
            "--budget",
            "200",
            "-o",
            model,
        )  # fmt: skip
    )
    out = tmp_path / "F"
    failed = run_cli("ltr", "eval", model, data / "rank.test", "--run", out, "-o", out)
    assert_clean_failure(failed, "same file")
    assert not out.exists()
    done = run_cli("ltr", "eval", model, data / "rank.test", "--run", tmp_path / "r.run",
                   "-o", out, "--format", "json")  # fmt: skip
    assert_success(done)
    assert json.loads(out.read_text()) and (tmp_path / "r.run").read_text().strip()


def test_report_writes_dash_to_standard_output_and_takes_a_run_path_as_baseline(
    sample_paths, tmp_path
):
    qrels, first, second, *_ = sample_paths
    out = run_cli("report", qrels, first, second, "-m", "AP", "--baseline", second,
                  "-o", "-", cwd=tmp_path)  # fmt: skip
    assert_success(out)
    assert out.stdout.lstrip().lower().startswith(b"<!doctype html")
    assert not (tmp_path / "-").exists()
    bad = run_cli("report", qrels, first, second, "-m", "AP", "--baseline", tmp_path / "nope",
                  "-o", tmp_path / "r.html")  # fmt: skip
    assert_clean_failure(bad, "--baseline")
    assert not (tmp_path / "r.html").exists()
