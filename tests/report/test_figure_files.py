"""``plot ... -o FILE.pdf`` and ``-o FILE.png`` show the SVG's drawing: the PDF read back
by pypdf (its texts where the SVG places them, with Helvetica's widths read from Adobe's
AFM file that matplotlib ships; its stroked paths the SVG's lines, in the same colours),
the PNG decoded by Pillow (its size; the run's colour where the SVG draws a run's
marker; ink where the SVG writes a title)."""

from __future__ import annotations

import io
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from fontTools import agl
from pdf_reading import shown_in_pdf, visible_texts
from PIL import Image
from pypdf import PdfReader
from pypdf.generic import ContentStream

from cranfield.cli.main import main
from cranfield.errors import CranfieldNote
from cranfield.report import fonts, pdf, svg_plots
from cranfield.report.pdf import PT_PER_PX, svg_to_pdf
from cranfield.report.png import svg_to_png
from fresh import loaded_after

S = "{http://www.w3.org/2000/svg}"
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


def afm_widths() -> dict[int, int]:
    """{code point: advance width} of Adobe's Helvetica (Core 14 AFM, as matplotlib ships
    it), glyph names mapped to characters by the Adobe Glyph List (fontTools)."""
    path = Path(matplotlib.get_data_path(), "fonts", "pdfcorefonts", "Helvetica.afm")
    widths = {}
    for width, name in re.findall(r"WX (\d+) ; N ([\w.]+)", path.read_text("latin-1")):
        char = agl.toUnicode(name)
        if len(char) == 1:
            widths.setdefault(ord(char), int(width))
    return widths


AFM = afm_widths()


def afm_width(text: str, size: float) -> float:
    return sum(AFM[ord(c)] for c in text) * size / 1000


@pytest.fixture(scope="module")
def figures(sample_paths, tmp_path_factory):
    """``figures(kind)``: (SVG, PDF, PNG) of one kind of figure, each written by
    ``cranfield plot`` once for the module."""
    qrels, *paths = (str(p) for p in sample_paths)
    folder = tmp_path_factory.mktemp("figures")
    done: dict[str, tuple[str, bytes, bytes]] = {}

    def draw(kind: str) -> tuple[str, bytes, bytes]:
        if kind not in done:
            out = {}
            for fmt in ("svg", "pdf", "png"):
                target = folder / f"{kind}.{fmt}"
                argv = ["plot", kind, qrels, *paths[:3], "-c", *KINDS[kind], "-o", str(target)]
                assert main(argv) == 0
                out[fmt] = target.read_bytes()
            done[kind] = (out["svg"].decode("utf-8"), out["pdf"], out["png"])
        return done[kind]

    return draw


def stroked_paths(reader: PdfReader) -> list[tuple[tuple[float, ...], list[tuple[float, float]]]]:
    """(stroke colour, points) of every path the page strokes with ``S`` (lines only)."""
    ops = ContentStream(reader.pages[0].get_contents(), reader).operations
    colour: list[tuple[float, ...]] = [()]
    out, points = [], []
    for operands, op in ops:
        if op == b"q":
            colour.append(colour[-1])
        elif op == b"Q":
            colour.pop()
        elif op == b"RG":
            colour[-1] = tuple(float(v) for v in operands)
        elif op in (b"m", b"l"):
            points.append((float(operands[0]), float(operands[1])))
        elif op in (b"S", b"f", b"B", b"n", b"re"):
            if op == b"S":
                out.append((colour[-1], points))
            points = [] if op != b"re" else points
    return out


def rgb(hex_colour: str) -> tuple[float, ...]:
    return tuple(round(int(hex_colour[i : i + 2], 16) / 255, 3) for i in (1, 3, 5))


def test_helvetica_widths_are_adobes():
    """The writer's table is the Core 14 AFM's: WinAnsiEncoding's characters (Python's
    cp1252, the no-break space and soft hyphen drawn as space and hyphen: ISO 32000-1,
    Annex D, note 6), code 129 the minus sign; codes without a character are 0."""
    for code, width in enumerate(pdf.HELVETICA, start=32):
        if code == pdf.MINUS_CODE:
            assert width == AFM[0x2212]
            continue
        try:
            char = bytes([code]).decode("cp1252")
        except UnicodeDecodeError:
            assert width == 0, code
            continue
        char = {"\xa0": " ", "\xad": "-", "\x7f": None}.get(char, char)
        assert width == (AFM[ord(char)] if char else 0), (code, char)


