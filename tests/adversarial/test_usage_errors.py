"""Usage errors of every subcommand, as a process: one line on stderr, status 2.

An unknown option, a missing argument and a bad choice are each reported as
``cranfield SUB: error: MESSAGE (see cranfield SUB --help)``, never argparse's usage
block. ``cranfield trec_eval`` and ``cranfield ndeval`` keep their reference's status 1
for a bad option (drop-in replacements); their line has the same form.
"""

from __future__ import annotations

import pytest

from cranfield.cli.main import SUBCOMMANDS

from .harness import assert_clean_failure, run_cli

# prog -> {case: argv after the prog}; every subcommand has an entry (checked below)
CASES: dict[str, dict[str, list[str]]] = {
    "eval": {"missing": [], "choice": ["q", "r", "-f", "bogus"], "type": ["q", "r", "-l", "x"]},
    "trec_eval": {"missing": [], "choice": ["--compat", "8", "q", "r"]},
    "ndeval": {"missing": ["q"], "choice": ["-alpha", "2", "q", "r"]},
    "measures": {"extra": ["AP", "nDCG"]},
    "sample_eval": {"missing": ["q"], "extra": ["q", "r", "x"]},
    "cwl": {"missing": ["q"], "refused": ["q", "r", "-b", "refs.bib"]},
    "compare": {"missing": ["--baseline"], "choice": ["--test", "bogus"]},
    "correlate": {"missing": [], "choice": ["a", "--format", "bogus"]},
    "curve": {"missing": [], "choice": ["bogus", "q", "r"]},
    "plot": {"missing": [], "choice": ["bogus", "q", "r", "-o", "x.png"]},
    "report": {"missing": ["q", "r"], "choice": ["q", "r", "-o", "x.html", "--images", "gif"]},
    "classify": {"missing": [], "choice": ["t", "--format", "bogus"]},
    "cluster": {"missing": [], "choice": ["t", "--average-method", "bogus"]},
    "demo": {"missing": ["--dir"]},
    "pool": {"missing": [], "choice": ["r", "--format", "bogus"]},
    "fuse": {"missing": ["a", "b"], "choice": ["a", "b", "-m", "rrf", "--missing", "bogus"]},
    "pool stats": {"missing": ["q"], "choice": ["q", "r", "-f", "bogus"]},
    "pool reuse": {"missing": [], "choice": ["q", "r", "-f", "bogus"]},
    "pool assign": {
        "missing": ["p"],
        "choice": ["p", "--assessors", "a", "-o", "d", "--order", "x"],
    },
    "pool merge": {"missing": [], "choice": ["d", "--combine", "mean"]},
    "pool sampled": {"missing": ["f"], "extra": ["f", "q", "x"]},
    "pool mtc": {"missing": [], "choice": ["a", "b", "-f", "bogus"], "type": ["a", "-n", "x"]},
    "agreement": {
        "missing": ["--judgments"],
        "choice": ["a", "b", "--level", "bogus"],
        "statistic": ["a", "b", "--statistic", "alpha,bogus"],
    },
    "aggregate": {"missing": ["--judgments"], "choice": ["a", "--method", "bogus"]},
    "assessors": {"missing": ["--judgments"], "choice": ["a", "--level", "bogus"]},
    "clicks": {"missing": [], "choice": ["bogus"]},
    "clicks compare": {"missing": ["a"], "choice": ["a", "b", "-f", "bogus"]},
    "ab": {"missing": ["log", "--metric", "m"], "choice": ["l", "--metric", "m", "-f", "x"]},
    "ltr": {"missing": [], "choice": ["bogus"]},
    "interleave": {"missing": ["a", "b"], "choice": ["a", "b", "--qrels", "q", "--method", "x"]},
    "clicks relevance": {
        "missing": ["a", "--model", "dbn", "--compare"],
        "choice": ["a", "--model", "dbn", "--compare", "q", "-f", "bogus"],
    },
    "campaign": {"missing": [], "choice": ["bogus"]},
    "campaign init": {"missing": ["db"]},
    "campaign add-user": {
        "missing": ["db", "u"],
        "choice": ["db", "u", "--role", "king", "--password-file", "f"],
    },
    "campaign export": {"missing": ["db"], "choice": ["db", "c", "--what", "bogus"]},
    "campaign machine-labels": {"missing": ["db", "c", "labels.txt"]},
    "campaign sample": {"missing": ["db", "c"], "type": ["db", "c", "--fraction", "half"]},
    "serve": {"type": ["--port", "x"]},
    "runs": {"missing": [], "choice": ["bogus"]},
    "rec": {"missing": [], "choice": ["bogus"]},
    "rec eval": {"missing": ["i"], "choice": ["i", "r", "--split", "bogus"]},
    "rec split": {"missing": ["i"], "choice": ["i", "--split", "bogus"]},
    "rec plot": {"missing": ["i", "r"], "choice": ["i", "r", "--split", "bogus", "-o", "x.png"]},
    "runs describe": {"missing": [], "choice": ["r", "-f", "bogus"]},
    "repro": {"missing": ["--qrels", "q"], "choice": ["--qrels", "q", "-f", "bogus"]},
    "meta": {"missing": [], "choice": ["bogus"]},
    "meta anova": {"choice": ["--model", "bogus"]},
    "judge": {"missing": ["p", "t"], "choice": ["p", "t", "d", "-f", "bogus"]},
    "validate": {"missing": ["h"], "choice": ["h", "m", "-f", "bogus"]},
    "ppi": {
        "missing": ["m", "h"],
        "choice": ["m", "h", "r", "-f", "bogus"],
        "interval": ["m", "h", "r", "--interval", "wald"],
        "centre": ["m", "h", "r", "--units", "pairs", "--centre", "middle"],
        "working-model": ["m", "h", "r", "--units", "pairs", "--working-model", "bogus"],
    },
}
for _cases in CASES.values():
    _cases["unknown"] = ["--no-such-option"]


def test_every_subcommand_is_covered():
    assert set(SUBCOMMANDS) <= {prog.split()[0] for prog in CASES}


@pytest.mark.parametrize(
    ("prog", "argv"),
    [(prog, argv) for prog, cases in CASES.items() for argv in cases.values()],
    ids=[f"{prog}-{case}" for prog, cases in CASES.items() for case in cases],
)
def test_usage_error_is_one_line(prog, argv, tmp_path):
    status = 1 if prog in ("trec_eval", "ndeval") else 2  # the drop-ins' status
    out = run_cli(*prog.split(), *argv, cwd=tmp_path)
    err = assert_clean_failure(out, f"cranfield {prog}: error: ", status=status)
    assert err.endswith(f"(see cranfield {prog} --help)"), out
    assert "usage:" not in err, out


@pytest.mark.parametrize("argv", [["--no-such-option"], ["no-such-command"]])
def test_top_level_usage_error_is_one_line(argv):
    err = assert_clean_failure(run_cli(*argv), "cranfield: error: ")
    assert err.endswith("(see cranfield --help)")


def test_a_measure_list_error_is_one_line_with_the_hint(tmp_path):
    err = assert_clean_failure(
        run_cli("eval", "q", "r", "-m", "AP", "nDGC@10", cwd=tmp_path), "did you mean nDCG"
    )
    assert err.startswith("cranfield eval: error: ")
    assert err.endswith("(see cranfield eval --help)")
