"""``cranfield pool`` (and ``pool stats`` / ``pool reuse``) under hostile input."""

from __future__ import annotations

import json

import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli

RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n2 Q0 c 1 1.0 A\n"
RUN_B = "1 Q0 b 1 5.0 B\n1 Q0 d 2 4.0 B\n2 Q0 e 1 1.0 B\n"
QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n"


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "a.run"
    b = tmp_path / "b.run"
    q = tmp_path / "qrels"
    a.write_text(RUN_A)
    b.write_text(RUN_B)
    q.write_text(QRELS)
    return a, b, q


def test_pool_writes_sorted_pairs(files):
    a, b, _ = files
    out = run_cli("pool", a, b, "--depth", "1")
    assert_success(out, quiet=True)
    assert out.stdout == b"1 a\n1 b\n2 c\n2 e\n"


def test_pool_qrels_format_reads_back_as_pooled_unjudged(files, tmp_path):
    a, b, _ = files
    target = tmp_path / "pool.qrels"
    assert_success(run_cli("pool", a, b, "--depth", "2", "--format", "qrels", "-o", target))
    assert target.read_text().splitlines()[0] == "1 0 a -1"
    # the evaluator reads it: every pooled document is pooled-but-unjudged, none relevant
    out = run_cli("eval", target, a, "-m", "Judged@2", "NumRel", "-f", "json")
    assert_success(out)
    agg = json.loads(out.stdout)["runs"][0]["aggregate"]
    assert agg["Judged@2"] == 1.0
    assert agg["NumRel"] == 0


def test_incremental_pool_leaves_judged_documents_out(files):
    a, b, q = files
    out = run_cli("pool", a, b, "--depth", "2", "--qrels", q)
    assert_success(out, quiet=True)
    assert out.stdout == b"1 d\n2 e\n"


def test_budget_flag_selects_the_budget_strategy(files):
    a, b, _ = files
    out = run_cli("pool", a, b, "--budget", "1", "--order", "rrf")
    assert_success(out, quiet=True)
    assert out.stdout.count(b"\n") == 2


@pytest.mark.parametrize(
    "args, mention",
    [
        (["--depth", "0"], "depth parameter k"),
        (["--depth", "-1"], "depth parameter k"),
        (["--budget", "0"], "budget parameter n"),
        (["--strategy", "magic"], "depth, budget"),
        (["--strategy", "budget(n=3,order=best)"], "take, rrf"),
        (["--strategy", "budget"], "budget parameter n"),
        (["--budget", "3", "--depth", "4"], "--depth"),
    ],
)
def test_bad_parameters_fail_cleanly(files, args, mention):
    a, b, _ = files
    with Unchanged(a, b):
        assert_clean_failure(run_cli("pool", a, b, *args), mention)


def test_bad_run_fails_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 a 1 3.0 A\n1 Q0 b two 2.0\n")
    assert_clean_failure(run_cli("pool", bad, "--depth", "5"), "bad.run")


def test_empty_run_is_a_clear_error(tmp_path):
    empty = tmp_path / "empty.run"
    empty.write_text("")
    err = assert_clean_failure(run_cli("pool", empty, "--depth", "5"))
    assert "empty" in err


def test_everything_already_judged_is_a_clear_error(tmp_path, files):
    a, _, _ = files
    q = tmp_path / "all.qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    assert_clean_failure(run_cli("pool", a, "--depth", "5", "--qrels", q), "pool is empty")


def test_missing_run_file(tmp_path):
    assert_clean_failure(run_cli("pool", tmp_path / "nope.run"), "nope.run")


def test_output_onto_an_input_is_refused(files):
    a, b, q = files
    with Unchanged(a, b, q):
        assert_clean_failure(run_cli("pool", a, b, "-o", a), "is also an input")
        assert_clean_failure(run_cli("pool", a, b, "--qrels", q, "-o", q), "is also an input")


