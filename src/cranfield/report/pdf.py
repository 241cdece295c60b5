"""PDF files of cranfield's own charts: the SVG of :mod:`cranfield.report.chart` written
as PDF drawing operators (no plotting library).

``cranfield plot ... -o FILE.pdf`` draws its figure once, as the SVG document of
:mod:`cranfield.report.svg_plots`, and :func:`svg_to_pdf` writes the same drawing as a
one-page PDF (ISO 32000-1): every ``<line>``, ``<polyline>``, ``<path>``, ``<rect>`` and
``<circle>`` becomes a path painted with the same colours, widths, dashes and
opacities; every ``<text>`` of Latin characters is set in Helvetica, one of the 14
standard fonts every PDF reader has (ISO 32000-1, 9.6.2.2), so nothing is embedded.
The page is the SVG's size at 72 points per 100 pixels (an 800-pixel figure is 8
inches wide, as ``plot`` draws it).

What is read is the subset ``chart.render`` writes: the elements above and ``<g>``,
``<text>`` (with ``<title>`` children, which are not drawn), ``transform`` lists
(``matrix``, ``translate``, ``scale``, ``rotate``), path data of straight segments
(``M L H V Z`` and their relative forms), the ``fill``, ``stroke``, ``stroke-width``,
``stroke-opacity``, ``fill-opacity``, ``stroke-dasharray``, ``font-size`` and
``text-anchor`` properties, and a ``<style>`` sheet of rules whose last simple selector
is a tag, a class or ``tag.class`` (a class rule wins over a tag rule, a rule over a
presentation attribute: CSS 2.1, 6.4.3; SVG 1.1, 6.4). Anything else is a
``ValueError``: it would mean the renderer changed without this writer.

A text is encoded in WinAnsiEncoding (ISO 32000-1, Annex D) with one difference, code
129 for ``minus`` (U+2212, which titles use), when all its characters are in that set;
a ``text-anchor`` of ``middle`` or ``end`` is then placed with Helvetica's advance
widths (:data:`HELVETICA`, from Adobe's Core 14 AFM file). Any other text is set in
fonts embedded as subsets (:mod:`cranfield.report.pdf_fonts`), each character in the
first font that has it; a character no font has is drawn as Helvetica's ``?``, and a
note (:func:`cranfield.errors.note`: a line on the command line, a warning in Python)
names those characters. The same SVG gives the same bytes: no dates are written.
"""

from __future__ import annotations

import math
import re
import zlib
from xml.etree import ElementTree as ET

from .._memo import memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .pdf_fonts import Fallbacks

__all__ = ["HELVETICA", "MINUS_CODE", "PT_PER_PX", "svg_to_pdf", "text_bytes", "text_width"]

#: Points per SVG pixel: 100 pixels to the inch (72 points), as ``plot`` sizes figures.
PT_PER_PX = 0.72
#: The code of ``minus`` in the font's encoding (undefined in WinAnsiEncoding).
MINUS_CODE = 129
#: Helvetica's advance widths (thousandths of the font size) of codes 32..255 in the
#: font's encoding (WinAnsiEncoding; 129 ``minus``; 0 for codes never written), from
#: Adobe's ``Helvetica.afm`` of the Core 14 fonts (``tests/report/test_figure_files.py``
#: reads them back from that file).
HELVETICA = (
    # 32..127
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0,
    # 128..255
    556, 584, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
    0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667,
    278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
    400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
    667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
    722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
    556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
)  # fmt: skip

_NS = "{http://www.w3.org/2000/svg}"
_KAPPA = 4 * (math.sqrt(2) - 1) / 3  # a quarter circle as one cubic Bezier curve
_INHERITED = (
    "fill",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "fill-opacity",
    "stroke-dasharray",
    "font-size",
    "text-anchor",
)
_INITIAL = {  # SVG 1.1's initial values (font-size: CSS's medium)
    "fill": "#000",
    "stroke": "none",
    "stroke-width": "1",
    "stroke-opacity": "1",
    "fill-opacity": "1",
    "stroke-dasharray": "none",
    "font-size": "16px",
    "text-anchor": "start",
}
_NAMED = {"black": "#000", "white": "#fff"}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
Matrix = tuple[float, float, float, float, float, float]


