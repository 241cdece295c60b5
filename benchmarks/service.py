"""Latency of the campaign service at 50 concurrent assessors (localhost).

Starts ``cranfield serve`` on a new SQLite database (or ``--database URL``) holding the
sample campaign with 50 assessors who each judge every topic, runs the simulated
assessors of :mod:`cranfield.service.simulate` for ``--seconds``, and prints the p50 and
p99 latency of loading the next pair and of saving a judgment (client side: from
sending the request to reading the whole answer), with the throughput::

    PYTHONPATH=src python benchmarks/service.py --seconds 60
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

PASSWORD = "benchmark password"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--assessors", type=int, default=50)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--database", help="a postgresql:// URL (default: a new SQLite file)")
    p.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds an assessor reads before judging (default 0: back to back)",
    )
    args = p.parse_args()

    from cranfield.service import accounts, demo, pooling, security
    from cranfield.service.db import open_database
    from cranfield.service.simulate import percentile, run_assessors
    from service.server import Server

    security.ARGON2_PARAMETERS.update(time_cost=1, memory_cost=1024, parallelism=1)
    tmp = Path(tempfile.mkdtemp(prefix="cranfield-bench-"))
    target = args.database or str(tmp / "bench.db")
    db = open_database(target, data_dir=tmp / "data")
    demo.sample_campaign(db, "bench")
    users = [(f"a{i:02d}", PASSWORD) for i in range(args.assessors)]
    for u, pw in users:
        accounts.add_user(db, u, pw, role="assessor", campaign="bench")
    pooling.assign(db, "bench", per_topic=args.assessors)
    db.close()
    server_args = ["--database", target] if args.database else [target]
    with Server(*server_args, "--data-dir", str(tmp / "data"), cwd=tmp) as server:
        cpu0 = cpu_seconds(server.proc.pid)
        out = run_assessors(server.url, users, "bench", args.seconds, think=args.think)
        cpu = cpu_seconds(server.proc.pid) - cpu0
    backend = "PostgreSQL" if args.database else "SQLite (WAL)"
    print(
        f"| {backend} | {args.assessors} assessors | {args.seconds:g} s | think {args.think:g} s |"
    )
    print("| request | n | p50 (ms) | p99 (ms) | per second |")
    print("|---|---:|---:|---:|---:|")
    for name, label in (("next", "next pair (GET)"), ("save", "save judgment (PUT)")):
        lat = out.latencies[name]
        print(
            f"| {label} | {len(lat)} | {1000 * percentile(lat, 50):.1f} | "
            f"{1000 * percentile(lat, 99):.1f} | {len(lat) / args.seconds:.0f} |"
        )
    pairs = len(out.latencies["save"])
    if pairs and cpu == cpu:
        print(
            f"server CPU time: {cpu:.1f} s, {1000 * cpu / pairs:.2f} ms per judged pair "
            "(next + save; independent of the machine's load)"
        )
    print(f"os.cpu_count() = {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
