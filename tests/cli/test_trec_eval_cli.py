"""Golden tests of ``cranfield trec_eval``: exact bytes on hand-computed fixtures.

The fixture (written by ``_write``) has four qrels topics and three run topics:

qrels                          run (score; trec order = score desc, docno desc)
  1:  a=2  b=0  c=1              1:  a 3.0, b 2.0, d 2.0, c 1.0  -> a d b c
  10: x=1  y=0                   10: y 5, x 4                    -> y x
  9:  p=1  q=1                   9:  p 1.0, z 0.5                -> p z
  5:  m=1  (not in the run)      (tags runA ... runA, last line runZ)

With -l 1 the relevance strings are  1: [rel, unjudged, nonrel, rel] (R=2),
10: [nonrel, rel] (R=1),  9: [rel, unjudged] (R=2).
Every expected value below is derived by hand in the comments.
"""

from __future__ import annotations

import gzip
import io
import math
import sys

import numpy as np
import pytest
import pytrec_eval

from cranfield.cli.main import main

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n10 0 x 1\n10 0 y 0\n9 0 p 1\n9 0 q 1\n5 0 m 1\n"
RUN = (
    "1 Q0 a 1 3.0 runA\n1 Q0 b 2 2.0 runA\n1 Q0 d 3 2.0 runA\n1 Q0 c 4 1.0 runA\n"
    "10 Q0 y 1 5 runA\n10 Q0 x 2 4 runA\n9 Q0 p 1 1.0 runA\n9 Q0 z 2 0.5 runZ\n"
)


