"""The font files cranfield's figure files draw their text with, found at known places
(no scan of the system's fonts, which costs a renderer 0.1-0.2 s).

PNG (:mod:`cranfield.report.png`) hands resvg the first sans-serif font of :data:`SANS`
found; PDF (:mod:`cranfield.report.pdf`) sets Latin text in Helvetica, one of the
standard fonts every PDF reader has, and embeds a subset of the first font of
:func:`fallbacks` that has each other character (a run named in Greek, Cyrillic or
Chinese), else of a Noto font of the character's script (:func:`by_script`).
"""

from __future__ import annotations

import os

__all__ = ["BROAD", "NOTO_FOLDERS", "SANS", "by_script", "fallbacks", "sans"]

_WINDOWS_FONTS = os.path.join(os.environ.get("WINDIR", r"C:\Windows"), "Fonts")

#: ``(family, files)``: the sans-serif fonts looked for, best first (the first file that
#: exists is used): Liberation Sans (Helvetica's advance widths), Arial, DejaVu Sans.
SANS = (
    (
        "Liberation Sans",
        (
            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
            "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
            "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
            "/usr/share/fonts/liberation-sans-fonts/LiberationSans-Regular.ttf",
            "/usr/share/fonts/TTF/LiberationSans-Regular.ttf",
        ),
    ),
    (
        "Arial",
        (
            "/System/Library/Fonts/Supplemental/Arial.ttf",
            "/Library/Fonts/Arial.ttf",
            os.path.join(_WINDOWS_FONTS, "arial.ttf"),
        ),
    ),
    (
        "DejaVu Sans",
        (
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
        ),
    ),
)

#: ``(family, files)``: fonts with TrueType outlines that draw what the sans-serif fonts
#: do not (Chinese, Japanese and Korean above all), looked for after :data:`SANS`; every
#: file found is a fallback, in this order.
BROAD = (
    ("WenQuanYi Micro Hei", ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",)),
    ("WenQuanYi Zen Hei", ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",)),
    ("Droid Sans Fallback", ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",)),
    ("AR PL UMing", ("/usr/share/fonts/truetype/arphic/uming.ttc",)),
    ("Unifont", ("/usr/share/fonts/opentype/unifont/unifont.otf",)),
    (
        "Arial Unicode MS",
        (
            "/System/Library/Fonts/Supplemental/Arial Unicode.ttf",
            "/Library/Fonts/Arial Unicode.ttf",
        ),
    ),
    ("Microsoft YaHei", (os.path.join(_WINDOWS_FONTS, "msyh.ttc"),)),
    ("Nirmala UI", (os.path.join(_WINDOWS_FONTS, "Nirmala.ttf"),)),
    ("Segoe UI", (os.path.join(_WINDOWS_FONTS, "segoeui.ttf"),)),
)


#: folders of Noto's fonts of one script each (Debian's and Ubuntu's ``fonts-noto-core``,
#: Fedora's ``google-noto-*``), looked in by :func:`by_script`
NOTO_FOLDERS = (
    "/usr/share/fonts/truetype/noto",
    "/usr/share/fonts/google-noto",
    "/usr/share/fonts/noto",
)


def by_script(char: str) -> list[str]:
    """Noto's font files for the script of ``char`` found in :data:`NOTO_FOLDERS`:
    ``NotoSans{Script}-Regular.ttf``, then ``NotoSerif{Script}-Regular.ttf``, where the
    script is the first word of the character's Unicode name, then its first two
    (``DEVANAGARI LETTER NA``: Devanagari; ``OL CHIKI LETTER LA``: OlChiki)."""
    import unicodedata

    words = unicodedata.name(char, "").split()
    names = []
    for n in (1, 2):
        if len(words) > n:
            script = "".join(w.capitalize() for w in words[:n] if w.isalpha())
            names += [f"NotoSans{script}-Regular.ttf", f"NotoSerif{script}-Regular.ttf"]
    found = (os.path.join(folder, name) for folder in NOTO_FOLDERS for name in names)
    return [path for path in found if os.path.isfile(path)]


def _matplotlibs_dejavu() -> str | None:
    """The DejaVu Sans that matplotlib ships, found without importing matplotlib."""
    from importlib.util import find_spec

    try:
        spec = find_spec("matplotlib")
    except (ImportError, ValueError):
        spec = None
    for folder in (spec and spec.submodule_search_locations) or ():
        path = os.path.join(folder, "mpl-data", "fonts", "ttf", "DejaVuSans.ttf")
        if os.path.isfile(path):
            return path
    return None


def sans() -> tuple[str, str] | None:
    """``(family, file)`` of the first font of :data:`SANS` found, else matplotlib's
    DejaVu Sans, else None."""
    for family, files in SANS:
        for path in files:
            if os.path.isfile(path):
                return family, path
    path = _matplotlibs_dejavu()
    return ("DejaVu Sans", path) if path else None


def fallbacks() -> list[str]:
    """The files of every font of :data:`SANS` and :data:`BROAD` found (the first of each
    family's files), then matplotlib's DejaVu Sans: the fonts a PDF's text beyond
    Helvetica's characters is drawn with, each character by the first that has it."""
    out: list[str] = []
    for _, files in SANS + BROAD:
        path = next((p for p in files if os.path.isfile(p)), None)
        if path is not None and os.path.realpath(path) not in map(os.path.realpath, out):
            out.append(path)
    shipped = _matplotlibs_dejavu()
    if shipped is not None:
        out.append(shipped)
    return out
