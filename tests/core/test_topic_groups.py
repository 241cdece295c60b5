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


def test_report_per_group_agrees_with_eval_and_compare_of_the_cut_down_collection(tmp_path, cli):
    """``report --topic-groups``: each group's leaderboard holds the means of an evaluation
    of the collection cut down to the group's topics, and its marks against each
    baseline are the significant rows of ``compare`` on that cut-down collection."""
    import re

    qrels, runs, groups, rows = collection(tmp_path, seed=7)
    ideal = tmp_path / "ideal.txt"  # the judged documents by grade: far above the others
    judged = [line.split() for line in qrels.read_text().splitlines()]
    judged.sort(key=lambda f: (f[0], -int(f[3]), f[2]))
    ideal.write_text("".join(f"{q} Q0 {d} 1 {-i} ideal\n" for i, (q, _, d, _) in enumerate(judged)))
    runs = [*runs, ideal]
    measures = ["AP", "nDCG@10"]
    out = tmp_path / "report.html"
    status, _, err = cli(
        "report", qrels, *runs, "-m", *measures, "--baseline", "a", "--baseline", "b",
        "--topic-groups", groups, "--max-depth", "2", "--depths", "1", "-o", out,
    )  # fmt: skip
    assert status == 0, err
    html = out.read_text(encoding="utf-8")
    names = ["easy", "hard", "title-only"]
    assert html.count('class="topic-group"') == len(names)
    seen = 0
    for k, g in enumerate(names):
        members = {t for t, h in rows if h == g}
        cut = restricted(qrels, members, tmp_path, f"{g}.qrels")
        _, ev, _ = cli("eval", cut, *runs, "-m", *measures, "-f", "json")
        means = {r["name"]: r["aggregate"] for r in json.loads(ev)["runs"]}
        _, cmp, _ = cli(
            "compare", cut, *runs, "-m", *measures, "-f", "json", "--baseline", "a",
            "--baseline", "b",
        )  # fmt: skip
        marks = {(r, m): set() for r in ("a", "b", "c", "ideal") for m in measures}
        for row in json.loads(cmp)["rows"]:
            if row["significant"]:
                up = row["diff"] > 0
                marks[row["run"], row["measure"]].add((row["baseline"], up))
                if row["run"] in ("a", "b"):
                    marks[row["baseline"], row["measure"]].add((row["run"], not up))
        start = html.index(f'<table id="summary-group-{k}"')
        table = html[start : html.index("</table>", start)]
        found = re.findall(r'<tr[^>]*><th scope="row">([^<]+)</th>(.*?)</tr>', table)
        assert [r for r, _ in found] == ["a", "b", "c", "ideal"]
        for run, cells in found:
            tds = re.findall(r'<td[^>]*data-value="([^"]+)"[^>]*>(.*?)</td>', cells)[1:]
            for m, (value, td) in zip(measures, tds, strict=True):
                assert float(value) == pytest.approx(means[run][m], rel=1e-12), (g, run, m)
                got = re.findall(r'data-baseline="([^"]+)"[^>]*> (.)<sub>', td)
                assert {(b, s == "\u25b2") for b, s in got} == marks[run, m], (g, run, m)
                seen += len(got)
        assert f'id="comparison-group-{k}-summary"' in html
    assert seen  # some group has a significant difference to mark


def test_report_group_file_naming_unknown_topics_is_one_line(tmp_path, cli):
    qrels, runs, _, _ = collection(tmp_path)
    groups = tmp_path / "groups.tsv"
    groups.write_text("query_id\tgroup\n999\tx\n")
    out = tmp_path / "r.html"
    status, _, err = cli("report", qrels, *runs, "--topic-groups", groups, "-o", out)
    assert status == 2 and err.count("\n") == 1 and "topic '999' is not among" in err, err
    assert not out.exists()


def test_report_group_no_run_pair_can_be_tested_in_is_a_note(tmp_path):
    """A group whose topics no run has in common with all the others gets its means and
    a note, not a failure of the whole report."""
    from cranfield.report.html import build_report

    qrels = {"1": {"d1": 1, "d2": 0}, "2": {"d3": 1}, "3": {"d1": 1, "d2": 1}}
    runs = {
        "x": {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 1.0}},
        "y": {"3": {"d1": 2.0, "d2": 1.0}, "1": {"d2": 1.0}},
    }
    groups = tmp_path / "g.tsv"
    groups.write_text("query_id\tgroup\n1\tone\n2\tone\n3\ttwo\n")
    text = build_report(
        qrels, runs, ["AP"], topic_groups=groups, progress=False, max_depth=2, depths=[1]
    )
    two = text[text.index('data-group="two"') :]
    assert "No tests: no topic of the group has a result from every run." in two
    assert 'id="comparison-group-0-summary"' in text  # group one: topic 1 is common
