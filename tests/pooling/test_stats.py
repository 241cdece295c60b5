"""Pool statistics against brute force, and the ``cranfield pool stats`` output."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield import Qrels, Run, sample
from cranfield.cli.main import main
from cranfield.errors import InputError, ParameterError
from cranfield.pooling.stats import pool_stats
from generators import pool_qrels, pool_runs

from . import reference as ref


def brute_force(qrels, runs, k, depths, rel_level=1):
    tops = [{q: ref.ranking(run, q)[:k] for q in run} for run in runs]
    found: dict[tuple[str, str], int] = {}
    for top in tops:
        for q, docs in top.items():
            for d in docs:
                found[(q, d)] = found.get((q, d), 0) + 1
    unique, unique_rel, judged = [], [], []
    for run, top in zip(runs, tops, strict=True):
        mine = [(q, d) for q, docs in top.items() for d in docs if found[(q, d)] == 1]
        unique.append(len(mine))
        unique_rel.append(sum(qrels.get(q, {}).get(d, -9) >= rel_level for q, d in mine))
        per_depth = {}
        for depth in depths:
            fractions = []
            for q in run:
                r = ref.ranking(run, q)[:depth]
                fractions.append(sum(d in qrels[q] for d in r) / len(r))
            per_depth[str(depth)] = sum(fractions) / len(fractions)
        judged.append(per_depth)
    sizes: dict[str, int] = {}
    for q, _ in found:
        sizes[q] = sizes.get(q, 0) + 1
    found_by: dict[str, dict[int, int]] = {}
    for q, docs in qrels.items():
        for d, g in docs.items():
            if g >= rel_level:
                c = found.get((q, d), 0)
                found_by.setdefault(q, {})[c] = found_by.setdefault(q, {}).get(c, 0) + 1
    return len(found), sizes, unique, unique_rel, judged, found_by


@pytest.mark.parametrize("seed", range(25))
def test_stats_equal_brute_force(seed):
    rng = np.random.default_rng(500 + seed)
    runs = pool_runs(rng, int(rng.integers(1, 5)))
    qrels = pool_qrels(rng)
    k = int(rng.integers(1, 8))
    depths = [1, 3, 10]
    got = pool_stats(
        Qrels.from_dict(qrels),
        [Run.from_dict(r, name=f"r{i}") for i, r in enumerate(runs)],
        k,
        judged_at=depths,
    )
    size, sizes, unique, unique_rel, judged, found_by = brute_force(qrels, runs, k, depths)
    doc = got.to_json()
    assert doc["pool_size"] == size
    assert doc["topics"] == dict(sorted(sizes.items(), key=lambda kv: kv[0].encode()))
    assert list(doc["topics"]) == sorted(sizes, key=str.encode)
    assert [r["unique"] for r in doc["runs"]] == unique
    assert [r["unique_relevant"] for r in doc["runs"]] == unique_rel
    for r, want in zip(doc["runs"], judged, strict=True):
        assert r["judged"] == pytest.approx(want, abs=1e-12)
    assert {q: dict(h) for q, h in got.found_by.items()} == found_by
    for q, hist in got.found_by.items():
        assert sum(hist.values()) == got.relevant[q]


def test_json_schema_is_exactly_the_documented_one(tmp_path, capsys):
    qrels, runs = sample.load()
    paths = []
    for name, run in runs.items():
        paths.append(str(tmp_path / f"{name}.run"))
        run.to_trec(paths[-1])
    qrels.to_trec(tmp_path / "qrels")
    assert (
        main(["pool", "stats", str(tmp_path / "qrels"), *paths, "--depth", "20", "-f", "json"]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"depth", "pool_size", "topics", "runs"}
    assert doc["depth"] == 20
    assert sum(doc["topics"].values()) == doc["pool_size"]
    assert [r["name"] for r in doc["runs"]] == [Run.read(p).name for p in paths]
    for r in doc["runs"]:
        assert set(r) == {"name", "unique", "unique_relevant", "judged"}
        assert list(r["judged"]) == ["10", "20", "50", "100"]
        assert 0 <= r["unique_relevant"] <= r["unique"]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_text_and_markdown_name_every_run_and_topic(fmt, capsys, tmp_path):
    qrels, runs = sample.load()
    q = tmp_path / "qrels"
    qrels.to_trec(q)
    paths = []
    for name, run in runs.items():
        paths.append(str(tmp_path / f"{name}.run"))
        run.to_trec(paths[-1])
    assert main(["pool", "stats", str(q), *paths, "-k", "5", "-f", fmt]) == 0
    out = capsys.readouterr().out
    for name in runs:
        assert name in out
    for topic in qrels.query_ids():
        assert f"\n{topic} " in out or f"| {topic} |" in out


def test_run_topics_absent_from_the_qrels_are_an_error():
    run = Run.from_dict({"1": {"a": 1.0}, "2": {"b": 1.0}}, name="sys")
    with pytest.raises(InputError, match="'sys' has 1 topic.* absent from the qrels: 2"):
        pool_stats(Qrels.from_dict({"1": {"a": 1}}), [run], 10)


@pytest.mark.parametrize("kw", [{"depth": 0}, {"depth": 5, "judged_at": [0]}])
def test_bad_depths(kw):
    run = Run.from_dict({"1": {"a": 1.0}})
    with pytest.raises(ParameterError):
        pool_stats(Qrels.from_dict({"1": {"a": 1}}), [run], **kw)


@pytest.mark.parametrize("seed", range(15))
def test_overlap_equals_brute_force(seed):
    rng = np.random.default_rng(2100 + seed)
    runs = pool_runs(rng, int(rng.integers(1, 5)))
    k = int(rng.integers(1, 6))
    names = [f"r{i}" for i in range(len(runs))]
    got = pool_stats(
        Qrels.from_dict(pool_qrels(rng)),
        [Run.from_dict(r, name=n) for r, n in zip(runs, names, strict=True)],
        k,
        overlap=True,
    )
    for i, a in enumerate(runs):
        for j, b in enumerate(runs):
            values = []
            for q in ref.topics(runs):
                ta = set(ref.ranking(a, q)[:k])
                tb = set(ref.ranking(b, q)[:k])
                if ta | tb:
                    values.append(len(ta & tb) / len(ta | tb))
            want = sum(values) / len(values)
            assert got.overlap[names[i]][names[j]] == pytest.approx(want, abs=1e-12)
    assert "overlap" in got.to_json()
    assert (
        "overlap"
        not in pool_stats(
            Qrels.from_dict(pool_qrels(rng)), [Run.from_dict(runs[0], name="x")], k
        ).to_json()
    )