def L(name: str, qid: str, value: str) -> str:
    """One trec_eval output line: printf("%-22s\\t%s\\t%s\\n")."""
    return f"{name:<22}\t{qid}\t{value}\n"


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def trec_eval(capsys, *argv) -> tuple[int, str, str]:
    code = main(["trec_eval", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_default_official_measures_exact_bytes(files, capsys):
    code, out, err = trec_eval(capsys, "-m", "map", "-m", "Rprec", *files)
    assert code == 0
    # map: 1: (1/1 + 2/4)/2 = .75; 10: (1/2)/1 = .5; 9: (1/1)/2 = .5 -> 1.75/3 = .58333
    # Rprec: 1: top 2 = a,d -> 1/2; 10: top 1 = y -> 0; 9: top 2 = p,z -> 1/2 -> 1/3
    assert out == L("map", "all", "0.5833") + L("Rprec", "all", "0.3333")
    assert (
        out.encode()
        == b"map                   \tall\t0.5833\nRprec                 \tall\t0.3333\n"
    )
    # topic 5 has judgments but no results: ignored, with a note (documented deviation)
    assert "5" in err and err.count("\n") == 1


def test_per_query_blocks_in_byte_order_then_all(files, capsys):
    code, out, _ = trec_eval(
        capsys, "-q", "-m", "P.5", "-m", "recip_rank", "-m", "num_ret", "-m", "runid", *files
    )
    assert code == 0
    assert out == (
        # topic "1" < "10" < "9" in byte order; measures in trec_eval order:
        # runid num_ret recip_rank P_5 (runid printed only in the summary)
        L("num_ret", "1", "4")
        + L("recip_rank", "1", "1.0000")  # a relevant at rank 1
        + L("P_5", "1", "0.4000")  # 2 relevant / 5
        + L("num_ret", "10", "2")
        + L("recip_rank", "10", "0.5000")  # first relevant x at rank 2
        + L("P_5", "10", "0.2000")
        + L("num_ret", "9", "2")
        + L("recip_rank", "9", "1.0000")
        + L("P_5", "9", "0.2000")
        + L("runid", "all", "runZ")  # the tag of the last run line
        + L("num_ret", "all", "8")  # summed, printed as an integer
        + L("recip_rank", "all", "0.8333")  # (1 + .5 + 1)/3
        + L("P_5", "all", "0.2667")  # (.4 + .2 + .2)/3
    )


def test_measure_order_ignores_command_line_order(files, capsys):
    _, out1, _ = trec_eval(capsys, "-m", "P.5", "-m", "num_rel", "-m", "map", *files)
    _, out2, _ = trec_eval(capsys, "-m", "map", "-m", "P.5", "-m", "num_rel", *files)
    # num_rel: 2 + 1 + 2 = 5 (topic 5 is not evaluated without -c)
    expected = L("num_rel", "all", "5") + L("map", "all", "0.5833") + L("P_5", "all", "0.2667")
    assert out1 == out2 == expected


def test_cutoff_params_and_first_given_params_win(files, capsys):
    _, out, _ = trec_eval(capsys, "-m", "P.5,10", "-m", "P.1", *files)
    # P_5 as above; P_10: (2 + 1 + 1)/10/3 = .1333; the later P.1 is ignored
    assert out == L("P_5", "all", "0.2667") + L("P_10", "all", "0.1333")


def test_iprec_at_recall_param(files, capsys):
    _, out, _ = trec_eval(capsys, "-q", "-m", "iprec_at_recall.0.25", *files)
    # trec_eval 10.0: c = round(0.25 * R), half away from zero
    # 1: R=2, c=round(.5)=1: max precision from rank 1 on = 1/1 = 1
    # 10: R=1, c=round(.25)=0: max precision anywhere = 1/2 (rank 2)
    # 9: R=2, c=1: precision at rank 1 = 1; mean = 2.5/3 = .8333
    name = "iprec_at_recall_0.25"
    assert out == (
        L(name, "1", "1.0000")
        + L(name, "10", "0.5000")
        + L(name, "9", "1.0000")
        + L(name, "all", "0.8333")
    )


def test_set_F_param(files, capsys):
    _, out, _ = trec_eval(capsys, "-q", "-m", "set_F.0.5", "-m", "set_P", *files)
    # set_F.x = (x+1)PR/(xP+R) with x = 0.5
    # 1: P=2/4, R=2/2: 1.5*.5/(.25+1) = .6; 10: P=1/2, R=1/1: .6
    # 9: P=1/2, R=1/2: 1.5*.25/(.25+.5) = .5; mean = 1.7/3 = .5667
    assert out == (
        L("set_P", "1", "0.5000")
        + L("set_F_0.5", "1", "0.6000")
        + L("set_P", "10", "0.5000")
        + L("set_F_0.5", "10", "0.6000")
        + L("set_P", "9", "0.5000")
        + L("set_F_0.5", "9", "0.5000")
        + L("set_P", "all", "0.5000")
        + L("set_F_0.5", "all", "0.5667")
    )


def test_ndcg_gain_pairs(files, capsys):
    _, out, _ = trec_eval(capsys, "-q", "-m", "ndcg.1=3,2=9", *files)
    log2 = math.log2
    # gains: grade 1 -> 3, grade 2 -> 9; discount log2(rank + 1)
    n1 = (9 / log2(2) + 3 / log2(5)) / (9 / log2(2) + 3 / log2(3))  # a . . c vs ideal a c
    n10 = (3 / log2(3)) / (3 / log2(2))  # y x vs ideal x
    n9 = (3 / log2(2)) / (3 / log2(2) + 3 / log2(3))  # p z vs ideal p q
    name = "ndcg_1=3,2=9"
    assert out == (
        L(name, "1", f"{n1:6.4f}")
        + L(name, "10", f"{n10:6.4f}")
        + L(name, "9", f"{n9:6.4f}")
        + L(name, "all", f"{(n1 + n10 + n9) / 3:6.4f}")
    )
    assert [line.split("\t")[2] for line in out.splitlines()] == [
        "0.9448",
        "0.6309",
        "0.6131",
        "0.7296",
    ]


def test_relstring(files, capsys):
    _, out, _ = trec_eval(capsys, "-q", "-m", "relstring.3", *files)
    lines = out.splitlines()
    # one character per retrieved document up to 3: grade, '-' for not pooled;
    # no summary line for a string measure
    assert [line.split("\t")[:2] for line in lines] == [
        ["relstring_3           ", "1"],
        ["relstring_3           ", "10"],
        ["relstring_3           ", "9"],
    ]
    assert [line.split("\t")[2].strip("'") for line in lines] == ["2-0", "01", "1-"]


def test_nicknames(files, capsys):
    _, out, _ = trec_eval(capsys, *files)  # official is the default
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    cuts = ["5", "10", "15", "20", "30", "100", "200", "500", "1000"]
    points = [f"{p / 10:.2f}" for p in range(11)]
    official = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"]
    official += ["bpref", "recip_rank"] + [f"iprec_at_recall_{p}" for p in points]
    official += [f"P_{c}" for c in cuts]
    assert names == official
    _, out2, _ = trec_eval(capsys, "-m", "official", *files)
    assert out2 == out

    _, out, _ = trec_eval(capsys, "-m", "set", *files)
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    assert names == [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_relative_P",
        "set_recall",
        "set_map",
        "set_F",
    ]
    _, out, _ = trec_eval(capsys, "-m", "all_trec", *files)
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    for expected in ("infAP", "gm_bpref", "11pt_avg", "ndcg", "ndcg_cut_10", "map_cut_5", "Rndcg"):
        assert expected in names
    assert "relstring" not in names  # a string measure has no summary line
    assert names.index("map") < names.index("P_5") < names.index("recall_5") < names.index("ndcg")


def test_summary_counts_num_q(files, capsys):
    _, out, _ = trec_eval(capsys, "-m", "num_q", "-m", "num_rel_ret", *files)
    # 3 evaluated topics; relevant retrieved: a c | x | p = 4
    assert out == L("num_q", "all", "3") + L("num_rel_ret", "all", "4")


def test_complete_missing_topic_is_zero_and_means_use_qrels_topics(files, capsys):
    code, out, err = trec_eval(
        capsys, "-c", "-q", "-m", "map", "-m", "num_rel", "-m", "num_q", *files
    )
    assert code == 0 and err == ""
    assert out == (
        L("num_rel", "1", "2")
        + L("map", "1", "0.7500")
        + L("num_rel", "10", "1")
        + L("map", "10", "0.5000")
        + L("num_rel", "5", "1")  # topic 5: no results, zeros except its judgments
        + L("map", "5", "0.0000")
        + L("num_rel", "9", "2")
        + L("map", "9", "0.5000")
        + L("num_q", "all", "4")
        + L("num_rel", "all", "6")  # a c x p q m
        + L("map", "all", "0.4375")  # 1.75 / 4
    )


def test_depth(files, capsys):
    _, out, _ = trec_eval(capsys, "-M", "1", "-q", "-m", "map", "-m", "num_ret", *files)
    # top 1 only: 1: a -> (1/1)/2 = .5; 10: y -> 0; 9: p -> (1/1)/2 = .5; mean 1/3
    assert out == (
        L("num_ret", "1", "1")
        + L("map", "1", "0.5000")
        + L("num_ret", "10", "1")
        + L("map", "10", "0.0000")
        + L("num_ret", "9", "1")
        + L("map", "9", "0.5000")
        + L("num_ret", "all", "3")
        + L("map", "all", "0.3333")
    )


def test_level_for_rel(files, capsys):
    _, out, _ = trec_eval(capsys, "-l", "2", "-m", "map", "-m", "num_rel", "-m", "P.5", *files)
    # only a (grade 2) is relevant: 1: AP = 1, P_5 = 1/5; 10, 9: R = 0 -> 0
    assert out == L("num_rel", "all", "1") + L("map", "all", "0.3333") + L("P_5", "all", "0.0667")


def test_judged_docs_only(files, capsys):
    _, out, _ = trec_eval(capsys, "-J", "-q", "-m", "map", "-m", "num_ret", *files)
    # unjudged d and z dropped: 1: a b c -> (1 + 2/3)/2 = .8333; 9: p -> .5; 10: .5
    assert out == (
        L("num_ret", "1", "3")
        + L("map", "1", "0.8333")
        + L("num_ret", "10", "2")
        + L("map", "10", "0.5000")
        + L("num_ret", "9", "1")
        + L("map", "9", "0.5000")
        + L("num_ret", "all", "6")
        + L("map", "all", "0.6111")  # (5/6 + 1/2 + 1/2)/3 = 11/18
    )


def test_nosummary(files, capsys):
    _, out, _ = trec_eval(capsys, "-n", "-q", "-m", "map", *files)
    assert out == L("map", "1", "0.7500") + L("map", "10", "0.5000") + L("map", "9", "0.5000")
    _, out, _ = trec_eval(capsys, "-n", "-m", "map", *files)
    assert out == ""


def test_utility_with_collection_size(files, capsys):
    _, out, _ = trec_eval(capsys, "-N", "100", "-q", "-m", "utility.1,-1,0,1", *files)
    # a*relret + b*nonrelret + c*relnotret + d*(N + relret - num_ret - R)
    # 1: 2 - 2 + 0 + (100 + 2 - 4 - 2) = 96; 10: 1 - 1 + (100 + 1 - 2 - 1) = 98
    # 9: 1 - 1 + (100 + 1 - 2 - 2) = 97; mean 97
    name = "utility_1,-1,0,1"
    assert out == (
        L(name, "1", "96.0000")
        + L(name, "10", "98.0000")
        + L(name, "9", "97.0000")
        + L(name, "all", "97.0000")
    )
    _, out, _ = trec_eval(capsys, "-m", "utility", *files)
    # default 1,-1,0,0: relret - nonrelret = 0 for every topic
    assert out == L("utility", "all", "0.0000")


def test_zscores(files, capsys, tmp_path):
    z = tmp_path / "z.txt"
    z.write_text("1 map 0.5 0.25\n10 map 0.5 0.5\n9 map 0.25 0.125\n")
    _, out, _ = trec_eval(capsys, "-Z", str(z), "-q", "-m", "map", *files)
    # (0.75 - .5)/.25 = 1; (0.5 - .5)/.5 = 0; (0.5 - .25)/.125 = 2; mean 1
    # trec_eval 10.0 prefixes z-score lines with a Z (meas_print_single.c)
    assert out == (
        "Z" + L("map", "1", "1.0000")
        + "Z" + L("map", "10", "0.0000")
        + "Z" + L("map", "9", "2.0000")
        + "Z" + L("map", "all", "1.0000")
    )  # fmt: skip


def test_zscores_print_counts_as_doubles(files, capsys, tmp_path):
    z = tmp_path / "z.txt"
    z.write_text("1 num_ret 3 2\n10 num_ret 2 1\n9 num_ret 2 0\n")
    _, out, _ = trec_eval(capsys, "-Z", str(z), "-q", "-m", "num_ret", "-m", "num_q", *files)
    # num_ret 4, 2, 2: (4-3)/2 = .5; (2-2)/1 = 0; stddev 0 and value = mean: 0;
    # summed in 'all' and printed with %6.4f, like num_q
    assert out == (
        "Z" + L("num_ret", "1", "0.5000")
        + "Z" + L("num_ret", "10", "0.0000")
        + "Z" + L("num_ret", "9", "0.0000")
        + "Z" + L("num_q", "all", "3.0000")
        + "Z" + L("num_ret", "all", "0.5000")
    )  # fmt: skip


def test_zscore_missing_entry_prints_trec_eval_placeholder(files, capsys, tmp_path):
    z = tmp_path / "z.txt"
    z.write_text("1 map 0.5 0.25\n10 map 0.5 0.5\n")  # nothing for topic 9, nor gm_map
    code, out, err = trec_eval(capsys, "-Z", str(z), "-q", "-m", "map", "-m", "gm_map", *files)
    assert code == 0
    # MISSING_ZSCORE_VALUE (-1000000) for (9, map); gm_map: exp(mean of -1000000) = 0
    assert out == (
        "Z" + L("map", "1", "1.0000")
        + "Z" + L("map", "10", "0.0000")
        + "Z" + L("map", "9", "-1000000.0000")
        + "Z" + L("map", "all", "-333333.0000")  # (1 + 0 - 1000000) / 3
        + "Z" + L("gm_map", "all", "0.0000")
    )  # fmt: skip
    note = [line for line in err.splitlines() if "z-score" in line]
    assert len(note) == 1
    assert "9 map" in note[0] and "1 gm_map" in note[0] and "4 (query, measure)" in note[0]


def test_zscore_file_that_cannot_be_read(files, capsys, tmp_path):
    missing = tmp_path / "nothing.txt"
    code, out, err = trec_eval(capsys, "-Z", str(missing), "-m", "map", *files)
    assert code == 2 and out == ""
    assert err == (
        f"cranfield trec_eval: error: cannot read z-score file '{missing}': "
        "No such file or directory\n"
    )
    code, _, err = trec_eval(capsys, "-Z", str(tmp_path), "-m", "map", *files)
    assert code == 2 and err.count("\n") == 1 and "cannot read z-score file" in err


def test_help_lists_every_option_once(capsys):
    assert main(["trec_eval", "--help"]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n", 1)[1]  # after the usage lines
    for option in ("--query_eval_wanted", "--measure", "--complete_rel_info_wanted",
                   "--nosummary", "--level_for_rel", "--Number_docs_in_coll",
                   "--Max_retrieved_per_topic", "--Judged_docs_only", "--Zscore",
                   "--compat", "--stream"):  # fmt: skip
        assert table.count(option) == 1, option
    assert "positional arguments" not in out and "\noptions:" not in out


def test_measure_parameters_read_as_trec_eval_reads_them(files, capsys):
    # atol: "1e3" is 1, "+5" and "07" are 5 and 7, "10x" is 10 (meas_init.c)
    _, out, _ = trec_eval(capsys, "-m", "ndcg_cut.1e3", "-m", "P.+5,07,10x", *files)
    names = [line.split("\t")[0].rstrip() for line in out.splitlines()]
    assert names == ["P_5", "P_7", "P_10", "ndcg_cut_1"]
    # a measure that takes no parameters ignores them, with a note
    code, out, err = trec_eval(capsys, "-m", "map.5", *files)
    assert code == 0 and out == L("map", "all", "0.5833") and "map.5" in err


def test_stdin_run_and_qrels(files, capsys, monkeypatch):
    qrels, run = files
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN.encode())))
    code, out, _ = trec_eval(capsys, "-m", "map", qrels, "-")
    assert code == 0 and out == L("map", "all", "0.5833")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(QRELS.encode())))
    code, out, _ = trec_eval(capsys, "-m", "map", "-", run)
    assert code == 0 and out == L("map", "all", "0.5833")


