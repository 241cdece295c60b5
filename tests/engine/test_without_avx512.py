"""The numeric kernel tests again, with NumPy's AVX-512 code paths switched off.

NumPy 2.x computes exp2/log1p/pow with its own AVX-512 code where the CPU has it and
with the C library elsewhere. cranfield's numbers must not depend on which
(:mod:`cranfield.core.libm`), so a developer on an AVX-512 machine checks both paths:
this test re-runs the tests that compare the engine with the specification kernels
in a subprocess with ``NPY_DISABLE_CPU_FEATURES`` set to the AVX-512 targets NumPy
dispatches to. On a CPU without AVX-512 the main run already is that path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
SRC = str(TESTS.parent / "src")
# the tests whose references compute 2^g, exp, log or log1p
NUMERIC = [
    "core/test_libm.py",
    "engine/test_kernels_gain.py",
    "engine/test_kernels_graded_extra.py",
    "ltr/test_objective.py::test_objective_equals_evaluate_per_query_and_mean",
    "ltr/test_kernel_equals_engine.py",
    *(
        f"engine/test_kernels_registry.py::test_engine_equals_specification[{kind}-{family}]"
        for kind in ("grades", "fractional")
        for family in (
            "nDCG",
            "DCG",
            "IDCG",
            "G",
            "ERR",
            "yaap",
            "SDCG",
            "TBG",
            "cwl_SET",
            "gdeval_nDCG",
        )
    ),
]


def avx512_targets() -> list[str]:
    """NumPy's dispatch targets that use AVX-512 and that this CPU runs."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [
        t
        for t in __cpu_dispatch__
        if (t.startswith("AVX512") or t == "X86_V4") and __cpu_features__.get(t)
    ]


def test_numeric_kernels_pass_without_avx512():
    targets = avx512_targets()
    if not targets:
        pytest.skip("this CPU has no AVX-512: the main run is the path without it")
    env = {
        **os.environ,
        "NPY_DISABLE_CPU_FEATURES": " ".join(targets),
        "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]),
    }
    probe = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(TESTS / 'engine')!r}); "
         "from test_without_avx512 import avx512_targets; print(avx512_targets())"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert probe.stdout.strip() == "[]", probe.stdout + probe.stderr  # really switched off
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "--rootdir", str(TESTS.parent), *(str(TESTS / t) for t in NUMERIC)],
        cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
