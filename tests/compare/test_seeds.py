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


def table_values(html: str, table_id: str) -> list[list[float]]:
    """The numbers (``data-value``) of each body row of the report's table ``table_id``."""
    import re

    start = html.index(f'<table id="{table_id}"')
    table = html[start : html.index("</table>", start)]
    rows = re.findall(r"<tr>(.*?)</tr>", table)[1:]
    return [[float(v) for v in re.findall(r'data-value="([^"]+)"', row)] for row in rows]


def spread_cells(w: dict) -> list[float]:
    """A JSON spread row's numbers in the report table's column order."""
    keys = ("seeds", "topics", "mean", "sd", "min", "max", "ci_low", "ci_high")
    return [w[k] for k in keys]


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
    rows = table_values(html, "seed-spread")
    assert len(rows) == len(want) == 2
    for values, w in zip(rows, want, strict=True):
        assert values == pytest.approx(spread_cells(w), rel=1e-12)
    _, cmp, _ = cli("compare", qrels, *paths, *common, "-f", "json")
    assert 'id="comparison-seeds-summary"' in html
    for r in json.loads(cmp)["rows"]:
        assert f"{r['p_t']:.4f}" in html[html.index('id="seeds"') :]


@pytest.mark.parametrize("column, layout", [("seed", "wide"), ("fold", "long")])
def test_a_seed_column_of_a_per_query_table_names_the_systems(tmp_path, cli, column, layout):
    """``compare --from-per-query`` with a seed (fold) column: each (run, seed) a run,
    merged per system as ``--system`` merges the files of its seeds."""
    qrels, paths, _ = collection(tmp_path, 7, 15, ("bm25", "d1", "d2", "d3"), 12, 10)
    argv = ["-m", "AP", "nDCG@10", "-f", "json"]
    status, out, err = cli("compare", qrels, *paths, *argv, "--system", "dense=d1,d2,d3")
    assert status == 0, err
    by_files = json.loads(out)
    status, raw, _ = cli("eval", qrels, *paths, "-m", "AP", "nDCG@10", "-q", "-f", "json")
    rows = []  # the per-query table with a seed column, written here
    for run in json.loads(raw)["runs"]:
        system, seed = ("bm25", "1") if run["name"] == "bm25" else ("dense", run["name"][1:])
        for q, by_m in run["per_query"].items():
            if layout == "wide":
                rows.append(f"{system},{seed},{q},{by_m['AP']!r},{by_m['nDCG@10']!r}")
            else:
                rows += [f"{system}\t{seed}\t{q}\t{m}\t{v!r}" for m, v in by_m.items()]
    table = tmp_path / "scores.txt"
    head = (
        f"run,{column},query,AP,nDCG@10"
        if layout == "wide"
        else f"run\t{column}\tqid\tmeasure\tvalue"
    )
    table.write_text(head + "\n" + "\n".join(rows) + "\n")
    status, out, err = cli("compare", "--from-per-query", table, "-f", "json")
    assert status == 0, err
    by_table = json.loads(out)
    for a, b in zip(by_files["rows"], by_table["rows"], strict=True):
        assert {k: v for k, v in a.items() if k != "run" and k != "baseline"} == {
            k: v for k, v in b.items() if k != "run" and k != "baseline"
        }
    assert [s["seed_means"] for s in by_table["seeds"] if s["system"] == "dense"] == [
        s["seed_means"] for s in by_files["seeds"]
    ]
    assert by_table["seeds"][-1]["runs"] == ["dense@1", "dense@2", "dense@3"]
    # the bm25 "system" of one seed is a system too (its spread is undefined)
    status, _, err = cli("compare", "--from-per-query", table, "--system", "x=dense@1")
    assert status == 2 and err.count("\n") == 1 and "seed or fold column" in err
    status, _, err = cli("compare", "--from-per-query", table, "-f", "csv")
    assert status == 2 and err.count("\n") == 1 and "spread over seeds" in err


def test_a_table_with_both_seed_and_fold_columns_is_refused(tmp_path, cli):
    table = tmp_path / "s.csv"
    table.write_text("run,seed,fold,query,AP\na,1,1,q1,0.5\n")
    status, _, err = cli("compare", "--from-per-query", table)
    assert status == 2 and err.count("\n") == 1 and "not both" in err


@pytest.mark.parametrize("fmt", ["latex", "html"])
def test_the_spread_table_in_latex_and_html(tmp_path, cli, fmt):
    qrels, paths, _ = collection(tmp_path, 9, 10, ("bm25", "d_1", "d_2"), 10, 8)
    argv = ["compare", qrels, *paths, "-m", "AP", "--system", "d&x=d_1,d_2"]
    status, out, err = cli(*argv, "-f", fmt)
    assert status == 0, err
    status, js, _ = cli(*argv, "-f", "json")
    (spread,) = json.loads(js)["seeds"]
    mean = f"{spread['mean']:.4f}"
    if fmt == "latex":
        assert r"d\&x & AP & 2 & 10 & " + mean in out and r"\begin{tabular}{llrrrrrrrr}" in out
    else:
        assert f"<tr><td>d&amp;x</td><td>AP</td><td>2</td><td>10</td><td>{mean}</td>" in out


def test_each_topic_group_gets_the_spread_of_its_own_topics(tmp_path, cli):
    """``--system`` with ``--topic-groups``: a group's spread over seeds is the spread of
    the seeds' means over that group's topics (computed here from eval -q)."""
    qrels, paths, topics = collection(tmp_path, 11, 16, ("bm25", "d1", "d2", "d3"), 12, 10)
    groups = tmp_path / "groups.tsv"
    group_of = {t: ("hard" if int(t) % 3 == 0 else "easy") for t in topics}
    groups.write_text("topic\tgroup\n" + "".join(f"{t}\t{g}\n" for t, g in group_of.items()))
    argv = ["compare", qrels, *paths, "-m", "AP", "--system", "dense=d1,d2,d3", "-f", "json"]
    status, out, err = cli(*argv, "--topic-groups", groups)
    assert status == 0, err
    doc = json.loads(out)
    status, raw, _ = cli("eval", qrels, *paths, "-m", "AP", "-q", "-f", "json")
    values = {
        r["name"]: {q: v["AP"] for q, v in r["per_query"].items()} for r in json.loads(raw)["runs"]
    }
    assert set(doc["groups_seeds"]) == {"easy", "hard"}
    for group, rows in doc["groups_seeds"].items():
        mine = [t for t in topics if group_of[t] == group]
        means = np.array([np.mean([values[s][t] for t in mine]) for s in ("d1", "d2", "d3")])
        (row,) = rows
        assert row["topics"] == len(mine) and row["seeds"] == 3
        assert row["seed_means"] == pytest.approx(means.tolist(), rel=1e-12)
        assert row["sd"] == pytest.approx(np.std(means, ddof=1), rel=1e-12)
    status, text, _ = cli(*argv[:-2], "--topic-groups", groups)
    assert status == 0 and "systems over seeds, topic group hard" in text


def test_the_report_gives_each_topic_group_its_spread_over_seeds(tmp_path, cli):
    """``report --system --topic-groups``: each group's spread table holds the numbers of
    ``compare --system --topic-groups`` (JSON ``groups_seeds``)."""

    qrels, paths, topics = collection(tmp_path, 13, 12, ("base", "s1", "s2"), 10, 8)
    groups = tmp_path / "g.tsv"
    groups.write_text("topic\tgroup\n" + "".join(f"{t}\t{'ab'[int(t) % 2]}\n" for t in topics))
    common = ["-m", "AP", "--system", "sys=s*", "--topic-groups", groups]
    out = tmp_path / "r.html"
    status, _, err = cli(
        "report", qrels, *paths, *common, "--max-depth", "2", "--depths", "1", "-o", out
    )
    assert status == 0, err
    html = out.read_text(encoding="utf-8")
    status, cmp, err = cli("compare", qrels, *paths, *common, "-f", "json")
    assert status == 0, err
    want = json.loads(cmp)["groups_seeds"]
    order = list(dict.fromkeys("ab"[int(t) % 2] for t in topics))  # as in the file
    for k, name in enumerate(order):
        (values,) = table_values(html, f"seed-spread-group-{k}")
        (w,) = want[name]
        assert values == pytest.approx(spread_cells(w), rel=1e-12)


def test_eval_gives_each_topic_group_its_spread_over_seeds(tmp_path, cli):
    qrels, paths, topics = collection(tmp_path, 17, 14, ("s1", "s2", "s3"), 10, 8)
    groups = tmp_path / "g.tsv"
    group_of = {t: ("x" if int(t) <= 5 else "y") for t in topics}
    groups.write_text("topic\tgroup\n" + "".join(f"{t}\t{g}\n" for t, g in group_of.items()))
    argv = ["eval", qrels, *paths, "-m", "AP", "--system", "sys=s*"]
    status, out, err = cli(*argv, "--topic-groups", groups, "-f", "json")
    assert status == 0, err
    got = json.loads(out)["groups_seeds"]
    _, raw, _ = cli("eval", qrels, *paths, "-m", "AP", "-q", "-f", "json")
    values = {
        r["name"]: {q: v["AP"] for q, v in r["per_query"].items()} for r in json.loads(raw)["runs"]
    }
    for g in ("x", "y"):
        mine = [t for t in topics if group_of[t] == g]
        means = [np.mean([values[s][t] for t in mine]) for s in ("s1", "s2", "s3")]
        (row,) = got[g]
        assert row["seed_means"] == pytest.approx(means, rel=1e-12) and row["topics"] == len(mine)
        assert row["sd"] == pytest.approx(np.std(means, ddof=1), rel=1e-12)
    status, text, _ = cli(*argv, "--topic-groups", groups)
    assert status == 0 and "systems over seeds, topic group y" in text
