"""What a JudgedRun keeps beyond its arrays (its memo) belongs to its own arrays: a
copy with other arrays (``dataclasses.replace``, as the Dask workers send results
back) starts without it, and its counts are its own."""

from __future__ import annotations

import dataclasses

import numpy as np

from cranfield.core.judged import judge
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run


def test_a_copy_does_not_share_the_memo():
    qrels = Qrels.from_dict({"q": {"a": 1, "b": 2, "c": 0}})
    jr = judge(qrels, Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}))
    assert list(jr.num_rel(1)) == [2]
    jr.memo("key", lambda: "value")
    stricter = dataclasses.replace(
        jr, qrels_grades=np.array([0, 0, 0], dtype=jr.qrels_grades.dtype)
    )
    assert list(stricter.num_rel(1)) == [0]  # its own grades, not the original's
    assert stricter.memo("key", lambda: "fresh") == "fresh"
    assert list(jr.num_rel(1)) == [2] and jr.memo("key", lambda: "fresh") == "value"
