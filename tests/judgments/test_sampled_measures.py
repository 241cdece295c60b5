"""The sampled estimators as measures (``xinfAP``, ``infNDCG``, ``statAP``, ``statPC@k``
with ``--sampled-qrels`` / ``evaluate(sampled_qrels=)``): their per-topic values are
``sample_eval``'s (:func:`cranfield.core.sampled.evaluate_sampled`, itself checked
byte for byte against sample_eval.pl by benchmarks/sample_eval_check.py and against a
rank-by-rank transcription in test_sampled.py), bit for bit, on generated stratified and
probability samples, whatever path the evaluation takes (files, Run objects, eval,
compare, report)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import cranfield
from cranfield.core.sampled import evaluate_sampled
from cranfield.errors import MeasureError, ParameterError

from .test_sampled import random_topic

MEASURES = ["AP", "xinfAP", "infNDCG", "statAP", "statPC@10", "statPC@3"]


def write_case(tmp_path, seed: int, zeros: bool = False):
    """Six-column sampled qrels, the ordinary qrels of their judged pairs, two runs."""
    rng = random.Random(seed)
    ids = [str(t) for t in rng.sample(range(1, 60), rng.randint(1, 6))]
    rates = [rng.choice([1.0, 0.6, 0.3]) for _ in range(rng.randint(1, 3))]
    grades = rng.choice([(0, 1), (0, 1, 2), (0, 0, 3)])
    topics = {t: random_topic(rng, rng.randint(2, 60), rates, grades) for t in ids}
    sampled, qrels = [], []
    for t, topic in topics.items():
        shown = "0" + t if zeros else t  # sample_eval ignores leading zeros of the run's
        for d, (s, grade, label) in topic.docs.items():
            p = rng.choice([0.2, 0.5, 1.0]) if grade >= 0 else rng.choice([0.1, 0.4])
            sampled.append(f"{shown} 0 {d} {s} {label} {p!r}\n")
            if grade >= 0:
                qrels.append(f"{t} 0 {d} {grade}\n")
    q, s = tmp_path / "qrels.txt", tmp_path / "sampled.txt"
    q.write_text("".join(qrels) or "1 0 x 0\n")
    s.write_text("".join(sampled))
    runs = []
    for name in ("a", "b"):
        lines = []
        for t in ids:
            docs = rng.sample(range(200), rng.randint(0, 80))
            scores = [rng.choice([1.0, 2.0, 3.0, rng.random()]) for _ in docs]  # ties
            lines += [
                f"{t} Q0 d{d} {k} {sc!r} {name}\n"
                for k, (d, sc) in enumerate(zip(docs, scores, strict=True))
            ]
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(lines) or f"{ids[0]} Q0 d0 1 1 {name}\n")
        runs.append(path)
    return q, s, runs


def expected(sampled, run, query_ids, measure: str) -> np.ndarray:
    """sample_eval's per-topic value of each query (0 where it has none)."""
    from cranfield.core.sampled import _topic_key, read_sampled_qrels
    from cranfield.core.statap import estimate_statap

    result = evaluate_sampled(sampled, run, statap=True)
    if measure == "statPC@3":  # sample_eval_text prints statPC@10 only: the cutoff 3 by hand
        topics = read_sampled_qrels(sampled)
        from cranfield.core.run import Run
        from cranfield.core.sampled import ranked_by_topic

        ranked = ranked_by_topic(Run.read(str(run)).table)
        by = {
            t: estimate_statap(t, topics[t], ranked[t][0], 3).stat_pc for t in ranked if t in topics
        }
    else:
        field = {"xinfAP": "inf_ap", "infNDCG": "inf_ndcg"}.get(measure)
        if field:
            by = {e.topic: getattr(e, field) for e in result.topics}
        else:
            field = {"statAP": "stat_ap", "statPC@10": "stat_pc"}[measure]
            by = {e.topic: getattr(e, field) for e in result.stat}
    return np.array([by.get(_topic_key(q), 0.0) for q in query_ids])


@pytest.mark.parametrize("seed", range(40))
def test_per_topic_values_are_sample_evals(tmp_path, seed):
    q, s, runs = write_case(tmp_path, seed, zeros=seed % 5 == 0)
    results = cranfield.evaluate(str(q), [str(r) for r in runs], MEASURES, sampled_qrels=str(s))
    for run, path in zip(results.runs, runs, strict=True):
        for m in results.measures:
            if m.name == "AP":
                continue
            want = expected(s, path, run.query_ids, str(m))
            assert np.array_equal(np.asarray(run.values[m]), want), (str(m), run.name)
            assert run.aggregates[m] == pytest.approx(float(np.mean(want)), rel=1e-15)


