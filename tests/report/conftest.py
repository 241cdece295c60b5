"""Fixtures of the report tests: the sample collection as files and one report of it."""

from __future__ import annotations

import pytest
from report_helpers import MEASURES, RUNS, parse

from cranfield import evaluate
from cranfield.cli.main import main
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run


@pytest.fixture(scope="session")
def sample_files(sample_paths):
    return sample_paths[0], {p.stem: p for p in sample_paths[1:]}


@pytest.fixture(scope="session")
def report(sample_files, tmp_path_factory):
    qrels, runs = sample_files
    out = tmp_path_factory.mktemp("report") / "report.html"
    argv = ["report", str(qrels), *(str(runs[n]) for n in RUNS), "-m", *MEASURES]
    argv += ["--baseline", "bm25", "--query", "301", "--max-depth", "10", "-o", str(out)]
    assert main(argv) == 0
    text = out.read_text(encoding="utf-8")
    return out, text, parse(text)


@pytest.fixture(scope="session")
def results(sample_files):
    qrels, runs = sample_files
    return evaluate(Qrels.read(qrels), [Run.read(runs[n]) for n in RUNS], MEASURES)
