"""The campaign service's queues in MTC order on the sample collection: how much is
judged before the question is decided, and what the next-pair request costs.

The sample campaign (``cranfield campaign init --sample``: 40 topics, 4 runs pooled at
depth 10 with gold pairs), four assessors with one per topic, the sample qrels as the
assessors' labels (3 read as 2, the scale's top). Each assessor asks for the next pair and judges it until their view
says the question is decided; then the same number of pairs is judged in the blind
order on a copy of the campaign without the question, for the cost of a plain next-pair
request. Domain layer in this process on SQLite (no HTTP): the figures are the MTC
choice's own cost.
Usage: PYTHONPATH=src python benchmarks/mtc_service.py [MEASURE] [RUNS: r1,r2 or all]
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path


def campaign(d: Path, name: str):
    from cranfield.service import accounts, demo, pooling, security
    from cranfield.service.db import open_database

    security.ARGON2_PARAMETERS.update(time_cost=1, memory_cost=1024, parallelism=1)
    db = open_database(str(d / f"{name}.db"))
    demo.sample_campaign(db, "c")
    ids = [
        accounts.add_user(db, f"a{i}", "a long enough password", role="assessor", campaign="c")
        for i in range(4)
    ]
    return db, ids, pooling


def main(measure: str = "AP", runs: str = "all") -> None:
    from cranfield import sample
    from cranfield.service import judging, mtc_order

    qrels, _ = sample.load()
    t = qrels.table
    truth = {
        (q, d): int(r)
        for q, d, r in zip(
            t["query_id"].to_pylist(),
            t["doc_id"].to_pylist(),
            t["relevance"].to_pylist(),
            strict=True,
        )
    }
    named = None if runs == "all" else runs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        db, ids, pooling = campaign(d, "mtc")
        start = time.perf_counter()
        info = mtc_order.choose(db, "c", measure, runs=named)
        choose_s = time.perf_counter() - start
        pooling.assign(db, "c")
        from cranfield.service.exports import pool_text

        pool = len(pool_text(db, "c").splitlines())
        times, judged, active = [], 0, list(ids)
        while active:  # the assessors take turns until the question is decided
            for uid in list(active):
                start = time.perf_counter()
                view = judging.next_pair(db, "c", uid)
                times.append(time.perf_counter() - start)
                if view is None:
                    active.remove(uid)
                    continue
                if view["decided"]:
                    active = []
                    break
                key = (view["topic"]["id"], view["document"]["id"])
                judging.save(db, "c", uid, view["pair"], min(truth.get(key, 0), 2))
                judged += 1
        status = mtc_order.status(db, "c")
        db.close()
        blind_db, blind_ids, blind_pooling = campaign(d, "blind")
        blind_pooling.assign(blind_db, "c")
        blind, n = [], 0
        for uid in blind_ids:
            while n < judged:
                start = time.perf_counter()
                view = judging.next_pair(blind_db, "c", uid)
                blind.append(time.perf_counter() - start)
                if view is None:
                    break
                judging.save(blind_db, "c", uid, view["pair"], 0)
                n += 1
        blind_db.close()

    def ms(xs, q):
        return 1000 * statistics.quantiles(xs, n=100)[q - 1] if len(xs) > 1 else 1000 * xs[0]

    print(
        f"{measure}, runs {runs}: {info['pairs']} pairs of runs, {info['topics']} topics "
        f"(at most {info['documents']} documents), choose {1000 * choose_s:.0f} ms"
    )
    print(
        f"judged {judged} of {pool} pooled pairs ({100 * judged / pool:.0f}%) until decided: "
        f"{status['pairs_decided']} of {len(status['pairs'])} pairs of runs decided on the "
        f"mean over {status['topics']} topics"
    )
    print(
        f"next pair, MTC order: median {ms(times, 50):.2f} ms, p95 {ms(times, 95):.2f} ms "
        f"({len(times)} requests); blind order: median {ms(blind, 50):.2f} ms, "
        f"p95 {ms(blind, 95):.2f} ms ({len(blind)} requests)"
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