def test_failure_leaves_an_existing_output_untouched(files, tmp_path):
    a, _, _ = files
    target = tmp_path / "pool.txt"
    target.write_text("old\n")
    with Unchanged(target):
        assert_clean_failure(run_cli("pool", a, "--depth", "0", "-o", target))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".cranfield-")] == []


def test_output_into_a_missing_directory(files, tmp_path):
    a, _, _ = files
    assert_clean_failure(run_cli("pool", a, "-o", tmp_path / "no" / "such" / "pool.txt"))


def test_closed_stdout(files):
    a, b, _ = files
    out = run_cli("pool", a, b, close_stdout=True)
    assert out.status != 0
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") <= 1


def test_closed_stdout_with_output_file_succeeds(files, tmp_path):
    a, b, _ = files
    target = tmp_path / "p.txt"
    out = run_cli("pool", a, b, "-o", target, close_stdout=True)
    assert_success(out, quiet=True)
    assert target.read_text().startswith("1 a\n")


def test_stdin_run(files):
    out = run_cli("pool", "-", "--depth", "1", stdin=RUN_A.encode())
    assert_success(out, quiet=True)
    assert out.stdout == b"1 a\n2 c\n"


def test_stats_json(files):
    a, b, q = files
    out = run_cli("pool", "stats", q, a, b, "--depth", "1", "-f", "json", "--judged-at", "1", "2")
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    assert doc["pool_size"] == 4 and doc["topics"] == {"1": 2, "2": 2}
    assert doc["runs"][0] == {
        "name": "A",
        "unique": 2,
        "unique_relevant": 2,
        "judged": {"1": 1.0, "2": 1.0},
    }


@pytest.mark.parametrize(
    "args, mention",
    [
        (["--depth", "0"], "depth"),
        (["--judged-at", "0"], "judged_at"),
    ],
)
def test_stats_bad_parameters(files, args, mention):
    a, b, q = files
    assert_clean_failure(run_cli("pool", "stats", q, a, b, *args), mention)


def test_stats_topic_missing_from_qrels(files, tmp_path):
    a, b, _ = files
    q = tmp_path / "partial.qrels"
    q.write_text("1 0 a 1\n")
    assert_clean_failure(run_cli("pool", "stats", q, a, b), "absent from the qrels")


def test_stats_bad_qrels_and_output_onto_input(files, tmp_path):
    a, b, q = files
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 a\n")
    assert_clean_failure(run_cli("pool", "stats", bad, a), "bad.qrels")
    with Unchanged(q, a):
        assert_clean_failure(run_cli("pool", "stats", q, a, "-o", q), "is also an input")


def test_reuse_json(files, tmp_path):
    a, b, q = files
    groups = tmp_path / "groups.tsv"
    groups.write_text("# run group\nA g1\nB g2\n")
    out = run_cli("pool", "reuse", q, a, b, "-k", "2", "-m", "AP", "--groups", groups, "-f", "json")
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    assert doc["groups"] == {"A": "g1", "B": "g2"}
    runs = {r["name"]: r for r in doc["measures"]["AP"]["runs"]}
    # A alone pooled a and c (both relevant): without them A retrieves nothing relevant
    assert runs["A"]["full"] == 1.0 and runs["A"]["reduced"] == 0.0


@pytest.mark.parametrize(
    "args, mention",
    [
        (["--depth", "0"], "depth"),
        (["-m", "NoSuchMeasure"], "NoSuchMeasure"),
        (["--group-sep", ""], "group separator"),
    ],
)
def test_reuse_bad_parameters(files, args, mention):
    a, b, q = files
    assert_clean_failure(run_cli("pool", "reuse", q, a, b, *args), mention)


def test_reuse_bad_groups_file(files, tmp_path):
    a, b, q = files
    groups = tmp_path / "groups.tsv"
    groups.write_text("A g1 extra\n")
    assert_clean_failure(run_cli("pool", "reuse", q, a, b, "--groups", groups), "groups.tsv:1")
    groups.write_text("A g1\n")
    assert_clean_failure(run_cli("pool", "reuse", q, a, b, "--groups", groups), "'B'")
    with Unchanged(groups):
        assert_clean_failure(
            run_cli("pool", "reuse", q, a, b, "--groups", groups, "-o", groups),
            "is also an input",
        )