def test_run_objects_and_files_give_the_same_values(tmp_path):
    q, s, runs = write_case(tmp_path, 3)
    from cranfield.core.sampled import read_sampled_qrels

    objects = [cranfield.Run.read(str(r)) for r in runs]
    by_path = cranfield.evaluate(str(q), [str(r) for r in runs], MEASURES, sampled_qrels=str(s))
    by_object = cranfield.evaluate(
        cranfield.Qrels.read(str(q)), objects, MEASURES, sampled_qrels=read_sampled_qrels(s)
    )
    for a, b in zip(by_path.runs, by_object.runs, strict=True):
        for m in by_path.measures:
            assert np.array_equal(np.asarray(a.values[m]), np.asarray(b.values[m]))


def test_with_every_pooled_document_judged_xinfap_is_close_to_ap(tmp_path):
    """A census (every stratum sampled at rate 1): xinfAP is the AP of the same judgments
    up to sample_eval's smoothing (10^-5 / 3·10^-5 per stratum above a relevant one)."""
    rng = random.Random(5)
    topics = {str(t): random_topic(rng, 60, [1.0, 1.0], (0, 0, 1)) for t in range(1, 9)}
    sampled = "".join(
        f"{t} 0 {d} {st} {label}\n"
        for t, tp in topics.items()
        for d, (st, _, label) in tp.docs.items()
    )
    qrels = "".join(
        f"{t} 0 {d} {g}\n" for t, tp in topics.items() for d, (_, g, _) in tp.docs.items()
    )
    run = "".join(
        f"{t} Q0 {d} {k} {60 - k} r\n" for t, tp in topics.items() for k, d in enumerate(tp.docs)
    )
    for name, text in (("s.txt", sampled), ("q.txt", qrels), ("r.txt", run)):
        (tmp_path / name).write_text(text)
    res = cranfield.evaluate(
        str(tmp_path / "q.txt"),
        str(tmp_path / "r.txt"),
        ["AP", "xinfAP"],
        sampled_qrels=str(tmp_path / "s.txt"),
    )
    ap, xinf = (np.asarray(v) for v in res.runs[0].values.values())
    assert np.allclose(ap, xinf, atol=1e-4) and not np.array_equal(ap, xinf)


def test_a_query_without_sampled_judgments_scores_0(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "s.txt").write_text("1 0 a 1 1\n1 0 c 1 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n1 Q0 c 2 1 r\n2 Q0 b 1 2 r\n")
    res = cranfield.evaluate(
        str(tmp_path / "q.txt"),
        str(tmp_path / "r.txt"),
        ["xinfAP"],
        sampled_qrels=str(tmp_path / "s.txt"),
    )
    values = np.asarray(next(iter(res.runs[0].values.values())))
    assert list(res.runs[0].query_ids) == ["1", "2"]
    assert values[0] == pytest.approx(1.0, abs=1e-4) and values[1] == 0.0


def test_without_the_sampled_qrels_one_clear_error(tmp_path, cli):
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n")
    with pytest.raises(MeasureError, match="needs sampled qrels"):
        cranfield.evaluate(str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), ["xinfAP"])
    status, out, err = cli("eval", tmp_path / "q.txt", tmp_path / "r.txt", "-m", "statAP")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "--sampled-qrels" in err


def test_statap_without_probabilities_one_clear_error(tmp_path, cli):
    (tmp_path / "q.txt").write_text("1 0 a 1\n")
    (tmp_path / "s.txt").write_text("1 0 a 1 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 2 r\n")
    status, out, err = cli(
        "eval",
        tmp_path / "q.txt",
        tmp_path / "r.txt",
        "-m",
        "statAP",
        "--sampled-qrels",
        tmp_path / "s.txt",
    )
    assert status == 2 and err.count("\n") == 1 and "inclusion probabilities" in err


def test_dask_refuses_the_sampled_qrels(tmp_path):
    q, s, runs = write_case(tmp_path, 1)
    from cranfield.distributed.evaluation import evaluate_counted

    with pytest.raises(ParameterError, match="sampled qrels"):
        evaluate_counted(str(q), [str(runs[0])], ["xinfAP"], None, sampled_qrels=str(s))


def test_eval_compare_and_report_use_the_option(tmp_path, cli):
    q, s, runs = write_case(tmp_path, 8)
    results = cranfield.evaluate(
        str(q), [str(r) for r in runs], ["xinfAP"], sampled_qrels=str(s), complete=True
    )
    status, out, err = cli(
        "eval", q, *runs, "-m", "xinfAP", "-c", "--sampled-qrels", s, "-f", "json"
    )
    assert status == 0, err
    import json

    rows = json.loads(out)
    assert "xinfAP" in out and rows
    status, out, err = cli(
        "compare", q, *runs, "-m", "xinfAP", "-c", "--sampled-qrels", s, "-f", "csv"
    )
    assert status == 0, err
    a, b = (r.aggregates[results.measures[0]] for r in results.runs)
    assert f"{b - a:.4f}"[:5] in out or f"{b - a:+.4f}" in out
    status, out, err = cli(
        "report",
        q,
        *runs,
        "-m",
        "xinfAP",
        "AP",
        "-c",
        "--sampled-qrels",
        s,
        "-o",
        tmp_path / "r.html",
    )
    assert status == 0, err
    assert "xinfAP" in (tmp_path / "r.html").read_text()


