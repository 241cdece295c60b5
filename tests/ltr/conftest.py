"""LightGBM's example data (``../shared/data/lambdarank-example`` beside the project)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def example_dir() -> Path | None:
    env = os.environ.get("CRANFIELD_LAMBDARANK_EXAMPLE")
    candidates = [Path(env)] if env else []
    # the project's checkout sits beside ../shared (a worktree one level deeper)
    for up in (ROOT.parent, ROOT.parent.parent):
        candidates.append(up / "shared" / "data" / "lambdarank-example")
    return next((c for c in candidates if (c / "rank.train").is_file()), None)


@pytest.fixture(scope="session")
def example() -> Path:
    """The directory of rank.train, rank.test and their .query files."""
    found = example_dir()
    if found is None:
        pytest.fail(
            "LightGBM's example data not found (../shared/data/lambdarank-example); "
            "set CRANFIELD_LAMBDARANK_EXAMPLE to its directory"
        )
    return found
