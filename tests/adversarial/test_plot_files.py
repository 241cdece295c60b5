"""Hostile inputs for ``cranfield plot ... -o FILE.pdf|png``, run as real processes: a
valid file (read back by pypdf or Pillow) whose texts are the run names given (a
character no font draws, or any beyond Helvetica's without fontTools, as ``?`` with one
note), or one line on stderr and status 2 with nothing written; the inputs unchanged."""

from __future__ import annotations

import io
import os

import pytest
from PIL import Image
from pypdf import PdfReader

from .harness import SRC, Unchanged, assert_clean_failure, assert_success, run_cli

# name: (run names, queries, kind, format, what the PDF's text holds / the error says)
CASES = {
    "pdf names needing escapes": (['a<b & "c"', "(x) \\y"], 4, "avg", "pdf", "(x) \\y"),
    "pdf name outside Latin-1": (["\u03a9mega", "\u6821\u6b63"], 4, "pr", "pdf", "\u6821\u6b63"),
    "pdf name no font draws": (["\U0010fffd", "b"], 4, "pr", "pdf", "?"),
    "pdf name outside Latin-1 without fontTools": (["\u03a9mega", "b"], 4, "pr", "pdf", "?mega"),
    "png name outside Latin-1": (["\u03a9mega", "\u6821\u6b63"], 4, "pr", "png", None),
    "pdf 3000 queries of differences": (["one", "two"], 3000, "delta", "pdf", "two \u2212 one"),
    "png 3000 queries of differences": (["one", "two"], 3000, "delta", "png", None),
    "pdf one query": (["one", "two"], 1, "dist", "pdf", "Per-query AP of each run"),
    "png without resvg-py": (["one", "two"], 4, "pr", "png", "pip install 'cranfield[png]'"),
}


def collection(tmp_path, names: list[str], queries: int):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{q % 7} 1\nq{q} 0 d{(q + 3) % 7} 0\n" for q in range(queries))
    )
    runs = []
    for i, name in enumerate(names):
        path = tmp_path / f"run{i}.txt"
        lines = [
            f"q{q} Q0 d{(q + r * (i + 1)) % 7} {r} {9 - r} {name}\n"
            for q in range(queries)
            for r in range(5)
        ]
        path.write_text("".join(lines), encoding="utf-8")
        runs.append(path)
    return qrels, runs


@pytest.mark.parametrize("case", sorted(CASES))
def test_pdf_and_png_of_hostile_inputs(tmp_path, case):
    names, queries, kind, fmt, text = CASES[case]
    qrels, runs = collection(tmp_path, [n.replace(" ", "_") for n in names], queries)
    out = tmp_path / f"figure.{fmt}"
    env = None
    if "without" in case:  # a module that cannot be imported, before the installed one
        blocked = tmp_path / "blocked" / ("resvg_py" if fmt == "png" else "fontTools")
        blocked.mkdir(parents=True)
        (blocked / "__init__.py").write_text("raise ImportError('blocked')\n")
        env = {"PYTHONPATH": os.pathsep.join([SRC, str(blocked.parent)])}
    with Unchanged(qrels, *runs):
        outcome = run_cli("plot", kind, qrels, *runs, "-m", "AP", "-o", out, env=env)
    if "without" in case and fmt == "png":
        assert_clean_failure(outcome, text)
        assert not out.exists()
        return
    assert_success(outcome)
    if "without" in case or "no font" in case:  # drawn as '?', and one note says why
        hint = "pip install 'cranfield[pdf]'" if "without" in case else "none of the fonts"
        notes = outcome.stderr.splitlines()
        assert len(notes) == 1 and notes[0].startswith("cranfield plot: note: "), notes
        assert "cannot draw 1 character(s)" in notes[0] and hint in notes[0], notes
    data = out.read_bytes()
    if fmt == "png":
        image = Image.open(io.BytesIO(data))
        assert image.format == "PNG" and image.size[0] == 800
        return
    reader = PdfReader(io.BytesIO(data), strict=True)
    shown = reader.pages[0].extract_text()
    assert text.replace(" ", "_") in shown.replace(" ", "_"), shown


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_runs_50000_deep_draw_a_screens_width_of_points(tmp_path, fmt):
    """One query's sawtooth over 50,000 ranks (a relevant document every 37th, shuffled
    per run): drawn with at most 4 vertices per pixel column, in bounded time."""
    depth = 50_000
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"1 0 d{d} 1\n" for d in range(0, depth, 37)))
    runs = []
    for i in range(2):
        order = list(range(depth))
        order = order[i::2] + order[1 - i :: 2]  # each run its own interleaving
        path = tmp_path / f"run{i}.txt"
        path.write_text("".join(f"1 Q0 d{d} {r} {depth - r} r{i}\n" for r, d in enumerate(order)))
        runs.append(path)
    out = tmp_path / f"figure.{fmt}"
    with Unchanged(qrels, *runs):
        outcome = run_cli("plot", "pr", qrels, *runs, "--query", "1", "-o", out, timeout=60)
    assert_success(outcome)
    if fmt == "png":
        assert Image.open(io.BytesIO(out.read_bytes())).size == (800, 500)
    else:
        assert (
            "r1 (raw)"
            in PdfReader(io.BytesIO(out.read_bytes()), strict=True).pages[0].extract_text()
        )