def test_eval_ci_gives_the_t_and_horvitz_thompson_intervals(tmp_path, cli):
    """``eval --ci``: the t interval of every mean-aggregated measure, against SciPy's
    ``t.interval``; the Horvitz-Thompson one of statAP and statPC@10 from the per-topic
    variances of :func:`~cranfield.core.statap.estimate_statap`, by hand, and xinfAP's
    from its jackknife variances; none for AP."""
    import json
    import math

    from scipy import stats

    q, s, runs = write_case(tmp_path, 6)  # five topics, variances > 0
    status, out, err = cli(
        "eval",
        q,
        runs[0],
        "-m",
        "AP",
        "xinfAP",
        "statAP",
        "statPC@10",
        "-c",
        "-q",
        "--sampled-qrels",
        s,
        "-f",
        "json",
        "--ci",
    )
    assert status == 0, err
    doc = json.loads(out)
    rows = {r["measure"]: r for r in doc["intervals"]}
    assert set(rows) == {"AP", "xinfAP", "statAP", "statPC@10"}
    results = cranfield.evaluate(
        str(q), str(runs[0]), list(rows), sampled_qrels=str(s), complete=True
    )
    run = results.runs[0]
    stat = {e.topic: e for e in evaluate_sampled(s, runs[0], statap=True).stat}
    for m in results.measures:
        values = np.asarray(run.values[m])
        row = rows[str(m)]
        sem = stats.sem(values)
        if sem > 0:
            lo, hi = stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=sem)
        else:  # (SciPy gives nan for a zero scale; the interval is then the mean itself)
            lo = hi = values.mean()
        assert row["t_low"] == pytest.approx(lo, rel=1e-12, abs=1e-15)
        assert row["t_high"] == pytest.approx(hi, rel=1e-12, abs=1e-15)
        if str(m) in ("statAP", "statPC@10"):
            field = "stat_ap_var" if str(m) == "statAP" else "stat_pc_var"
            var = sum(getattr(stat[t], field) for t in stat if t in set(run.query_ids))
            half = 1.959963984540054 * math.sqrt(var) / len(values)
            assert row["sample_low"] == pytest.approx(values.mean() - half, rel=1e-12)
            assert row["sample_high"] == pytest.approx(values.mean() + half, rel=1e-12)
            assert half > 0
        elif str(m) == "xinfAP":  # the stratified jackknife's variances
            jack = evaluate_sampled(s, runs[0], variances=True)
            var = sum(v[0] for e, v in zip(jack.topics, jack.variances, strict=True))
            half = 1.959963984540054 * math.sqrt(var) / len(values)
            assert row["sample_low"] == pytest.approx(values.mean() - half, rel=1e-12)
            assert row["sample_high"] == pytest.approx(values.mean() + half, rel=1e-12)
        else:
            assert row["sample_low"] is None and row["sample_high"] is None
    status, text, err = cli(
        "eval", q, runs[0], "-m", "AP", "statAP", "--sampled-qrels", s, "-c", "--ci"
    )
    assert status == 0, err
    assert "95% intervals" in text and text.count("\n") == 7 and text.endswith("\n")


@pytest.mark.parametrize(
    "more", [["-f", "csv"], ["--aggregate", "micro", "-m", "P@10"], ["--skip-no-relevant"]]
)
def test_eval_ci_refuses_what_it_cannot_show(tmp_path, cli, more):
    q, s, runs = write_case(tmp_path, 2)
    status, out, err = cli("eval", q, runs[0], "--ci", *more)
    assert status == 2 and out == "" and "--ci" in err and err.count("\n") == 1


def test_json_provenance_hashes_the_second_judgment_files(tmp_path, cli):
    import json

    q, s, runs = write_case(tmp_path, 4)
    sub = tmp_path / "subtopics.txt"
    sub.write_text("1 1 d1 1\n")
    argv = ["-m", "xinfAP", "--sampled-qrels", s, "--subtopic-qrels", sub, "-f", "json"]
    status, out, err = cli("eval", q, runs[0], *argv)
    assert status == 0, err
    paths = [i["path"] for i in json.loads(out)["provenance"]["inputs"]]
    assert paths == [str(q), str(runs[0]), str(sub), str(s)]