@pytest.fixture
def pool_files(tmp_path):
    pool = tmp_path / "pool.txt"
    pool.write_text("1 a\n1 b\n2 c\n")
    names = tmp_path / "names.txt"
    names.write_text("ann\nbo\n")
    return pool, names


def test_assign_then_merge(pool_files, tmp_path):
    pool, names = pool_files
    out = tmp_path / "pk"
    assert_success(run_cli("pool", "assign", pool, "--assessors", names, "-r", "1", "-o", out))
    assert (out / "assignment.tsv").exists()
    merged = run_cli("pool", "merge", out)
    assert_success(merged, quiet=True)
    assert merged.stdout == b"1 0 a -1\n1 0 b -1\n2 0 c -1\n"


@pytest.mark.parametrize(
    "names_text, args, mention",
    [
        ("ann\nbo\n", ["-r", "3"], "per_topic"),
        ("ann\nbo\n", ["-r", "0"], "per_topic"),
        ("ann\nann\n", [], "distinct"),
        ("../evil\n", [], "assessor name"),
        ("", [], "no assessor names"),
    ],
)
def test_assign_bad_input(pool_files, tmp_path, names_text, args, mention):
    pool, names = pool_files
    names.write_text(names_text)
    out = tmp_path / "pk"
    assert_clean_failure(
        run_cli("pool", "assign", pool, "--assessors", names, *args, "-o", out), mention
    )
    assert not out.exists()


def test_assign_bad_pool_and_existing_packages(pool_files, tmp_path):
    pool, names = pool_files
    bad = tmp_path / "bad.txt"
    bad.write_text("1 a b\n")
    assert_clean_failure(
        run_cli("pool", "assign", bad, "--assessors", names, "-o", tmp_path / "x"), "bad.txt:1"
    )
    done = tmp_path / "done"
    done.mkdir()
    (done / "ann.qrels").write_text("1 0 a 2\n")
    with Unchanged(done / "ann.qrels"):
        assert_clean_failure(
            run_cli("pool", "assign", pool, "--assessors", names, "-o", done), "not empty"
        )


def test_merge_errors(tmp_path):
    assert_clean_failure(run_cli("pool", "merge", tmp_path), "assignment.tsv")
    (tmp_path / "assignment.tsv").write_text("1\tann\n")
    assert_clean_failure(run_cli("pool", "merge", tmp_path), "package of 'ann' is missing")
    (tmp_path / "ann.qrels").write_text("1 0 a two\n")
    assert_clean_failure(run_cli("pool", "merge", tmp_path), "ann.qrels:1")
    (tmp_path / "ann.qrels").write_text("1 0 a 1\n")
    with Unchanged(tmp_path / "ann.qrels"):
        assert_clean_failure(
            run_cli("pool", "merge", tmp_path, "-o", tmp_path / "ann.qrels"), "is also an input"
        )
    assert_clean_failure(run_cli("pool", "merge", tmp_path, "--combine", "mean"))


@pytest.mark.parametrize(
    "argv",
    [
        ["pool"],
        ["pool", "--format", "bogus", "x.run"],
        ["pool", "stats"],
        ["pool", "reuse", "q"],
        ["pool", "assign", "p"],
        ["pool", "merge"],
    ],
)
def test_usage_errors_are_one_line(argv):
    assert_clean_failure(run_cli(*argv), "error")


def test_per_group_limit_from_a_groups_file(files, tmp_path):
    a, b, _ = files
    groups = tmp_path / "groups.tsv"
    groups.write_text("A team 2\nB team 1\n")
    out = run_cli("pool", a, b, "--depth", "1", "--per-group", "1", "--groups", groups)
    assert_success(out)
    assert out.stdout == b"1 b\n2 e\n"  # B has the higher priority
    assert "left out: A" in out.stderr
    assert_clean_failure(run_cli("pool", a, b, "--per-group", "1"), "--groups")
    groups.write_text("A team first\n")
    assert_clean_failure(
        run_cli("pool", a, b, "--per-group", "1", "--groups", groups), "groups.tsv:1"
    )


