"""``cranfield sample_eval`` against TREC's ``sample_eval.pl`` itself, on generated
stratified samples: the whole output byte for byte, and every per-topic value at full
precision (a copy of the script printing ``%.17g``, made in a temporary directory).

    PYTHONPATH=src python benchmarks/sample_eval_check.py --script /path/to/sample_eval.pl

sample_eval.pl is distributed by NIST with the TREC tracks that used sampled judgments
(e.g. the Clinical Decision Support and Precision Medicine tracks); it is not in this
repository. Perl runs it (``apt-get install perl``). Generated cases: 1-8 topics, pools
of 3-100 documents in 1-4 strata sampled at 0-100 % each, grades up to 3, runs with tied
scores and documents outside the pool; then 30 larger ones (pools up to 1,500, runs of
900-1,300 documents: the 1000-document cut, stratum labels and grades that sort
differently as text, e.g. 10 before 2).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))


def small_case(seed: int) -> tuple[str, str]:
    rng = random.Random(seed * 7 + 1)
    topics, docs = rng.randint(1, 8), rng.randint(5, 120)
    depth, strata = rng.randint(3, 100), rng.randint(1, 4)
    rates = [rng.choice([1.0, 0.7, 0.3, 0.1, 0.0]) for _ in range(strata)]
    grades = rng.choice([(0, 1), (0, 1, 2), (0, 1, 2, 3), (0, 0, 0, 1)])
    q, r = [], []
    for t in range(1, topics + 1):
        tid = str(100 + t)
        pool = rng.sample(range(docs), min(docs, depth))
        for k, d in enumerate(pool):
            s = min(strata - 1, k * strata // len(pool))
            rel = rng.choice(grades) if rng.random() < rates[s] else -1
            q.append(f"{tid} 0 D{d} {s + 1} {rel}")
        n = min(rng.randint(1, depth + 10), docs + 10)
        for k, d in enumerate(rng.sample(range(docs + 10), n)):
            tied = rng.random() < 0.3
            score = rng.choice([1.0, 2.0, 3.0]) if tied else round(rng.random() * 100, 3)
            r.append(f"{tid} Q0 D{d} {k + 1} {score} run")
    return "\n".join(q) + "\n", "\n".join(r) + "\n"


def large_case(seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    q, r = [], []
    for t in range(1, rng.randint(2, 4)):
        pool = rng.sample(range(3000), rng.randint(50, 1500))
        labels = ["1", "2", "10", "3"][: rng.randint(1, 4)]
        for k, d in enumerate(pool):
            rel = rng.choice([0, 1, 2, 10]) if rng.random() < 0.4 else -1
            q.append(f"{t} 0 D{d} {labels[k * len(labels) // len(pool)]} {rel}")
        for k, d in enumerate(rng.sample(range(3000), rng.randint(900, 1300))):
            r.append(f"{t} Q0 D{d} {k + 1} {rng.randint(0, 300)} run")
    return "\n".join(q) + "\n", "\n".join(r) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--script", required=True, help="sample_eval.pl")
    p.add_argument("--cases", type=int, default=200, help="small generated cases")
    a = p.parse_args()
    import cranfield
    from cranfield.core import sampled as S

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        full = d / "full.pl"
        text = Path(a.script).read_text(encoding="latin-1")
        full.write_text(text.replace("%6.4f", "%.17g").replace("%14.4f", "%.17g"))
        cases = [small_case(s) for s in range(a.cases)] + [large_case(s) for s in range(30)]
        text_diff = value_diff = values = 0
        eval_values = eval_diff = 0  # eval -m xinfAP infNDCG --sampled-qrels, per topic
        for qrels, run in cases:
            (d / "q.txt").write_text(qrels)
            (d / "r.txt").write_text(run)
            argv = ["-q", str(d / "q.txt"), str(d / "r.txt")]
            perl = subprocess.run(["perl", a.script, *argv], capture_output=True, text=True)
            result = S.evaluate_sampled(d / "q.txt", d / "r.txt")
            text_diff += perl.stdout != S.sample_eval_text(result, per_topic=True)
            mine = {}
            for e in result.topics:
                mine[("infAP", e.topic)] = e.inf_ap
                mine[("infNDCG", e.topic)] = e.inf_ndcg
                mine[("inum_rel_ret", e.topic)] = e.num_rel_ret
                mine[("inum_rel", e.topic)] = e.num_rel
                for c, v in zip(S.PRECISION_RANKS, e.precision, strict=True):
                    mine[(f"iP{c}", e.topic)] = v
            out = subprocess.run(["perl", str(full), *argv], capture_output=True, text=True)
            perl_values = {}
            for line in out.stdout.splitlines():
                f = line.split()
                if len(f) == 3 and (f[0], f[1]) in mine:
                    values += 1
                    value_diff += float(f[2]) != mine[(f[0], f[1])]
                    perl_values[(f[0], f[1])] = float(f[2])
            # the same estimates as measures of eval, the ordinary qrels the judged pairs
            judged = [x.split() for x in qrels.splitlines() if x.strip()]
            (d / "o.txt").write_text(
                "".join(f"{t} 0 {doc} {g}\n" for t, _, doc, _, g in judged if int(g) >= 0)
            )
            if (d / "o.txt").stat().st_size:
                res = cranfield.evaluate(
                    str(d / "o.txt"),
                    str(d / "r.txt"),
                    ["xinfAP", "infNDCG"],
                    sampled_qrels=str(d / "q.txt"),
                )
                for m, label in zip(res.measures, ("infAP", "infNDCG"), strict=True):
                    for q, v in zip(res.runs[0].query_ids, res.runs[0].values[m], strict=True):
                        if (label, q) in perl_values:
                            eval_values += 1
                            eval_diff += float(v) != perl_values[(label, q)]
    print(
        f"{len(cases)} cases: output differs in {text_diff}; {values} per-topic values "
        f"at full precision, {value_diff} differ; eval's xinfAP/infNDCG: {eval_values} "
        f"per-topic values, {eval_diff} differ"
    )


if __name__ == "__main__":
    main()
