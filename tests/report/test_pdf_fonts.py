"""PDF figures with text beyond Helvetica's characters (runs named in Greek, Cyrillic,
Chinese): the fonts embedded read back by three other readers, pypdf (each string's
text and place), PDFium through pypdfium2 (its text and its rendering) and FreeType
through Pillow (the embedded font file draws each glyph, with the advance widths the
PDF states); the fonts that cannot be used passed over; without fontTools, ``?`` and a
note that says how to get it."""

from __future__ import annotations

import io
import re
import sys
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pypdfium2
import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont
from pdf_reading import shown_in_pdf, visible_texts
from PIL import ImageFont
from pypdf import PdfReader

from cranfield.errors import CranfieldNote
from cranfield.report import fonts, pdf_fonts, svg_plots
from cranfield.report.pdf import PT_PER_PX, svg_to_pdf

# the font `make system-deps` installs (Debian's fonts-wqy-microhei): Chinese glyphs in a
# TrueType collection
WQY = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
GREEK = "\u03a9mega \u03b1\u03b2\u03b3 \u0416\u0443\u043a"  # Ωmega αβγ Жук


def figure(name: str, baseline: str = "b") -> tuple[str, bytes]:
    """(SVG, PDF) of a per-topic difference chart of a run called ``name``."""
    d = {name: {"query_id": np.array(["q1", "q2"]), "delta": np.array([0.5, -0.25])}}
    svg = svg_plots.delta_svg(d, baseline=baseline)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CranfieldNote)  # every character drawn: no note
        return svg, svg_to_pdf(svg)


@cache
def cmap_of(path: str) -> dict[int, str]:
    with TTFont(path, fontNumber=0, lazy=True) as font:
        return dict(font.getBestCmap())


def font_of(char: str) -> str | None:
    """The file a character is drawn from: the first fallback that has it."""
    return next((p for p in fonts.fallbacks() if ord(char) in cmap_of(p)), None)


@cache
def advance(path: str, char: str) -> float:
    """FreeType's advance of ``char`` at 1,000 pixels an em: thousandths of the size."""
    face = ImageFont.truetype(path, 1000, layout_engine=ImageFont.Layout.BASIC)
    return face.getlength(char)


def embedded(data: bytes) -> dict[str, dict]:
    """The page's ``Type0`` fonts: resource name -> their parts, decoded."""
    reader = PdfReader(io.BytesIO(data), strict=True)
    out = {}
    for name, ref in reader.pages[0]["/Resources"]["/Font"].items():
        font = ref.get_object()
        if font["/Subtype"] != "/Type0":
            continue
        cid = font["/DescendantFonts"][0].get_object()
        gids = cid["/CIDToGIDMap"].get_object().get_data()
        unicode = font["/ToUnicode"].get_object().get_data().decode("ascii")
        blocks = re.findall(r"beginbfchar(.*?)endbfchar", unicode, flags=re.S)
        text_of = {
            int(code, 16): bytes.fromhex(text).decode("utf-16-be")
            for block in blocks
            for code, text in re.findall(r"<([0-9A-F]{4})> <([0-9A-F]+)>", block)
        }
        w = cid["/W"]
        assert len(w) == 2 and w[0] == 1  # CIDs from 1, each its own width
        out[name] = {
            "base": str(font["/BaseFont"]),
            "encoding": str(font["/Encoding"]),
            "file": cid["/FontDescriptor"].get_object()["/FontFile2"].get_object().get_data(),
            "gid": [int.from_bytes(gids[i : i + 2], "big") for i in range(0, len(gids), 2)],
            "text": text_of,
            "width": {1 + k: float(v) for k, v in enumerate(w[1])},
        }
    return out


