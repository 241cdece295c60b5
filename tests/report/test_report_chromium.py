"""Open reports in headless Chromium: figures painted, no script error, nothing overflowing,
the selectors drive the detail view, the tables carry evaluate()'s numbers.

Each browser run is a ``--dump-dom`` of a copy of the report with a probe script put
first in ``<head>``: it records script errors and console errors from the start, and
after the load event writes into the page, as JSON, for every figure its box and how
many SVG elements it holds, every SVG text that leaves its figure's drawing area,
every element that sticks out of the page's body, and the detail view's run. The
dumped DOM is the browser's parse of the page (the detail tables are the script's
output), so the tables are read from it. The report is opened with a fragment
``#run=NAME&measure=NAME``, which its script honours like a choice in the selectors.

Network access is blocked (``--host-resolver-rules``): the page must not need it.
Reports and screenshots are kept in ``test-artifacts/``. Chromium is required: without
it the tests fail with the command that installs it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from report_helpers import RUNS, parse, table_dict, write_collection

from cranfield import evaluate
from cranfield.cli.main import main
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
WIDTH = 1280
PROBE = """<script>
window.__errors = [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push(a.join(" ")); __consoleError(...a); };
window.addEventListener("load", () => {
  const body = document.body.getBoundingClientRect();
  const box = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; };
  const figures = [...document.querySelectorAll("figure")].map((f) => {
    const s = f.querySelector("svg");
    const sb = s.getBoundingClientRect();
    const outside = [...s.querySelectorAll("text")].filter((t) => {
      const b = t.getBoundingClientRect();
      return sb.width > 0 && (b.left < sb.left - 1 || b.top < sb.top - 1 ||
                              b.right > sb.right + 1 || b.bottom > sb.bottom + 1);
    }).map((t) => t.textContent);
    return {id: f.id, hidden: s.getClientRects().length === 0, elements: s.querySelectorAll("*").length,
            marks: s.querySelectorAll("path,circle,rect,polyline,line").length, outside, ...box(s)};
  });
  // the comparison with the baseline may take the window's width beside the text
  // column (its tables are wide): it must stay inside the window, the rest in the body
  const overflowing = [...document.body.querySelectorAll("*")].filter((e) => {
    if (e.closest("table") || e.getClientRects().length === 0) return false;
    const r = e.getBoundingClientRect();
    const wide = e.closest("#comparison");
    const right = wide ? document.documentElement.clientWidth : body.right;
    return r.width > 0 && (r.left < body.left - 1 || r.right > right + 1);
  }).map((e) => e.tagName + " " + (e.id || e.textContent.slice(0, 40)) + " "
              + JSON.stringify(e.getBoundingClientRect()));
  // the selector itself: choose the first run, read the view, choose back
  const select = document.getElementById("run-select"), chosen = select.value;
  select.value = "0";
  select.dispatchEvent(new Event("change"));
  const changed = {detail: document.getElementById("detail-name").textContent,
                   delta: document.getElementById("table-detail-delta").textContent};
  select.value = chosen;
  select.dispatchEvent(new Event("change"));
  changed.back = document.getElementById("table-detail-delta").textContent;
  // the leaderboard's header buttons sort it (when asked: it changes the row order)
  let sorted = null;
  if (location.hash.includes("probe-sort")) {
    const button = document.querySelectorAll("#summary thead button")[2];
    button.click();
    const first = [...document.querySelectorAll("#summary tbody tr")].map((r) => r.cells[0].textContent);
    button.click();
    const second = [...document.querySelectorAll("#summary tbody tr")].map((r) => r.cells[0].textContent);
    sorted = {first, second, aria: button.parentElement.getAttribute("aria-sort")};
  }
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({figures, overflowing, errors: window.__errors,
    pageWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
    height: document.documentElement.scrollHeight,
    detail: document.getElementById("detail-name").textContent, changed, sorted,
    run: document.getElementById("run-select").value});
  document.body.appendChild(pre);
});
</script>"""


def chromium() -> str:
    path = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if path is None:
        pytest.fail(
            "chromium is required for this test and was not found: "
            "apt-get install -y chromium (Debian)",
            pytrace=False,
        )
    return path


def run_chromium(args: list[str], profile: Path, height: int) -> subprocess.CompletedProcess:
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{height}",
        *args,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def open_report(path: Path, tmp_path: Path, fragment: str = ""):
    """(probe results, parsed DOM) of the report opened at ``#fragment``."""
    text = path.read_text(encoding="utf-8")
    probe_page = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.html"
    probe_page.write_text(text.replace("<head>", "<head>" + PROBE, 1), encoding="utf-8")
    dom = run_chromium(
        ["--virtual-time-budget=10000", "--dump-dom", probe_page.as_uri() + fragment],
        tmp_path / "profile",
        1000,
    ).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: " + dom[-500:]
    return json.loads(html.unescape(found.group(1))), parse(dom)


