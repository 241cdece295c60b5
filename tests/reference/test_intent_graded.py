"""Intent-aware measures on per-intent graded relevance: Sakai & Song's D-nDCG@k,
I-rec@k and D#-nDCG@k (SIGIR 2011, NTCIREVAL's conventions) and Agrawal et al.'s
nDCG-IA@k (WSDM 2009).

Oracles: nDCG-IA is trec_eval's ``ndcg_cut`` (pytrec_eval) run on each intent's
judgments alone, weighted here by the intent probabilities. NTCIREVAL is not on PyPI
(pyNTCIREVAL has no D-measures), so here the D-measures are checked against a direct
implementation of the paper's formulas written below (global gain, ideal list by
global gain, log2(r + 1) discount) and hand-computed values that pin the conventions
NTCIREVAL itself showed in ``benchmarks/ntcireval_check.py`` (run by hand against its
source: which intents I-rec counts, a topic without a positive global gain).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pyarrow as pa
import pytest
import pytrec_eval

import cranfield
from cranfield.core.subtopics import SubtopicQrels

CUTS = (1, 3, 10)


def collection(seed: int):
    """Topics with 1-5 intents, graded judgments 0-3 (some documents judged on a few
    intents only), runs with unjudged documents and distinct scores."""
    rng = random.Random(seed)
    rows, run = [], {}
    for t in range(15):
        subs = rng.sample(range(1, 9), rng.randint(1, 5))
        docs = [f"d{i}" for i in rng.sample(range(30), rng.randint(1, 15))]
        for d in docs:
            for s in rng.sample(subs, rng.randint(1, len(subs))):
                rows.append((str(t), s, d, rng.choice([0, 0, 1, 2, 3])))
        ranked = rng.sample([f"d{i}" for i in range(30)], rng.randint(1, 20))
        scores = rng.sample(range(1000), len(ranked))
        run[str(t)] = {d: float(s) for d, s in zip(ranked, scores, strict=True)}
    return rows, run


def subtopic_table(rows) -> SubtopicQrels:
    names = ("query_id", "subtopic", "doc_id", "relevance")
    return SubtopicQrels(pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)}))


def probabilities(rows, seed: int) -> dict:
    """Random intent probabilities over each topic's intents (some left at 0)."""
    rng = random.Random(seed)
    out = {}
    for q in sorted({r[0] for r in rows}):
        intents = sorted({r[1] for r in rows if r[0] == q and r[3] > 0})
        w = [rng.choice([0, 1, 2, 5]) for _ in intents]
        if intents and sum(w):
            out[q] = {s: x / sum(w) for s, x in zip(intents, w, strict=True)}
    return out


def measured(rows, run, names, probs=None) -> dict:
    subtopics = subtopic_table(rows)
    if probs is not None:
        flat = [(q, s, p) for q, ps in probs.items() for s, p in ps.items()]
        cols = {"qid": [f[0] for f in flat], "subtopic": [f[1] for f in flat]}
        subtopics = subtopics.with_intents(pa.table({**cols, "p": [f[2] for f in flat]}))
    adhoc = {q: {"zz": 0} for q in run}
    r = cranfield.evaluate(adhoc, run, names, subtopic_qrels=subtopics).runs[0]
    return {
        n: dict(zip(r.query_ids, v, strict=True))
        for n, v in zip(names, r.values.values(), strict=True)
    }


def intents_of(rows, q, probs):
    """Topic ``q``'s judgments {intent: {doc: grade}} (the last line's grade, grade > 0)
    and intent probabilities (uniform over the intents with a relevant document)."""
    grades: dict = {}
    for t, s, d, g in rows:
        if t == q:
            grades.setdefault(s, {})[d] = g
    grades = {s: {d: g for d, g in ds.items() if g > 0} for s, ds in grades.items()}
    grades = {s: ds for s, ds in sorted(grades.items()) if ds}
    if probs is not None and q in probs:
        p = {s: probs[q].get(s, 0.0) for s in grades}
    else:
        p = {s: 1.0 / len(grades) for s in grades}
    return grades, p


def ranking(run, q):
    return [d for d, _ in sorted(run[q].items(), key=lambda x: (-x[1], x[0]))]


