"""Read a PDF figure back beside its SVG: the texts the SVG shows, and the strings the
PDF's page shows with their places (pypdf)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
from pypdf import PdfReader

S = "{http://www.w3.org/2000/svg}"


def visible_texts(svg: str) -> list[tuple[str, ET.Element]]:
    """(shown text, element) of every ``<text>`` in document order (``<title>`` hidden)."""
    out = []
    for el in ET.fromstring(svg.encode("utf-8")).iter(S + "text"):
        shown = (el.text or "") + "".join(c.tail or "" for c in el)
        out.append((" ".join(shown.split()), el))
    return out


def shown_in_pdf(reader: PdfReader) -> list[tuple[str, np.ndarray, float]]:
    """(text, its text-space-to-page matrix as 3x3, font size) of every string shown."""
    out = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            m = [np.array([[a, b, 0], [c, d, 0], [e, f, 1]]) for a, b, c, d, e, f in (tm, cm)]
            out.append((text.strip(), m[0] @ m[1], size))

    reader.pages[0].extract_text(visitor_text=visit)
    return out