def test_greek_and_cyrillic_are_drawn_where_the_svg_places_them():
    svg, data = figure(GREEK, baseline="b\u2026")
    reader = PdfReader(io.BytesIO(data), strict=True)
    shown = shown_in_pdf(reader)
    texts = [(t, el) for t, el in visible_texts(svg) if t]
    assert [t for t, _, _ in shown] == [t for t, _ in texts]
    height = float(reader.pages[0].mediabox.height)
    title = next(
        (m, size, el)
        for t, m, size in shown
        for u, el in texts
        if t == u == (f"{GREEK} \u2212 b\u2026: 1 better, 1 worse, 0 tied")
    )
    m, size, el = title
    # the title is anchored at its middle: its width from FreeType's advances of each
    # character in the font that draws it
    text = el.text
    assert all(font_of(c) for c in text)
    width = sum(advance(font_of(c), c) for c in text) * size / 1000
    start = np.array([0.0, 0.0, 1.0]) @ m
    assert start[0] / PT_PER_PX == pytest.approx(float(el.get("x")) - width / 2, abs=0.01)
    assert (height - start[1]) / PT_PER_PX == pytest.approx(float(el.get("y")), abs=0.01)
    # PDFium reads the same text
    page = pypdfium2.PdfDocument(data)[0]
    assert f"{GREEK} \u2212 b\u2026" in page.get_textpage().get_text_range()


def test_embedded_fonts_draw_each_glyph_at_the_stated_width():
    """Each CID of each embedded font: ``ToUnicode`` names its character; the subset
    (read by FreeType) draws that character with ink, and ``CIDToGIDMap`` points at the
    glyph its ``cmap`` gives it; ``/W`` is FreeType's advance in the original file."""
    _, data = figure(GREEK + " \u7cfb\u7edf\u7532", baseline="b")
    parts = embedded(data)
    assert len(parts) == 2  # Liberation Sans or DejaVu Sans, and the Chinese font
    drawn = set()
    for part in parts.values():
        assert part["encoding"] == "/Identity-H"
        assert re.fullmatch(r"/[A-Z]{6}\+[A-Za-z0-9-]+", part["base"])
        subset = TTFont(io.BytesIO(part["file"]))
        face = ImageFont.truetype(io.BytesIO(part["file"]), 1000)
        cmap = subset.getBestCmap()
        assert len(part["gid"]) == len(part["text"]) + 1 == len(part["width"]) + 1
        for cid, char in part["text"].items():
            assert part["gid"][cid] == subset.getGlyphID(cmap[ord(char)])
            if not char.isspace():
                assert face.getbbox(char)[2] > face.getbbox(char)[0], char
            assert part["width"][cid] == advance(font_of(char), char), char
            drawn.add(char)
    assert set(GREEK + "\u2212\u7cfb\u7edf\u7532") <= drawn
    # PDFium places each character of the title (three strings: one font, another, the
    # first again) at the advances of the characters before it
    title = f"{GREEK} \u7cfb\u7edf\u7532 \u2212 b: 1 better, 1 worse, 0 tied"
    textpage = pypdfium2.PdfDocument(data)[0].get_textpage()
    at = textpage.get_text_range().index(title)
    size = shown_in_pdf(PdfReader(io.BytesIO(data)))[-1][2]
    origin = textpage.get_charbox(at, loose=True)[0]
    for k, char in enumerate(title):
        before = sum(advance(font_of(c), c) for c in title[:k]) * size / 1000 * PT_PER_PX
        assert textpage.get_charbox(at + k, loose=True)[0] == pytest.approx(
            origin + before, abs=1e-3
        ), (k, char)


def test_chinese_from_a_font_collection_is_rendered():
    assert WQY.is_file(), "install Debian's fonts-wqy-microhei ('make system-deps' as root)"
    assert font_of("\u7cfb") == str(WQY)
    _, data = figure("\u7cfb\u7edf\u7532")
    page = pypdfium2.PdfDocument(data)[0]
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    at = text.index("\u7cfb\u7edf\u7532 \u2212 b")
    scale = 2.0
    pixels = np.asarray(page.render(scale=scale, grayscale=True).to_pil())
    height = page.get_height()
    for k in range(3):  # ink inside each character's box
        left, bottom, right, top = textpage.get_charbox(at + k)
        assert right - left > 3 and top - bottom > 3
        box = pixels[
            int((height - top) * scale) : int((height - bottom) * scale) + 1,
            int(left * scale) : int(right * scale) + 1,
        ]
        assert (box < 128).sum() > 20


