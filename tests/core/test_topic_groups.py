"""``--topic-groups``: each group's means and comparisons equal an evaluation of the
collection cut down to the group's topics (the qrels filtered, evaluated again: an
independent path), and a group's GMAP is the geometric mean NumPy computes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield import evaluate
from cranfield.core.groups import by_group, read_groups


def collection(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    topics = [str(t) for t in range(101, 121)]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} 0 d{d} {int(rng.integers(0, 3))}\n" for t in topics for d in range(15))
    )
    runs = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.txt"
        path.write_text(
            "".join(
                f"{t} Q0 d{d} {k + 1} {20 - k} {name}\n"
                for t in topics
                for k, d in enumerate(rng.permutation(15)[:10])
            )
        )
        runs.append(path)
    groups = tmp_path / "groups.tsv"
    rows = [(t, "easy" if int(t) % 3 else "hard") for t in topics]
    rows += [(t, "title-only") for t in topics[:7]]  # a topic may be in two groups
    groups.write_text("query_id\tgroup\n" + "".join(f"{t}\t{g}\n" for t, g in rows))
    return qrels, runs, groups, rows


def restricted(qrels, members, tmp_path, name):
    path = tmp_path / name
    path.write_text(
        "".join(line for line in qrels.read_text().splitlines(True) if line.split()[0] in members)
    )
    return path


def test_group_means_are_the_means_of_the_cut_down_collection(tmp_path, cli):
    qrels, runs, groups, rows = collection(tmp_path)
    measures = ["AP", "nDCG@10", "P@5", "GMAP", "num_rel"]
    status, out, _ = cli(
        "eval", qrels, *runs, "-m", *measures, "--topic-groups", groups, "-f", "json"
    )
    assert status == 0
    doc = json.loads(out)
    assert list(doc["groups"]) == ["easy", "hard", "title-only"]
    for g, by_run in doc["groups"].items():
        members = {t for t, h in rows if h == g}
        cut = restricted(qrels, members, tmp_path, f"{g}.qrels")
        status, again, _ = cli("eval", cut, *runs, "-m", *measures, "-f", "json")
        expected = {r["name"]: r["aggregate"] for r in json.loads(again)["runs"]}
        for r in by_run:
            assert len(r["aggregate"]) == len(measures)
            for m, value in r["aggregate"].items():
                assert value == pytest.approx(expected[r["name"]][m], rel=1e-12), (g, m)


def test_by_group_gmap_is_numpys_geometric_mean(tmp_path):
    qrels, runs, groups, rows = collection(tmp_path, seed=3)
    results = evaluate(str(qrels), [str(p) for p in runs], ["AP", "GMAP"])
    split = by_group(results, read_groups(groups))
    for g, res in split.items():
        for r, full in zip(res.runs, results.runs, strict=True):
            ap = dict(
                zip(full.query_ids, np.asarray(full.values[results.measures[0]]), strict=True)
            )
            vals = np.array([ap[q] for q in r.query_ids])
            gm = np.exp(np.mean(np.log(np.maximum(vals, 1e-5))))
            assert r.aggregates[results.measures[1]] == pytest.approx(gm, rel=1e-12), g


def test_text_table_has_a_group_column(tmp_path, cli):
    qrels, runs, groups, _ = collection(tmp_path)
    status, out, _ = cli("eval", qrels, runs[0], "-m", "AP", "--topic-groups", groups)
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["run", "group", "AP"]
    assert [ln.split()[1] for ln in lines[1:]] == ["all", "easy", "hard", "title-only"]


def test_compare_per_group_equals_compare_of_the_cut_down_collection(tmp_path, cli):
    qrels, runs, groups, rows = collection(tmp_path, seed=5)
    argv = ["compare", qrels, *runs, "-m", "AP", "nDCG@10", "-f", "json", "--baseline", "a"]
    status, out, _ = cli(*argv, "--topic-groups", groups)
    assert status == 0
    doc = json.loads(out)
    for g, sub in doc["groups"].items():
        members = {t for t, h in rows if h == g}
        cut = restricted(qrels, members, tmp_path, f"{g}.qrels")
        status, again, _ = cli("compare", cut, *runs, *argv[5:])
        assert status == 0 and json.loads(again)["rows"] == sub["rows"], g
    status, out, _ = cli(*argv[:-4], "--topic-groups", groups, "-f", "csv")
    assert status == 0 and out.splitlines()[0].startswith("group,measure,run,baseline")


@pytest.mark.parametrize(
    "content, extra, mention",
    [
        ("query_id\tgroup\n999\tx\n", [], "groups.tsv:2: topic '999' is not among"),
        (
            "query_id\tgroup\n101\tx\n101\tx\n",
            [],
            "groups.tsv:3: topic '101' is listed in group 'x' twice",
        ),
        ("query_id\tkind\n101\tx\n", [], "no column 'group'"),
        ("query_id\tgroup\n101\tx\n", ["-q"], "not with -q"),
        ("query_id\tgroup\n101\tx\n", ["--aggregate", "micro"], "--aggregate micro"),
    ],
)
def test_bad_group_files_and_options_are_one_line(tmp_path, cli, content, extra, mention):
    qrels, runs, _, _ = collection(tmp_path)
    groups = tmp_path / "groups.tsv"
    groups.write_text(content)
    status, out, err = cli("eval", qrels, runs[0], "-m", "P@5", "--topic-groups", groups, *extra)
    assert status == 2 and out == "" and err.count("\n") == 1 and mention in err, err
