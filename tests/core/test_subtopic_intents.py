"""Intent probabilities (``SubtopicQrels.with_intents``): every intent-aware measure
becomes ``sum_s P(s|q) M_s`` (Agrawal et al. 2009). ndeval has no such option, so the
checks are its two limits and hand-computed values: uniform probabilities give ndeval's
values, all the probability on one subtopic gives the values of that subtopic alone."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

import cranfield
from cranfield.core.subtopics import SubtopicQrels
from cranfield.errors import InputError

MEASURES = [
    f"{f}@{k}" for f in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall")
    for k in (1, 3, 10)
] + ["NRBP", "nNRBP", "MAP_IA", "NRBP(alpha=0.2,beta=0.9)", "alpha_nDCG(alpha=0.8)@5"]  # fmt: skip


def collection(seed: int):
    rng = random.Random(seed)
    rows, run = [], {}
    for t in range(12):
        subs = rng.sample(range(1, 9), rng.randint(1, 5))
        docs = [f"d{i}" for i in rng.sample(range(30), rng.randint(2, 15))]
        for d in docs:
            for s in subs:
                rows.append((str(t), s, d, rng.choice([0, 0, 1, 2])))
        ranked = rng.sample([f"d{i}" for i in range(30)], rng.randint(1, 20))
        run[str(t)] = {d: rng.random() for d in ranked}
    return rows, run


def table(rows) -> SubtopicQrels:
    names = ("query_id", "subtopic", "doc_id", "relevance")
    return SubtopicQrels(pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)}))


def values(subtopics: SubtopicQrels, run) -> dict:
    adhoc = {q: {"zz": 0} for q in run}  # every run topic evaluated
    r = cranfield.evaluate(adhoc, run, MEASURES, subtopic_qrels=subtopics).runs[0]
    return {name: np.asarray(v) for name, v in zip(MEASURES, r.values.values(), strict=True)}


def intents(probabilities: dict) -> pa.Table:
    rows = [(q, s, p) for q, ps in probabilities.items() for s, p in ps.items()]
    return pa.table(
        {"qid": [r[0] for r in rows], "subtopic": [r[1] for r in rows], "p": [r[2] for r in rows]}
    )


def actual_subtopics(rows) -> dict:
    out: dict = {}
    for q, s, _, g in rows:
        if g > 0:
            out.setdefault(q, set()).add(s)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_uniform_probabilities_give_ndevals_values(seed):
    rows, run = collection(seed)
    plain = table(rows)
    uniform = {q: {s: 1 / len(ss) for s in ss} for q, ss in actual_subtopics(rows).items()}
    weighted = plain.with_intents(intents(uniform))
    a, b = values(plain, run), values(weighted, run)
    for m in MEASURES:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-12, atol=1e-15, err_msg=m)


@pytest.mark.parametrize("seed", range(4))
def test_all_the_probability_on_one_subtopic_is_that_subtopic_alone(seed):
    rows, run = collection(100 + seed)
    actual = actual_subtopics(rows)
    chosen = {q: min(ss) for q, ss in actual.items()}
    # the same documents judged, relevant only to the chosen subtopic
    alone = [(q, s, d, g if chosen.get(q) == s else 0) for q, s, d, g in rows]
    weighted = table(rows).with_intents(intents({q: {s: 1.0} for q, s in chosen.items()}))
    a, b = values(table(alone), run), values(weighted, run)
    # (alpha-DCG@1 and ERR-IA@1 are not divided by S in ndeval: there the weighted
    # value is S times the subtopic's own, as ndeval's uniform one is S times the mean)
    for m in [m for m in MEASURES if m not in ("alpha_DCG@1", "ERR_IA@1")]:
        np.testing.assert_allclose(b[m], a[m], rtol=1e-12, atol=1e-15, err_msg=m)


def test_hand_computed():
    # d1: s1; d2: s2; d3: s3; d4: s1 -- S = 3; the run ranks d2, d9 (unjudged), d3, d1
    rows = [("1", 1, "d1", 1), ("1", 2, "d2", 1), ("1", 3, "d3", 2), ("1", 1, "d4", 1)]
    run = {"1": {"d2": 3.0, "d9": 2.0, "d3": 1.5, "d1": 1.0}}
    weighted = table(rows).with_intents(intents({"1": {1: 0.7, 2: 0.3, 3: 0.0}}))
    r = cranfield.evaluate(
        {"1": {"d2": 1}}, run, ["P_IA@2", "StRecall@2", "MAP_IA"], subtopic_qrels=weighted
    ).runs[0]
    got = {str(m): float(v[0]) for m, v in r.values.items()}
    # P-IA@2 = 0.3 * 1/2; S-recall@2 = 0.3 (s2); MAP-IA = 0.7 * (1/4)/2 + 0.3 * 1 + 0
    assert got == pytest.approx({"P_IA@2": 0.15, "StRecall@2": 0.3, "MAP_IA": 0.3875}, abs=1e-15)


@pytest.mark.parametrize(
    "csv, words",
    [
        ("qid,subtopic,p\n1,1,0.5\n1,2,0.4\n", "sum to 0.9, not 1"),
        ("qid,subtopic,p\n1,1,1.5\n1,2,-0.5\n", "csv:3: the probability is not a number >= 0"),
        ("qid,subtopic,p\n1,-1,1\n", "csv:2: the subtopic is negative"),
        ("qid,subtopic,p\n1,1.5,1\n", "holds double, expected integers"),
        ("qid,p\n1,1\n", "no intent probabilities' column 'subtopic'"),
    ],
)
def test_bad_intent_probabilities(tmp_path, csv, words):
    path = tmp_path / "intents.csv"
    path.write_text(csv)
    with pytest.raises(InputError) as e:
        table([("1", 1, "d1", 1)]).with_intents(path)
    assert words in str(e.value) and str(path) in str(e.value)
