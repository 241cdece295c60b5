"""Rendering: structure of the LaTeX/HTML/markdown tables, CSV and JSON round trips."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest

from cranfield.compare import compare, render
from cranfield.compare.tables import letters
from cranfield.errors import ParameterError


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    base = rng.random(30)
    runs = {"bm25": 0.0, "rm3_x": 0.02, "dense&co": 0.3}
    scores = {
        m: {
            r: {str(q): float(base[q] + s + rng.normal(0, 0.05)) for q in range(30)}
            for r, s in runs.items()
        }
        for m in ("AP", "nDCG@10")
    }
    return compare(scores, tests=("t", "wilcoxon"), correction="holm")


def test_letters():
    assert letters(["x", "y", "z"]) == {"x": "a", "y": "b", "z": "c"}
    many = letters([str(i) for i in range(30)])
    assert many["25"] == "z" and many["26"] == "aa" and many["29"] == "ad"


def test_latex_summary_structure(result):
    tex = render(result, "latex")
    lines = tex.splitlines()
    assert r"\begin{tabular}{llrr}" in lines
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert len(body) == 3 and all(line.endswith(r"\\") for line in body)
    assert all(line.count(" & ") == 3 for line in body)
    # names are escaped, letters come first
    assert body[1].startswith(r"b & rm3\_x & ") and body[2].startswith(r"c & dense\&co & ")
    # the best run is bold in both measures and beats a and b in both
    for measure in result.measures:
        best = max(result.means[measure], key=result.means[measure].get)
        assert best == "dense&co"
    cells = body[2].split(" & ")[2:]
    assert all(c.startswith(r"\textbf{") for c in cells)
    assert all(c.rstrip(" \\").endswith(r"$^{\mathrm{ab}}$") for c in cells)
    assert r"\textbf" not in body[0] + body[1]
    # every superscript letter is a run the row significantly beats
    for row, run in zip(body, result.runs, strict=True):
        for measure, cell in zip(result.measures, row.split(" & ")[2:], strict=True):
            sup = re.search(r"\\mathrm\{(\w+)\}", cell)
            beaten = [result.runs["abc".index(ch)] for ch in sup.group(1)] if sup else []
            assert beaten == result.beaten(measure, run)
    assert "a: bm25; b: rm3\\_x; c: dense\\&co" in tex
    assert "paired t-test, Holm correction" in tex
    assert tex.count("{") == tex.count("}")


def test_latex_detail(result):
    tex = render(result, "latex", table="detail")
    rows = [line for line in tex.splitlines() if line.endswith(r"\\")]
    assert len(rows) == 1 + len(result.rows)
    ncols = len(rows[0].split(" & "))
    assert all(len(r.split(" & ")) == ncols for r in rows)


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.stack = [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_endtag(self, tag):
        assert self.stack.pop() == tag

    def handle_data(self, data):
        if self.rows and self.rows[-1] and {"td", "th"} & set(self.stack):
            self.rows[-1][-1] += data


def test_html_is_well_formed(result):
    page = render(result, "html")
    parser = _Cells()
    parser.feed(page)
    assert parser.stack == []
    assert parser.rows[0] == ["", "run", "AP", "nDCG@10"]
    assert parser.rows[3][1] == "dense&co" and "&amp;" in page
    assert "<strong>" in page and "<sup>ab</sup>" in page
    detail = _Cells()
    detail.feed(render(result, "html", table="detail"))
    assert len(detail.rows) == 1 + len(result.rows)


def test_markdown_and_text(result):
    md = render(result, "markdown").splitlines()
    assert md[0].startswith("| measure | run | baseline |")
    assert set(md[1]) <= set("|-:")
    assert len(md) == 2 + len(result.rows)
    assert all(line.count("|") == md[0].count("|") for line in md)
    summary = render(result, "markdown", table="summary")
    assert "**" in summary and "<sup>ab</sup>" in summary
    text = render(result, "text").splitlines()
    assert len(text) == 2 + len(result.rows) and set(text[1]) <= {"-", " "}
    assert str(result) == render(result, "text")


def test_csv_and_json_round_trip(result):
    rows = list(csv.DictReader(io.StringIO(render(result, "csv"))))
    assert len(rows) == len(result.rows)
    for parsed, row in zip(rows, result.to_rows(), strict=True):
        assert parsed["run"] == row["run"]
        assert float(parsed["p_t_adj"]) == row["p_t_adj"]
    doc = json.loads(render(result, "json"))
    assert doc["settings"]["tests"] == ["t", "wilcoxon"]
    assert doc["rows"] == result.to_rows()
    assert doc["means"]["AP"]["bm25"] == result.means["AP"]["bm25"]


def test_json_writes_nan_as_null():
    scores = {"AP": {"a": {"1": 0.0}, "b": {"1": 0.0}}}
    doc = json.loads(render(compare(scores), "json"))
    assert doc["rows"][0]["p_t"] is None and doc["rows"][0]["rel_diff"] is None


def test_bad_format(result):
    with pytest.raises(ParameterError, match="format"):
        render(result, "xlsx")
    with pytest.raises(ParameterError, match="table"):
        render(result, "text", table="wide")