def test_gzip_inputs(tmp_path, capsys):
    q, r = tmp_path / "qrels.gz", tmp_path / "run.gz"
    q.write_bytes(gzip.compress(QRELS.encode()))
    r.write_bytes(gzip.compress(RUN.encode()))
    code, out, _ = trec_eval(capsys, "-m", "map", "-m", "runid", str(q), str(r))
    assert code == 0 and out == L("runid", "all", "runZ") + L("map", "all", "0.5833")


# -- against pytrec_eval on the sample collection ----------------------------------------

PYTREC_ALL_TREC = {
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
}
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


def _read_trec(path) -> dict:
    out: dict[str, dict] = {}
    with open(path) as fh:
        lines = fh.readlines()
    for line in lines:
        f = line.split()
        if len(f) == 4:
            out.setdefault(f[0], {})[f[2]] = int(f[3])
        else:
            out.setdefault(f[0], {})[f[2]] = float(f[4])
    return out


@pytest.mark.parametrize("run_name", ["bm25", "dense"])
def test_all_trec_matches_pytrec_eval_on_sample(sample_paths, capsys, run_name):
    paths = sample_paths
    qrels_path = paths[0]
    run_path = next(p for p in paths if p.stem == run_name)
    code, out, _ = trec_eval(
        capsys, "--compat", "9", "-q", "-m", "all_trec", str(qrels_path), str(run_path)
    )
    assert code == 0
    printed: dict[tuple[str, str], str] = {}
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        printed[(name.rstrip(), qid)] = value

    qrels_d, run_d = _read_trec(qrels_path), _read_trec(run_path)
    expected = pytrec_eval.RelevanceEvaluator(qrels_d, PYTREC_ALL_TREC).evaluate(run_d)
    assert {q for _, q in printed if q != "all"} == set(expected)
    compared = 0
    for qid, values in expected.items():
        for name, value in values.items():
            if name in ("gm_map", "gm_bpref"):
                continue  # per-query values are not printed for gm_*
            text = str(int(value)) if name in COUNTS else f"{value:6.4f}"
            assert printed[(name, qid)] == text, (name, qid)
            compared += 1
    # summary: arithmetic means, sums of counts, geometric means of gm_* (logs from pytrec)
    names = {n for v in expected.values() for n in v}
    n = len(expected)
    for name in names:
        total = 0.0
        for q in sorted(expected):  # trec_eval accumulates in topic order
            total += expected[q][name]
        if name in COUNTS:
            text = str(int(total))
        elif name in ("gm_map", "gm_bpref"):
            text = f"{math.exp(total / n):6.4f}"
        else:
            text = f"{total / n:6.4f}"
        assert printed[(name, "all")] == text, name
    assert printed[("num_q", "all")] == str(n)
    assert printed[("runid", "all")] == run_name
    assert compared > 40 * 60


