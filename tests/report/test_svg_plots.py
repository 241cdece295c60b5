"""``plot ... -o FILE.svg`` draws its data: every kind of figure, on generated runs, read
back from the SVG the way a reader reads it (xml.etree; tick labels give the axes, a
line's title its name) and compared with what the library computes. Box plots and step
curves are checked against matplotlib's own conventions (``cbook.boxplot_stats``,
``cbook.pts_to_prestep``)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib import cbook

from cranfield import evaluate
from cranfield.compare import align_scores
from cranfield.meta import discriminative_power, swap_rates
from cranfield.report import data, svg_plots
from cranfield.report.chart import box_stats, pixel_extremes

S = "{http://www.w3.org/2000/svg}"
SEEDS = range(6)
ODD = "a<b & \"c\" 'd'"  # a run name that must be escaped


def collection(seed: int):
    """Qrels and 2-4 runs of 4-12 queries with graded judgments; some queries lack
    relevant documents or retrieved ones; one run name needs escaping."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(int(rng.integers(4, 13)))]
    qrels = {
        q: {f"d{j}": int(rng.integers(0, 3)) for j in range(int(rng.integers(1, 25)))}
        for q in queries
    }
    names = ["base", ODD, "run-3", "r4"][: int(rng.integers(2, 5))]
    runs = {}
    for name in names:
        runs[name] = {
            q: {f"d{j}": float(rng.random()) for j in rng.permutation(30)[: rng.integers(1, 30)]}
            for q in queries
        }
    return qrels, runs


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == S + "svg"
    return root


def classes(el) -> set[str]:
    return set((el.get("class") or "").split())


def panels(root) -> list[ET.Element]:
    return [g for g in root.iter(S + "g") if "panel" in classes(g)]


def _fit(values, pixels):
    """pixel -> value from the tick labels (a straight line through every tick)."""
    values, pixels = np.asarray(values, float), np.asarray(pixels, float)
    assert len(values) >= 2
    slope, icept = np.polyfit(values, pixels, 1)
    assert np.abs(values * slope + icept - pixels).max() < 0.01  # ticks where they say
    return lambda px: (np.asarray(px, float) - icept) / slope


def y_axis(panel):
    ticks = [t for t in panel.iter(S + "text") if "ytick" in classes(t)]
    return _fit([float(t.get("data-value")) for t in ticks], [float(t.get("y")) - 4 for t in ticks])


def x_axis(panel, log: bool = False):
    ticks = [t for t in panel.iter(S + "text") if "xtick" in classes(t)]
    pixels = []
    for t in ticks:
        if t.get("x") is not None:
            pixels.append(float(t.get("x")))
        else:  # rotated: translate(x + 3, y)
            pixels.append(float(re.match(r"translate\(([-\d.]+),", t.get("transform"))[1]) - 3)
    values = np.array([float(t.get("data-value")) for t in ticks])
    inverse = _fit(np.log10(values) if log else values, pixels)
    return (lambda px: 10.0 ** inverse(px)) if log else inverse


def polylines(panel, log: bool = False) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{title: (x values, y values)} of the panel's lines."""
    fx, fy = x_axis(panel, log), y_axis(panel)
    out = {}
    for line in panel.iter(S + "polyline"):
        pts = [p.split(",") for p in line.get("points").split()]
        px = np.array([float(a) for a, _ in pts])
        py = np.array([float(b) for _, b in pts])
        out[line.find(S + "title").text] = (fx(px), fy(py))
    return out


def heading(panel) -> str:
    return next(t.text for t in panel.iter(S + "text") if "heading" in classes(t))


def legend(root) -> list[str]:
    g = next(g for g in root.iter(S + "g") if "legend" in classes(g))
    return [t.find(S + "title").text for t in g.iter(S + "text")]


def labels(panel) -> tuple[str, str]:
    texts = list(panel.iter(S + "text"))
    x = next(t.text for t in texts if "xlabel" in classes(t))
    y = next(t.text for t in texts if "ylabel" in classes(t))
    return x, y


def close(got, want, span=1.0):
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-4 * span)


