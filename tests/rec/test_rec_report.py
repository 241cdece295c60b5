"""``rec eval -f html``: the measures as ``-f json`` gives them, the popularity-bias
plot drawn from the data checked in test_rec_plot.py (its table and its points), the
subset beyond the most points drawn, and the page without training interactions."""

from __future__ import annotations

import json
import re

import numpy as np

from cranfield.rec import read_interactions, read_recommendations, split
from cranfield.rec.evaluate import popularity_bias
from cranfield.rec.report import MAX_POINTS, html_report
from generators import rec_log_files as generated


def _table(page: str, table_id: str) -> list[list[str]]:
    body = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    cell = r'<td(?: class="num" data-value="([^"]*)")?>([^<]*)</td>'
    return [[v or text for v, text in re.findall(cell, row)] for row in rows]


def test_the_page_has_the_json_numbers_and_the_plot_of_the_data(tmp_path, cli):
    log_path, recs_path = generated(5, tmp_path)
    common = ["rec", "eval", log_path, recs_path, "--split", "ratio", "--fraction", "0.6"]
    status, out, err = cli(*common, "-m", "HR@5", "nDCG@5", "arp@5", "-f", "json")
    assert status == 0, err
    want, run = json.loads(out)["measures"], json.loads(out)["run"]
    page_path = tmp_path / "r.html"
    status, _, err = cli(*common, "-m", "HR@5", "nDCG@5", "arp@5", "-f", "html", "-o", page_path)
    assert status == 0, err
    page = page_path.read_text()
    [row] = _table(page, "rec-measures")
    assert row[0] == run and [float(v) for v in row[1:]] == list(want.values())
    train, test = split(read_interactions(log_path), "ratio", seed=0, fraction=0.6)
    data = popularity_bias(test, read_recommendations(recs_path), train, 5, True)
    rows = _table(page, "popularity-bias-data")
    assert [r[0] for r in rows] == [str(u) for u in data["users"]]
    assert np.array_equal([float(r[1]) for r in rows], data["profile"])
    assert np.array_equal([float(r[2]) for r in rows], data["recommended"])
    points = re.findall(r'<circle cx="([^"]+)" cy="([^"]+)"', page)
    assert len(points) == len(data["users"])
    cx = np.array([float(x) for x, _ in points])
    cy = np.array([float(y) for _, y in points])
    # each axis maps the data linearly from its first grid line to its last (drawn at
    # whole pixels, labelled with the tick values): a point is that map rounded to 0.1
    fig = page[page.index('<svg id="popularity-bias-plot"') :]
    x_grid = re.findall(
        r'<line class="grid" x1="([^"]+)" y1="0" x2[^>]*/><text[^>]*>([^<]+)</text>', fig
    )
    y_grid = re.findall(
        r'<line class="grid" x1="60.0" y1="([^"]+)" x2="(?!60.0)[^>]*/><text[^>]*>([^<]+)</text>',
        fig,
    )
    for grid, values, pixels in ((x_grid, data["profile"], cx), (y_grid, data["recommended"], cy)):
        (p0, t0), (p1, t1) = [(float(p), float(t)) for p, t in (grid[0], grid[-1])]
        assert p0 == round(p0) and p1 == round(p1)  # the ends are exact
        expected = p0 + (values - t0) / (t1 - t0) * (p1 - p0)
        assert np.abs(pixels - expected).max() <= 0.05 + 1e-9
    assert x_grid[-1][1] == y_grid[-1][1]  # one scale: the same largest tick
    above = np.count_nonzero(data["recommended"] > data["profile"])
    assert f"{above} of {len(cx)} users lie above" in page
    # the page depends only on the inputs
    again = tmp_path / "again.html"
    assert cli(*common, "-m", "HR@5", "nDCG@5", "arp@5", "-f", "html", "-o", again)[0] == 0
    assert again.read_bytes() == page_path.read_bytes()


def test_many_users_draw_an_evenly_spaced_subset():
    n = MAX_POINTS + 1234
    rng = np.random.default_rng(0)
    data = {
        "users": np.array([f"u{i}" for i in range(n)], dtype=object),
        "profile": rng.random(n),
        "recommended": rng.random(n),
    }
    page = html_report("r", {"HR@10": 0.5}, [], data, 10)
    assert page.count("<circle") == MAX_POINTS
    assert f"{MAX_POINTS} of the {n} users are drawn" in page
    above = int(np.count_nonzero(data["recommended"] > data["profile"]))
    assert f"{above} of {n} users lie above" in page
    rows = _table(page, "popularity-bias-data")
    assert rows[0][0] == "u0" and rows[-1][0] == f"u{n - 1}" and len(rows) == MAX_POINTS


def test_without_training_interactions_the_page_says_why_there_is_no_plot(tmp_path, cli):
    log_path, recs_path = generated(2, tmp_path)
    status, out, err = cli("rec", "eval", log_path, recs_path, "-m", "HR@5", "-f", "html")
    assert status == 0, err
    assert "<circle" not in out and "No plot: the profiles need the training" in out