# -- deliberate deviations from trec_eval 10.0 (docs/trec_eval.md) -----------------------


def test_deviation_ndcg_gains_less_than_one_apart(tmp_path, capsys):
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 2\n")
    r.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    _, out, _ = trec_eval(capsys, "-m", "ndcg.1=0.5,2=0.7", str(q), str(r))
    # ranking a (0.5), b (0.7); the ideal puts b first. trec_eval 10.0 compares the gains
    # as integers (both 0) and builds a wrong ideal: it prints 0.0000 (tests/reference).
    value = (0.5 + 0.7 / math.log2(3)) / (0.7 + 0.5 / math.log2(3))  # 0.92731
    assert out == L("ndcg_1=0.5,2=0.7", "all", f"{value:6.4f}")
    assert f"{value:6.4f}" == "0.9273"


def test_deviation_two_parameterised_dcg_family_members(files, capsys):
    code, out, _ = trec_eval(capsys, "-q", "-m", "dcg.1=3,2=9", "-m", "ndcg.1=3,2=9", *files)
    assert code == 0  # trec_eval 10.0 crashes here
    # topic 1: DCG = 9/log2(2) + 3/log2(5) = 10.2920; nDCG as in test_ndcg_gain_pairs
    lines = out.splitlines()
    assert lines[0] == L("dcg_1=3,2=9", "1", f"{9 + 3 / math.log2(5):6.4f}").rstrip("\n")
    assert lines[1] == L("ndcg_1=3,2=9", "1", "0.9448").rstrip("\n")


