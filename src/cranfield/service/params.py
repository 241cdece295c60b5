"""Path parameters shared by the API and the pages, with the bounds the database keeps.

A pair id is a 64-bit signed integer in every database cranfield runs on (SQLite's
INTEGER, PostgreSQL's BIGINT): an id outside ``[1, 2**63 - 1]`` names no pair and is
refused with 422 before any query (SQLite raised ``OverflowError`` on it).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

LARGEST_ID = 2**63 - 1

PairId = Annotated[int, Path(ge=1, le=LARGEST_ID, description="a judging pair's id")]

DeviceId = Annotated[
    int, Path(ge=1, le=LARGEST_ID, description="one of the caller's known devices' id")
]
