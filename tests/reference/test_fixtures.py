"""The golden fixtures of tests/test_trec_eval_cli.py and the sample collection, run
through ``cranfield trec_eval`` and the trec_eval 10.0 binary with every combination of
the boolean flags, the nicknames and parameterised measures: the same bytes."""

from __future__ import annotations

import itertools

import pytest

from . import oracle

# the fixture of tests/test_trec_eval_cli.py: topic 5 is judged but not in the run
QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n10 0 x 1\n10 0 y 0\n9 0 p 1\n9 0 q 1\n5 0 m 1\n"
RUN = (
    "1 Q0 a 1 3.0 runA\n1 Q0 b 2 2.0 runA\n1 Q0 d 3 2.0 runA\n1 Q0 c 4 1.0 runA\n"
    "10 Q0 y 1 5 runA\n10 Q0 x 2 4 runA\n9 Q0 p 1 1.0 runA\n9 Q0 z 2 0.5 runZ\n"
)
# without topic 5: what cranfield evaluates without -c (docs/trec_eval.md, deviation 1)
QRELS_IN_RUN = "".join(line + "\n" for line in QRELS.splitlines() if not line.startswith("5 "))
# a z-score file for the fixture (the '~' entries keep trec_eval's search inside its
# table: deviation 9); some pairs are absent, one has stddev 0
ZSCORES = (
    "1 map 0.5 0.25\n10 map 0.5 0.5\n5 map 0.1 0.2\n1 P_5 0.3 0.1\n9 P_5 0.2 0\n"
    "10 num_ret 2 1\n9 num_rel 1 0.5\n1 ndcg 0.5 0.2\n9 gm_map -2 1\n5 num_ret 0 1\n"
    "1 ~ 0 1\n10 ~ 0 1\n5 ~ 0 1\n9 ~ 0 1\n~ ~ 0 1\n"
)
MEASURE_SETS = [
    [],
    ["-m", "all_trec"],
    ["-m", "set"],
    ["-m", "official", "-m", "ndcg_cut.7", "-m", "relstring.3"],
    ["-m", "P.5,10", "-m", "ndcg.1=3,2=9", "-m", "utility.1,-1,0,1", "-m", "set_F.0.5"],
    ["-m", "iprec_at_recall.0.25", "-m", "Rprec_mult.0.5", "-m", "rbp.p=0.5", "-m", "unj.1"],
]
SWITCHES = ["-q", "-c", "-J", "-n"]


@pytest.fixture(scope="module")
def fixture_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fixture")
    for name, text in [("q", QRELS), ("q_in_run", QRELS_IN_RUN), ("r", RUN), ("z", ZSCORES)]:
        (d / name).write_text(text)
    return {name: str(d / name) for name in ("q", "q_in_run", "r", "z")}


@pytest.mark.parametrize("measures", range(len(MEASURE_SETS)))
def test_fixture_every_switch_combination(trec_eval_bin, fixture_files, measures):
    f = fixture_files
    compared = 0
    for k in range(len(SWITCHES) + 1):
        for switches in itertools.combinations(SWITCHES, k):
            # every combination plain; -Z and -M/-l/-N on every other one
            extras = [[], ["-Z", f["z"]], ["-M", "2", "-l", "2", "-N", "50"]]
            for extra in extras if len(switches) % 2 == 0 else extras[:1]:
                args = [*switches, *extra, *MEASURE_SETS[measures]]
                qrels = f["q"] if "-c" in switches else f["q_in_run"]
                allow = oracle.allowance(switches)
                oracle.check(trec_eval_bin, [*args, f["q"], f["r"]], [*args, qrels, f["r"]], allow)
                compared += 1
    assert compared == 16 + 8 * 2


@pytest.fixture(scope="module")
def sample_files(sample_paths):
    return [str(p) for p in sample_paths]


@pytest.mark.parametrize(
    "options",
    [
        ["-q", "-m", "all_trec"],
        ["-c", "-m", "official", "-m", "ndcg_cut.5,10", "-m", "ndcg"],
        ["-J", "-l", "2", "-m", "all_trec"],
        ["-M", "10", "-m", "set", "-m", "P.3", "-m", "rbp", "-m", "rbp_resid"],
    ],
)
def test_sample_collection(trec_eval_bin, sample_files, tmp_path, options):
    qrels, *runs = sample_files
    for run in runs:
        # without -c, the topics a run lacks are left out for trec_eval (deviation 1)
        binary_qrels = qrels if "-c" in options else oracle.restricted_qrels(qrels, run, tmp_path)
        oracle.check(trec_eval_bin, [*options, qrels, run], [*options, binary_qrels, run])