def test_complete_topics_use_trec_eval_placeholder_ranking(files, capsys):
    # -c: topic 5 has no results; trec_eval ranks one unpooled placeholder document for
    # it and resets num_ret, utility, relstring, unj* and rbp_resid by printed name only
    def topic5(*argv):
        _, out, _ = trec_eval(capsys, "-c", "-q", "-n", *argv, *files)
        return [line.split("\t")[2] for line in out.splitlines() if line.split("\t")[1] == "5"]

    plain = ["-m", "num_ret", "-m", "relstring", "-m", "utility", "-m", "rbp_resid"]
    assert topic5(*plain) == ["0", "''", "0.0000", "0.0000"]
    params = ["-m", "relstring.3", "-m", "utility.1,-1,0,0", "-m", "rbp_resid.p=0.5"]
    # relstring '-' (unpooled); utility b * 1 retrieved = -1; rbp_resid 0.5 + 0.5 * 1
    assert topic5(*params) == ["'-'", "-1.0000", "1.0000"]
    # -J drops the placeholder: an empty ranking
    assert topic5("-J", *params) == ["''", "0.0000", "0.0000"]


def test_c_math_outside_its_domain_is_nan_not_an_exception():
    from cranfield.core import libm

    log = libm.log(np.array([-1.0, 0.0, 1.0]))
    assert np.isnan(log[0]) and math.copysign(1, log[0]) < 0  # glibc's -nan
    assert log[1] == -math.inf and log[2] == 0.0
    assert libm.log2(np.array([0.0]))[0] == -math.inf
    assert libm.exp(np.array([1e6]))[0] == math.inf