def _num(v: float) -> str:
    """A number as PDF writes it: at most 3 decimals, no ``-0``."""
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _plain(text: str) -> str:
    """A number attribute as PDF writes it: as it is when it is a plain decimal (what the
    chart renderer writes), else through :func:`_num`."""
    bare = text.strip()
    digits = bare[1:] if bare[:1] == "-" else bare
    if digits.replace(".", "", 1).isdigit() and digits[:1] != ".":
        if "." in bare:
            bare = bare.rstrip("0").rstrip(".")
        return "0" if bare in ("-0", "") else bare
    return _num(float(bare)) if bare else "0"


@memo(256)
def _first(text: str) -> float:
    """The first number of a property (``11px``, ``1.5``)."""
    return _floats(text)[0]


def _floats(text: str) -> list[float]:
    return [float(v) for v in re.findall(_NUMBER, text or "")]


@memo(256)
def _rgb(colour: str) -> str | None:
    """``#rgb``/``#rrggbb`` (or ``black``/``white``) as PDF's ``r g b``; None for ``none``."""
    c = _NAMED.get(colour.strip().lower(), colour.strip().lower())
    if c == "none":
        return None
    if re.fullmatch(r"#[0-9a-f]{3}", c):
        c = "#" + "".join(ch * 2 for ch in c[1:])
    if not re.fullmatch(r"#[0-9a-f]{6}", c):
        raise ValueError(f"colour {colour!r} is not one the chart renderer writes")
    return " ".join(_num(int(c[i : i + 2], 16) / 255) for i in (1, 3, 5))


def _then(first: Matrix, second: Matrix) -> Matrix:
    """The affine map ``first`` followed by ``second`` (PDF's row-vector product)."""
    a, b, c, d, e, f = first
    A, B, C, D, E, F = second
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)  # fmt: skip


def transform(text: str) -> Matrix:
    """An SVG ``transform`` list as one matrix (SVG 1.1, 7.6: the rightmost applies first)."""
    m: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    for name, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text):
        v = _floats(args)
        if name == "matrix" and len(v) == 6:
            t: Matrix = tuple(v)  # type: ignore[assignment]
        elif name == "translate" and len(v) in (1, 2):
            t = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) == 2 else 0.0)
        elif name == "scale" and len(v) in (1, 2):
            t = (v[0], 0.0, 0.0, v[-1], 0.0, 0.0)
        elif name == "rotate" and len(v) in (1, 3):
            r = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            cos, sin = math.cos(r), math.sin(r)
            t = (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)
        else:
            raise ValueError(f"transform {name}({args}) is not one the chart renderer writes")
        m = _then(t, m)
    return m


def text_bytes(text: str) -> bytes:
    """``text`` in the font's encoding: WinAnsiEncoding, ``minus`` at 129, else ``?``."""
    out = bytearray()
    for ch in text:
        if ch == "\u2212":
            out.append(MINUS_CODE)
            continue
        try:
            code = ch.encode("cp1252")[0] if ch >= " " else 0
        except UnicodeEncodeError:
            code = 0
        out.append(code if code >= 32 and HELVETICA[code - 32] else ord("?"))
    return bytes(out)


def text_width(encoded: bytes, size: float) -> float:
    """The advance width of ``encoded`` (:func:`text_bytes`) set in Helvetica at ``size``."""
    return sum(HELVETICA[b - 32] for b in encoded) * size / 1000.0


