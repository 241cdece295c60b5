"""Systems of several seeds (``--system NAME=RUN,...``, :mod:`cranfield.compare.seeds`):
the per-topic means over seeds, the spread over seeds and the tests on the per-topic
means, checked against a direct computation with NumPy and SciPy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from cranfield.compare import compare, merge_seeds
from cranfield.errors import ParameterError


def random_scores(rng, n_topics=12, seeds=(3, 1, 4), singles=2, missing=False):
    """Per-query scores of systems ``s0, s1...`` with ``seeds[i]`` runs each, and
    ``singles`` single runs; ``missing``: some seed lacks a topic."""
    topics = [f"q{t}" for t in range(n_topics)]
    by_run, systems = {}, {}
    for i, k in enumerate(seeds):
        names = [f"s{i}_seed{j}" for j in range(k)]
        systems[f"s{i}"] = names
        level = rng.uniform(0.2, 0.6)
        for name in names:
            by_run[name] = {q: float(np.clip(level + rng.normal(0, 0.2), 0, 1)) for q in topics}
    for j in range(singles):
        by_run[f"single{j}"] = {q: float(rng.uniform()) for q in topics}
    if missing:
        del by_run[systems["s0"][-1]][topics[0]]
    return {"AP": by_run}, systems, topics


def collection(tmp_path, seed, n_topics, names, n_docs, depth):
    """Random grades and runs as TREC files: (qrels path, run paths, topic ids)."""
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in range(1, n_topics + 1)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} 0 d{d} {int(rng.integers(0, 3))}\n" for t in topics for d in range(n_docs))
    )
    paths = []
    for name in names:
        path = tmp_path / f"{name}.txt"
        path.write_text(
            "".join(
                f"{t} Q0 d{d} {k + 1} {20 - k} {name}\n"
                for t in topics
                for k, d in enumerate(rng.permutation(n_docs)[:depth])
            )
        )
        paths.append(path)
    return qrels, paths, topics


@pytest.mark.parametrize("case", range(40))
def test_spreads_and_tests_equal_a_direct_computation(case):
    rng = np.random.default_rng(case)
    seeds = tuple(int(k) for k in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    scores, systems, topics = random_scores(
        rng, int(rng.integers(3, 30)), seeds, int(rng.integers(1, 3)), bool(case % 3 == 0)
    )
    merged, spreads, notes = merge_seeds(scores, systems, confidence=0.9)
    by_run = scores["AP"]
    assert (case % 3 == 0 and seeds[0] > 1) == bool(notes)  # a seed lacking a topic
    for spread in spreads:
        runs = systems[spread.system]
        common = sorted(set.intersection(*(set(by_run[r]) for r in runs)))
        matrix = np.array([[by_run[r][q] for q in common] for r in runs])
        # the per-topic means over seeds replace the runs
        got = merged["AP"][spread.system]
        assert sorted(got) == common
        assert [got[q] for q in common] == pytest.approx(matrix.mean(axis=0), rel=1e-15)
        seed_means = matrix.mean(axis=1)
        assert spread.seed_means == pytest.approx(seed_means, rel=1e-15)
        assert spread.mean == pytest.approx(np.mean(matrix), rel=1e-12)
        assert spread.min == seed_means.min() and spread.max == seed_means.max()
        if len(runs) > 1:
            assert spread.sd == pytest.approx(np.std(seed_means, ddof=1), rel=1e-12)
            sem = stats.sem(seed_means)
            low, high = stats.t.interval(0.9, len(runs) - 1, loc=seed_means.mean(), scale=sem)
            assert spread.ci == pytest.approx((low, high), rel=1e-9, abs=1e-12)
        else:
            assert np.isnan(spread.sd) and np.isnan(spread.ci[0])
    grouped = {r for runs in systems.values() for r in runs}
    assert list(merged["AP"]) == list(dict.fromkeys(
        next(s for s, runs in systems.items() if r in runs) if r in grouped else r
        for r in by_run
    ))  # fmt: skip
    # the paired t-test on the per-topic means (on the topics every system has)
    common = sorted(set.intersection(*(set(v) for v in merged["AP"].values())))
    aligned = {"AP": {r: {q: v[q] for q in common} for r, v in merged["AP"].items()}}
    result = compare(aligned, baseline="single0")
    for row in result.rows:
        a, b = merged["AP"][row.run], merged["AP"][row.baseline]
        want = stats.ttest_rel([a[q] for q in common], [b[q] for q in common]).pvalue
        assert row.pvalues["t"] == pytest.approx(want, rel=1e-9), row.run


def test_cli_tests_the_systems_and_reports_their_spread(tmp_path, cli):
    qrels, paths, topics = collection(
        tmp_path, 4, 20, ("bm25", "dense_s1", "dense_s2", "dense_s3"), 12, 10
    )
    argv = ["compare", qrels, *paths, "-m", "AP", "nDCG@10", "-f", "json"]
    status, out, err = cli(*argv, "--system", f"dense={tmp_path}/dense_s*", "--baseline", "dense")
    assert status == 0, err
    doc = json.loads(out)
    status, raw, _ = cli("eval", qrels, *paths, "-m", "AP", "nDCG@10", "-q", "-f", "json")
    per_query = json.loads(raw)
    values = {}  # run -> measure -> topic -> value, from eval -q
    for run in per_query["runs"]:
        for q, by_m in run["per_query"].items():
            for m, v in by_m.items():
                values.setdefault(run["name"], {}).setdefault(m, {})[q] = v
    seeds = ["dense_s1", "dense_s2", "dense_s3"]
    for m in ("AP", "nDCG@10"):
        matrix = np.array([[values[s][m][q] for q in topics] for s in seeds])
        base = np.array([values["bm25"][m][q] for q in topics])
        row = next(r for r in doc["rows"] if r["measure"] == m)
        assert row["run"] == "bm25" and row["baseline"] == "dense"
        assert row["p_t"] == pytest.approx(stats.ttest_rel(base, matrix.mean(axis=0)).pvalue)
        spread = next(s for s in doc["seeds"] if s["measure"] == m)
        assert spread["runs"] == seeds and spread["seeds"] == 3 and spread["topics"] == 20
        assert spread["sd"] == pytest.approx(np.std(matrix.mean(axis=1), ddof=1), rel=1e-12)
    status, out, _ = cli(*argv[:-2], "--system", f"dense=dense_s1,dense_s2,{paths[3]}")
    assert status == 0 and "systems over seeds" in out and "dense" in out


@pytest.mark.parametrize(
    "spec, mention",
    [
        ("dense", "NAME=RUN"),
        ("dense=", "NAME=RUN"),
        ("dense=nothing*", "got 'nothing*'"),
        ("bm25=dense_s1", "a name no other run has"),
    ],
)
def test_bad_systems_are_one_line(tmp_path, cli, spec, mention):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n")
    paths = []
    for name in ("bm25", "dense_s1"):
        path = tmp_path / f"{name}.txt"
        path.write_text(f"1 Q0 d1 1 1.0 {name}\n")
        paths.append(path)
    status, out, err = cli("compare", qrels, *paths, "-m", "AP", "--system", spec)
    assert status == 2 and out == "" and err.count("\n") == 1 and mention in err, err


def test_a_run_in_two_systems_is_refused():
    scores = {"AP": {"a": {"q": 1.0}, "b": {"q": 0.5}}}
    from cranfield.compare.seeds import systems_of

    with pytest.raises(ParameterError, match="one system only"):
        systems_of(["x=a,b", "y=b"], list(scores["AP"]))


def test_eval_reports_each_systems_spread_of_its_seeds_aggregates(tmp_path, cli):
    """``eval --system``: per system and measure, the spread over seeds of each seed's
    own aggregate (GMAP's geometric mean included), against SciPy's t interval."""
    qrels, paths, topics = collection(tmp_path, 9, 10, ("s1", "s2", "s3", "s4"), 10, 8)
    status, out, err = cli(
        "eval", qrels, *paths, "-m", "AP", "GMAP", "-f", "json", "--system", "sys=s*"
    )
    assert status == 0, err
    doc = json.loads(out)
    aggregates = {r["name"]: r["aggregate"] for r in doc["runs"]}
    for row in doc["seeds"]:
        values = np.array([aggregates[r][row["measure"]] for r in ("s1", "s2", "s3", "s4")])
        assert row["seed_means"] == values.tolist()
        assert row["sd"] == pytest.approx(np.std(values, ddof=1), rel=1e-12)
        low, high = stats.t.interval(0.95, 3, loc=values.mean(), scale=stats.sem(values))
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-9)
    assert [r["measure"] for r in doc["seeds"]] == ["AP", "GMAP"]
    status, out, err = cli("eval", qrels, *paths, "--system", "sys=s*", "-f", "csv")
    assert status == 2 and err.count("\n") == 1 and "--system" in err


def test_report_shows_the_spread_and_compares_the_systems(tmp_path, cli):
    """``report --system``: the spread table holds the numbers of ``eval --system``, and
    the systems' comparison has compare --system's p-values."""
    import re

    qrels, paths, topics = collection(tmp_path, 11, 12, ("base", "s1", "s2", "s3"), 10, 8)
    common = ["-m", "AP", "nDCG@10", "--system", "sys=s*"]
    out = tmp_path / "r.html"
    status, _, err = cli(
        "report", qrels, *paths, *common, "--max-depth", "2", "--depths", "1", "-o", out
    )
    assert status == 0, err
    html = out.read_text(encoding="utf-8")
    _, ev, _ = cli("eval", qrels, *paths, *common, "-f", "json")
    want = json.loads(ev)["seeds"]
    start = html.index('<table id="seed-spread"')
    table = html[start : html.index("</table>", start)]
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    assert len(rows) == len(want) == 2
    for row, w in zip(rows, want, strict=True):
        values = [float(v) for v in re.findall(r'data-value="([^"]+)"', row)]
        assert values == pytest.approx(
            [w["seeds"], w["topics"], w["mean"], w["sd"], w["min"], w["max"], w["ci_low"],
             w["ci_high"]], rel=1e-12,
        )  # fmt: skip
    _, cmp, _ = cli("compare", qrels, *paths, *common, "-f", "json")
    assert 'id="comparison-seeds-summary"' in html
    for r in json.loads(cmp)["rows"]:
        assert f"{r['p_t']:.4f}" in html[html.index('id="seeds"') :]
