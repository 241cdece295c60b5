"""Q_measure and nERR against pyNTCIREVAL 0.0.3 (the Python port of Sakai's
NTCIREVAL, a test-only dependency) on generated rankings: graded judgments at levels
0-3 (the top level present, as NTCIREVAL's gain list names it), unjudged documents,
default and custom gains, cutoffs and beta.

pyNTCIREVAL multiplies ERR's (1 - r) terms with ``np.prod`` afresh at every rank and
sums the cumulated gains with Python's ``sum``; cranfield keeps running products and
sums: the values agree to 1e-12."""

from __future__ import annotations

import random

import pytest
from pyNTCIREVAL import Labeler
from pyNTCIREVAL.metrics import QMeasure, nERR

import cranfield

GAIN_MAPS = {"": [1.0, 2.0, 3.0], "1=1,2=3,3=7": [1.0, 3.0, 7.0]}


def _case(rng):
    qrels, run = {}, {}
    for q in range(rng.randint(1, 5)):
        docs = [f"d{j}" for j in range(rng.randint(1, 20))]
        qrels[f"q{q}"] = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in docs if rng.random() < 0.8}
        if not qrels[f"q{q}"]:
            qrels[f"q{q}"] = {docs[0]: 0}
        ranked = rng.sample(docs + ["u1", "u2"], rng.randint(1, len(docs) + 2))
        run[f"q{q}"] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    qrels["q0"]["top"] = 3  # the top level is judged somewhere (NTCIREVAL's g_max)
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_generated_cases_equal_pyntcireval(seed):
    rng = random.Random(seed)
    for _ in range(25):  # 100 cases
        qrels, run = _case(rng)
        gains = rng.choice(list(GAIN_MAPS))
        k = rng.choice([1, 3, 5, 10, 20])
        beta = rng.choice([1.0, 0.5, 0.0])
        spell = f"gains='{gains}', " if gains else ""
        names = [f"Q_measure({spell}beta={beta})", f"Q_measure({spell}beta={beta})@{k}"]
        names.append(f"nERR({spell[:-2]})@{k}" if gains else f"nERR@{k}")
        res = cranfield.evaluate(qrels, run, names)
        ours = [res.per_query(measure=n) for n in names]
        grades = GAIN_MAPS[gains]
        for q, scores in run.items():
            labeler = Labeler(qrels[q])
            ranked = labeler.label(sorted(scores, key=scores.get, reverse=True))
            xrelnum = labeler.compute_per_level_doc_num(len(grades) + 1)
            theirs = [
                QMeasure(xrelnum, grades, beta).compute(ranked),
                QMeasure(xrelnum, grades, beta, k).compute(ranked),
            ]
            if sum(xrelnum[1:]):
                theirs.append(nERR(xrelnum, grades, k).compute(ranked))
            for name, mine, value in zip(names, ours, theirs, strict=False):
                assert mine[q] == pytest.approx(value, abs=1e-12), (name, q, qrels[q], scores)
