"""Each deliberate deviation from trec_eval 10.0 (docs/trec_eval.md), shown on the
binary: what trec_eval does, and that cranfield gives the documented result instead.
The comparisons elsewhere in tests/reference avoid or apply exactly these."""

from __future__ import annotations

import pytest

from . import oracle


def write(tmp_path, **files) -> list[str]:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return paths


def test_1_qrels_topic_without_results(trec_eval_bin, tmp_path):
    q, q_in_run, r = write(
        tmp_path, q="1 0 a 1\n2 0 b 1\n", q_in_run="1 0 a 1\n", r="1 Q0 a 1 1 t\n"
    )
    want = oracle.binary(trec_eval_bin, ["-m", "map", q, r])
    assert want.status != 0 and "'2' not found" in want.stderr
    # cranfield ignores topic 2 (with a note), as trec_eval does given the qrels without it
    oracle.check(
        trec_eval_bin, ["-q", "-m", "all_trec", q, r], ["-q", "-m", "all_trec", q_in_run, r]
    )
    assert "note: 1 qrels topic(s)" in oracle.cranfield(["-m", "map", q, r]).stderr


def test_2_gains_less_than_one_apart(trec_eval_bin, tmp_path):
    q, r = write(tmp_path, q="1 0 a 1\n1 0 b 2\n", r="1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    args = ["-m", "ndcg.1=0.5,2=0.7", q, r]
    # the ideal ranking puts b (0.7) first: 0.9273; trec_eval compares the gains as
    # integers (both 0) and builds a wrong ideal (it prints 0.0000 here)
    assert not oracle.binary(trec_eval_bin, args).stdout.endswith(b"\tall\t0.9273\n")
    assert oracle.cranfield(args).stdout.endswith(b"\tall\t0.9273\n")
    # gains 1 or more apart: the same ranking, the same numbers
    oracle.check(trec_eval_bin, ["-q", "-m", "ndcg.1=1.5,2=2.7", q, r])


@pytest.mark.parametrize(
    "pair", [("dcg", "ndcg.1=3,2=9"), ("dcg.1=2", "ideal_dcg"), ("ideal_dcg.1=2", "ndcg")]
)
def test_3_parameterised_dcg_family_member_with_another(trec_eval_bin, tmp_path, pair):
    q, r = write(
        tmp_path, q="1 0 a 2\n1 0 b 1\n1 0 c 0\n", r="1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n1 Q0 c 3 3 t\n"
    )
    first, second = pair
    both = oracle.binary(trec_eval_bin, ["-q", "-m", first, "-m", second, q, r])
    alone = [oracle.binary(trec_eval_bin, ["-q", "-m", m, q, r]).stdout for m in pair]
    # trec_eval shares one parameter store among the three: it crashes or mislabels
    assert both.status != 0 or set(both.stdout.splitlines()) != set(b"".join(alone).splitlines())
    got = oracle.cranfield(["-q", "-m", first, "-m", second, q, r])
    assert got.status == 0
    assert set(got.stdout.splitlines()) == set(b"".join(alone).splitlines())


def test_6_judged_only_leaves_no_documents(trec_eval_bin, tmp_path):
    q, r = write(tmp_path, q="1 0 a 1\n2 0 b 1\n", r="1 Q0 a 1 1 t\n2 Q0 x 1 1 t\n")
    args = ["-J", "-q", "-m", "iprec_at_recall.0", "-m", "11pt_avg", q, r]
    want = oracle.binary(trec_eval_bin, args).stdout.decode()
    assert "2\t  -nan" in want and "all\t  -nan" in want  # 0 / 0 in trec_eval
    got = oracle.cranfield(args).stdout.decode()
    assert "iprec_at_recall_0.00  \t2\t0.0000" in got
    assert "iprec_at_recall_0.00  \tall\t0.5000" in got
    oracle.check(trec_eval_bin, args, allow=oracle.zero_over_zero)


def test_7_topic_whose_every_judgment_is_negative(trec_eval_bin, tmp_path):
    q, q_rest, r = write(
        tmp_path,
        q="1 0 a 2\n1 0 b 0\n2 0 c -1\n2 0 d -2\n",
        q_rest="1 0 a 2\n1 0 b 0\n",
        r="1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n2 Q0 c 1 1 t\n2 Q0 e 2 2 t\n",
    )
    # topic 2 last: trec_eval reuses topic 1's relevance counts (ideal_dcg 2, not 0)
    want = oracle.binary(trec_eval_bin, ["-q", "-m", "ideal_dcg", q, r]).stdout
    assert b"ideal_dcg             \t2\t2.0000" in want
    # topic 2 first (renamed 0): trec_eval cannot evaluate it at all
    q0 = tmp_path / "q0"
    q0.write_text((tmp_path / "q").read_text().replace("2 0 ", "0 0 "))
    r0 = tmp_path / "r0"
    r0.write_text((tmp_path / "r").read_text().replace("2 Q0 ", "0 Q0 "))
    assert oracle.binary(trec_eval_bin, ["-m", "map", str(q0), str(r0)]).status != 0
    # cranfield: a topic without relevant or judged documents; the others as trec_eval
    measures = ["-m", "all_trec", "-m", "ideal_dcg"]
    got = oracle.cranfield(["-q", *measures, q, r])
    assert got.status == 0
    lines = got.stdout.decode().splitlines()
    assert (
        "ideal_dcg             \t2\t0.0000" in lines
        and "map                   \t2\t0.0000" in lines
    )
    rest = oracle.binary(trec_eval_bin, ["-q", "-n", *measures, q_rest, r]).stdout
    assert set(rest.decode().splitlines()) <= set(lines)


def test_8_recall_points_out_of_order(trec_eval_bin, tmp_path):
    q, r = write(
        tmp_path,
        q="1 0 a 1\n1 0 b 1\n1 0 c 1\n1 0 d 1\n",
        r="1 Q0 a 1 9 t\n1 Q0 x 2 8 t\n1 Q0 y 3 7 t\n1 Q0 b 4 6 t\n1 Q0 z 5 5 t\n"
        "1 Q0 w 6 4 t\n1 Q0 c 7 3 t\n1 Q0 d 8 2 t\n",
    )
    unsorted = oracle.binary(trec_eval_bin, ["-m", "11pt_avg.0.75,0.25", q, r]).stdout
    ordered = oracle.binary(trec_eval_bin, ["-m", "11pt_avg.0.25,0.75", q, r]).stdout
    value = ordered.split(b"\t")[-1]
    # (1 + 0.5) / 2: trec_eval gives 0.75 the overall maximum, 1, out of order
    assert value == b"0.7500\n" and unsorted.split(b"\t")[-1] == b"1.0000\n"
    got = oracle.cranfield(["-m", "11pt_avg.0.75,0.25", q, r]).stdout
    assert got == b"11pt_avg_0.75,0.25    \tall\t" + value


def test_9_zscore_lookup_past_the_table(trec_eval_bin, tmp_path):
    q, r, z = write(
        tmp_path,
        q="1 0 a 1\n2 0 b 1\n",
        r="1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n",
        z="1 map 0.5 0.25\n",  # topic 2 sorts after every topic of the file
    )
    want = oracle.binary(trec_eval_bin, ["-Z", z, "-q", "-m", "map", q, r])
    got = oracle.cranfield(["-Z", z, "-q", "-m", "map", q, r])
    assert got.stdout == (
        b"Zmap                   \t1\t2.0000\n"
        b"Zmap                   \t2\t-1000000.0000\n"
        b"Zmap                   \tall\t-499999.0000\n"
    )
    # trec_eval reads past its table here: a crash or garbage; never a different answer
    assert want.status != 0 or want.stdout == got.stdout


def test_12_placeholder_document_judged_in_the_qrels(trec_eval_bin, tmp_path):
    q, r = write(tmp_path, q="1 0 a 1\n2 0 ceci_nest_pas_un_docno 1\n", r="1 Q0 a 1 1 t\n")
    args = ["-c", "-q", "-m", "map", "-m", "num_rel_ret", q, r]
    want = oracle.binary(trec_eval_bin, args).stdout
    assert b"map                   \t2\t1.0000" in want  # its placeholder ranking found it
    got = oracle.cranfield(args).stdout
    assert b"map                   \t2\t0.0000" in got and b"num_rel_ret           \t2\t0" in got


@pytest.mark.parametrize("level", ["-1", "-2"])
def test_10_negative_relevance_level_is_refused(trec_eval_bin, tmp_path, level):
    q, r = write(tmp_path, q="1 0 a 1\n1 0 b 0\n", r="1 Q0 a 1 2 t\n1 Q0 x 2 1 t\n")
    # trec_eval counts the unjudged x as relevant in P_2, not in num_rel_ret
    args = ["-l", level, "-m", "P.2", "-m", "num_rel_ret", q, r]
    want = oracle.binary(trec_eval_bin, args).stdout
    assert want == b"num_rel_ret           \tall\t1\nP_2                   \tall\t1.0000\n"
    got = oracle.cranfield(args)
    assert got.status == 1 and got.stdout == b"" and got.stderr.count("\n") == 1
