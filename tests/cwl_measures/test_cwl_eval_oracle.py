"""``cranfield cwl`` against cwl_eval 1.0.12 (the ``cwl-eval`` package, a test-only
dependency) on generated cases: the same rows, columns and names, and the same numbers
to the four printed decimals.

cwl_eval sums with ``np.dot`` (BLAS) and ``np.sum`` (pairwise); cranfield left to
right. The exact values agree to ~1e-15, so a printed number may differ by one unit
of the last decimal only where the value sits on a rounding boundary, and a zero
residual may print as ``-0.0000`` on one side (docs/cwl.md). The comparison allows
exactly that, and nothing else.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import random

import cwl  # (the oracle: pip install cwl-eval==1.0.12, the `test` extra)
import pytest
from cwl import cwl_eval as oracle

from cranfield.cli.main import main

GAINS = (0.0, 0.25, 0.5, 1.0)


# every metric class cranfield reads, with random parameters
def _metric_lines(rng: random.Random, depth: int) -> list[str]:
    k = lambda: str(rng.randint(1, 12))  # noqa: E731
    unit = lambda: f"{rng.choice([0.1, 0.25, 0.5, 0.8, 0.9, 0.95])}"  # noqa: E731
    t = lambda: f"{rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])}"  # noqa: E731
    lines = [
        # cwl_eval fails on P@k with k > depth + 1 (its vectors do not align)
        f"PrecisionCWLMetric({rng.randint(1, depth + 1)})",
        "RRCWLMetric()",
        "APCWLMetric()",
        f"NDCGCWLMetric({k()})",
        f"RBPCWLMetric({unit()})",
        f"INSTCWLMetric({t()})",
        f"INSQCWLMetric({t()})",
        f"NPVCWLMetric({unit()})",
        f"SETCWLMetric({unit()},{k()})",
        f"BPMCWLMetric({t()},{k()})",
        f"BPMDCWLMetric({t()},{k()},{unit()},{unit()},{unit()})",
        f"TBGCWLMetric({rng.choice([2, 5, 224])})",
        f"UMeasureCWLMetric({rng.choice([3, 10, 1000])})",
        f"NERReq8CWLMetric({k()})",
        f"NERReq9CWLMetric({k()})",
        f"NERReq10CWLMetric({unit()})",
        f"NERReq11CWLMetric({t()})",
    ]
    rng.shuffle(lines)
    return lines[: rng.randint(3, len(lines))]


def _case(rng: random.Random, tmp):
    topics = [str(rng.randint(1, 400)) for _ in range(rng.randint(1, 4))]
    topics = list(dict.fromkeys(topics))
    qrels, run, costs, types = [], [], [], []
    for topic in topics:
        docs = [f"d{j}" for j in range(rng.randint(1, 15))]
        for d in docs:
            if rng.random() < 0.7:
                qrels.append(f"{topic} 0 {d} {rng.choice(GAINS)}")
        ranked = rng.sample(docs + [f"x{j}" for j in range(5)], rng.randint(1, len(docs) + 5))
        for r, d in enumerate(ranked, 1):
            cost = rng.choice([0.5, 1.0, 2.0, 3.0])
            types.append(f"{topic}:{d} {cost}")  # an element type per document
            costs.append(f"{topic} {d} {cost}")
            run.append((topic, d, r))
    with_costs = rng.random() < 0.4
    # cwl_eval's element type is the second column: one per (topic, document)
    run_lines = [
        f"{t} {t + ':' + d if with_costs else 'Q0'} {d} {r} {100 - r} tag" for t, d, r in run
    ]
    depth = rng.choice([1, 2, 5, 10, 20, 40])
    files = {}
    for name, lines in (
        ("qrels", qrels or [f"{topics[0]} 0 none 0"]),
        ("run", run_lines),
        ("types", types),
        ("costs", costs),
        ("metrics", _metric_lines(rng, depth)),
    ):
        files[name] = tmp / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n")
    options = {
        "residuals": rng.random() < 0.5,
        "colnames": rng.random() < 0.3,
        "max_n": depth,
        "with_costs": with_costs,
    }
    if not with_costs and rng.random() < 0.3:
        options["max_cost"], options["min_cost"] = 2.0, 0.5
    return files, options


def _oracle(files, o) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        oracle.main(
            str(files["run"]),
            str(files["qrels"]),
            str(files["types"]) if o["with_costs"] else None,
            str(files["metrics"]),
            None,
            o["colnames"],
            o["residuals"],
            1.0,
            0.0,
            o.get("max_cost", 1.0),
            o.get("min_cost", 1.0),
            o["max_n"],
        )
    return out.getvalue()


def _ours(files, o, capsys) -> str:
    argv = ["cwl", str(files["qrels"]), str(files["run"]), "-m", str(files["metrics"])]
    argv += ["--max_depth", str(o["max_n"])]
    argv += ["--max_cost", str(o.get("max_cost", 1.0)), "--min_cost", str(o.get("min_cost", 1.0))]
    if o.get("by_type"):
        argv += ["-c", str(files["types"])]
    elif o["with_costs"]:
        argv += ["--doc-costs", str(files["costs"])]
    if o["residuals"]:
        argv.append("-r")
    if o["colnames"]:
        argv.append("-n")
    capsys.readouterr()
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


def _same_table(ours: str, theirs: str) -> None:
    a, b = ours.splitlines(), theirs.splitlines()
    assert len(a) == len(b), (ours, theirs)
    for x, y in zip(a, b, strict=True):
        xs, ys = x.split("\t"), y.split("\t")
        assert xs[:2] == ys[:2] and len(xs) == len(ys), (x, y)
        if xs[0] == "Topic":
            assert xs == ys
            continue
        for u, v in zip(xs[2:], ys[2:], strict=True):
            if u == v or {u, v} == {"0.0000", "-0.0000"}:
                continue
            # one unit of the last decimal, and only at a rounding boundary
            assert u != "nan" and v != "nan" and abs(float(u) - float(v)) <= 1.0001e-4, (x, y)


@pytest.fixture
def quiet_oracle(monkeypatch, tmp_path):
    """cwl_eval as a library: its metric classes importable as it imports them, its
    log file (cwl.log, opened in the working directory at every call) sent nowhere."""
    monkeypatch.syspath_prepend(os.path.dirname(cwl.__file__))
    monkeypatch.setattr(oracle.logging, "FileHandler", lambda *a, **k: logging.NullHandler())
    monkeypatch.chdir(tmp_path)
    yield
    logging.getLogger("cwl").handlers.clear()


@pytest.mark.parametrize("seed", range(8))
def test_generated_cases_equal_cwl_eval(seed, tmp_path, capsys, quiet_oracle):
    _check_cases(random.Random(seed), 25, _case, tmp_path, capsys)  # 200 cases in all


def _check_cases(rng: random.Random, count: int, make, tmp_path, capsys) -> None:
    for i in range(count):
        case = tmp_path / f"{i}"
        case.mkdir()
        files, options = make(rng, case)
        _same_table(_ours(files, options, capsys), _oracle(files, options))


def test_default_metrics_and_depth_equal_cwl_eval(tmp_path, capsys, quiet_oracle):
    """No metrics file (cwl_eval's 16 metrics), depth 1000, residuals."""
    rng = random.Random(99)
    files, options = _case(rng, tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        oracle.main(str(files["run"]), str(files["qrels"]), residuals=True, col_names=True)
    capsys.readouterr()
    assert main(["cwl", str(files["qrels"]), str(files["run"]), "-r", "-n"]) == 0
    ours = capsys.readouterr().out
    _same_table(ours, out.getvalue())
    assert len(ours.splitlines()) == 1 + 16 * len(
        {ln.split()[0] for ln in files["run"].read_text().splitlines()}
    )


def _typed_case(rng: random.Random, tmp):
    """A case whose costs come per element type (cwl_eval's -c file): a few types shared
    by many documents, some types without a cost (those items cost max/min_cost)."""
    files, options = _case(rng, tmp)
    kinds = ["web", "image", "video", "ad"]
    rows = [line.split() for line in files["run"].read_text().splitlines()]
    sep = rng.choice([" ", "\t"])
    files["run"].write_text(
        "".join(sep.join([t, rng.choice(kinds), *rest]) + "\n" for t, _, *rest in rows)
    )
    priced = rng.sample(kinds, rng.randint(1, len(kinds)))  # (an empty file is refused)
    files["types"].write_text(
        "".join(f"{k} {rng.choice([0.0, 0.25, 1.0, 2.5, 7.0])}\n" for k in priced)
    )
    options.update(with_costs=True, by_type=True)
    if rng.random() < 0.5:
        options["max_cost"], options["min_cost"] = 3.0, 0.5
    return files, options


def test_element_type_costs_equal_cwl_eval(tmp_path, capsys, quiet_oracle):
    """``-c COSTS``: cwl_eval's cost file, a cost per element type (the run's second
    column), 30 generated cases byte for byte (up to the summation order)."""
    _check_cases(random.Random(33), 30, _typed_case, tmp_path, capsys)
