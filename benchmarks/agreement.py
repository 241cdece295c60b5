"""``cranfield agreement`` at 1M judgments against krippendorff and statsmodels, as
whole processes (issue 39).

A dense design written as CSV (``--write DIR``, deterministic): ``--pairs``
topic-document pairs (50 topics) × ``--assessors`` assessors, labels 0-2, 70 % of the
labels the pair's true label and the rest uniform (1,000,001 lines at the defaults).
Then each command is run ``--repeat`` times, the commands alternating, and its wall
time and peak memory (``os.wait4``'s usage of the child) printed:

* ``cranfield agreement --bootstrap 0`` (every statistic, per topic, pairwise table);
* ``cranfield agreement --bootstrap 0 --statistic krippendorff_alpha`` (overall and
  per topic) against the *krippendorff* script (pyarrow reads the CSV, pandas pivots
  it with ``DataFrame.pivot``, ``krippendorff.alpha(level_of_measurement="ordinal")``);
* ``cranfield agreement --bootstrap 0 --statistic fleiss_kappa`` against the
  *statsmodels* script (the same pivot, ``aggregate_raters`` and
  ``fleiss_kappa(method="fleiss")``);
* ``cranfield agreement --bootstrap 0 --statistic cohen_kappa_unweighted`` (the
  pairwise table of every pair of assessors) against the statsmodels script calling
  ``cohens_kappa`` on each pair's crosstab;
* ``cranfield agreement`` with its default 1,000 bootstrap replicates.

Usage::

    PYTHONPATH=src python benchmarks/agreement.py --write /tmp/agree --repeat 5
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

KRIPPENDORFF = """
import sys
import numpy as np, pyarrow.csv as pc, krippendorff
t = pc.read_csv(sys.argv[1]).to_pandas()
m = t.pivot(index="assessor", columns=["topic", "document"], values="label")
a = krippendorff.alpha(reliability_data=m.to_numpy(float), level_of_measurement="ordinal")
print(f"alpha {a:.6f}")
"""

FLEISS = """
import sys
import numpy as np, pyarrow.csv as pc
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa
t = pc.read_csv(sys.argv[1]).to_pandas()
m = t.pivot(index=["topic", "document"], columns="assessor", values="label")
table, _ = aggregate_raters(m.to_numpy(int))
print(f"fleiss_kappa {fleiss_kappa(table, method='fleiss'):.6f}")
"""

COHEN = """
import sys
import numpy as np, pandas as pd, pyarrow.csv as pc
from statsmodels.stats.inter_rater import cohens_kappa
t = pc.read_csv(sys.argv[1]).to_pandas()
m = t.pivot(index=["topic", "document"], columns="assessor", values="label")
x = m.to_numpy(int)
k = []
for a in range(x.shape[1]):
    for b in range(a + 1, x.shape[1]):
        tab = pd.crosstab(x[:, a], x[:, b]).reindex(index=range(3), columns=range(3), fill_value=0)
        k.append(cohens_kappa(tab.to_numpy()).kappa)
print(f"{len(k)} pairs, last kappa {k[-1]:.6f}")
"""


def write_dense(path: Path, pairs: int, assessors: int, topics: int = 50) -> None:
    """The dense table described in the module docstring (seed 0)."""
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, pairs)
    label = np.where(
        rng.random((pairs, assessors)) < 0.7,
        truth[:, None],
        rng.integers(0, 3, (pairs, assessors)),
    )
    pair = np.repeat(np.arange(pairs), assessors)
    topic = pair % topics + 1
    who = np.tile(np.arange(assessors), pairs)
    lines = [
        f"{t},d{p},a{w},{lab}"
        for t, p, w, lab in zip(
            topic.tolist(), pair.tolist(), who.tolist(), label.ravel().tolist(), strict=True
        )
    ]
    tmp = path.with_suffix(".tmp")
    tmp.write_text("topic,document,assessor,label\n" + "\n".join(lines) + "\n")
    os.replace(tmp, path)


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident MB of the child (``os.wait4``) and its output."""
    t = time.perf_counter()
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as child:
        out = child.stdout.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if child.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({child.returncode})")
    return wall, usage.ru_maxrss / 1024, out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--write", metavar="DIR", required=True)
    p.add_argument("--pairs", type=int, default=100_000)
    p.add_argument("--assessors", type=int, default=10)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", nargs="*", default=None, help="labels of the commands to run")
    a = p.parse_args()
    folder = Path(a.write)
    folder.mkdir(parents=True, exist_ok=True)
    csv = folder / f"dense-{a.pairs}x{a.assessors}.csv"
    if not csv.exists():
        write_dense(csv, a.pairs, a.assessors)
    scripts = {}
    for name, text in (("kripp", KRIPPENDORFF), ("fleiss", FLEISS), ("cohen", COHEN)):
        scripts[name] = folder / f"{name}.py"
        scripts[name].write_text(text)
    py = sys.executable
    agree = [py, "-m", "cranfield", "agreement", "--judgments", str(csv)]
    one = ["--bootstrap", "0", "--statistic"]
    commands = {
        "all, --bootstrap 0": [*agree, "--bootstrap", "0"],
        "alpha only": [*agree, *one, "krippendorff_alpha"],
        "krippendorff script": [py, str(scripts["kripp"]), str(csv)],
        "fleiss only": [*agree, *one, "fleiss_kappa"],
        "statsmodels fleiss_kappa script": [py, str(scripts["fleiss"]), str(csv)],
        "cohen pairwise only": [*agree, *one, "cohen_kappa_unweighted"],
        "statsmodels cohen_kappa script": [py, str(scripts["cohen"]), str(csv)],
        "all, 1,000 replicates": agree,
    }
    if a.only:
        commands = {k: v for k, v in commands.items() if k in a.only}
    times: dict[str, list[float]] = {k: [] for k in commands}
    peaks: dict[str, float] = {}
    shown: dict[str, str] = {}
    for _ in range(a.repeat):
        for name, cmd in commands.items():  # alternating: one run of each in turn
            wall, peak, out = timed(cmd)
            times[name].append(wall)
            peaks[name] = max(peaks.get(name, 0.0), peak)
            shown[name] = _headline(out)
    print(f"{csv.name}: {a.pairs:,} pairs x {a.assessors} assessors, {a.repeat} runs each")
    print(
        "| command | wall, best (s) | wall, median (s) | all runs (s) | peak MB | result |\n"
        "|---|---:|---:|---|---:|---|"
    )
    for name, ts in times.items():
        runs = ", ".join(f"{t:.2f}" for t in ts)
        print(
            f"| {name} | {min(ts):.2f} | {np.median(ts):.2f} | {runs} | {peaks[name]:.0f} "
            f"| {shown[name]} |"
        )


def _headline(out: str) -> str:
    """The value a command printed: the scripts' one line, or the first statistic of
    cranfield's table (or pair row)."""
    lines = [x for x in out.splitlines() if x.strip()]
    if len(lines) == 1:
        return lines[0]
    for x in lines:
        if x.split()[0] in ("percent_agreement", "krippendorff_alpha", "fleiss_kappa"):
            return " ".join(x.split()[:2])
    return " ".join(lines[-1].split()) if lines else ""


if __name__ == "__main__":
    main()