def d_measures(grades, p, ranked, k, gamma=0.5):
    """Sakai & Song 2011: GG(d) = sum_i P(i|q) g_i(d); D-nDCG@k = sum_{r<=k} GG(r) /
    log2(r+1) over the ideal list's (judged documents by GG, descending); I-rec@k =
    covered intents / intents; D#-nDCG@k = gamma I-rec + (1 - gamma) D-nDCG."""
    if not grades:
        return 0.0, 0.0, 0.0
    docs = sorted({d for ds in grades.values() for d in ds})

    def gg(d):
        total = 0.0
        for s in grades:  # increasing intent number
            if d in grades[s]:
                total += p[s] * grades[s][d]
        return total

    def dcg(gains):
        total = 0.0
        for r, g in enumerate(gains[:k], start=1):
            if g:
                total += g / math.log2(r + 1)
        return total

    ideal = dcg(sorted((gg(d) for d in docs if gg(d) > 0), reverse=True))
    d_ndcg = dcg([gg(d) for d in ranked]) / ideal if ideal else 0.0
    covered = {s for s in grades for d in ranked[:k] if d in grades[s]}
    i_rec = len(covered) / len(grades)
    return d_ndcg, i_rec, gamma * i_rec + (1 - gamma) * d_ndcg


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_d_measures_follow_the_papers_formulas(seed, weighted):
    rows, run = collection(seed)
    probs = probabilities(rows, seed) if weighted else None
    names = [f"{m}@{k}" for k in CUTS for m in ("D_nDCG", "I_rec", "Dsharp_nDCG")]
    names.append("Dsharp_nDCG(gamma=0.8)@10")
    got = measured(rows, run, names, probs)
    for q in run:
        grades, p = intents_of(rows, q, probs)
        for k in CUTS:
            want = d_measures(grades, p, ranking(run, q), k)
            for name, w in zip(("D_nDCG", "I_rec", "Dsharp_nDCG"), want, strict=True):
                assert got[f"{name}@{k}"][q] == pytest.approx(w, rel=0, abs=0), (q, name, k)
        want = d_measures(grades, p, ranking(run, q), 10, gamma=0.8)[2]
        assert got["Dsharp_nDCG(gamma=0.8)@10"][q] == pytest.approx(want, rel=0, abs=0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weighted", [False, True])
def test_ndcg_ia_is_trec_evals_ndcg_per_intent_weighted(seed, weighted):
    rows, run = collection(10 + seed)
    probs = probabilities(rows, seed) if weighted else None
    names = [f"nDCG_IA@{k}" for k in CUTS]
    got = measured(rows, run, names, probs)
    for q in run:
        grades, p = intents_of(rows, q, probs)
        per_intent = {}
        for s, ds in grades.items():
            ev = pytrec_eval.RelevanceEvaluator({q: ds}, {f"ndcg_cut.{','.join(map(str, CUTS))}"})
            per_intent[s] = ev.evaluate({q: run[q]})[q]
        for k in CUTS:
            want = 0.0
            for s in grades:
                want += p[s] * per_intent[s].get(f"ndcg_cut_{k}", 0.0)
            assert got[f"nDCG_IA@{k}"][q] == pytest.approx(want, rel=0, abs=0), (q, k)


def test_hand_computed_example():
    # intent 1: d0 grade 2; intent 2: d0 grade 1, d1 grade 3; d2 judged not relevant.
    # GG(d0) = 1.5, GG(d1) = 1.5; the run d2, d1 at k = 2 covers intent 2 only.
    rows = [("1", 1, "d0", 2), ("1", 2, "d0", 1), ("1", 2, "d1", 3), ("1", 1, "d2", 0)]
    run = {"1": {"d2": 3.0, "d1": 2.0, "d0": 1.0}}
    names = ["D_nDCG@2", "I_rec@2", "Dsharp_nDCG@2", "nDCG_IA@2", "I-rec@1"]
    got = {n: v["1"] for n, v in measured(rows, run, names).items()}
    got["D-nDCG@2"] = measured(rows, run, ["D-nDCG@2"])["D-nDCG@2"]["1"]
    l3 = math.log2(3)
    d_ndcg = (1.5 / l3) / (1.5 + 1.5 / l3)  # 0.38685...
    assert got["D_nDCG@2"] == pytest.approx(d_ndcg, rel=1e-15)
    assert got["D-nDCG@2"] == got["D_nDCG@2"]
    assert got["I_rec@2"] == 0.5 and got["I-rec@1"] == 0.0
    assert got["Dsharp_nDCG@2"] == pytest.approx(0.25 + 0.5 * d_ndcg, rel=1e-15)
    # intent 1 scores 0, intent 2: d1 (3) at rank 2 against the ideal d1, d0
    assert got["nDCG_IA@2"] == pytest.approx(0.5 * (3 / l3) / (3 + 1 / l3), rel=1e-15)


def test_ntcireval_intents_are_those_with_a_relevant_document():
    # NTCIREVAL (DIN-splitqrels) writes an ideal list per intent only for intents with
    # an L1+ document, and I-rec counts those lists: intent 3, listed with probability
    # 0.5 but without a relevant document, is not in the denominator. Its probability
    # still leaves the global gains at half: D-nDCG is a ratio, so it is unchanged.
    rows = [("1", 1, "d0", 1), ("1", 2, "d1", 2), ("1", 3, "d2", 0)]
    run = {"1": {"d1": 2.0, "d9": 1.0}}
    probs = {"1": {1: 0.25, 2: 0.25, 3: 0.5}}
    names = ["I_rec@2", "D_nDCG@2", "Dsharp_nDCG@2"]
    got = {n: v["1"] for n, v in measured(rows, run, names, probs).items()}
    assert got["I_rec@2"] == 0.5  # intent 2 of intents {1, 2}
    # GG(d1) = 0.25 * 2 = 0.5 at rank 1; the ideal d1 (0.5), d0 (0.25)
    d_ndcg = 0.5 / (0.5 + 0.25 / math.log2(3))
    assert got["D_nDCG@2"] == pytest.approx(d_ndcg, rel=1e-15)
    assert got["Dsharp_nDCG@2"] == pytest.approx(0.5 * 0.5 + 0.5 * d_ndcg, rel=1e-15)


def test_ntcireval_no_positive_global_gain_counts_d_ndcg_zero():
    # every relevant intent has probability 0: no document has a global gain, so
    # NTCIREVAL prints no D-nDCG and its D#-nDCG counts it 0 (gamma * I-rec)
    rows = [("1", 1, "d0", 2), ("1", 1, "d1", 1)]
    run = {"1": {"d0": 1.0}}
    probs = {"1": {1: 0.0, 2: 1.0}}
    got = measured(rows, run, ["D_nDCG@1", "I_rec@1", "Dsharp_nDCG@1"], probs)
    assert got["D_nDCG@1"]["1"] == 0.0 and got["I_rec@1"]["1"] == 1.0
    assert got["Dsharp_nDCG@1"]["1"] == 0.5


def test_grades_are_not_binarised():
    # d0 grade 3 on the only intent, d1 grade 1: ranking d1 first loses on D-nDCG and
    # nDCG-IA (ndeval's measures would see two equal relevant documents)
    rows = [("1", 1, "d0", 3), ("1", 1, "d1", 1)]
    run = {"1": {"d1": 2.0, "d0": 1.0}}
    got = measured(rows, run, ["D_nDCG@1", "nDCG_IA@1", "alpha_nDCG@1"])
    assert got["D_nDCG@1"]["1"] == pytest.approx(1 / 3)
    assert got["nDCG_IA@1"]["1"] == pytest.approx(1 / 3)
    assert got["alpha_nDCG@1"]["1"] == 1.0


def test_without_subtopic_qrels_one_clear_error():
    with pytest.raises(cranfield.errors.MeasureError, match="D_nDCG is a diversity measure"):
        cranfield.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, ["D_nDCG@5"])


def test_values_are_in_range():
    rows, run = collection(99)
    got = measured(rows, run, ["D_nDCG@20", "Dsharp_nDCG@20", "I_rec@20", "nDCG_IA@20"])
    for values in got.values():
        v = np.asarray(list(values.values()))
        assert ((v >= 0) & (v <= 1 + 1e-12)).all()
