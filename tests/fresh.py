"""What a fresh interpreter loads: code run in a new Python process, and the modules of
some packages it has imported by its end (the tests that keep heavy packages off a
path: fontTools for Latin PDF text, matplotlib for the report's modules, Dask for the
package's import, the measure families for the quick columns)."""

from __future__ import annotations

import subprocess
import sys


def loaded_after(code: str, *packages: str) -> list[str]:
    """The modules of ``packages`` (each a package and its submodules) loaded once
    ``code`` has run in a fresh interpreter, sorted; the process must succeed."""
    report = (
        "\nimport sys as _sys\n"
        f"print(sorted(m for m in _sys.modules if any(m == p or m.startswith(p + '.') "
        f"for p in {packages!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code + report], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr
