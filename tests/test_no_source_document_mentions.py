"""User-facing text names concepts and cites the literature, not the project's internal
source documents ("seed 000", "the seeds' layout", ``004_06c59faf1e6662b1.txt``).

Random seeds (``--seed``, ``default_rng(seed)``) are a different thing and allowed.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = re.compile(
    r"\bseeds?[\s_`-]*0\d\d"  # seed 000, seeds 001, SEED004, seed `004_...`, seed-001
    r"|\bseeds'"  # the seeds' layout
    r"|\bseed's\b"  # the seed's example
    r"|\bthe seeds\b"
    r"|\bseed documents?\b"
    r"|\b\d{3}_[0-9a-f]{16}\.txt\b",  # the documents' file names
    re.IGNORECASE,
)


def user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += [
        p
        for p in sorted((ROOT / "src").rglob("*"))
        if p.is_file() and p.suffix in (".py", ".md", ".txt", ".html", ".css", ".toml")
    ]
    return files


def test_the_pattern_catches_the_forms_used_before():
    for text in (
        "seed 000",
        "Seed 001's wording",
        "the seeds' layout",
        "seeds 001, 004",
        "SEED001 = ...",
        "seed-001 ROC table",
        "the seed's example",
        "the seed documents",
        "(seed\n    004's formula)",
        "004_06c59faf1e6662b1.txt",
    ):
        assert FORBIDDEN.search(text), text
    for text in ("--seed 3", "default_rng(seed)", "the seed of the randomised tests", "seeded"):
        assert not FORBIDDEN.search(text), text


def test_no_user_facing_text_mentions_the_source_documents():
    found = []
    for path in user_facing_files():
        text = path.read_text(encoding="utf-8")
        for m in FORBIDDEN.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)!r}")
    assert not found, "name the concept and cite the literature instead:\n" + "\n".join(found)