class _Style:
    """The rules of the ``<style>`` sheets: ``(tag, class, declarations)``."""

    def __init__(self) -> None:
        self.rules: list[tuple[str, str, dict[str, str]]] = []
        self.memo: dict[tuple[str, str], dict[str, str]] = {}

    def add(self, css: str) -> None:
        css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
        for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
            decls = {}
            for d in body.split(";"):
                key, colon, value = d.partition(":")
                if colon:
                    decls[key.strip()] = value.strip()
            for sel in selectors.split(","):
                parts = sel.split()
                if parts:
                    tag, _, cls = parts[-1].partition(".")
                    self.rules.append((tag, cls, decls))

    def of(self, tag: str, class_attr: str) -> dict[str, str]:
        """The declarations for an element: tag rules, then class rules (more specific)."""
        key = (tag, class_attr)
        if key not in self.memo:
            self.memo[key] = self._of(tag, class_attr.split())
        return self.memo[key]

    def _of(self, tag: str, classes: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for want_class in (False, True):
            for rtag, rcls, decls in self.rules:
                if bool(rcls) == want_class and (not rtag or rtag == tag):
                    if not rcls or rcls in classes:
                        out.update(decls)
        return out


class _Writer:
    """The content stream of one page, drawn from the SVG tree."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.alphas: dict[tuple[str, str], str] = {}
        self.sheet = _Style()
        #: characters of the texts that no font can draw (drawn as ``?``), in order
        self.undrawn: dict[str, None] = {}
        #: the fonts embedded for text beyond Helvetica's characters (on first need)
        self.fallbacks: Fallbacks | None = None

    def alpha(self, stroke: str, fill: str) -> str:
        key = (_num(float(stroke)), _num(float(fill)))
        return self.alphas.setdefault(key, f"A{len(self.alphas)}")

    def element(self, el: ET.Element, inherited: dict[str, str]) -> None:
        tag = el.tag.removeprefix(_NS)
        if tag in ("title", "desc", "metadata"):
            return
        if tag == "style":  # read before drawing (svg_to_pdf)
            return
        style = dict(inherited)
        style.update((k, v) for k, v in el.attrib.items() if k in _INHERITED)
        css = self.sheet.of(tag, el.get("class") or "")
        style.update((k, v) for k, v in css.items() if k in _INHERITED)
        self.ops.append("q")
        if el.get("transform"):
            self.ops.append(" ".join(_num(v) for v in transform(el.get("transform"))) + " cm")
        if tag in ("svg", "g"):
            for child in el:
                self.element(child, style)
        elif tag == "text":
            self.text(el, style)
        else:
            self.shape(tag, el, style)
        self.ops.append("Q")

    def shape(self, tag: str, el: ET.Element, style: dict[str, str]) -> None:
        g = el.get
        if tag == "rect":
            x, y, w, h = (_plain(g(k) or "0") for k in ("x", "y", "width", "height"))
            path, area = [f"{x} {y} {w} {h} re"], float(w) * float(h) != 0
        elif tag == "line":
            x1, y1, x2, y2 = (_plain(g(k) or "0") for k in ("x1", "y1", "x2", "y2"))
            path, area = [f"{x1} {y1} m {x2} {y2} l"], False
        elif tag == "polyline" or tag == "polygon":
            v = _floats(g("points") or "")
            xy = [(v[i], v[i + 1]) for i in range(0, len(v) - 1, 2)]
            path = [f"{_num(a)} {_num(b)} {'l' if k else 'm'}" for k, (a, b) in enumerate(xy)]
            if tag == "polygon" and path:
                path.append("h")
            area = _area(xy)
        elif tag == "circle":
            r = float(g("r") or 0)
            path, area = _circle(float(g("cx") or 0), float(g("cy") or 0), r), r > 0
        elif tag == "path":
            path, area = _path(g("d") or "")
        else:
            raise ValueError(f"<{tag}> is not an element the chart renderer writes")
        if path:
            self.paint(path, style, area)

    def paint(self, path: list[str], style: dict[str, str], area: bool) -> None:
        """Fill (a path that encloses no area fills nothing, as in SVG) and stroke."""
        fill, stroke = _rgb(style["fill"]) if area else None, _rgb(style["stroke"])
        width = _first(style["stroke-width"])
        if stroke is not None and width <= 0:
            stroke = None
        if fill is None and stroke is None:
            return
        sa, fa = style["stroke-opacity"], style["fill-opacity"]
        if float(sa) != 1.0 or float(fa) != 1.0:
            self.ops.append(f"/{self.alpha(sa, fa)} gs")
        if fill is not None:
            self.ops.append(f"{fill} rg")
        if stroke is not None:
            dash = _floats(style["stroke-dasharray"]) if style["stroke-dasharray"] != "none" else []
            self.ops.append(f"{stroke} RG {_num(width)} w [{' '.join(map(_num, dash))}] 0 d")
        self.ops.extend(path)
        self.ops.append("B" if fill and stroke else "f" if fill else "S")

    def text(self, el: ET.Element, style: dict[str, str]) -> None:
        parts = [el.text or ""]
        for child in el:
            if child.tag.removeprefix(_NS) != "title":
                parts.append("".join(child.itertext()))
            parts.append(child.tail or "")
        text = " ".join("".join(parts).split())  # SVG's default white-space handling
        fill = _rgb(style["fill"])
        if not text or fill is None:
            return
        size = _first(style["font-size"])
        if text_bytes(text).count(b"?") == text.count("?"):  # Helvetica draws all of it
            shows, width = _helvetica(text, size)
        else:
            shows, width = self.beyond(text, size)
        x, y = (_floats(el.get(k) or "0")[:1] or [0.0] for k in ("x", "y"))
        shift = {"middle": 0.5, "end": 1.0}.get(style["text-anchor"], 0.0)
        x0 = x[0] - shift * width
        if float(style["fill-opacity"]) != 1.0:
            self.ops.append(f"/{self.alpha('1', style['fill-opacity'])} gs")
        self.ops.append(f"{fill} rg BT 1 0 0 -1 {_num(x0)} {_num(y[0])} Tm {shows} ET")

    def beyond(self, text: str, size: float) -> tuple[str, float]:
        """The text-showing operators of a text with characters beyond Helvetica's, each
        run set in the first embedded font that has its characters
        (:mod:`cranfield.report.pdf_fonts`), and the text's advance width."""
        if self.fallbacks is None:
            from .pdf_fonts import Fallbacks

            self.fallbacks = Fallbacks()
        shows, width = [], 0.0
        for font, part in self.fallbacks.runs(text):
            if font is None:
                self.undrawn.update((c, None) for c in part if c != "?" and text_bytes(c) == b"?")
                show, advance = _helvetica(part, size)
            else:
                codes, thousandths = font.encode(part)
                show = f"/{font.resource} {_num(size)} Tf <{codes.hex().upper()}> Tj"
                advance = thousandths * size / 1000.0
            shows.append(show)
            width += advance
        return " ".join(shows), width


def _helvetica(text: str, size: float) -> tuple[str, float]:
    """The operators showing ``text`` in Helvetica (:func:`text_bytes`) at ``size``, and
    its advance width."""
    encoded = text_bytes(text)
    return f"/F1 {_num(size)} Tf <{encoded.hex().upper()}> Tj", text_width(encoded, size)


def _circle(cx: float, cy: float, r: float) -> list[str]:
    k = _KAPPA * r
    pts = [  # four quarter arcs, counter-clockwise from (cx + r, cy)
        (cx + r, cy + k, cx + k, cy + r, cx, cy + r),
        (cx - k, cy + r, cx - r, cy + k, cx - r, cy),
        (cx - r, cy - k, cx - k, cy - r, cx, cy - r),
        (cx + k, cy - r, cx + r, cy - k, cx + r, cy),
    ]
    return [f"{_num(cx + r)} {_num(cy)} m"] + [" ".join(map(_num, p)) + " c" for p in pts] + ["h"]


def _area(points: list[tuple[float, float]]) -> bool:
    """Whether the polygon through ``points`` (closed) encloses an area (shoelace)."""
    twice = sum(
        a * d - b * c for (a, b), (c, d) in zip(points, points[1:] + points[:1], strict=True)
    )
    return abs(twice) > 1e-9


def _path(d: str) -> tuple[list[str], bool]:
    """SVG path data of straight segments (``M L H V Z``, absolute or relative) as PDF
    path operators, and whether a subpath encloses an area."""
    tokens = re.findall(r"[A-Za-z]|" + _NUMBER, d)
    out: list[str] = []
    subpaths: list[list[tuple[float, float]]] = []
    x = y = sx = sy = 0.0
    i, cmd = 0, ""
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                out.append("h")
                x, y = sx, sy
                continue
        if not cmd or cmd not in "MmLlHhVv":
            raise ValueError(
                f"path command {cmd or tokens[i]!r} is not one the chart renderer writes"
            )
        need = 1 if cmd in "HhVv" else 2
        v = [float(t) for t in tokens[i : i + need]]
        if len(v) < need or any(t.isalpha() for t in tokens[i : i + need]):
            raise ValueError(f"path data {d!r} is cut short")
        i += need
        rel = cmd.islower()
        if cmd in "Hh":
            x = v[0] + (x if rel else 0.0)
        elif cmd in "Vv":
            y = v[0] + (y if rel else 0.0)
        else:
            x, y = (v[0] + x, v[1] + y) if rel else (v[0], v[1])
        if cmd in "Mm":
            out.append(f"{_num(x)} {_num(y)} m")
            subpaths.append([])
            sx, sy = x, y
            cmd = "l" if rel else "L"  # coordinates after a moveto are linetos
        else:
            out.append(f"{_num(x)} {_num(y)} l")
        if subpaths:
            subpaths[-1].append((x, y))
    return out, any(_area(s) for s in subpaths)


def _pdf_text(text: str) -> str:
    """A text string of the document's information: UTF-16BE with its mark, in hex."""
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"


def svg_to_pdf(svg: str | bytes) -> bytes:
    """The chart ``svg`` (a standalone document of :func:`cranfield.report.chart.render`)
    as a one-page PDF document.

    Parameters
    ----------
    svg
        The SVG document; its ``width`` and ``height`` (pixels) give the page's size at
        :data:`PT_PER_PX` points per pixel.

    Returns
    -------
    bytes
        The PDF file: a catalog, one page whose content stream (Flate-compressed) draws
        the SVG's elements in document order, Helvetica, and the document information
        (the figure's label as title).
    """
    root = ET.fromstring(svg.encode("utf-8") if isinstance(svg, str) else svg)
    if root.tag != _NS + "svg":
        raise ValueError("not an SVG document")
    size = [
        re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*(?:px)?\s*", root.get(k) or "")
        for k in ("width", "height")
    ]
    if not all(size) or min(float(m[1]) for m in size) <= 0:
        raise ValueError("the SVG document has no size in pixels")
    w, h = (float(m[1]) * PT_PER_PX for m in size)
    writer = _Writer()
    for sheet in root.iter(_NS + "style"):
        writer.sheet.add(sheet.text or "")
    writer.ops.append(f"{_num(PT_PER_PX)} 0 0 {_num(-PT_PER_PX)} 0 {_num(h)} cm 4 M")
    try:
        writer.element(root, dict(_INITIAL))
        fonts, embedding = "", []  # after the six objects below, each font's objects
        for font in writer.fallbacks.used if writer.fallbacks is not None else []:
            fonts += f" /{font.resource} {7 + len(embedding)} 0 R"
            embedding += font.objects(7 + len(embedding))
    finally:
        if writer.fallbacks is not None:
            writer.fallbacks.close()
    if writer.undrawn:
        from ..errors import note

        shown = "".join(list(writer.undrawn)[:10]) + ("..." if len(writer.undrawn) > 10 else "")
        why = (
            "none of the fonts cranfield looks for has them (docs/report.md names them); an "
            "SVG file shows them in the viewer's fonts"
            if writer.fallbacks is not None and writer.fallbacks.available
            else "pip install 'cranfield[pdf]' to embed a font that has them"
        )
        note(
            f"the PDF cannot draw {len(writer.undrawn)} character(s) of its text ({shown}): "
            f"they are drawn as '?'; {why}"
        )
    content = zlib.compress("\n".join(writer.ops).encode("ascii"), 6)
    alphas = " ".join(
        f"/{name} << /Type /ExtGState /CA {sa} /ca {fa} >>"
        for (sa, fa), name in writer.alphas.items()
    )
    title = (root.findtext(_NS + "title") or root.get("aria-label") or "").strip()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_num(w)} {_num(h)}] "
            f"/Resources << /Font << /F1 5 0 R{fonts} >> /ExtGState << {alphas} >> >> "
            "/Contents 4 0 R >>"
        ).encode("ascii"),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content)
        + content
        + b"\nendstream",
        (
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
            f"/BaseEncoding /WinAnsiEncoding /Differences [{MINUS_CODE} /minus] >> >>"
        ).encode("ascii"),
        f"<< /Producer (cranfield) /Title {_pdf_text(title)} >>".encode("ascii"),
    ]
    objects += embedding
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\n" % (len(objects) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)