def finite(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    return x[ok], y[ok]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("convention", ["textbook", "trec_eval"])
def test_pr_averaged(seed, convention):
    qrels, runs = collection(seed)
    d = data.pr_data(qrels, runs, convention=convention)
    root = parse(svg_plots.pr_svg(d, convention=convention))
    (panel,) = panels(root)
    lines = polylines(panel)
    assert len(lines) == 2 * len(runs)
    for name in runs:
        close(lines[f"{name} (raw)"], finite(d[name]["raw_recall"], d[name]["raw_precision"]))
        interp = lines[f"{name} (interpolated, {convention})"]
        close(interp, finite(d[name]["interp_recall"], d[name]["interp_precision"]))
    assert legend(root) == [
        n for r in runs for n in (f"{r} (raw)", f"{r} (interpolated, {convention})")
    ]
    assert heading(panel).startswith("Precision-recall averaged over queries")
    assert labels(panel) == ("recall", "precision")


@pytest.mark.parametrize("seed", SEEDS)
def test_pr_one_query_is_matplotlibs_step_curve(seed):
    qrels, runs = collection(seed)
    query = next(q for q, j in qrels.items() if any(g > 0 for g in j.values()))
    d = data.pr_data(qrels, runs, query=query)
    (panel,) = panels(parse(svg_plots.pr_svg(d, query=query)))
    lines = polylines(panel)
    for name in runs:
        steps = cbook.pts_to_prestep(d[name]["interp_recall"], d[name]["interp_precision"])
        close(lines[f"{name} (interpolated, textbook)"], steps)
        close(lines[f"{name} (raw)"], finite(d[name]["raw_recall"], d[name]["raw_precision"]))
    assert heading(panel) == f"Precision-recall, query {query}"


@pytest.mark.parametrize("seed", SEEDS)
def test_averages(seed):
    qrels, runs = collection(seed)
    d = data.averages_data(qrels, runs, ranks=(1, 2, 5, 10))
    root = parse(svg_plots.averages_svg(d))
    left, right = panels(root)
    a, b = polylines(left), polylines(right)
    for name in runs:
        close(a[name], finite(d[name]["rank_recall"], d[name]["rank_precision"]))
        close(b[name], finite(d[name]["recall"], d[name]["precision"]))
    assert legend(root) == list(runs)
    assert heading(left) == "Mean P and R at ranks 1, 2, 5, …"
    assert heading(right) == "Mean interpolated precision, 11 points (textbook)"
    assert labels(right) == ("recall level", "mean interpolated precision")


@pytest.mark.parametrize("seed", SEEDS)
def test_delta_bars(seed):
    qrels, runs = collection(seed)
    scores = evaluate(qrels, runs, ["AP"]).per_query_table()["AP"]
    base = next(iter(runs))
    d = data.delta_data(scores, base)
    root = parse(svg_plots.delta_svg(d, baseline=base, measure="AP"))
    found = panels(root)
    assert len(found) == len(runs) - 1
    for panel, (name, want) in zip(found, d.items(), strict=True):
        fy = y_axis(panel)
        rects = [r for r in panel.iter(S + "rect") if "bar" in classes(r)]
        values = []
        for r in rects:
            top, bottom = fy(float(r.get("y"))), fy(float(r.get("y")) + float(r.get("height")))
            values.append(top if abs(bottom) < abs(top) else bottom)
        close(values, want["delta"], max(1.0, float(np.abs(want["delta"]).sum())))
        assert [r.find(S + "title").text.rsplit(": ", 1)[0] for r in rects] == list(
            want["query_id"]
        )
        ticks = [t.find(S + "title").text for t in panel.iter(S + "text") if "xtick" in classes(t)]
        assert ticks == list(want["query_id"])
        delta = want["delta"]
        assert heading(panel) == (
            f"{name} − {base}, AP: {(delta > 0).sum()} better, {(delta < 0).sum()} worse, "
            f"{(delta == 0).sum()} tied"
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_distribution_boxes_are_matplotlibs(seed):
    qrels, runs = collection(seed)
    scores = evaluate(qrels, runs, ["AP"]).per_query_table()["AP"]
    d = data.distribution_data(scores)
    root = parse(svg_plots.distribution_svg(d, measure="AP"))
    (panel,) = panels(root)
    fy = y_axis(panel)
    boxes = [g for g in panel.iter(S + "g") if "box" in classes(g)]
    assert [b.find(S + "title").text for b in boxes] == list(runs)
    for box, values in zip(boxes, d.values(), strict=True):
        (want,) = cbook.boxplot_stats(values, whis=1.5)
        paths = {next(iter(classes(p))): p for p in box.iter(S + "path")}
        nums = [float(v) for v in re.findall(r"-?\d+\.?\d*", paths["iqr"].get("d"))]
        close(sorted(fy([nums[1], nums[3]])), [want["q1"], want["q3"]])
        close(fy(float(paths["median"].get("d").split()[1].split("H")[0])), want["med"])
        whisk = [float(v) for v in re.findall(r"-?\d+\.?\d*", paths["whiskers"].get("d"))]
        close(sorted(fy([whisk[2], whisk[8]])), [want["whislo"], want["whishi"]])
        mean = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", paths["mean"].get("transform"))
        close(fy(float(mean[2])), want["mean"])
        fliers = [float(c.get("cy")) for c in box.iter(S + "circle")]
        close(sorted(fy(fliers)), sorted(want["fliers"]))
    assert labels(panel) == ("run", "AP")


def test_box_stats_are_matplotlibs_on_many_samples():
    rng = np.random.default_rng(7)
    for n in range(1, 300):
        values = rng.choice(rng.random(max(n // 3, 1)), size=n)  # ties
        if n % 5 == 0:
            values = np.append(values, [5.0, -3.0])  # outliers
        (want,) = cbook.boxplot_stats(values, whis=1.5)
        got = box_stats(values)
        for key in ("q1", "med", "q3", "whislo", "whishi", "mean"):
            assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), (n, key)
        assert sorted(got["fliers"]) == sorted(want["fliers"])


@pytest.mark.parametrize("seed", SEEDS)
def test_depth_and_coverage(seed):
    qrels, runs = collection(seed)
    d = data.depth_data(qrels, runs, ["P", "nDCG"], 12)
    root = parse(svg_plots.depth_svg(d))
    for panel, (measure, entry) in zip(panels(root), d.items(), strict=True):
        lines = polylines(panel)
        for name in runs:
            close(lines[name], finite(entry["k"], entry[name]), 12)
        assert heading(panel) == f"{measure}@k for k = 1..12"
        assert labels(panel) == ("k (depth)", f"mean {measure}@k")
    d = data.coverage_data(qrels, runs, (1, 3, 10, 30))
    root = parse(svg_plots.coverage_svg(d))
    (panel,) = panels(root)
    lines = polylines(panel, log=True)
    for name in runs:
        x, y = lines[name]
        np.testing.assert_allclose(x, d[name]["depth"], rtol=1e-4)
        close(y, d[name]["judged"])
    assert legend(root) == list(runs)


@pytest.mark.parametrize("seed", SEEDS)
def test_asl_and_swap(seed):
    qrels, runs = collection(seed)
    table = evaluate(qrels, runs, ["AP", "RR"]).per_query_table()
    aligned = align_scores(table, complete=True)
    power = discriminative_power(aligned, ("bootstrap",), n_samples=100, seed=seed)
    root = parse(svg_plots.asl_svg(power))
    (panel,) = panels(root)
    lines = polylines(panel)
    assert list(lines) == ["AP", "RR"] == legend(root)
    for m, (x, y) in lines.items():
        asl = np.asarray(power[m]["bootstrap"]["asl"])
        idx = np.round(x).astype(int)
        close(x, idx, len(asl))
        assert idx[0] == 1 and idx[-1] == len(asl) and np.all(np.diff(idx) > 0)
        close(y, asl[idx - 1])
    rule = next(r for r in panel.iter(S + "line") if "rule" in classes(r))
    close(y_axis(panel)(float(rule.get("y1"))), 0.05)
    rates = swap_rates(aligned["AP"][2], bin_width=0.05, seed=seed)
    (panel,) = panels(parse(svg_plots.swap_svg(rates, "AP")))
    lines = polylines(panel)
    assert list(lines) == [f"{r['size']} topics" for r in rates]
    for r in rates:
        centres = [(b["low"] + b["high"]) / 2 for b in r["bins"]]
        close(lines[f"{r['size']} topics"], ([*centres], [b["swap_rate"] for b in r["bins"]]))
    assert labels(panel) == ("difference of mean AP on one set", "swap rate")


def test_long_asl_curves_keep_their_ends_and_shape():
    power = {"AP": {"bootstrap": {"asl": np.linspace(0, 1, 2000) ** 2}}}
    (panel,) = panels(parse(svg_plots.asl_svg(power)))
    x, y = polylines(panel)["AP"]
    assert len(x) == svg_plots.CURVE_POINTS and round(x[0]) == 1 and round(x[-1]) == 2000
    close(y, ((np.round(x) - 1) / 1999) ** 2)


KINDS = {
    "pr": [],
    "avg": [],
    "delta": ["-m", "AP"],
    "dist": ["-m", "AP"],
    "depth": ["--max-depth", "5"],
    "coverage": [],
    "asl": ["-m", "AP"],
    "swap": ["-m", "AP"],
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_plot_command_writes_the_same_svg_twice(cli, sample_paths, tmp_path, kind):
    qrels, *paths = (str(p) for p in sample_paths)
    outs = [tmp_path / "a.svg", tmp_path / "b.svg"]
    for out in outs:
        status, _, err = cli("plot", kind, qrels, *paths[:3], "-c", *KINDS[kind], "-o", str(out))
        assert status == 0, err
    first = outs[0].read_bytes()
    assert first == outs[1].read_bytes()
    assert first.startswith(b'<?xml version="1.0" encoding="utf-8"?>\n<svg ')
    root = parse(first.decode("utf-8"))
    assert root.get("width") == "800" and root.find(S + "style") is not None
    assert panels(root)


def test_missing_and_empty_data_give_valid_files_without_nan():
    nan = np.nan
    texts = [
        svg_plots.pr_svg({}),
        svg_plots.averages_svg({}),
        svg_plots.delta_svg({}),
        svg_plots.distribution_svg({}),
        svg_plots.depth_svg({}),
        svg_plots.coverage_svg({}),
        svg_plots.asl_svg({}),
        svg_plots.swap_svg([]),
        svg_plots.delta_svg(
            {"r": {"query_id": np.array(["a", "b"]), "delta": np.array([nan, -2.5])}}
        ),
        svg_plots.distribution_svg({"r": np.array([nan]), "x": np.array([0.5, nan])}),
        svg_plots.depth_svg({"P": {"k": np.arange(1, 4), "r": np.array([nan, 0.5, 2.0])}}),
        svg_plots.coverage_svg({"r": {"depth": np.array([1, 10]), "judged": np.array([nan, 1])}}),
    ]
    for text in texts:
        parse(text)
        assert "nan" not in text.lower() and "inf" not in text.lower()
    (panel,) = panels(parse(texts[8]))
    bars = [r for r in panel.iter(S + "rect") if "bar" in classes(r)]
    assert [b.find(S + "title").text for b in bars] == ["b: -2.5"]
    close(y_axis(panel)(float(bars[0].get("y")) + float(bars[0].get("height"))), -2.5, 3)


def _extremes_by_loop(px, py):
    """What ``pixel_extremes`` keeps, one pixel column at a time: its first, last,
    lowest and highest vertex (the first of equal ones)."""
    keep = set()
    columns = np.floor(px).astype(int)
    for c in np.unique(columns):
        idx = np.flatnonzero(columns == c)
        ys = py[idx]
        keep |= {idx[0], idx[-1], idx[np.argmin(ys)], idx[np.argmax(ys)]}
    return sorted(keep)


@pytest.mark.parametrize("seed", SEEDS)
def test_pixel_extremes_keep_each_columns_first_last_lowest_highest(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2_001, 20_000))
    px = np.sort(rng.uniform(0, 500, n))
    py = rng.uniform(0, 300, n).round(int(rng.integers(0, 3)))  # ties too
    keep = pixel_extremes(px, py, 500)
    assert keep.tolist() == _extremes_by_loop(px, py)
    assert len(keep) <= 4 * 501
    # few points, or x going back (not a curve over recall or depth): every vertex
    assert pixel_extremes(px[:2000], py[:2000], 500).tolist() == list(range(2000))
    back = px.copy()
    back[n // 2] = -1
    assert pixel_extremes(back, py, 500).tolist() == list(range(n))


def test_a_long_curve_is_drawn_with_at_most_four_vertices_per_pixel_column():
    rng = np.random.default_rng(1)
    n = 100_000
    d = {
        "r": {
            "raw_recall": np.linspace(0, 1, n),
            "raw_precision": rng.random(n),
            "interp_recall": np.linspace(0, 1, 11),
            "interp_precision": np.linspace(1, 0, 11),
        }
    }
    (panel,) = panels(parse(svg_plots.pr_svg(d)))
    raw = polylines(panel)["r (raw)"]
    assert 1000 < len(raw[0]) <= 4 * 501
    # the extremes are kept: the drawn curve spans the data's range (to 0.01 pixel)
    span = [d["r"]["raw_precision"].min(), d["r"]["raw_precision"].max()]
    np.testing.assert_allclose([raw[1].min(), raw[1].max()], span, rtol=0, atol=1e-4)
