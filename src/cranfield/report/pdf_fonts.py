"""Fonts embedded in cranfield's PDF figures for the text Helvetica cannot draw.

A text of the SVG whose characters all have a code in Helvetica's encoding is set in
Helvetica (:mod:`cranfield.report.pdf`). Any other text (a run named ``Ωmega`` or
``系统甲``) is set character by character in the first font of
:func:`cranfield.report.fonts.fallbacks` that has the character, and each such font is
embedded as a subset of the glyphs used (ISO 32000-1, 9.7: a ``Type0`` font with
``Identity-H`` encoding over a ``CIDFontType2``, its CIDs numbered in order of first
use and mapped to the subset's glyphs by ``/CIDToGIDMap``; 9.9: the TrueType file as
``FontFile2``; 9.10.3: a ``ToUnicode`` map, so that readers copy and search the text as
written). Subsetting is fontTools' (the ``pdf`` extra, imported only when a text needs
it).

Conventions:

* Only fonts with TrueType outlines (a ``glyf`` table, ``.ttf`` or the first font of a
  ``.ttc``) are used; fonts whose ``OS/2`` ``fsType`` forbids embedding a subset
  (restricted licence, no subsetting or bitmaps only; OpenType 1.9, ``OS/2``) are
  passed over, as are files that cannot be read as fonts.
* Each character is one glyph, the font's ``cmap`` glyph for it, advanced by its
  ``hmtx`` width rounded to thousandths of the font size (what ``/W`` says): there is
  no kerning, no ligature and no shaping, so scripts that need shaping (Arabic, the
  Indic scripts) are drawn as separate letters, and right-to-left text left to right.
* A character that none of the fonts of the list has is looked for in Noto's font of
  its script, where the system has Noto's fonts (:func:`cranfield.report.fonts.by_script`);
  one no font has is drawn as Helvetica's ``?`` and named in a note; so is every
  character beyond Helvetica when fontTools is not installed.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import zlib

__all__ = ["Embedded", "Fallbacks"]

#: ``OS/2`` ``fsType`` bits (OpenType 1.9): restricted licence, preview & print,
#: editable, no subsetting, bitmap embedding only.
_RESTRICTED, _PREVIEW, _EDITABLE = 0x0002, 0x0004, 0x0008
_NO_SUBSETTING, _BITMAP_ONLY = 0x0100, 0x0200


def _embeddable(fs_type: int) -> bool:
    """Whether a font's ``fsType`` lets a document embed a subset of its outlines (a
    restricted licence counts only when neither less restrictive bit is set as well)."""
    if fs_type & (_BITMAP_ONLY | _NO_SUBSETTING):
        return False
    return not (fs_type & _RESTRICTED) or bool(fs_type & (_PREVIEW | _EDITABLE))


def _options():
    """fontTools' subsetting options: outlines and metrics only (no layout tables, no
    glyph names), the ``.notdef`` glyph kept."""
    from fontTools import subset

    options = subset.Options()
    options.notdef_outline = True
    options.layout_features = []
    options.drop_tables += ["GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH", "kern", "DSIG"]
    options.drop_tables += ["post"]  # glyph names: a PDF reader needs none (9.9)
    return options


class Embedded:
    """One font file whose glyphs the PDF's text uses, and the glyphs used so far.

    The text's codes are CIDs numbered in order of first use (0 is the font's
    ``.notdef``); ``/CIDToGIDMap`` maps them to the subset's glyph ids.
    """

    def __init__(self, path: str, font) -> None:
        self.path = path
        self.font = font
        self.cmap: dict[int, str] = font.getBestCmap() or {}
        self.per_em = font["head"].unitsPerEm
        self.names: list[str] = [font.getGlyphOrder()[0]]  # CID -> glyph name
        self.widths: list[int] = [0]  # CID -> advance, thousandths of the size
        self.cid_of: dict[str, int] = {}  # character -> CID
        self.resource = ""  # the page's name for it (F2, F3, ...), given on first use

    def covers(self, char: str) -> bool:
        return ord(char) in self.cmap

    def encode(self, text: str) -> tuple[bytes, int]:
        """``text`` (characters :meth:`covers`) as two-byte CIDs, and its advance width
        in thousandths of the font size."""
        out = bytearray()
        width = 0
        for char in text:
            cid = self.cid_of.get(char)
            if cid is None:
                cid = self.cid_of[char] = len(self.names)
                name = self.cmap[ord(char)]
                self.names.append(name)
                self.widths.append(round(self.font["hmtx"][name][0] * 1000 / self.per_em))
            out += cid.to_bytes(2, "big")
            width += self.widths[cid]
        return bytes(out), width

    def _subset(self) -> tuple[bytes, list[int]]:
        """The font file reduced to the glyphs used (TrueType bytes), and the subset's
        glyph id of each CID."""
        from fontTools import subset

        subsetter = subset.Subsetter(_options())
        subsetter.populate(glyphs=self.names)
        log = logging.getLogger("fontTools.subset")
        level = log.level
        log.setLevel(logging.ERROR)  # not "FFTM NOT subset; dropped" on stderr per table
        try:
            subsetter.subset(self.font)
        finally:
            log.setLevel(level)
        out = io.BytesIO()
        self.font.save(out)
        return out.getvalue(), [self.font.getGlyphID(name) for name in self.names]

    def objects(self, first: int) -> list[bytes]:
        """The PDF objects of this font, numbered from ``first``: the ``Type0`` font (the
        one the page's resources name), its CID font, descriptor, file, ``ToUnicode``
        map and ``CIDToGIDMap``."""
        digest = hashlib.sha256("\n".join(self.names).encode("utf-8")).digest()
        name = "".join(chr(65 + b % 26) for b in digest[:6]) + "+" + _postscript_name(self.font)
        scale = 1000 / self.per_em
        head, hhea = self.font["head"], self.font["hhea"]
        os2 = self.font["OS/2"] if "OS/2" in self.font else None
        cap = getattr(os2, "sCapHeight", 0) if os2 is not None and os2.version >= 2 else 0
        bbox = " ".join(str(round(v * scale)) for v in (head.xMin, head.yMin, head.xMax, head.yMax))
        font_file, gids = self._subset()
        packed = zlib.compress(font_file, 6)
        text_of = {cid: char for char, cid in self.cid_of.items()}
        to_unicode = zlib.compress(_to_unicode(text_of), 6)
        cid_to_gid = zlib.compress(b"".join(g.to_bytes(2, "big") for g in gids), 6)
        widths = " ".join(map(str, self.widths[1:]))
        return [
            (
                f"<< /Type /Font /Subtype /Type0 /BaseFont /{name} /Encoding /Identity-H "
                f"/DescendantFonts [{first + 1} 0 R] /ToUnicode {first + 4} 0 R >>"
            ).encode("ascii"),
            (
                f"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /{name} "
                "/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "
                f"/FontDescriptor {first + 2} 0 R /DW 0 /W [1 [{widths}]] "
                f"/CIDToGIDMap {first + 5} 0 R >>"
            ).encode("ascii"),
            (
                f"<< /Type /FontDescriptor /FontName /{name} /Flags 32 /FontBBox [{bbox}] "
                f"/ItalicAngle 0 /Ascent {round(hhea.ascent * scale)} "
                f"/Descent {round(hhea.descent * scale)} "
                f"/CapHeight {round((cap or hhea.ascent) * scale)} /StemV 80 "
                f"/FontFile2 {first + 3} 0 R >>"
            ).encode("ascii"),
            _stream(packed, f"/Length1 {len(font_file)} "),
            _stream(to_unicode),
            _stream(cid_to_gid),
        ]


def _stream(packed: bytes, extra: str = "") -> bytes:
    """A Flate-compressed stream object of ``packed`` (already compressed)."""
    head = f"<< /Length {len(packed)} {extra}/Filter /FlateDecode >>\nstream\n"
    return head.encode("ascii") + packed + b"\nendstream"


def _postscript_name(font) -> str:
    """The font's PostScript name (``name`` 6), as a PDF name may hold it."""
    raw = font["name"].getDebugName(6) if "name" in font else None
    return re.sub(r"[^A-Za-z0-9-]", "", raw or "")[:50] or "Font"


def _to_unicode(text_of: dict[int, str]) -> bytes:
    """A ``ToUnicode`` CMap (Adobe Technical Note 5411) from two-byte codes to text."""
    lines = [
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
        "/CMapName /Adobe-Identity-UCS def /CMapType 2 def",
        "1 begincodespacerange <0000> <FFFF> endcodespacerange",
    ]
    pairs = sorted(text_of.items())
    for start in range(0, len(pairs), 100):  # at most 100 entries a block
        block = pairs[start : start + 100]
        lines.append(f"{len(block)} beginbfchar")
        lines += [f"<{cid:04X}> <{text.encode('utf-16-be').hex().upper()}>" for cid, text in block]
        lines.append("endbfchar")
    lines += ["endcmap CMapName currentdict /CMap defineresource pop end end"]
    return "\n".join(lines).encode("ascii")


class Fallbacks:
    """The fonts of :func:`cranfield.report.fonts.fallbacks`, each opened when a
    character is first looked for beyond the ones before it."""

    def __init__(self, paths: list[str] | None = None) -> None:
        from .fonts import by_script

        if paths is None:
            from .fonts import fallbacks

            paths = fallbacks()
        self.paths = list(paths)
        self.tried = set(self.paths)  # every file ever put in paths (opened at most once)
        self.by_script = by_script
        self.opened: list[Embedded] = []
        self.used: list[Embedded] = []  # in order of first use (their resource names)
        try:
            from fontTools import subset
        except ImportError:
            self.subset = None
        else:
            self.subset = subset

    @property
    def available(self) -> bool:
        """Whether fontTools is installed (without it nothing is embedded)."""
        return self.subset is not None

    def font_for(self, char: str) -> Embedded | None:
        """The first font that has ``char``, else None: the fonts opened so far, then
        the others of the list, then Noto's for the character's script
        (:func:`cranfield.report.fonts.by_script`)."""
        for font in self.opened:
            if font.covers(char):
                return font
        while self.subset is not None:
            while self.paths:
                font = self._open(self.paths.pop(0))
                if font is not None:
                    self.opened.append(font)
                    if font.covers(char):
                        return font
            self.paths = [p for p in self.by_script(char) if p not in self.tried]
            if not self.paths:
                break
            self.tried.update(self.paths)
        return None

    def _open(self, path: str) -> Embedded | None:
        # a font file that fontTools cannot read, or whose tables are damaged, is passed
        # over (a system's fonts are not the user's input)
        try:  # the file's own timestamp kept: the same figure gives the same bytes
            font = self.subset.ttLib.TTFont(
                path, lazy=True, fontNumber=0, recalcBBoxes=False, recalcTimestamp=False
            )
        except Exception:  # noqa: BLE001
            return None
        try:
            tables = ("glyf", "loca", "hmtx", "hhea", "head", "maxp", "cmap")
            usable = all(t in font for t in tables)  # TrueType outlines, not CFF
            if usable and "OS/2" in font:
                usable = _embeddable(font["OS/2"].fsType)
            if usable:
                # glyphs named by id: fontTools would derive names from the 'post' table
                # or the cmap, 0.3-0.6 s for the 30,000 glyphs of a Chinese font
                font.setGlyphOrder([f"glyph{gid:05d}" for gid in range(font["maxp"].numGlyphs)])
                font["hmtx"], font["hhea"]  # read now: a damaged table fails here, not later
                return Embedded(path, font)
        except Exception:  # noqa: BLE001
            pass
        font.close()
        return None

    def close(self) -> None:
        """Close the font files opened (fontTools reads their tables on demand)."""
        for font in self.opened:
            font.font.close()

    def runs(self, text: str) -> list[tuple[Embedded | None, str]]:
        """``text`` cut into runs of characters set in one font (None: Helvetica)."""
        out: list[tuple[Embedded | None, str]] = []
        for char in text:
            font = self.font_for(char)
            if font is not None and not font.resource:
                self.used.append(font)
                font.resource = f"F{len(self.used) + 1}"
            if out and out[-1][0] is font:
                out[-1] = (font, out[-1][1] + char)
            else:
                out.append((font, char))
        return out
