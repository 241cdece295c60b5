"""The HTML report and the report/plot commands: numbers, figures, provenance, bytes."""

from __future__ import annotations

import platform
import re

import numpy as np
import pytest
from report_helpers import MEASURES, RUNS, table_dict

from cranfield import __version__, evaluate
from cranfield.cli.main import main
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.report import data
from cranfield.report.html import build_report


def small_files(tmp_path):
    """Three queries, two runs, as TREC files."""
    qrels = tmp_path / "q.txt"
    qrels.write_text(
        "".join(f"{q} 0 {q}d{i} {g}\n" for q in "abc" for i, g in enumerate([1, 0, 2, 0, 1]))
    )
    paths = []
    for name, sign in (("one", 1), ("two", -1)):
        p = tmp_path / f"{name}.txt"
        p.write_text(
            "".join(
                f"{q} Q0 {q}d{i} {i + 1} {sign * (9 - i) + (q == 'b')} {name}\n"
                for q in "abc"
                for i in range(7)
            )
        )
        paths.append(p)
    return qrels, paths


def test_summary_table_has_evaluate_numbers(report, results):
    _, _, page = report
    table = table_dict(page.tables["summary"])
    assert list(table) == RUNS
    for r in results.runs:
        row = table[r.name]
        assert row["queries"][0] == str(len(r.query_ids))
        for m in results.measures:
            text, value = row[str(m)]
            # the leaderboard marks the runs significantly above / below the baseline
            number = text.replace("\u25b2", "").replace("\u25bc", "")
            assert abs(float(number) - r.aggregates[m]) <= 0.5e-4
            assert float(value) == r.aggregates[m]


def test_coverage_table_has_judged_at_k(report, sample_files):
    _, _, page = report
    qrels, runs = sample_files
    table = table_dict(page.tables["coverage"])
    depths = data.DEFAULT_DEPTHS
    res = evaluate(
        Qrels.read(qrels), [Run.read(runs[n]) for n in RUNS], [f"Judged@{k}" for k in depths]
    )
    for name in RUNS:
        for k in depths:
            text, value = table[name][f"Judged@{k}"]
            assert float(value) == res.aggregate(name, f"Judged@{k}")
            assert text == f"{res.aggregate(name, f'Judged@{k}'):.4f}"
    assert "per topic" in page.ids["density"]


def test_comparison_section_uses_compare_on_common_queries(report, results):
    from cranfield.compare import compare

    _, text, page = report
    assert "317" in page.ids["comparison-dropped"]  # dense has no ranking for 317
    scores = results.per_query_table()
    common = {
        m: {r: {q: v for q, v in s.items() if q != "317"} for r, s in by.items()}
        for m, by in scores.items()
    }
    expected = compare(common, baseline="bm25").render("html", table="summary")
    assert expected in text
    # hybrid beats bm25 significantly on AP in the sample: the letter of bm25 (a)
    assert "<sup>a</sup>" in expected


def test_every_figure_is_inline_svg_with_a_caption_and_a_table(report):
    _, text, page = report
    figures = re.findall(r'<figure id="([^"]+)">(.*?)</figure>', text, re.S)
    ids = {f for f, _ in figures}
    n = len(MEASURES)
    expected = {f"fig-{kind}-{i}" for kind in ("means", "topics", "heatmap") for i in range(n)}
    expected |= {"fig-coverage", "fig-detail-pr", "fig-detail-delta", "fig-detail-dist"}
    expected |= {"fig-detail-depth-0", "fig-detail-depth-1", "fig-detail-query"}
    expected |= {"fig-asl", "fig-swap"}  # how far the evaluation can be trusted
    assert ids == expected
    for fig_id, body in figures:
        assert body.count("<svg ") == 1, fig_id
        assert "<figcaption>" in body and "<details><summary>Data table" in body, fig_id
        if not fig_id.startswith("fig-detail"):  # drawn in Python; the detail by the script
            assert body.count("<text") > 3 and ("<path" in body or "<circle" in body), fig_id
    assert page.images == [] and page.external == []
    assert page.scripts == 2  # the JSON data and the script drawing the detail view


def test_provenance_command_and_versions(report, sample_files):
    import pyarrow

    _, _, page = report
    qrels, _ = sample_files
    assert page.ids["command"].startswith(f"cranfield report {qrels} ")
    assert "--baseline bm25 --query 301" in page.ids["command"]
    versions = {row[0][0]: row[1][0] for row in page.tables["versions"][1:]}
    assert versions == {
        "cranfield": __version__,
        "numpy": np.__version__,
        "pyarrow": pyarrow.__version__,
        "python": platform.python_version(),
    }