def test_same_bytes_twice_and_well_formed():
    svg, first = figure(GREEK + " \u7cfb")
    assert first == svg_to_pdf(svg)
    xref = int(first.rsplit(b"startxref\n", 1)[1].split()[0])
    count = int(first[xref:].split(b"\n")[1].split()[1])
    assert count == 1 + 6 + 6 * 2  # free entry, the page's six objects, six per font
    for number, entry in enumerate(first[xref:].split(b"\n")[3 : 2 + count], start=1):
        offset = int(entry.split()[0])
        assert first[offset:].startswith(b"%d 0 obj\n" % number)


def test_a_hundred_and_fifty_characters_read_back():
    """More characters than one ``beginbfchar`` block holds (100)."""
    name = "".join(chr(c) for c in range(0x0410, 0x0450)) + "".join(
        chr(c) for c in range(0x0391, 0x03CA) if c != 0x03A2
    )
    _, data = figure(name)
    assert sum(len(p["text"]) for p in embedded(data).values()) >= 128
    texts = [t for t, _, _ in shown_in_pdf(PdfReader(io.BytesIO(data)))]
    assert f"{name} \u2212 b: 1 better, 1 worse, 0 tied" in texts


def test_a_character_no_font_has_is_a_question_mark_and_a_note():
    name = "\U0010fffd\u03a9"  # a private-use character, then a Greek letter
    d = {name: {"query_id": np.array(["q1"]), "delta": np.array([0.5])}}
    with pytest.warns(CranfieldNote, match="cannot draw 1 character.*none of the fonts"):
        data = svg_to_pdf(svg_plots.delta_svg(d, baseline="b"))
    # '?' in Helvetica, the rest in an embedded font: two strings of one line
    assert "\n?\u03a9 \u2212 b: 1 better, 0 worse, 0 tied" in (
        PdfReader(io.BytesIO(data)).pages[0].extract_text()
    )


