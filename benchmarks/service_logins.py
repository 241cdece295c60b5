"""A flood of wrong logins against the campaign service (localhost): the owner is never
locked out and the server is not held for long.

Starts ``cranfield serve --trusted-proxy 127.0.0.1`` (so each request may name its
client address in ``X-Forwarded-For``) on a new SQLite database with one user, with
the real Argon2id costs (64 MiB, as deployed). Then ``--attackers`` threads send a wrong
password for that user at once, each from its own address (``--same-address``: all
from one), while the owner logs in with the right password twice, from two other
addresses: from a known device (presenting the device cookie of an earlier login,
:mod:`cranfield.service.devices`) and from a new one. Prints the answers' statuses, the
time until the last attacker had its answer, the owner's statuses and latencies, and the
server's peak memory::

    PYTHONPATH=src python benchmarks/service_logins.py --attackers 100
    PYTHONPATH=src python benchmarks/service_logins.py --attackers 100 --same-address
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

PASSWORD = "the owner's long password"


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--attackers", type=int, default=100)
    p.add_argument("--same-address", action="store_true")
    args = p.parse_args()

    from cranfield.service import accounts
    from cranfield.service.db import open_database
    from service.helpers import login_over_http as login
    from service.server import Server

    tmp = Path(tempfile.mkdtemp(prefix="cranfield-logins-"))
    db = open_database(str(tmp / "logins.db"))
    accounts.add_user(db, "owner", PASSWORD)  # real Argon2id parameters
    db.close()
    with Server(tmp / "logins.db", "--trusted-proxy", "127.0.0.1", cwd=tmp) as server:
        status, alone, device = login(server.url, PASSWORD, "192.168.7.7")
        assert status == 200 and device, "the owner's first login failed"
        results: list[tuple[int, float, str | None]] = []
        lock = threading.Lock()
        go = threading.Event()

        def attack(i: int) -> None:
            address = "10.1.0.1" if args.same_address else f"10.{1 + i // 250}.{i % 250}.1"
            go.wait()
            out = login(server.url, "a wrong guess", address)
            with lock:
                results.append(out)

        threads = [threading.Thread(target=attack, args=(i,)) for i in range(args.attackers)]
        for t in threads:
            t.start()
        start = time.perf_counter()
        go.set()
        owner: dict[str, tuple] = {}

        def owner_login(which: str, address: str, cookie: str | None) -> None:
            time.sleep(0.2)
            owner[which] = login(server.url, PASSWORD, address, cookie)

        owners = [
            threading.Thread(target=owner_login, args=("known device", "192.168.7.7", device)),
            threading.Thread(target=owner_login, args=("new device", "192.168.7.8", None)),
        ]
        for o in owners:
            o.start()
        for t in threads:
            t.join()
        held = time.perf_counter() - start
        for o in owners:
            o.join()
        rss = peak_rss_mib(server.proc.pid)
    statuses = Counter(r[0] for r in results)
    slowest = max(r[1] for r in results)
    print(
        f"{args.attackers} wrong logins at once, "
        f"{'one address' if args.same_address else 'one address each'}"
    )
    print(f"  statuses: {dict(sorted(statuses.items()))}")
    print(f"  last answer after {held:.2f} s (slowest request {slowest:.2f} s)")
    print(f"  the owner alone, before: 200 in {alone:.2f} s")
    for which, (status, seconds, _) in owner.items():
        print(f"  the owner from another address, {which}: {status} in {seconds:.2f} s")
    print(f"  server peak memory: {rss:.0f} MiB")
    return 0 if all(o[0] == 200 for o in owner.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