def test_same_inputs_same_bytes(tmp_path, capsys):
    qrels, runs = small_files(tmp_path)
    outs = []
    out = tmp_path / "r.html"  # the same command twice (the output name is in the report)
    for _ in range(2):
        argv = ["report", str(qrels), *map(str, runs), "-m", "AP", "P@5", "--max-depth", "5"]
        assert main([*argv, "--images", "svg", "-o", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert b"<svg " in outs[0] and b"<img" not in outs[0]
    assert capsys.readouterr().err == ""  # no progress bar when stderr is not a terminal
    text = build_report(str(qrels), list(map(str, runs)), ["AP"], max_depth=3)
    assert text == build_report(str(qrels), list(map(str, runs)), ["AP"], max_depth=3)


def test_report_errors_are_one_line(tmp_path, capsys):
    qrels, runs = small_files(tmp_path)
    argv = ["report", str(qrels), *map(str, runs), "--baseline", "nope", "-o", "x.html"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "baseline" in err and "one, two" in err


@pytest.mark.parametrize("kind", ["pr", "avg", "delta", "dist", "depth", "coverage"])
def test_plot_command_writes_each_kind(kind, tmp_path):
    import matplotlib.image as mpimg

    qrels, runs = small_files(tmp_path)
    out = tmp_path / f"{kind}.png"
    argv = ["plot", kind, str(qrels), *map(str, runs), "-m", "AP", "--max-depth", "4"]
    assert main([*argv, "-o", str(out)]) == 0
    assert mpimg.imread(out)[..., :3].std() > 0.05


def test_plot_command_errors(tmp_path, capsys):
    qrels, runs = small_files(tmp_path)
    assert main(["plot", "pr", str(qrels), str(runs[0]), "-o", str(tmp_path / "x.gif")]) == 2
    assert "png, .svg or .pdf" in capsys.readouterr().err
    argv = ["plot", "delta", str(qrels), str(runs[0]), "-o", str(tmp_path / "x.svg")]
    assert main(argv) == 2
    assert "at least two runs" in capsys.readouterr().err
    argv = ["plot", "pr", str(qrels), str(runs[0]), "--query", "zz", "-o", str(tmp_path / "x.svg")]
    assert main(argv) == 2
    assert "query" in capsys.readouterr().err
    argv = ["plot", "delta", str(qrels), *map(str, runs), "-o", str(tmp_path / "x.svg")]
    assert main([*argv, "--baseline", "one", "--baseline", "two"]) == 2
    assert "at most 1 run here" in capsys.readouterr().err
    assert not (tmp_path / "x.svg").exists()


def test_shared_task_report_is_deterministic_and_escaped(tmp_path):
    from report_helpers import write_collection

    qrels, paths, names, topics = write_collection(tmp_path, 6, n_topics=8, depth=15, odd=True)
    texts = [
        build_report(str(qrels), list(map(str, paths)), ["AP", "P@5"], max_depth=5, progress=False)
        for _ in range(2)
    ]
    assert texts[0] == texts[1]
    text = texts[0]
    assert "<script>alert" not in text and "<b>t&amp;1</b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;" in text
    # the embedded data: only the report's two script elements, names JSON-escaped
    assert text.count("<script") == 2 and text.count("</script>") == 2
    assert "\\u003cscript\\u003ealert(1)" in text
    # a label is shortened in the figures, whole in its tooltip and tables
    assert names[-1] in text and names[-1][:27] + "\u2026" in text


def test_leaderboard_marks_the_runs_against_the_baseline(report, results):
    """▲ / ▼: significantly above / below ``--baseline`` (bm25), as the comparison
    section's tests say (all measures in one compare call, Holm over the runs) — not
    against the best run of the measure."""
    from cranfield.compare import compare

    _, _, page = report
    board = table_dict(page.tables["summary"])
    scores = results.per_query_table()
    common = set.intersection(*(set(v) for by in scores.values() for v in by.values()))
    aligned = {
        str(m): {r: {q: v for q, v in s.items() if q in common} for r, s in scores[str(m)].items()}
        for m in results.measures
    }
    rows = compare(aligned, baseline="bm25").rows
    seen = set()
    for row in rows:
        cell = board[row.run][row.measure][0]
        want = ("\u25b2" if row.diff > 0 else "\u25bc") if row.significant else None
        assert ("\u25b2" in cell, "\u25bc" in cell) == (want == "\u25b2", want == "\u25bc")
        seen.add(want)
    assert {"\u25b2", "\u25bc"} <= seen  # the sample has runs above and below bm25
    assert not any("\u25b2" in v[0] or "\u25bc" in v[0] for v in board["bm25"].values())


def test_one_run_report():
    qrels = {"a": {"d1": 1, "d2": 0, "d3": 1}, "b": {"d1": 0, "d2": 1}}
    runs = {"one": {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"d1": 2.0, "d2": 1.0}}}
    text = build_report(qrels, runs, ["AP", "num_ret"], progress=False, max_depth=2, depths=[1])
    assert "one run: nothing to compare it with" in text
    assert "A comparison needs at least two runs." in text
    assert '<option value="0" selected>one</option>' in text


def test_embedded_data_keeps_names_exactly():
    import json

    from cranfield.report.html import _json_for_html

    obj = {"runs": ["a, b", "x: y", "</script><b>&", "\u00e9"], "v": [float("nan"), 0.5]}
    text = _json_for_html(obj)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"runs": obj["runs"], "v": [None, 0.5]}


def test_topics_in_numeric_order_then_the_rest():
    import json

    qrels = {q: {"d1": 1, "d2": 0} for q in ("10", "9", "x", "\u00b2", "010")}
    runs = {n: {q: {"d1": 1.0, "d2": s} for q in qrels} for n, s in (("one", 2.0), ("two", 0.5))}
    text = build_report(qrels, runs, ["AP"], progress=False, max_depth=2, depths=[1])
    payload = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text)
    topics = json.loads(payload.group(1))["topics"]
    assert topics == ["9", "010", "10", "x", "\u00b2"]


