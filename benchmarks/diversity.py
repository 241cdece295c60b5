"""Diversity evaluation of a 1M-line run with 50 subtopics per topic: ``cranfield
ndeval`` and ``cranfield eval --subtopic-qrels`` against ndeval (C) and pyndeval, each
as a whole process, checked to agree.

    PYTHONPATH=src python benchmarks/diversity.py --ndeval /path/to/ndeval --repeat 3

* Data (deterministic, ``random.Random(seed)``, written to ``benchmarks/data/diversity/``,
  ignored by git): ``--topics`` topics (default 200) of ``--depth`` ranked documents
  (default 5,000: 1,000,000 run lines, distinct scores, ranks consistent with them); per
  topic ``--judged`` judged documents (default 100) each judged on all ``--subtopics``
  subtopics (default 50: TREC's diversity qrels list every subtopic of a judged
  document), relevant with probability 0.1 (1,000,000 qrels lines); ordinary qrels
  (relevant to any subtopic) for ``cranfield eval``.
* ndeval: the binary ``--ndeval`` names (build it from pyndeval's sdist: ``pip download
  pyndeval --no-binary :all: --no-deps``, then ``cc -O2 -o ndeval src/ndeval.c -lm``);
  pyndeval: the files parsed in Python as its users do, then ``pyndeval.ndeval``.
* Agreement: ndeval's and cranfield ndeval's outputs byte for byte; the means of
  cranfield eval and pyndeval against ndeval's printed amean (6 decimals).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import run_once  # noqa: E402  (stdlib only)

MEASURES = ["alpha_nDCG@20", "ERR_IA@20", "nERR_IA@20", "NRBP", "nNRBP", "MAP_IA", "P_IA@20"]
COLUMNS = ["alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@20"]

PYNDEVAL = """
import sys, pyndeval
qrels = []
with open(sys.argv[1]) as f:
    for line in f:
        t, s, d, g = line.split()
        qrels.append((t, s, d, int(g)))
run = []
with open(sys.argv[2]) as f:
    for line in f:
        t, _, d, _, score, _ = line.split()
        run.append((t, d, float(score)))
names = ['alpha-nDCG@20', 'ERR-IA@20', 'nERR-IA@20', 'NRBP', 'nNRBP', 'MAP-IA', 'P-IA@20']
res = pyndeval.ndeval(qrels, run, measures=names)
for n in names:
    print(n, sum(v[n] for v in res.values()) / len(res))
"""


def generate(out: Path, topics: int, depth: int, judged: int, subtopics: int, seed: int):
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    qrels, adhoc, run = out / "qrels.ndeval", out / "qrels.adhoc", out / "run.txt"
    if run.exists() and qrels.exists() and adhoc.exists():
        return qrels, adhoc, run
    with open(qrels, "w") as q, open(adhoc, "w") as a, open(run, "w") as r:
        for t in range(1, topics + 1):
            docs = [f"doc{t}-{i:05d}" for i in range(depth + judged)]
            for d in rng.sample(docs, judged):
                rel = [1 if rng.random() < 0.1 else 0 for _ in range(subtopics)]
                q.writelines(f"{t} {s + 1} {d} {g}\n" for s, g in enumerate(rel))
                a.write(f"{t} 0 {d} {int(any(rel))}\n")
            ranked = rng.sample(docs, depth)
            r.writelines(f"{t} Q0 {d} {i + 1} {depth - i}.5 bench\n" for i, d in enumerate(ranked))
    return qrels, adhoc, run


def amean(csv: str) -> dict:
    lines = csv.splitlines()
    header = lines[0].split(",")
    last = lines[-1].split(",")
    return {h: float(v) for h, v in zip(header[2:], last[2:], strict=True)}


def best(argv: list[str], repeat: int):
    runs = [run_once(argv) for _ in range(repeat)]
    for t in runs:
        if not t.ok:
            sys.exit(f"failed: {' '.join(argv)}\n{t.stderr}")
    return min(runs, key=lambda t: t.wall)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ndeval", required=True, help="the ndeval binary (built from ndeval.c)")
    p.add_argument("--topics", type=int, default=200)
    p.add_argument("--depth", type=int, default=5000)
    p.add_argument("--judged", type=int, default=100)
    p.add_argument("--subtopics", type=int, default=50)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-pyndeval", action="store_true")
    a = p.parse_args(argv)
    data = HERE / "data" / "diversity" / f"{a.topics}x{a.depth}-{a.judged}x{a.subtopics}"
    qrels, adhoc, run = generate(data, a.topics, a.depth, a.judged, a.subtopics, 33)
    py = sys.executable
    rows = []
    ref = best([a.ndeval, str(qrels), str(run)], a.repeat)
    rows.append(("ndeval (C, -O2)", ref))
    ours = best([py, "-m", "cranfield", "ndeval", str(qrels), str(run)], a.repeat)
    assert ours.stdout == ref.stdout, "cranfield ndeval differs from ndeval"
    rows.append(("cranfield ndeval", ours))
    ev = best(
        [py, "-m", "cranfield", "eval", str(adhoc), str(run), "-m", *MEASURES]
        + ["--subtopic-qrels", str(qrels), "-f", "csv"],
        a.repeat,
    )
    expected = amean(ref.stdout)
    header, row = (line.split(",") for line in ev.stdout.splitlines()[:2])
    got = dict(zip(header, row, strict=True))
    for m, c in zip(MEASURES, COLUMNS, strict=True):
        assert abs(float(got[m]) - expected[c]) < 1e-6, (m, got[m], expected[c])
    rows.append((f"cranfield eval -m {' '.join(MEASURES)}", ev))
    if not a.no_pyndeval:
        pt = best([py, "-c", PYNDEVAL, str(qrels), str(run)], 1)
        for line, c in zip(pt.stdout.splitlines(), COLUMNS, strict=True):
            assert abs(float(line.split()[1]) - expected[c]) < 1e-6, (line, expected[c])
        rows.append(("pyndeval (files parsed in Python)", pt))
    print(
        f"{a.topics} topics x {a.depth} ranked = {a.topics * a.depth:,} run lines; "
        f"{a.topics * a.judged * a.subtopics:,} qrels lines ({a.subtopics} subtopics)\n"
    )
    print("| tool | wall s | CPU s | peak RSS GB | vs ndeval |")
    print("|---|---:|---:|---:|---:|")
    for name, t in rows:
        print(
            f"| {name} | {t.wall:.2f} | {t.cpu:.2f} | {t.rss_gb:.2f} | {ref.wall / t.wall:.1f}x |"
        )


if __name__ == "__main__":
    main()
