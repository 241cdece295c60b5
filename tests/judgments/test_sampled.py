"""``cranfield sample_eval`` / :mod:`cranfield.core.sampled` against (1) a direct
rank-by-rank transcription of sample_eval's estimator written here (Yilmaz, Kanoulas &
Aslam 2008, with sample_eval.pl's conventions: smoothing constants, strata in label
order, ties by docno descending, the first 1000 documents), bit for bit on random
stratified samples; (2) trec_eval's AP and precision (cranfield's engine, itself checked
against trec_eval) when every pooled document is judged, where the estimates are the
measures up to the smoothing; (3) a simulation: over repeated samples the mean infAP is
the AP of the complete judgments. sample_eval.pl itself was run on 230 generated cases
(benchmarks/sample_eval_check.py): every output byte-identical, every per-topic value
bit-identical."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import cranfield
from cranfield.core.sampled import (
    MAX_RESULTS,
    SampledTopic,
    estimate_topic,
    evaluate_sampled,
    sample_eval_text,
)


def transcription(topic: SampledTopic, ranked: list[str]) -> tuple[float, float, float]:
    """(infAP, infNDCG, inum_rel_ret) computed rank by rank, as the paper defines them."""
    strata = sorted({s for s, _, _ in topic.docs.values()})
    total = {s: sum(1 for x in topic.docs.values() if x[0] == s) for s in strata}
    judged = {s: sum(1 for x in topic.docs.values() if x[0] == s and x[1] >= 0) for s in strata}
    rel = {s: sum(1 for x in topic.docs.values() if x[0] == s and x[1] > 0) for s in strata}
    num_rel = 0
    for s in strata:
        if judged[s]:
            num_rel += rel[s] * total[s] / judged[s]
    seen = dict.fromkeys(strata, 0)
    sampled = dict.fromkeys(strata, 0)
    found = dict.fromkeys(strata, 0)
    sap = dict.fromkeys(strata, 0.0)
    gain = dict.fromkeys(strata, 0.0)
    depth = 0
    estimate = 0.0
    for k, doc in enumerate(ranked[:MAX_RESULTS], 1):
        entry = topic.docs.get(doc)
        if entry is not None and entry[1] > 0:
            above = 0.0
            for s in strata:
                if depth and seen[s] / depth:
                    above += (seen[s] / depth) * (found[s] + 0.00001) / (sampled[s] + 0.00003)
            sap[entry[0]] += 1 / k + (depth / k) * above
            found[entry[0]] += 1
            gain[entry[0]] += entry[1] / (math.log(k + 1) / math.log(2))
        if entry is not None:
            depth += 1
            seen[entry[0]] += 1
            sampled[entry[0]] += entry[1] >= 0
        estimate = 0.0
        for s in strata:
            estimate += seen[s] * (found[s] + 0.00001) / (sampled[s] + 0.00003)
    ap = 0.0
    for s in strata:
        if judged[s] and num_rel:
            ap += (rel[s] * total[s] / judged[s] / num_rel) * (sap[s] / rel[s] if rel[s] else 0)
    grades: dict[str, float] = {}
    for s in strata:
        for label in sorted({x[2] for x in topic.docs.values() if x[0] == s and x[1] > 0}):
            n = sum(1 for x in topic.docs.values() if x[0] == s and x[2] == label)
            grades[label] = grades.get(label, 0) + n * total[s] / judged[s]
    ideal, start = 0.0, 0
    for label in sorted(grades, reverse=True):
        for r in range(start + 1, start + int(grades[label] + 0.5) + 1):
            ideal += float(label) / (math.log(r + 1) / math.log(2))
            if r >= MAX_RESULTS:
                break
        start += int(grades[label] + 0.5)
    dcg = 0.0
    for s in strata:
        if depth and sampled[s]:
            dcg += (seen[s] / depth) * gain[s] / sampled[s]
    return ap, (depth * dcg / ideal if ideal else 0.0), estimate


def random_topic(rng: random.Random, n_docs: int, rates, grades) -> SampledTopic:
    topic = SampledTopic()
    pool = rng.sample(range(3 * n_docs), n_docs)
    for k, d in enumerate(pool):
        stratum = str(1 + k * len(rates) // n_docs)
        label = str(rng.choice(grades)) if rng.random() < rates[int(stratum) - 1] else "-1"
        topic.docs[f"d{d}"] = (stratum, int(label), label)
    return topic


@pytest.mark.parametrize("seed", range(60))
def test_the_estimates_equal_a_rank_by_rank_transcription(seed):
    rng = random.Random(seed)
    rates = [rng.choice([1.0, 0.6, 0.3, 0.1]) for _ in range(rng.randint(1, 4))]
    topic = random_topic(rng, rng.randint(1, 150), rates, rng.choice([(0, 1), (0, 1, 2), (0, 3)]))
    ranked = [f"d{d}" for d in rng.sample(range(500), rng.randint(1, 400))]
    got = estimate_topic("1", topic, ranked, len(ranked))
    ap, ndcg, rel_ret = transcription(topic, ranked)
    assert (got.inf_ap, got.inf_ndcg, got.num_rel_ret) == (ap, ndcg, rel_ret)


def write(tmp_path, topics: dict[str, SampledTopic], runs: dict[str, list[str]]):
    q, r = tmp_path / "sampled.txt", tmp_path / "run.txt"
    q.write_text(
        "".join(
            f"{t} 0 {d} {s} {label}\n"
            for t, topic in topics.items()
            for d, (s, _, label) in topic.docs.items()
        )
    )
    r.write_text(
        "".join(
            f"{t} Q0 {d} {k + 1} {len(docs) - k} run\n"
            for t, docs in runs.items()
            for k, d in enumerate(docs)
        )
    )
    return q, r


def test_with_every_document_judged_the_estimates_are_the_measures(tmp_path):
    """infAP, iP10 and iP50 against the AP and precision of the same judgments."""
    rng = random.Random(7)
    topics = {str(t): random_topic(rng, 80, [1.0, 1.0], (0, 0, 1)) for t in range(1, 16)}
    runs = {t: [f"d{d}" for d in rng.sample(range(240), 100)] for t in topics}
    q, r = write(tmp_path, topics, runs)
    adhoc = tmp_path / "qrels.txt"
    adhoc.write_text(
        "".join(
            f"{t} 0 {d} {g}\n" for t, topic in topics.items() for d, (_, g, _) in topic.docs.items()
        )
    )
    exact = cranfield.evaluate(str(adhoc), str(r), ["AP", "P@10", "P@50"]).runs[0]
    estimates = {e.topic: e for e in evaluate_sampled(q, r).topics}
    for k, t in enumerate(exact.query_ids):
        e = estimates[t]
        values = {str(m): float(exact.values[m][k]) for m in exact.values}
        assert e.inf_ap == pytest.approx(values["AP"], abs=2e-4)
        assert e.precision[0] == pytest.approx(values["P@10"], abs=2e-4)
        assert e.precision[1] == pytest.approx(values["P@50"], abs=2e-4)


def test_over_repeated_samples_infap_is_the_complete_ap():
    """A 40% sample of the pool (one stratum): the mean of 400 estimates is the AP of
    the complete judgments (its standard error about 0.002 here)."""
    rng = random.Random(3)
    full = random_topic(rng, 120, [1.0], (0, 0, 0, 1))
    ranked = list(full.docs)
    rng.shuffle(ranked)
    truth = estimate_topic("1", full, ranked, len(ranked)).inf_ap
    draws = []
    for _ in range(400):
        sample = SampledTopic(
            {
                d: (s, g, label) if rng.random() < 0.4 else (s, -1, "-1")
                for d, (s, g, label) in full.docs.items()
            }
        )
        draws.append(estimate_topic("1", sample, ranked, len(ranked)).inf_ap)
    assert abs(np.mean(draws) - truth) < 4 * np.std(draws) / math.sqrt(len(draws)) + 0.005
    assert np.std(draws) > 0.01  # the samples do vary: the check above can fail


def test_a_hand_computed_topic(tmp_path):
    """Two strata: 'A' judged completely, 'B' half judged; the run ranks a, x, b, c."""
    topic = SampledTopic(
        {
            "a": ("A", 1, "1"),
            "b": ("A", 0, "0"),
            "c": ("B", 1, "1"),
            "d": ("B", -1, "-1"),
        }
    )
    e = estimate_topic("7", topic, ["a", "x", "b", "c"], 4)
    assert e.num_rel == pytest.approx(1 + 1 * 2 / 1)  # A: 1 of 2; B: 1 of 1 judged, 2 pooled
    # a at rank 1: precision 1; c at rank 4, three pooled above... two of them (a, b)
    # pooled, both in A, one relevant: (1 + 1e-5) / (2 + 3e-5)
    p_c = 1 / 4 + (2 / 4) * ((2 / 2) * (1 + 0.00001) / (2 + 0.00003))
    assert e.inf_ap == pytest.approx((1 / 3) * 1.0 + (2 / 3) * p_c, rel=1e-15)


def test_the_command_prints_the_same_as_the_library(tmp_path, cli):
    rng = random.Random(11)
    topics = {str(t): random_topic(rng, 30, [1.0, 0.5], (0, 1, 2)) for t in (3, 12, 1)}
    runs = {t: [f"d{d}" for d in rng.sample(range(90), 40)] for t in topics}
    q, r = write(tmp_path, topics, runs)
    status, out, err = cli("sample_eval", "-q", q, r)
    assert status == 0, err
    assert out == sample_eval_text(evaluate_sampled(q, r), per_topic=True)
    assert [line.split("\t")[2] for line in out.splitlines()[:25:8]] == ["1", "3", "12", "all"]