def test_reuse_subsample(files, tmp_path):
    a, b, q = files
    out = run_cli("pool", "reuse", q, a, b, "-m", "AP", "--subsample", "0.5", "-f", "json")
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    # round(0.5 * 3) = 2 kept (halves to even), 1 removed
    assert doc["fraction"] == 0.5 and doc["removed"] == {"all": 1}
    assert_clean_failure(run_cli("pool", "reuse", q, a, b, "--subsample", "0"), "fraction")
    assert_clean_failure(
        run_cli("pool", "reuse", q, a, b, "--subsample", "0.5", "--group-sep", "-"), "--subsample"
    )


HUGE = "1" + "0" * 30  # beyond int64: means "every document"


def test_huge_depths_mean_everything(files):
    a, b, q = files
    out = run_cli("pool", a, b, "--depth", HUGE)
    assert_success(out, quiet=True)
    assert out.stdout == b"1 a\n1 b\n1 d\n2 c\n2 e\n"
    out = run_cli("pool", a, b, "--budget", HUGE, "--order", "rbp-max")
    assert_success(out, quiet=True)
    assert out.stdout == b"1 a\n1 b\n1 d\n2 c\n2 e\n"
    out = run_cli("pool", "stats", q, a, b, "--depth", HUGE, "--judged-at", HUGE, "-f", "json")
    assert_success(out, quiet=True)
    assert json.loads(out.stdout)["pool_size"] == 5
    assert_success(run_cli("pool", "reuse", q, a, b, "--depth", HUGE, "-m", "AP"), quiet=True)


@pytest.mark.parametrize(
    ("line", "mention"),
    [
        ("303 D1 extra junk", "integer grade in field 4"),
        ("303 0 D1 0.5", "integer grade in field 4"),
        ("303 D1 x", "expected 2 fields"),
    ],
)
def test_pool_assign_refuses_lines_it_cannot_read(tmp_path, line, mention):
    pool = tmp_path / "pool.txt"
    pool.write_text(f"301 D0\n{line}\n")
    who = tmp_path / "who.txt"
    who.write_text("ann\n")
    out = run_cli("pool", "assign", pool, "--assessors", who, "-o", tmp_path / "pk")
    assert_clean_failure(out, "pool.txt:2", mention)
    assert not (tmp_path / "pk").exists()


@pytest.mark.parametrize(
    ("grade", "mention"),
    [("-2", "ann.qrels:2: grade -2 below -1"), ("x", "ann.qrels:2"), ("1.5", "ann.qrels:2")],
)
def test_pool_merge_refuses_grades_that_are_not_grades(tmp_path, grade, mention):
    pool = tmp_path / "pool.txt"
    pool.write_text("301 D0\n301 D1\n301 D2\n")
    who = tmp_path / "who.txt"
    who.write_text("ann\n")
    assert_success(run_cli("pool", "assign", pool, "--assessors", who, "-o", tmp_path / "pk"))
    package = tmp_path / "pk" / "ann.qrels"
    lines = package.read_text().splitlines()
    lines[0] = lines[0].rsplit(" ", 1)[0] + " 1"
    lines[1] = lines[1].rsplit(" ", 1)[0] + f" {grade}"
    package.write_text("\n".join(lines) + "\n")
    assert_clean_failure(run_cli("pool", "merge", tmp_path / "pk"), mention)
    # -1 is "not yet judged": kept as such in the merged qrels
    lines[1] = lines[1].rsplit(" ", 1)[0] + " -1"
    package.write_text("\n".join(lines) + "\n")
    merged = run_cli("pool", "merge", tmp_path / "pk")
    assert_success(merged)
    grades = sorted(int(x.split()[3]) for x in merged.stdout.decode().splitlines())
    assert grades == [-1, -1, 1]
