"""``cranfield report --subtopic-qrels``: the report's leaderboard carries diversity
measures, with the numbers ``cranfield.evaluate`` gives for the same subtopic qrels."""

from __future__ import annotations

import pytest
from report_helpers import parse, table_dict

from cranfield import evaluate
from cranfield.cli.main import main
from cranfield.defaults import DIVERSITY_REPORT_MEASURES, REPORT_MEASURES

SUBTOPICS = """\
1 1 d0 2
1 2 d0 1
1 2 d1 3
1 1 d2 0
2 1 d5 1
2 3 d6 2
"""
QRELS = "1 0 d0 1\n1 0 d1 1\n2 0 d5 1\n"
RUNS = {
    "r": "1 Q0 d2 1 3 r\n1 Q0 d1 2 2 r\n1 Q0 d0 3 1 r\n2 Q0 d6 1 2 r\n2 Q0 d5 2 1 r\n",
    "s": "1 Q0 d0 1 3 s\n1 Q0 d1 2 2 s\n2 Q0 d9 1 2 s\n2 Q0 d5 2 1 s\n",
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "subtopics").write_text(SUBTOPICS)
    runs = []
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
        runs.append(str(tmp_path / name))
    return str(tmp_path / "qrels"), str(tmp_path / "subtopics"), runs


def leaderboard(path) -> dict:
    return table_dict(parse(path.read_text()).tables["summary"])


def test_default_measures_add_the_diversity_ones(files, tmp_path):
    qrels, subtopics, runs = files
    out = tmp_path / "report.html"
    assert main(["report", qrels, *runs, "--subtopic-qrels", subtopics, "-o", str(out)]) == 0
    board = leaderboard(out)
    measures = [*REPORT_MEASURES, *DIVERSITY_REPORT_MEASURES]
    want = evaluate(qrels, runs, measures, subtopic_qrels=subtopics)
    for r in want.runs:
        for m in want.measures:
            assert float(board[r.name][str(m)][1]) == r.aggregates[m], (r.name, m)
    # both runs differ on the diversity measures: the values are not all one number
    assert board["r"]["alpha_nDCG@20"][1] != board["s"]["alpha_nDCG@20"][1]
    command = parse(out.read_text()).ids["command"]
    assert f"--subtopic-qrels {subtopics}" in command


def test_named_measures_and_intent_probabilities(files, tmp_path):
    qrels, subtopics, runs = files
    probs = tmp_path / "p.csv"
    probs.write_text("query_id,subtopic,probability\n1,1,0.9\n1,2,0.1\n")
    out = tmp_path / "report.html"
    argv = ["report", qrels, *runs, "--subtopic-qrels", subtopics]
    argv += ["--intent-probabilities", str(probs), "-m", "D_nDCG@5", "nDCG_IA@5"]
    assert main([*argv, "-o", str(out)]) == 0
    board = leaderboard(out)
    assert "AP" not in board["r"]
    from cranfield.core.subtopics import SubtopicQrels

    weighted = SubtopicQrels.read(subtopics).with_intents(str(probs))
    want = evaluate(qrels, runs, ["D_nDCG@5", "nDCG_IA@5"], subtopic_qrels=weighted)
    plain = evaluate(qrels, runs, ["D_nDCG@5"], subtopic_qrels=subtopics)
    for r in want.runs:
        for m in want.measures:
            assert float(board[r.name][str(m)][1]) == r.aggregates[m]
    # the probabilities change the numbers (topic 1 leans on subtopic 1)
    assert want.runs[0].aggregates[want.measures[0]] != plain.runs[0].aggregates[plain.measures[0]]


def test_a_diversity_measure_without_subtopic_qrels_is_one_error(files, tmp_path, capsys):
    qrels, _, runs = files
    out = tmp_path / "report.html"
    assert main(["report", qrels, *runs, "-m", "alpha_nDCG@5", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs subtopic qrels" in err[0]
    assert not out.exists()
