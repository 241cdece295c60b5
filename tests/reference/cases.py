"""Generated adversarial inputs for the comparison with trec_eval 10.0.

:func:`write_case` writes one case: the (qrels, run) dictionaries of
``generators.adversarial_case`` (ties, near-ties, graded and negative judgments,
unjudged documents, one-document and 2000-document rankings, topics on one side only),
with rankings made only of unjudged documents and scores written in C's other
spellings (exponents, a leading '+', '-0') added on top. Topics whose every judgment is negative
are left out here: trec_eval 10.0 mishandles them (docs/trec_eval.md, deviation 7), and
``test_deviations.py`` covers them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from generators import QIDS, adversarial_case


def _score_text(rng: np.random.Generator, value: float) -> str:
    kind = rng.integers(0, 8)
    if kind == 0:
        return f"{value:.6e}"
    if kind == 1 and value >= 0:
        return f"+{value!r}"
    if kind == 2 and value == 0:
        return "-0"
    return repr(float(value))


def make_case_plus(seed: int) -> tuple[dict, dict]:
    """``adversarial_case`` with a topic whose ranking holds only unjudged documents."""
    qrels, run = adversarial_case(seed)
    rng = np.random.default_rng(10_000 + seed)
    free = [q for q in QIDS if q not in qrels and q not in run]
    if free and rng.random() < 0.3:  # only unjudged documents retrieved
        q = free.pop()
        qrels[q] = {"j1": int(rng.integers(0, 3)), "j2": 1}
        run[q] = {f"u{i}": float(rng.normal()) for i in range(int(rng.integers(1, 8)))}
    return qrels, run


def write_case(directory: Path, qrels: dict, run: dict, seed: int, tag: str = "run") -> tuple:
    """Write the qrels and run files of one case; returns their paths as strings."""
    rng = np.random.default_rng(20_000 + seed)
    q_lines = [f"{q} 0 {d} {g}" for q in qrels for d, g in qrels[q].items()]
    r_lines = []
    for q, ranking in run.items():
        for rank, (d, s) in enumerate(ranking.items(), 1):
            r_lines.append(f"{q} Q0 {d} {rank} {_score_text(rng, s)} {tag}")
    rng.shuffle(q_lines)
    rng.shuffle(r_lines)
    qp, rp = directory / f"qrels{seed}.txt", directory / f"run{seed}.txt"
    qp.write_text("".join(line + "\n" for line in q_lines))
    rp.write_text("".join(line + "\n" for line in r_lines))
    return str(qp), str(rp)


def without_unretrieved_topics(directory: Path, qrels: dict, run: dict, seed: int) -> str:
    """The qrels file without the topics absent from the run (what cranfield evaluates
    without ``-c``: docs/trec_eval.md, deviation 1)."""
    kept = {q: v for q, v in qrels.items() if q in run}
    path = directory / f"qrels{seed}.kept.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q in kept for d, g in kept[q].items()))
    return str(path)


# -- command lines -----------------------------------------------------------------------

FLAGS = [
    ["-q"],
    ["-c"],
    ["-J"],
    ["-n"],
    ["-M", "1"],
    ["-M", "5"],
    ["-l", "0"],
    ["-l", "2"],
    ["-l", "4"],
    ["-N", "500"],
]
MEASURES = [
    "official", "set", "all_trec", "map", "gm_map", "Rprec", "bpref", "gm_bpref",
    "recip_rank", "infAP", "num_q", "runid", "num_nonrel_judged_ret", "yaap", "binG",
    "P", "P.1,3,7", "recall.2,4", "success.1,10", "relative_P.3", "map_cut.2,30",
    "ndcg_cut.3,7", "ndcg_cut.1e3", "unj", "unj.1,5", "relstring", "relstring.7",
    "iprec_at_recall.0", "iprec_at_recall.0.15,0.3333", "11pt_avg", "11pt_avg.0.25,0.5",
    "Rprec_mult", "Rprec_mult.0.4,2", "utility", "utility.2,-1,1,0.5", "set_F",
    "set_F.0.25", "ndcg", "ndcg.1=3,2=9", "ndcg.0=1,1=2,4=-1", "dcg", "dcg.1=2",
    "ideal_dcg", "ndcg_rel", "ndcg_rel.1=5,3=1", "Rndcg", "Rndcg.2=3", "G", "G.0=1,1=3",
    "rbp", "rbp.p=0.5", "rbp.p=0.8,2=0.5", "rbp_resid", "rbp_resid.p=0.5",
]  # fmt: skip
DCG_FAMILY = ("ndcg", "dcg", "ideal_dcg")


def _compatible(measures: list[str]) -> list[str]:
    """Drop what makes trec_eval 10.0 crash or mislabel (docs/trec_eval.md, deviation 3):
    a parameterised member of {ndcg, dcg, ideal_dcg} with another member (all_trec
    holds ndcg)."""
    members = [m for m in measures if m.split(".")[0] in DCG_FAMILY or m == "all_trec"]
    if any("." in m for m in members) and len(members) > 1:
        keep = next(m for m in members if "." in m)
        measures = [m for m in measures if m not in members or m == keep]
    return measures


def command_lines(seed: int, count: int = 3) -> list[list[str]]:
    """``count`` trec_eval option lists (flags, then ``-m`` options) for one case."""
    rng = np.random.default_rng(30_000 + seed)
    out = []
    for _ in range(count):
        flags = [f for f in FLAGS if rng.random() < 0.25]
        picked = rng.choice(len(MEASURES), size=int(rng.integers(1, 7)), replace=False)
        measures = _compatible([MEASURES[i] for i in sorted(picked)])
        out.append([a for f in flags for a in f] + [a for m in measures for a in ("-m", m)])
    return out


def zscore_file(path: Path, printed: bytes, seed: int) -> str:
    """A z-score file for trec_eval's per-topic output ``printed`` (``-q``): a mean and
    stddev for most (topic, measure) pairs, none for some, stddev 0 for a few.

    Every topic gets a last measure ``~`` and the file a last topic ``~``: trec_eval's
    binary search reads one entry past its table (convert_zscores.c), so the file must
    never make it look there (docs/trec_eval.md, deviation 9).
    """
    rng = np.random.default_rng(40_000 + seed)
    lines, qids = [], set()
    for line in printed.decode().splitlines():
        name, qid, _ = line.split("\t")
        name = name.strip()
        if qid == "all" or name == "relstring" or name.startswith("relstring_"):
            continue
        qids.add(qid)
        roll = rng.random()
        if roll < 0.15:
            continue  # no mean/stddev: trec_eval's placeholder value
        sd = 0.0 if roll < 0.2 else float(rng.uniform(0.05, 3))
        lines.append(f"{qid} {name} {rng.normal():.6f} {sd:.6f}")
    lines += [f"{q} ~ 0 1" for q in sorted(qids | {"~"})]
    rng.shuffle(lines)
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)
