"""The report's layout in a real browser at 1,400 px: nothing runs off the right edge
and no table header breaks inside a word ("baselin/e"). Geometry is measured in the
page (element boxes, scroll widths, the line boxes of each header word), not in pixels
of a screenshot; the screenshot is kept as an artefact to look at."""

from __future__ import annotations

import pytest

from browser import screenshot
from cranfield.cli.main import main

WINDOW = (1400, 900)

# Every visible element inside the viewport's width, no visible scroll container with
# hidden content, and per table header the words whose line boxes lie on two lines.
PROBE = r"""
const vw = document.documentElement.clientWidth;
const name = (e) => e.tagName + (e.id ? "#" + e.id : "") + " " + e.textContent.slice(0, 30);
const overflow = [];
if (document.documentElement.scrollWidth > vw + 1) overflow.push("page " + document.documentElement.scrollWidth);
for (const e of document.body.querySelectorAll("*")) {
  if (!e.checkVisibility()) continue;
  const r = e.getBoundingClientRect();
  if (r.right > vw + 1 && !(e.parentElement.getBoundingClientRect().right > vw + 1))
    overflow.push("right " + name(e) + " " + r.right);
  const style = getComputedStyle(e);
  if (["auto", "scroll", "hidden"].includes(style.overflowX) && e.scrollWidth > e.clientWidth + 1)
    overflow.push("scrolls " + name(e) + " " + e.scrollWidth + ">" + e.clientWidth);
}
const broken = [];
for (const th of document.querySelectorAll("th")) {
  if (!th.checkVisibility()) continue;
  const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const re = /\S+/g; let m;
    while ((m = re.exec(node.data))) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
}
return {overflow, broken, viewport: vw, headers: document.querySelectorAll("th").length};"""


@pytest.fixture(scope="module")
def four_runs_report(sample_paths, tmp_path_factory):
    qrels, *runs = sample_paths
    out = tmp_path_factory.mktemp("layout") / "report.html"
    argv = ["report", str(qrels), *map(str, runs), "-m", "AP", "nDCG@10", "P@10", "RR"]
    assert main([*argv, "--baseline", "bm25", "--complete", "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("width", [WINDOW[0], 1280])
def test_nothing_overflows_and_no_header_breaks_mid_word(browser, four_runs_report, width):
    browser.set_window_size(width, WINDOW[1])
    browser.get(four_runs_report.as_uri())
    found = browser.execute_script(PROBE)
    screenshot(browser, f"report-layout-{width}")
    assert found["viewport"] >= width - 20  # the window took the size asked for
    assert found["overflow"] == []
    assert found["broken"] == []
    assert found["headers"] > 20  # the probe looked at the tables' headers
