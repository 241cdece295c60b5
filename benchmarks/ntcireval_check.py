"""NTCIREVAL itself against cranfield's D-nDCG@k, I-rec@k and D#-nDCG@k.

    PYTHONPATH=src python benchmarks/ntcireval_check.py --ntcireval DIR [--cases 200]

``DIR`` holds NTCIREVAL (Sakai; the version whose README.diversity was revised in
January 2019) built with its Makefile (``ntcir_eval``) beside its scripts
``DIN-splitqrels``, ``TRECsplitruns`` and ``D-NTCIR-eval`` (they need ``gawk``).
NTCIREVAL is not on PyPI and is not redistributed here, so this check is not part of
the test suite; the conventions it confirmed are pinned by hand-computed cases in
tests/reference/test_intent_graded.py.

Each generated case is run through NTCIREVAL's documented type-agnostic procedure
(README.diversity sections 1–3: ``DIN-splitqrels`` on an Iprob and a Dqrels file,
``TRECsplitruns``, then ``D-NTCIR-eval`` at each cutoff) and through
``cranfield.evaluate`` with the same judgments (grade g for NTCIREVAL's level Lg) and
intent probabilities. NTCIREVAL prints 4 decimals and computes the global gains through
``awk``, which prints them with 6 significant digits; a value counts as equal when
cranfield's, printed the same way, is the same text, and the largest difference is
reported for the others. D#-nDCG is compared as D-NTCIR-eval computes it: ``awk``
combines the I-rec and D-nDCG it printed (4 decimals), so cranfield's two values are
printed and combined the same way (gamma 0.5).

Cases: 1–3 topics of 1–5 intents with graded judgments 0–3, documents judged
non-relevant to every intent (NTCIREVAL's intent 0, level L0), intent probabilities
random (some 0) and sometimes an intent listed with a probability but without a
relevant document, runs of 0–15 documents with unjudged ones, cutoffs 1, 3, 5, 10, 20.
Where no judged document has a positive global gain (the relevant intents all have
probability 0), NTCIREVAL prints no D-nDCG and counts it 0 in D#-nDCG; it is compared
as 0.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

import cranfield
from cranfield.core.subtopics import SubtopicQrels

CUTS = (1, 3, 5, 10, 20)
NAMES = {"D_nDCG": "MSnDCG", "I_rec": "I-rec", "Dsharp_nDCG": "D#-nDCG"}


def generate(rng: random.Random):
    """(judgments (topic, intent, doc, grade), probabilities {topic: {intent: p}},
    run {topic: [docs in rank order]})."""
    rows, probs, run = [], {}, {}
    for t in range(rng.randint(1, 3)):
        topic = f"{t + 1:04d}"
        intents = rng.sample(range(1, 8), rng.randint(1, 5))
        docs = [f"d{i:02d}" for i in rng.sample(range(40), rng.randint(1, 14))]
        relevant = set()
        for d in docs:
            judged = rng.sample(intents, rng.randint(0, len(intents)))
            grades = [(s, rng.choice([0, 1, 1, 2, 3])) for s in judged]
            grades = [(s, g) for s, g in grades if g > 0]
            if not grades:
                rows.append((topic, 0, d, 0))
            rows += [(topic, s, d, g) for s, g in grades]
            relevant |= {s for s, _ in grades}
        if not relevant:
            s = intents[0]
            rows.append((topic, s, docs[0], 1))
            relevant.add(s)
        listed = sorted(relevant)
        if rng.random() < 0.3:  # an intent with a probability and no relevant document
            extra = [s for s in range(1, 9) if s not in relevant]
            listed.append(rng.choice(extra))
        weights = [rng.choice([0, 1, 2, 5]) for _ in listed]
        if not sum(weights):
            weights[0] = 1
        probs[topic] = {s: w / sum(weights) for s, w in zip(listed, weights, strict=True)}
        pool = [f"d{i:02d}" for i in range(40)]
        run[topic] = rng.sample(pool, rng.randint(0, 15))
    return rows, probs, run


def ntcireval(tool: Path, rows, probs, run, work: Path) -> dict:
    """{(measure, cutoff, topic): printed value} from NTCIREVAL's scripts."""
    with open(work / "c.Iprob", "w") as f:
        for topic, ps in probs.items():
            f.writelines(f"{topic} {s} {p!r}\n" for s, p in ps.items())
    with open(work / "c.Dqrels", "w") as f:
        f.writelines(f"{t} {s} {d} L{g}\n" for t, s, d, g in rows)
    with open(work / "RUN", "w") as f:
        for topic, docs in run.items():
            f.writelines(f"{topic} Q0 {d} {r} {100 - r} r\n" for r, d in enumerate(docs, 1))
    env = dict(os.environ, PATH=f"{tool}{os.pathsep}{os.environ['PATH']}")

    def sh(*argv, stdin=""):
        subprocess.run(
            argv,
            input=stdin,
            text=True,
            cwd=work,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    sh(str(tool / "DIN-splitqrels"), "c.Iprob", "c.Dqrels", "test")
    sh(str(tool / "TRECsplitruns"), "c.Iprob.tid", "1000", stdin="RUN\n")
    out = {}
    for k in CUTS:
        sh(str(tool / "D-NTCIR-eval"), "c.Iprob.tid", "test", str(k), f"l{k}", stdin="RUN\n")
        for line in (work / f"RUN.l{k}.Dnev").read_text().splitlines():
            parts = line.split()
            name = parts[1][: -len(f"@{k:04d}=")] if len(parts) == 3 else ""
            if name in NAMES.values() and parts[1].endswith(f"@{k:04d}="):
                out[(name, k, parts[0])] = parts[2]
    # no document with a positive global gain: NTCIREVAL prints no D-nDCG, and its
    # D#-nDCG counts it 0
    for topic in run:
        for k in CUTS:
            out.setdefault((NAMES["D_nDCG"], k, topic), "0.0000")
    grelv = {}  # the global gains as DIN-splitqrels wrote them (awk: 6 significant digits)
    for topic in run:
        lines = (work / topic / f"{topic}.test.Grelv").read_text().split("\n")
        grelv[topic] = {d: float(g) for d, g in (x.split() for x in lines if x.strip())}
    return out, grelv


def rounded_gain_dndcg(gains: dict, ranked: list, k: int) -> float:
    """D-nDCG@k computed from NTCIREVAL's own rounded global gains, as ntcir_eval's
    MSnDCG: sum of gain / log(r + 1) (the ranked documents' gains as ``glabel`` prints
    them, 4 decimals) over the same sum of the ideal list (the Grelv file's gains)."""
    import math

    def dcg(values):
        return sum(g / math.log(r + 1) for r, g in enumerate(values[:k], start=1))

    ideal = dcg(sorted(gains.values(), reverse=True))
    # glabel labels the ranked documents with their gains printed to 4 decimals
    labelled = [float(f"{gains.get(d, 0.0):.4f}") for d in ranked]
    return dcg(labelled) / ideal if ideal else 0.0


def ours(rows, probs, run) -> dict:
    """{(measure, cutoff, topic): value} from cranfield."""
    names = ("query_id", "subtopic", "doc_id", "relevance")
    table = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
    flat = [(q, s, p) for q, ps in probs.items() for s, p in ps.items()]
    intents = pa.table(
        {"qid": [f[0] for f in flat], "subtopic": [f[1] for f in flat], "p": [f[2] for f in flat]}
    )
    subtopics = SubtopicQrels(table).with_intents(intents)
    scored = {q: {d: float(100 - r) for r, d in enumerate(docs, 1)} for q, docs in run.items()}
    scored = {q: docs for q, docs in scored.items() if docs}
    measures = [f"{m}@{k}" for k in CUTS for m in NAMES]
    out = {}
    if scored:
        adhoc = {q: {"zz": 0} for q in scored}
        r = cranfield.evaluate(adhoc, scored, measures, subtopic_qrels=subtopics).runs[0]
        for name, values in zip(measures, r.values.values(), strict=True):
            m, k = name.split("@")
            for q, v in zip(r.query_ids, values, strict=True):
                out[(NAMES[m], int(k), q)] = float(v)
    for q in run:  # an empty ranking scores 0 on every measure
        for m in NAMES.values():
            for k in CUTS:
                out.setdefault((m, k, q), 0.0)
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ntcireval", required=True, type=Path, help="NTCIREVAL's built folder")
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--seed", type=int, default=2019)
    a = p.parse_args(argv)
    tool = a.ntcireval.resolve()
    rng = random.Random(a.seed)
    compared = differ = explained = 0
    worst = 0.0
    examples = []
    for case in range(a.cases):
        rows, probs, run = generate(rng)
        with tempfile.TemporaryDirectory() as tmp:
            theirs, grelv = ntcireval(tool, rows, probs, run, Path(tmp))
        mine = ours(rows, probs, run)
        for key, text in theirs.items():
            compared += 1
            value = mine[key]
            if key[0] == "D#-nDCG":  # NTCIREVAL combines the two printed values (awk)
                _, k, topic = key
                irec, dndcg = (float(f"{mine[(m, k, topic)]:.4f}") for m in ("I-rec", "MSnDCG"))
                value = 0.5 * irec + (1 - 0.5) * dndcg
            if f"{value:.4f}" != text:
                differ += 1
                _, k, topic = key
                again = rounded_gain_dndcg(grelv[topic], run[topic], k)
                if key[0] == "D#-nDCG":
                    irec = float(f"{mine[('I-rec', k, topic)]:.4f}")
                    again = 0.5 * irec + (1 - 0.5) * float(f"{again:.4f}")
                explained += key[0] != "I-rec" and f"{again:.4f}" == text
                worst = max(worst, abs(value - float(text)))
                if len(examples) < 5:
                    examples.append((case, key, value, text))
        missing = {k for k in mine if k not in theirs}
        if missing:
            sys.exit(f"case {case}: NTCIREVAL printed no value for {sorted(missing)[:3]}")
    for e in examples:
        print("differs:", e)
    print(
        f"{a.cases} cases: {compared} per-topic values (D-nDCG, I-rec, D#-nDCG at "
        f"{', '.join(map(str, CUTS))}) printed to 4 decimals, {differ} differ"
        + (f" (largest difference {worst:.2g})" if differ else "")
    )
    if differ:
        print(
            f"{explained} of the {differ} are D-nDCG (and the D#-nDCG made from it) at a "
            "rounding boundary: computed from the global gains as NTCIREVAL rounds them "
            "(6 significant digits in the ideal list, 4 decimals in the ranking) they print "
            "as NTCIREVAL's"
        )


if __name__ == "__main__":
    main()
