"""The HTML report and the report/plot commands: numbers, figures, provenance, bytes."""

from __future__ import annotations

import base64
import io
import platform

import numpy as np
import pytest
from report_helpers import MEASURES, RUNS, table_dict

from cranfield import __version__, evaluate
from cranfield.cli.main import main
from cranfield.qrels import Qrels
from cranfield.report import data
from cranfield.report.html import build_report
from cranfield.run import Run


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
            assert abs(float(text) - r.aggregates[m]) <= 0.5e-4
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


def test_every_figure_is_an_inline_nonblank_png(report):
    import matplotlib.image as mpimg

    _, _, page = report
    ids = {"fig-coverage", "fig-pr", "fig-pr-query", "fig-averages", "fig-depth"}
    ids |= {f"fig-{kind}-{i}" for kind in ("delta", "dist") for i in range(len(MEASURES))}
    assert len(page.images) == len(ids)
    for img in page.images:
        prefix = "data:image/png;base64,"
        assert img["src"].startswith(prefix)
        pixels = mpimg.imread(io.BytesIO(base64.b64decode(img["src"][len(prefix) :])))
        assert pixels.shape[0] > 200 and pixels.shape[1] == 800
        assert pixels[..., :3].std() > 0.05  # drawn, not blank
    assert page.external == [] and page.scripts == 0


def test_provenance_command_and_versions(report, sample_files):
    import matplotlib
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
        "matplotlib": matplotlib.__version__,
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
    assert b"data:image/svg+xml;base64," in outs[0]
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
