"""pyproject.toml's extras: `all` means every user-facing extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads it with tomli, which pip vendors
    import pip._vendor.tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
DEVELOPERS_ONLY = {"all", "test"}


@pytest.mark.parametrize("extra", sorted(set(EXTRAS) - DEVELOPERS_ONLY))
def test_all_holds_every_requirement_of_every_extra(extra):
    missing = [req for req in EXTRAS[extra] if req not in EXTRAS["all"]]
    assert not missing, f"extra {extra!r}: {missing} missing from `all`"


def test_all_holds_nothing_that_no_extra_asks_for():
    named = {req for extra, reqs in EXTRAS.items() if extra not in DEVELOPERS_ONLY for req in reqs}
    assert set(EXTRAS["all"]) <= named
