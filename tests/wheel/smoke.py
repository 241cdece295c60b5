"""Smoke test of the installed wheel (``make wheel-check``), run outside pytest.

Usage: ``python tests/wheel/smoke.py VENV`` where VENV holds the wheel installed with pip.
With PATH stripped of every directory holding ``cargo`` (the wheel must not need Rust)
and from a directory outside the source tree (so the checkout's ``src/`` cannot be
imported), it checks that:

* ``cranfield --version`` names the version declared in rust/Cargo.toml and the engine's
  build, and the package metadata carries the same version;
* ``cranfield demo`` evaluates the bundled sample collection;
* every subcommand's ``--help`` (and every ACTION of those that have them) exits 0.

Any failure prints what ran and exits 1.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def declared_version() -> str:
    text = (ROOT / "rust" / "Cargo.toml").read_text(encoding="utf-8")
    match = re.search(r'^\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    if match is None:
        sys.exit("rust/Cargo.toml declares no [workspace.package] version")
    return match.group(1)


def without_cargo(path: str) -> str:
    return os.pathsep.join(
        d for d in path.split(os.pathsep) if d and not (Path(d) / "cargo").exists()
    )


def listed(help_text: str, metavar: str) -> list[str]:
    """The choices argparse lists under ``metavar`` (``COMMAND``, ``ACTION``) in a help."""
    block = help_text.partition(f"\n  {metavar}\n")[2].partition("\n\n")[0]
    return re.findall(r"^    (\S+)", block, re.M)


def main(venv: Path) -> int:
    env = dict(os.environ, PATH=str(venv / "bin") + os.pathsep + without_cargo(os.environ["PATH"]))
    env.pop("PYTHONPATH", None)
    if shutil.which("cargo", path=env["PATH"]) is not None:
        sys.exit("cargo is still on PATH")
    failures = []
    work = Path(tempfile.mkdtemp(prefix="cranfield-wheel-"))

    def run(*argv: str) -> str:
        done = subprocess.run(
            ["cranfield", *argv], cwd=work, env=env, capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            failures.append(f"cranfield {' '.join(argv)}: status {done.returncode}\n{done.stderr}")
        return done.stdout

    version = declared_version()
    shown = run("--version")
    if not shown.startswith(f"cranfield {version} (engine: release build"):
        failures.append(f"--version printed {shown!r}, expected cranfield {version} (engine: ...)")
    located = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import cranfield, importlib.metadata as m; "
         "print(cranfield.__file__); print(m.version('cranfield')); print(cranfield.__version__)"],
        cwd=work, env=env, capture_output=True, text=True,
    )  # fmt: skip
    where, meta, attr = (located.stdout.splitlines() + ["", "", ""])[:3]
    if not where.startswith(str(venv)) or meta != version or attr != version:
        failures.append(f"installed package: {located.stdout!r} {located.stderr!r}")
    demo = run("demo")
    if "AP" not in demo:
        failures.append(f"demo printed no AP column:\n{demo}")
    listing = run("--help")
    commands = listed(listing, "COMMAND")
    if len(commands) < 10:
        failures.append(f"--help lists {len(commands)} commands:\n{listing}")
    for name in commands:
        for action in listed(run(name, "--help"), "ACTION"):
            run(name, action, "--help")
    shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"wheel smoke test: {len(commands)} commands, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
