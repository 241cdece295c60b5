"""Open the report in headless Chromium: every figure decoded and painted, tables right.

Two browser runs on the report built by ``cranfield report`` (conftest.py):

1. ``--dump-dom`` of a copy with a probe script appended at the end of the body: after
   the load event it writes, for every figure, the image's decoded size and its box on
   the page, and the document height. The dumped DOM is the browser's parse of the
   page, so the tables are read from it too.
2. ``--screenshot`` of the report itself, unchanged, at the full document height; each
   figure's box is cut out of the screenshot and must not be blank.

Network access is blocked in both runs (``--host-resolver-rules``): the page must not
need it. The report and the screenshot are kept in ``test-artifacts/``. Chromium is
required: without it the test fails with the command that installs it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from report_helpers import RUNS, parse, table_dict

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
WIDTH = 1280
PROBE = """<script>
window.addEventListener("load", () => {
  const figures = [...document.querySelectorAll("figure")].map((f) => {
    const img = f.querySelector("img");
    const r = img.getBoundingClientRect();
    return {id: f.id, complete: img.complete, naturalWidth: img.naturalWidth,
            naturalHeight: img.naturalHeight, x: r.left + window.scrollX,
            y: r.top + window.scrollY, width: r.width, height: r.height};
  });
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({figures,
                                    height: document.documentElement.scrollHeight});
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


def test_report_renders_in_chromium(report, results, tmp_path):
    import matplotlib.image as mpimg

    path, text, page = report
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copyfile(path, ARTIFACTS / "report.html")

    probe_page = tmp_path / "probe.html"
    probe_page.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = run_chromium(
        ["--virtual-time-budget=10000", "--dump-dom", probe_page.as_uri()],
        tmp_path / "profile1",
        4000,
    ).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run: " + dom[-500:]
    probe = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    figures = probe["figures"]
    assert [f["id"] for f in figures] == re.findall(r'<figure id="([^"]+)">', text)
    assert len(figures) == len(page.images) >= 9
    for f in figures:
        assert f["complete"] and f["naturalWidth"] == 800 and f["naturalHeight"] > 200, f
        assert f["width"] > 300 and f["height"] > 100, f

    # the tables as Chromium parsed them carry evaluate()'s numbers
    browser = parse(dom)
    summary = table_dict(browser.tables["summary"])
    assert list(summary) == RUNS
    for r in results.runs:
        for m in results.measures:
            assert summary[r.name][str(m)][0] == f"{r.aggregates[m]:.4f}"

    height = int(probe["height"]) + 20
    shot = ARTIFACTS / "report.png"
    run_chromium([f"--screenshot={shot}", path.as_uri()], tmp_path / "profile2", height)
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (height, WIDTH)
    for f in figures:
        x0, y0 = int(f["x"]) + 2, int(f["y"]) + 2
        x1, y1 = int(f["x"] + f["width"]) - 2, int(f["y"] + f["height"]) - 2
        region = pixels[y0:y1, x0:x1]
        assert region.size and region.std() > 0.05, f"figure {f['id']} is blank"
        ink = (region.mean(axis=2) < 0.9).mean()  # share of non-white pixels
        assert 0.01 < ink < 0.9, (f["id"], ink)
    # between the figures the page is mostly white: the regions are the figures
    assert (pixels.mean(axis=2) > 0.95).mean() > 0.3