def check_page(probe: dict) -> None:
    """No script error, every figure drawn, nothing out of its box or the page."""
    assert probe["errors"] == []
    assert probe["pageWidth"] <= probe["innerWidth"], "the page scrolls sideways"
    assert probe["overflowing"] == []
    for f in probe["figures"]:
        assert f["marks"] > 3 and f["elements"] > 10, f  # drawn, hidden or not
        assert f["outside"] == [], f
        if not f["hidden"]:
            assert 300 < f["width"] <= 1000 and f["height"] > 100, f


def screenshot(path: Path, tmp_path: Path, height: int, name: str, fragment: str = ""):
    import matplotlib.image as mpimg

    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copyfile(path, ARTIFACTS / f"{name}.html")
    shot = ARTIFACTS / f"{name}.png"
    height = min(height + 20, 16000)
    run_chromium([f"--screenshot={shot}", path.as_uri() + fragment], tmp_path / "shot", height)
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (height, WIDTH)
    return pixels


def test_sample_report_renders(report, results, tmp_path):
    path, text, _ = report
    probe, dom = open_report(path, tmp_path, "#run=hybrid&measure=P%4010")
    check_page(probe)
    ids = re.findall(r'<figure id="([^"]+)">', text)
    assert [f["id"] for f in probe["figures"]] == ids
    assert probe["detail"] == "hybrid"
    summary = table_dict(dom.tables["summary"])
    assert list(summary) == RUNS
    for r in results.runs:
        for m in results.measures:
            shown = summary[r.name][str(m)][0].replace("\u25b2", "").replace("\u25bc", "").strip()
            assert shown == f"{r.aggregates[m]:.4f}"
    pixels = screenshot(path, tmp_path, probe["height"], "report-sample")
    for f in probe["figures"]:
        if f["hidden"] or f["y"] + f["height"] > pixels.shape[0]:
            continue
        region = pixels[
            int(f["y"]) + 2 : int(f["y"] + f["height"]) - 2,
            int(f["x"]) + 2 : int(f["x"] + f["width"]) - 2,
        ]
        ink = (region.mean(axis=2) < 0.9).mean()  # share of non-white pixels
        assert 0.005 < ink < 0.9, (f["id"], ink)


def shared_task(tmp_path, n_runs: int, odd: bool = False):
    qrels, paths, names, topics = write_collection(tmp_path, n_runs, odd=odd)
    out = tmp_path / "report.html"
    measures = ["AP", "nDCG@10", "P@10"]
    argv = ["report", str(qrels), *map(str, paths), "-m", *measures, "--max-depth", "10"]
    assert main([*argv, "--query", topics[0], "-o", str(out)]) == 0
    res = evaluate(Qrels.read(qrels), [Run.read(p) for p in paths], measures)
    return out, res, names, topics


