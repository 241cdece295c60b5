"""What every command imports (issue 39: ``--help`` under 0.1 s, a small job under 0.5 s
as a whole process): module sets, never times (``benchmarks/startup.py`` measures).

One interpreter is started; it forks once per command line, each child running the
console script's own entry (``cranfield.cli.main.entry``: the pandas finder, the
standard streams, ``os._exit``) from a process that has imported nothing of cranfield,
and reporting the modules loaded when the command ends. ``tests/cli/test_cold_imports.py``
guards ``eval`` and ``trec_eval`` the same way in more detail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.cli.main import SUBCOMMANDS
from cranfield.cli.plot_cmd import KINDS as PLOT_KINDS

# what no --help needs: arrays, statistics, plotting, Dask, the service's stack
HEAVY = (
    "numpy",
    "pyarrow",
    "pandas",
    "scipy",
    "matplotlib",
    "dask",
    "distributed",
    "sqlalchemy",
    "starlette",
    "uvicorn",
    "sklearn",
    "lightgbm",
    "xgboost",
    "cranfield.core.measures.families",
)

# pandas: pyarrow imports it on every conversion unless the command line's finder says
# it is absent (cli/main._WithoutPandas); Dask and the service's stack: never in a small
# job; matplotlib only where the job draws; of SciPy only the special functions where the
# job computes a test (cranfield.distributions: scipy.stats alone takes about 0.6 s)
NEVER = ("pandas", "dask", "distributed", "sqlalchemy", "starlette", "sklearn")
# numpy.ma (16 ms) comes with numpy.unique, nanmedian and quantile in NumPy 2.4: the
# report and the drawing code have their own (report.chart.distinct,
# report.html.nan_medians); `ab`, `agreement` and `plot dist` still take quantiles
# with NumPy, or convert arrays with pyarrow, which imports it
NO_MA = ("numpy.ma",)
STATS = ("scipy.stats", "scipy.optimize", "scipy.sparse", "scipy.spatial")
# of scipy.special only its compiled kernels (cranfield.distributions): the package's
# __init__ clones NumPy's namespace for the array API, importing numpy.f2py,
# numpy.testing and numpy.ma (about 0.25 s)
SPECIAL_INIT = ("scipy._lib._array_api", "scipy.special._basic", "numpy.f2py", "numpy.testing")
SMALL_JOB_NEVER = {
    "ab": NEVER + STATS + SPECIAL_INIT + ("matplotlib",),
    "interleave": NEVER + STATS + SPECIAL_INIT + ("matplotlib",),
    "report": NEVER + STATS + SPECIAL_INIT + NO_MA + ("matplotlib",),
    "agreement": NEVER + ("scipy", "matplotlib"),
    # every format is cranfield's own drawing: SVG, written as PDF, rasterised by resvg
    "plot pr .png": NEVER + NO_MA + ("scipy", "matplotlib"),
    "plot pr .pdf": NEVER + NO_MA + ("scipy", "matplotlib"),
} | {
    f"plot {kind}": NEVER + ("scipy", "matplotlib") + (NO_MA if kind != "dist" else ())
    for kind in PLOT_KINDS
}
# what a job does use (the checks above are not vacuous)
USES = {"plot pr .png": ("resvg_py",), "plot pr .pdf": ("cranfield.report.pdf",)}

SCRIPT = r"""
import json, os, sys
lines = json.loads(sys.argv[1])
results = []
for argv in lines:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        exit_ = os._exit

        def report(status):
            os.write(write, json.dumps([status, sorted(sys.modules)]).encode())
            exit_(0)

        os._exit = report
        sys.argv = ["cranfield", *argv]
        try:
            from cranfield.cli.main import entry

            entry()
        except SystemExit as stop:
            report(stop.code)
        report(None)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    results.append(json.loads(data))
print(json.dumps(results))
"""


def loaded(lines: list[list[str]]) -> list[tuple[int, set[str]]]:
    """(status, modules) of each command line, run by the console script's entry in a
    process that imported nothing of cranfield before."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(lines)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return [(status, set(mods)) for status, mods in json.loads(done.stdout.splitlines()[-1])]


def heavy(modules: set[str], names=HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def small_jobs(tmp_path_factory):
    """The small jobs that benchmarks/startup.py times (one definition of them), by
    command name, on files of the sample collection."""
    benchmarks = str(Path(__file__).resolve().parents[2] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        from startup import small_jobs as jobs
    finally:
        # (by value: startup.py puts src/ first in turn, and benchmarks/dask.py must not
        # stay importable as `dask`)
        sys.path.remove(benchmarks)
    lines = jobs(tmp_path_factory.mktemp("small"))
    return {label.split(" (")[0]: argv for label, argv in lines.items()}


@pytest.fixture(scope="module")
def runs(small_jobs):
    """Every command's --help and every small job, in one interpreter (forked)."""
    lines = [[name, "--help"] for name in SUBCOMMANDS] + list(small_jobs.values())
    names = [f"{name} --help" for name in SUBCOMMANDS] + list(small_jobs)
    return dict(zip(names, loaded(lines), strict=True))


@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_help_imports_no_heavy_module(runs, name):
    status, modules = runs[f"{name} --help"]
    assert status == 0
    assert heavy(modules) == [], f"cranfield {name} --help imports them"


# `import dataclasses` is about 15 ms (it imports inspect, ast, dis, tokenize), a sixth
# of the 0.1 s: the result classes on the --help paths are cranfield._record.Record
# values.
@pytest.mark.parametrize("name", list(SUBCOMMANDS))
def test_help_imports_no_dataclasses(runs, name):
    status, modules = runs[f"{name} --help"]
    assert status == 0 and f"cranfield.cli.{SUBCOMMANDS[name][0]}" in modules
    assert "dataclasses" not in modules, f"cranfield {name} --help imports dataclasses"


@pytest.mark.parametrize("job", list(SMALL_JOB_NEVER))
def test_small_jobs_import_only_what_they_use(runs, job):
    status, modules = runs[job]
    assert status == 0
    assert heavy(modules, SMALL_JOB_NEVER[job]) == [], f"cranfield {job} imports them"
    assert "scipy.special" not in modules, f"cranfield {job} runs scipy.special's __init__"
    # the checks above can fail: the job did its work with the arrays it needs
    assert "numpy" in modules
    assert set(USES.get(job, ())) <= modules


def test_the_pandas_finder_is_what_keeps_pandas_out(small_jobs):
    """Without the finder of the console script, pyarrow imports pandas in the same job
    (pandas is a test dependency: the check above is not vacuous)."""
    argv = small_jobs["agreement"]
    script = (
        "import sys\nfrom cranfield.cli import main\nmain.without_pandas = lambda: None\n"
        f"sys.argv = ['cranfield', *{argv!r}]\nimport os\nexit_ = os._exit\n"
        "os._exit = lambda s: (print('pandas' in sys.modules), sys.stdout.flush(), exit_(0))\n"
        "main.entry()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1] == "True", done.stderr
