"""Fractional qrels grades: ``cranfield trec_eval`` prints trec_eval 10.0's bytes (both
read ``2.5`` as 2, C's ``atol``) and adds one note on stderr naming the option that
keeps fractions (``cranfield eval --fractional``)."""

from __future__ import annotations

import numpy as np
import pytest

from . import oracle


@pytest.mark.parametrize("seed", range(6))
def test_fractional_grades_print_trec_evals_bytes_with_a_note(trec_eval_bin, tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(1, 6):
        docs = [f"d{i}" for i in range(int(rng.integers(3, 20)))]
        for d in docs:
            if rng.random() < 0.7:
                grade = rng.choice(["0.5", "1.5", "2.25", "-0.5", "1", "0", "2.0", ".75"])
                qrels.append(f"{q} 0 {d} {grade}\n")
        for rank, d in enumerate(rng.permutation(docs)):
            run.append(f"{q} Q0 {d} {rank} {float(rng.integers(0, 4))} tag\n")
    qrels.append("9 0 x 0.5\n")  # at least one fractional grade, whatever the draws
    (tmp_path / "q.txt").write_text("".join(qrels))
    (tmp_path / "r.txt").write_text("".join(run))
    args = ["-q", "-c", "-m", "all_trec", str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]
    oracle.check(trec_eval_bin, args)
    got = oracle.cranfield(args)
    assert len(got.stderr.splitlines()) == 1
    assert "is read as" in got.stderr and "cranfield eval --fractional" in got.stderr
