"""PNG images of cranfield's own charts: the SVG of :mod:`cranfield.report.chart`
rasterised by resvg (the ``png`` extra: ``resvg-py``, imported on first use).

``cranfield plot ... -o FILE.png`` draws its figure once, as the SVG document of
:mod:`cranfield.report.svg_plots`, and :func:`svg_to_png` rasterises that document with
resvg, a renderer of static SVG written in Rust (Y. Reizner and the Linebender
project, github.com/linebender/resvg), at one pixel per SVG pixel (an 800-pixel-wide image, as
``plot`` always drew). Nothing is drawn twice: the PNG shows what the SVG shows.

Text needs a font file. Scanning every font of the system costs resvg about 0.1-0.2 s,
so one sans-serif font is looked for at known places first
(:data:`cranfield.report.fonts.SANS`: Liberation Sans, whose advance widths are
Helvetica's as the PDF's text, then Arial, then DejaVu Sans, then the DejaVu Sans that
matplotlib ships, if installed); only without any of them, or when the figure's text
has characters beyond Latin (a run named in another script), does resvg read the
system's fonts, which give it fallbacks.
"""

from __future__ import annotations

import re

from ..errors import require
from .fonts import sans

__all__ = ["svg_to_png"]

# text that one Latin font draws: Latin letters, the general punctuation (dashes,
# quotes, the ellipsis) and the minus sign
_BEYOND_LATIN = re.compile("[^\x00-\u024f\u2010-\u2027\u2212]")


def svg_to_png(svg: str) -> bytes:
    """The chart ``svg`` (a standalone document of :func:`cranfield.report.chart.render`)
    rasterised as a PNG image of its size in pixels, on the white background the
    document draws.

    Raises
    ------
    MissingDependencyError
        resvg-py is not installed (the one-line hint names the ``png`` extra).
    """
    resvg = require("resvg_py", "png")
    found = sans()
    options: dict = {}
    if found is not None:
        family, path = found
        options = dict(font_files=[path], font_family=family, sans_serif_family=family)
        options["skip_system_fonts"] = _BEYOND_LATIN.search(svg) is None
    return bytes(resvg.svg_to_bytes(svg_string=svg, **options))