def test_without_fonttools_text_beyond_helvetica_is_a_question_mark(monkeypatch):
    for module in [m for m in sys.modules if m.startswith("fontTools")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setitem(sys.modules, "fontTools", None)  # import fails
    d = {"\u03a9mega": {"query_id": np.array(["q1"]), "delta": np.array([0.5])}}
    with pytest.warns(CranfieldNote, match=r"cannot draw 1 .*pip install 'cranfield\[pdf\]'"):
        data = svg_to_pdf(svg_plots.delta_svg(d, baseline="b"))
    texts = [t for t, _, _ in shown_in_pdf(PdfReader(io.BytesIO(data), strict=True))]
    assert "?mega \u2212 b: 1 better, 0 worse, 0 tied" in texts
    assert b"FontFile2" not in data


def tiny_font(path: Path, *, fs_type: int = 0, cff: bool = False, char: str = "\u03a9") -> str:
    """A font with one glyph (a square) for ``char``, written to ``path``."""
    builder = FontBuilder(1000, isTTF=not cff)
    builder.setupGlyphOrder([".notdef", "Omega"])
    builder.setupCharacterMap({ord(char): "Omega"})
    if cff:
        from fontTools.pens.t2CharStringPen import T2CharStringPen

        pen = T2CharStringPen(600, None)
        pen.moveTo((0, 0)), pen.lineTo((500, 0)), pen.lineTo((500, 500)), pen.closePath()
        square = pen.getCharString()
        builder.setupCFF("Tiny", {}, {".notdef": square, "Omega": square}, {})
    else:
        pen = TTGlyphPen(None)
        pen.moveTo((0, 0)), pen.lineTo((500, 0)), pen.lineTo((500, 500)), pen.closePath()
        square = pen.glyph()
        builder.setupGlyf({".notdef": square, "Omega": square})
    builder.setupHorizontalMetrics({".notdef": (600, 0), "Omega": (600, 0)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Tiny", "styleName": "Regular", "psName": "Tiny-Regular"})
    builder.setupOS2(fsType=fs_type)
    builder.setupPost()
    builder.save(str(path))
    return str(path)


def test_fonts_that_cannot_be_used_are_passed_over(tmp_path):
    garbage = tmp_path / "garbage.ttf"
    garbage.write_bytes(b"\x00\x01\x00\x00" + bytes(range(256)) * 8)
    missing = str(tmp_path / "missing.ttf")
    restricted = tiny_font(tmp_path / "restricted.ttf", fs_type=0x0002)
    bitmaps = tiny_font(tmp_path / "bitmaps.ttf", fs_type=0x0200)
    cff = tiny_font(tmp_path / "cff.otf", cff=True)
    usable = tiny_font(tmp_path / "usable.ttf", fs_type=0x0008)
    chain = pdf_fonts.Fallbacks([str(garbage), missing, restricted, bitmaps, cff, usable])
    try:
        assert chain.font_for("\u03a9").path == usable
        assert chain.font_for("\u0416") is None
    finally:
        chain.close()


@pytest.mark.parametrize(
    "fs_type, allowed",
    [(0, True), (0x2, False), (0x4, True), (0x8, True), (0x6, True), (0x200, False),
     (0x208, False), (0x100, False), (0x108, False)],
)  # fmt: skip
def test_embedding_permissions_follow_opentypes_fstype(fs_type, allowed):
    """OpenType's ``OS/2.fsType``: 0 installable; bit 1 restricted (unless preview &
    print or editable is set as well, the least restrictive wins); bit 9 bitmaps only;
    bit 8 no subsetting (a subset is what is embedded)."""
    assert pdf_fonts._embeddable(fs_type) is allowed


def test_fallbacks_start_with_the_pngs_font_and_end_with_matplotlibs():
    found = fonts.fallbacks()
    assert found and found[0] == fonts.sans()[1]
    assert found[-1].endswith(str(Path("mpl-data", "fonts", "ttf", "DejaVuSans.ttf")))
    assert len({Path(p).resolve() for p in found}) == len(found)


def test_a_script_none_of_the_list_draws_is_looked_for_in_notos_font_of_it(tmp_path, monkeypatch):
    """A Devanagari and a Runic letter, which none of the fonts of the list has: each is
    drawn from the Noto font of its script in a Noto folder (the Runic one a serif),
    found by the first word of its Unicode name; a third script without a Noto font
    there stays a question mark, with a note."""
    noto = tmp_path / "noto"
    noto.mkdir()
    devanagari = tiny_font(noto / "NotoSansDevanagari-Regular.ttf", char="\u0928")
    runic = tiny_font(noto / "NotoSerifRunic-Regular.ttf", char="\u16a0")
    tiny_font(noto / "NotoSansThai-Regular.ttf", char="\u0928")  # not its character
    assert all(font_of(c) is None for c in "\u0928\u16a0\u0e01")
    monkeypatch.setattr(fonts, "NOTO_FOLDERS", (str(tmp_path / "none"), str(noto)))
    assert fonts.by_script("\u0928") == [devanagari]
    assert fonts.by_script("\u16a0") == [runic]
    assert fonts.by_script("\u1c5a") == []  # OL CHIKI LETTER LA: no such file
    d = {"\u0928\u16a0\u0e01x": {"query_id": np.array(["q1"]), "delta": np.array([0.5])}}
    with pytest.warns(CranfieldNote, match="cannot draw 1 character.*\\(\u0e01\\)"):
        data = svg_to_pdf(svg_plots.delta_svg(d, baseline="b"))
    parts = embedded(data)
    bases = sorted(p["base"].partition("+")[2] for p in parts.values())
    assert len(bases) == 3 and bases.count("Tiny-Regular") == 2, bases
    assert "\n\u0928\u16a0?x \u2212 b" in PdfReader(io.BytesIO(data)).pages[0].extract_text()