@pytest.mark.parametrize("kind", list(KINDS))
def test_pdf_shows_the_svgs_texts_where_the_svg_places_them(figures, kind):
    svg, data, _ = figures(kind)
    root = ET.fromstring(svg.encode("utf-8"))
    reader = PdfReader(io.BytesIO(data), strict=True)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    height = float(root.get("height")) * PT_PER_PX
    assert (float(box.width), float(box.height)) == pytest.approx(
        (float(root.get("width")) * PT_PER_PX, height)
    )
    assert reader.metadata.title == root.get("aria-label")
    shown = shown_in_pdf(reader)
    texts = [(t, el) for t, el in visible_texts(svg) if t]
    assert [t for t, _, _ in shown] == [t for t, _ in texts]  # all of them, in order
    for (text, m, size), (_, el) in zip(shown, texts, strict=True):
        anchor = el.get("text-anchor") or "start"
        width = afm_width(text, size)
        shift = {"start": 0.0, "middle": 0.5, "end": 1.0}[anchor] * width
        # the anchor point: shift along the text's baseline from where it starts
        page = np.array([shift, 0.0, 1.0]) @ m
        px = (page[0] / PT_PER_PX, (height - page[1]) / PT_PER_PX)
        transform = el.get("transform") or ""
        if transform.startswith("translate"):  # rotated tick labels: at the translation
            want = tuple(float(v) for v in re.findall(r"[-\d.]+", transform)[:2])
        else:  # plain, or rotated about its own (x, y)
            want = (float(el.get("x")), float(el.get("y")))
        assert px == pytest.approx(want, abs=0.01), text
        direction = m[0, :2] / np.hypot(*m[0, :2])
        assert direction == pytest.approx([0, 1] if "rotate" in transform else [1, 0], abs=1e-9)


@pytest.mark.parametrize("kind", ["pr", "avg", "depth", "coverage", "swap"])
def test_pdf_strokes_the_svgs_lines(figures, kind):
    """Every ``<polyline>`` (a run's curve) is a stroked path through the same points in
    the run's colour; the raw curves keep their opacity."""
    svg, data, _ = figures(kind)
    reader = PdfReader(io.BytesIO(data), strict=True)
    paths = stroked_paths(reader)
    lines = list(ET.fromstring(svg.encode("utf-8")).iter(S + "polyline"))
    assert lines
    for line in lines:
        pts = [tuple(float(v) for v in p.split(",")) for p in line.get("points").split()]
        assert (rgb(line.get("stroke")), pts) in paths, line.find(S + "title").text
    if kind == "pr":
        states = reader.pages[0]["/Resources"]["/ExtGState"]
        assert [float(s["/CA"]) for s in states.values()] == [0.55]


def test_pdf_is_the_same_bytes_twice_and_well_formed():
    d = {"a": {"depth": np.array([1, 10, 100]), "judged": np.array([1.0, 0.5, 0.25])}}
    svg = svg_plots.coverage_svg(d)
    first = svg_to_pdf(svg)
    assert first == svg_to_pdf(svg) and first.startswith(b"%PDF-1.4\n")
    xref = int(first.rsplit(b"startxref\n", 1)[1].split()[0])
    assert first[xref:].startswith(b"xref\n0 7\n")
    for number, entry in enumerate(first[xref:].split(b"\n")[3:9], start=1):
        offset = int(entry.split()[0])
        assert first[offset:].startswith(b"%d 0 obj\n" % number)


