"""Odd spellings of ``-m`` parameters: ``cranfield trec_eval`` reads them as trec_eval
10.0 does (atol/atof prefixes, pair lists, ignored parameters), checked against the
binary: the same bytes, or both refuse."""

from __future__ import annotations

import pytest

from . import oracle

QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n10 0 x 1\n10 0 y 0\n9 0 p 1\n9 0 q 1\n5 0 m 1\n"
RUN = (
    "1 Q0 a 1 3.0 runA\n1 Q0 b 2 2.0 runA\n1 Q0 d 3 2.0 runA\n1 Q0 c 4 1.0 runA\n"
    "10 Q0 y 1 5 runA\n10 Q0 x 2 4 runA\n9 Q0 p 1 1.0 runA\n9 Q0 z 2 0.5 runZ\n"
)
SPELLINGS = [
    # cutoffs: atol reads the leading integer
    "ndcg_cut.1e3", "P.+5,07,10x", "P. 5", "P.5,0x10", "success.3.9", "map_cut.99999999999999999999",
    "recall.2,1", "unj.0", "P.-3,5", "P.5,5.5", "P.", "relative_P.x",
    # double cutoffs: atof (hexadecimal, exponents, trailing junk)
    "iprec_at_recall.0x0.8p0,.25x", "iprec_at_recall.1e-1", "Rprec_mult.123456,0.5",
    "iprec_at_recall.0.5,0.50",
    # number lists: atof; the name keeps the text as typed
    "set_F.0.5abc", "set_F.1,2", "utility.1,-1,0,0x", "utility.1,2,3", "11pt_avg.0.5,0.5",
    "11pt_avg.0.2,0.5,0.8", "relstring.2.7", "relstring.0", "relstring.-2",
    # pair lists: integer levels, the first gain of a level, the last p, others ignored
    "ndcg.1=3,x=4,01=9", "ndcg.1=3,1=5", "ndcg.=3", "ndcg.+2=4", "ndcg_rel.5=2,", "ndcg.1==2",
    "G.0=1,1=3", "Rndcg.2=3,1=5", "rbp.p=0.5,p=0.2", "rbp.2=0.5", "rbp_resid.p=0.5",
    "rbp_resid.1=3", "dcg.2=5", "ideal_dcg.1=2,2=1",
    # measures that take no parameters ignore them
    "map.5", "num_ret.3", "gm_map.1", "binG.1=2", "yaap.3", "set_P.2", "runid.x", "num_q.2",
    "official.5", "all_trec.1",
]  # fmt: skip


# accepted by trec_eval 10.0, refused by cranfield (docs/trec_eval.md, deviation 10):
# recall levels outside [0, 1] and multiples of R that are not positive are not
# measures; non-finite numbers make trec_eval convert NaN or infinity to an integer
REFUSED = [
    "Rprec_mult.-1", "Rprec_mult.0", "iprec_at_recall.-0.5", "iprec_at_recall.1.5",
    "11pt_avg.-1,2", "iprec_at_recall.inf", "G.2=inf", "rbp.p=x", "rbp.p=1.5",
]  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("params")
    (d / "q").write_text(QRELS)
    (d / "r").write_text(RUN)
    return str(d / "q"), str(d / "r")


@pytest.mark.parametrize("switches", [["-c", "-q"], ["-c", "-J", "-q"]])
def test_parameter_spellings_match_trec_eval(trec_eval_bin, files, switches):
    allow = oracle.allowance(switches)
    outcomes = [
        oracle.check(trec_eval_bin, [*switches, "-m", s, *files], allow=allow) for s in SPELLINGS
    ]
    accepted = sum(o.status == 0 for o in outcomes)
    assert accepted >= len(SPELLINGS) - 12  # most spellings are accepted by trec_eval


def test_ndcg_cut_1e3_is_ndcg_cut_1(trec_eval_bin, files):
    want = oracle.check(trec_eval_bin, ["-c", "-m", "ndcg_cut.1e3", *files])
    assert want.stdout.startswith(b"ndcg_cut_1            \tall\t")


@pytest.mark.parametrize("spelling", REFUSED)
def test_refused_parameters(trec_eval_bin, files, spelling):
    assert oracle.binary(trec_eval_bin, ["-c", "-m", spelling, *files]).status == 0
    got = oracle.cranfield(["-c", "-m", spelling, *files])
    assert got.status == 1 and got.stdout == b""
    assert got.stderr.count("\n") == 1 and got.stderr.startswith("cranfield trec_eval: ")