def test_several_baselines_in_the_comparison_section(sample_files, results, tmp_path):
    """``--baseline`` twice: the comparison section tests every run against each
    baseline (one Holm correction over all the pairs); the first is the per-topic
    views' baseline."""
    from cranfield.compare import compare

    qrels, runs = sample_files
    out = tmp_path / "r.html"
    argv = ["report", str(qrels), *(str(runs[n]) for n in RUNS), "-m", *MEASURES]
    argv += ["--baseline", "dense", "--baseline", str(runs["bm25"]), "-o", str(out)]
    assert main(argv) == 0
    text = out.read_text(encoding="utf-8")
    assert "Comparison with the baselines</h2>" in text
    assert "--baseline dense --baseline " + str(runs["bm25"]) in text  # provenance
    scores = results.per_query_table()
    common = {
        m: {r: {q: v for q, v in s.items() if q != "317"} for r, s in by.items()}
        for m, by in scores.items()
    }
    expected = compare(common, baseline=["dense", "bm25"])
    assert [(r.run, r.baseline) for r in expected.rows[:2]] == [
        ("bm25", "dense"),
        ("hybrid", "dense"),
    ]
    assert expected.render("html", table="detail") in text
    assert "baseline <b>dense</b>" in text


def test_leaderboard_marks_each_of_several_baselines(sample_files, results):
    """With several baselines every cell carries one mark per baseline the run differs
    from significantly, as one compare call over all the pairs says (one correction over
    them); two baselines mark each other with opposite signs. Before, only the first
    baseline was marked."""
    from cranfield.compare import compare

    qrels, runs = sample_files
    baselines = ["dense", "bm25"]
    text = build_report(
        Qrels.read(qrels),
        [Run.read(runs[n]) for n in RUNS],
        MEASURES,
        baseline=baselines,
        progress=False,
        max_depth=2,
        depths=[1],
    )
    board = text[
        text.index('<table id="summary"') : text.index("</table>", text.index('id="summary"'))
    ]
    cells = {}
    for row in re.findall(r'<tr[^>]*><th scope="row">([^<]+)</th>(.*?)</tr>', board):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", row[1])[1:]  # after "queries"
        for m, td in zip(MEASURES, tds, strict=True):
            found = re.findall(r'data-baseline="([^"]+)"[^>]*> (.)<sub>(\d)</sub>', td)
            cells[row[0], m] = {(b, s) for b, s, _ in found}
            assert all(baselines[int(k) - 1] == b for b, _, k in found)
    scores = results.per_query_table()
    common = set.intersection(*(set(v) for by in scores.values() for v in by.values()))
    aligned = {
        str(m): {r: {q: v for q, v in s.items() if q in common} for r, s in scores[str(m)].items()}
        for m in results.measures
    }
    want = {key: set() for key in cells}
    for row in compare(aligned, baseline=baselines).rows:
        if row.significant:
            up, down = "\u25b2", "\u25bc"
            want[row.run, row.measure].add((row.baseline, up if row.diff > 0 else down))
            if row.run in baselines:
                want[row.baseline, row.measure].add((row.run, down if row.diff > 0 else up))
    assert cells == want
    marked = {b for v in want.values() for b, _ in v}
    assert marked == set(baselines)  # the sample has marks against both baselines
    assert "1 = <b>dense</b>, 2 = <b>bm25</b>" in text