def test_pdf_latin_text_is_helveticas_alone():
    """Latin-1 text, the minus sign and the ellipsis are Helvetica's: no note, no font
    embedded, fontTools not imported (a fresh interpreter)."""
    latin = {"\u00dcber?": {"query_id": np.array(["q1", "q2"]), "delta": np.array([0.5, -0.2])}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", CranfieldNote)
        drawn = svg_to_pdf(svg_plots.delta_svg(latin, baseline="b\u2026\u2212"))
    texts = [t for t, _, _ in shown_in_pdf(PdfReader(io.BytesIO(drawn)))]
    assert "\u00dcber? \u2212 b\u2026\u2212: 1 better, 1 worse, 0 tied" in texts
    assert b"FontFile2" not in drawn and b"/F2" not in drawn
    code = (
        "import numpy as np; from cranfield.report import svg_plots, pdf; "
        "d = {'\u00dcber': {'query_id': np.array(['q']), 'delta': np.array([0.5])}}; "
        "pdf.svg_to_pdf(svg_plots.delta_svg(d, baseline='b'))"
    )
    assert loaded_after(code, "fontTools") == []


def test_pdf_refuses_what_the_chart_renderer_does_not_write():
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    for body in (
        '<ellipse rx="1" ry="1"/>',
        '<path d="M0 0C1 1 2 2 3 3"/>',
        '<rect width="1" height="1" fill="red"/>',
    ):
        with pytest.raises(ValueError, match="not one|not an element"):
            svg_to_pdf(head + body + "</svg>")
    with pytest.raises(ValueError, match="no size"):
        svg_to_pdf('<svg xmlns="http://www.w3.org/2000/svg"/>')
    with pytest.raises(ValueError, match="no size"):  # an element sized by its page
        svg_to_pdf(svg_plots.coverage_svg({}, standalone=False))


def test_transforms_compose_as_svg_says():
    """``rotate(a cx cy)`` is ``translate(cx cy) rotate(a) translate(-cx -cy)`` (SVG 1.1,
    7.6), checked on points against the rotation written out."""
    a, b, c, d, e, f = pdf.transform("translate(5,7) rotate(-90 10 20)")
    for x, y in [(0, 0), (10, 20), (3, -4)]:
        got = (a * x + c * y + e, b * x + d * y + f)
        # rotate by -90 degrees about (10, 20): (x, y) -> (10 + (y - 20), 20 - (x - 10))
        want = (10 + (y - 20) + 5, 20 - (x - 10) + 7)
        assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("kind", ["pr", "avg", "depth", "coverage", "swap"])
def test_png_draws_the_runs_where_the_svg_does(figures, kind):
    svg, _, data = figures(kind)
    root = ET.fromstring(svg.encode("utf-8"))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    pixels = np.asarray(image.convert("RGB"), dtype=int)
    assert pixels.shape == (int(root.get("height")), int(root.get("width")), 3)
    assert (pixels[1, 1] == 255).all()  # the background
    drawn = [el for el in root.iter() if el.tag == S + "polyline" or el.get("class") == "markers"]
    assert any(el.tag == S + "g" for el in drawn)
    for k, g in enumerate(drawn):
        if g.tag != S + "g":
            continue
        colour = np.array([int(g.get("fill")[i : i + 2], 16) for i in (1, 3, 5)])
        centres = np.array([[float(c.get("cx")), float(c.get("cy"))] for c in g.iter(S + "circle")])
        later = [centre_distances(centres, el) for el in drawn[k + 1 :]]
        clear = np.min(later, axis=0) > 6 if later else np.ones(len(centres), bool)
        assert clear.any(), kind  # some marker of each run is drawn over by nothing
        for x, y in np.round(centres[clear]).astype(int):
            near = pixels[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3)  # its centre, radius 3
            assert (np.abs(near - colour).max(axis=1) <= 24).any(), (kind, x, y)


def centre_distances(centres: np.ndarray, el: ET.Element) -> np.ndarray:
    """The distance of each centre to what ``el`` draws: a polyline's segments or a
    group's markers."""
    if el.tag == S + "g":
        other = np.array([[float(c.get("cx")), float(c.get("cy"))] for c in el.iter(S + "circle")])
        return np.linalg.norm(centres[:, None] - other[None], axis=2).min(axis=1)
    pts = np.array([[float(v) for v in p.split(",")] for p in el.get("points").split()])
    a, b = (pts[:-1], pts[1:]) if len(pts) > 1 else (pts, pts)
    ab = b - a
    length = np.maximum((ab**2).sum(axis=1), 1e-12)
    t = np.clip(((centres[:, None] - a[None]) * ab[None]).sum(axis=2) / length, 0, 1)
    closest = a[None] + t[..., None] * ab[None]
    return np.linalg.norm(centres[:, None] - closest, axis=2).min(axis=1)


def test_png_writes_the_titles():
    """Ink (dark pixels) where the SVG writes the title, and nowhere above the panel."""
    d = {"a": {"depth": np.array([1, 10, 100]), "judged": np.array([1.0, 0.5, 0.25])}}
    svg = svg_plots.coverage_svg(d)
    (_, el), *_ = [(t, e) for t, e in visible_texts(svg) if "heading" in (e.get("class") or "")]
    x, y = float(el.get("x")), float(el.get("y"))
    pixels = np.asarray(Image.open(io.BytesIO(svg_to_png(svg))).convert("L"), dtype=int)
    title = pixels[int(y) - 10 : int(y) + 3, int(x) - 150 : int(x) + 150]
    assert (title < 128).sum() > 100
    assert (pixels[: int(y) - 14, : int(x) + 150] > 250).all()


def test_png_is_the_same_bytes_twice():
    d = {"a": {"depth": np.array([1, 10, 100]), "judged": np.array([1.0, 0.5, 0.25])}}
    svg = svg_plots.coverage_svg(d)
    first = svg_to_png(svg)
    assert first == svg_to_png(svg) and first.startswith(b"\x89PNG\r\n\x1a\n")


def test_png_font_is_found_without_a_scan():
    found = fonts.sans()
    assert found is not None and Path(found[1]).is_file()