def check_numbers(dom, res, names, topics) -> None:
    """Every number of the leaderboard, the per-measure tables and the heat map tables
    is evaluate()'s, at the 4 digits shown."""
    table = res.per_query_table()
    board = table_dict(dom.tables["summary"])
    assert list(board) == names
    for i, m in enumerate(res.measures):
        means = {r.name: r.aggregates[m] for r in res.runs}
        rows = table_dict(dom.tables[f"table-means-{i}"])
        assert list(rows) == sorted(names, key=lambda n: (-means[n], names.index(n)))
        heat = table_dict(dom.tables[f"table-heatmap-{i}"])
        for name in names:
            assert (
                board[name][str(m)][0].replace("\u25b2", "").replace("\u25bc", "").strip()
                == f"{means[name]:.4f}"
            )
            assert rows[name][f"mean {m}"][0] == f"{means[name]:.4f}"
            values = table[str(m)][name]
            assert [heat[name][t][0] for t in sorted(topics)] == [
                f"{values[t]:.4f}" for t in sorted(topics)
            ]
        topic_rows = table_dict(dom.tables[f"table-topics-{i}"])
        matrix = np.array([[table[str(m)][n][t] for t in sorted(topics)] for n in names])
        for j, t in enumerate(sorted(topics)):
            assert topic_rows[t]["worst"][0] == f"{matrix[:, j].min():.4f}"
            assert topic_rows[t]["best"][0] == f"{matrix[:, j].max():.4f}"
            assert topic_rows[t]["median"][0] == f"{np.median(matrix[:, j]):.4f}"


def check_detail(dom, res, run: str, measure_index: int, baseline: str) -> None:
    """The detail view's per-topic differences are the selected run's minus the baseline's."""
    m = res.measures[measure_index]
    values = res.per_query_table()[str(m)]
    rows = dom.tables["table-detail-delta"]
    assert [h for h, _ in rows[0]] == ["topic", "difference", run, baseline]
    assert len(rows) - 1 == len(values[run])
    for row in rows[1:]:
        topic, diff, a, b = (c for c, _ in row)
        assert a == f"{values[run][topic]:.4f}" and b == f"{values[baseline][topic]:.4f}"
        assert abs(float(diff) - (values[run][topic] - values[baseline][topic])) <= 1.01e-4


@pytest.mark.parametrize("n_runs", [2, 17, 60])
def test_shared_task_report_renders(n_runs, tmp_path):
    out, res, names, topics = shared_task(tmp_path, n_runs)
    last = names[-1]
    probe, dom = open_report(out, tmp_path, f"#run={last}&measure=nDCG%4010")
    check_page(probe)
    assert probe["detail"] == last and probe["run"] == str(n_runs - 1)
    visible = [f["id"] for f in probe["figures"] if not f["hidden"]]
    assert "fig-means-1" in visible and "fig-means-0" not in visible  # the chosen measure
    check_numbers(dom, res, names, topics)
    check_detail(dom, res, last, 1, names[0])
    # choosing another run in the selector redraws the detail view, and back
    assert probe["changed"]["detail"] == names[0]
    assert probe["changed"]["delta"] != probe["changed"]["back"]
    if n_runs == 17:  # another address chooses another run; the headers sort
        probe2, dom2 = open_report(out, tmp_path, f"#run={names[5]}&measure=AP&probe-sort")
        check_page(probe2)
        assert probe2["detail"] == names[5]
        check_detail(dom2, res, names[5], 0, names[0])
        assert dom2.tables["table-detail-pr"] != dom.tables["table-detail-pr"]
        ap = {r.name: r.aggregates[res.measures[0]] for r in res.runs}
        by_ap = sorted(names, key=lambda n: (-ap[n], names.index(n)))
        assert probe2["sorted"]["first"] == by_ap  # first press: best first
        assert probe2["sorted"]["second"] == sorted(names, key=lambda n: (ap[n], names.index(n)))
        assert probe2["sorted"]["aria"] == "ascending"
    pixels = screenshot(out, tmp_path, probe["height"], f"report-{n_runs}-runs")
    assert (pixels.mean(axis=2) > 0.95).mean() > 0.3  # mostly white page, not a blot


def test_odd_names_are_escaped_and_fit(tmp_path):
    out, res, names, topics = shared_task(tmp_path, 5, odd=True)
    text = out.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text and "<b>t&amp;1</b>" not in text
    fragment = "#run=" + quote(names[0], safe="") + "&measure=AP"
    probe, dom = open_report(out, tmp_path, fragment)
    check_page(probe)  # the long name is shortened in figures, wrapped in tables
    assert probe["detail"] == names[0]
    check_numbers(dom, res, names, topics)
    check_detail(dom, res, names[0], 0, names[0])  # the baseline against itself
    assert {row[0][0] for row in dom.tables["table-detail-delta"][1:]} == set(topics)
    screenshot(out, tmp_path, probe["height"], "report-odd-names", fragment)
