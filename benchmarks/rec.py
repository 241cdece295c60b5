"""Recommender evaluation at scale: cranfield's ``evaluate_recommendations`` against
Microsoft Recommenders' python_evaluation functions, in one process, side by side.

    PYTHONPATH=src python benchmarks/rec.py --users 10000 100000 1000000 --depth 100

Data (generated at run time, deterministic): ``--users`` users, a Zipf-popular catalogue
of 50,000 items, 10 training interactions per user and 1 held-out one (ratio split
done here), top-``--depth`` lists per user (the held-out item placed at a random rank
or left out, so HR is about 0.3). Timed: reading is not (both get in-memory data:
cranfield an ``Interactions`` and a ``Run``, Recommenders pandas DataFrames); each tool
computes HR@10 and nDCG@10 (cranfield also coverage@10 and novelty@10: Recommenders'
refuses lists holding training items there). Recommenders runs only
up to ``--peer-max`` users (it holds pandas joins of every list row); the values are
compared where both run. Wall and CPU time of this process, peak RSS from the kernel.

``--command`` times the whole command instead, as a user runs it on files::

    PYTHONPATH=src python benchmarks/rec.py --command --users 100000 1000000 --repeat 3

``cranfield rec eval TEST RECS --train TRAIN -m HR@10 nDCG@10 coverage@10 novelty@10
-f json`` on Parquet files written once under ``--data`` (default ``/tmp/cranfield-rec``;
``u<n>``/``i<n>`` string ids; the 1M-user lists are 100M rows, 235 MB), in a child
process whose wall time, CPU (user + system) and peak RSS (``wait4``) are reported, best
of ``--repeat`` by wall time; ``--lists-format csv`` (or ``tsv``) gives the command the
lists as text instead (written once from the Parquet file: the 1M-user CSV is 2.2 GB); ``--src DIR`` runs another checkout's code (the code before
a change). The parent imports nothing heavy (a child's peak-RSS counter starts at its
parent's size); the files are written by a child of their own.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

K = 10


def make(users: int, depth: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    items = 50_000
    pop = rng.zipf(1.2, size=(users, 11)) % items
    train_u = np.repeat(np.arange(users), 10)
    train_i = pop[:, :10].ravel()
    test_i = pop[:, 10]
    # each user's list: a random permutation window of the catalogue, the held-out item
    # put at a random rank for 30 % of users
    base = rng.integers(0, items - depth, users)
    lists = base[:, None] + np.arange(depth)[None, :]
    inside = (test_i >= base) & (test_i < base + depth)
    hit = (rng.random(users) < 0.3) & ~inside  # (already there: a hit anyway)
    lists[hit, rng.integers(0, depth, hit.sum())] = test_i[hit]
    return train_u, train_i, test_i, lists


def cranfield_side(train_u, train_i, test_i, lists):
    import numpy as np
    import pyarrow as pa

    from cranfield.core.run import Run
    from cranfield.rec.data import Interactions
    from cranfield.rec.evaluate import evaluate_recommendations

    users = np.char.add("u", np.arange(len(test_i)).astype(str)).astype(object)
    item = np.char.add("i", np.arange(50_000).astype(str)).astype(object)
    train = Interactions(users[train_u], item[train_i], None, None, "train")
    test = Interactions(users, item[test_i], None, None, "test")
    depth = lists.shape[1]
    table = pa.table(
        {
            "query_id": pa.array(np.repeat(users, depth), pa.string()),
            "doc_id": pa.array(item[lists.ravel()], pa.string()),
            "score": pa.array(np.tile(np.arange(depth, 0, -1, dtype=np.float64), len(users))),
        }
    )
    run = Run(table, "recs", name="recs")
    names = [f"HR@{K}", f"nDCG@{K}", f"coverage@{K}", f"novelty@{K}"]
    t0, c0 = time.perf_counter(), time.process_time()
    result = evaluate_recommendations(test, run, names, train=train, exclude_train=False).table()
    return result, time.perf_counter() - t0, time.process_time() - c0


def write_files(users: int, depth: int, directory: Path) -> dict[str, Path]:
    """The data of :func:`make` as Parquet files under ``directory`` (``train``,
    ``test``, ``recs``; ids ``u<n>``/``i<n>``, string columns as pandas writes them,
    dictionary-encoded inside the file), written once and reused."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    paths = {n: directory / f"{n}-{users}x{depth}.parquet" for n in ("train", "test", "recs")}
    if all(p.exists() for p in paths.values()):
        return paths
    train_u, train_i, test_i, lists = make(users, depth)
    user = pa.array(np.char.add("u", np.arange(users).astype(str)))
    item = pa.array(np.char.add("i", np.arange(50_000).astype(str)))

    def ids(codes, vocabulary):
        return vocabulary.take(pa.array(codes, pa.int32()))

    pq.write_table(
        pa.table({"user": ids(train_u, user), "item": ids(train_i, item)}), paths["train"]
    )
    pq.write_table(
        pa.table({"user": ids(np.arange(users), user), "item": ids(test_i, item)}), paths["test"]
    )
    scores = np.arange(depth, 0, -1, dtype=np.float64)
    schema = pa.schema([("user", pa.string()), ("item", pa.string()), ("score", pa.float64())])
    with pq.ParquetWriter(paths["recs"], schema) as out:
        step = 100_000
        for a in range(0, users, step):
            b = min(a + step, users)
            out.write_table(
                pa.table(
                    {
                        "user": ids(np.repeat(np.arange(b - a), depth), user[a:b]),
                        "item": ids(lists[a:b].ravel(), item),
                        "score": np.tile(scores, b - a),
                    }
                )
            )
    return paths


def lists_path(users: int, depth: int, data: Path, lists_format: str) -> Path:
    """The lists file of ``write_files`` in ``lists_format`` (``csv``: written once from
    the Parquet file, a record batch at a time)."""
    parquet = data / f"recs-{users}x{depth}.parquet"
    if lists_format == "parquet":
        return parquet
    path = data / f"recs-{users}x{depth}.{lists_format}"
    if not path.exists():
        import pyarrow.csv as pv
        import pyarrow.parquet as pq

        file = pq.ParquetFile(parquet)
        part = path.with_suffix(".part")
        options = pv.WriteOptions(delimiter="," if lists_format == "csv" else "\t")
        with pv.CSVWriter(part, file.schema_arrow, write_options=options) as out:
            for batch in file.iter_batches(1 << 20):
                out.write_batch(batch)
        part.rename(path)
    return path


def recommenders_side(_train_u, _train_i, test_i, lists):
    import numpy as np
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    n, depth = lists.shape
    truth = pd.DataFrame({"user": np.arange(n), "item": test_i, "rating": 1.0})
    reco = pd.DataFrame(
        {
            "user": np.repeat(np.arange(n), depth),
            "item": lists.ravel(),
            "prediction": np.tile(np.arange(depth, 0, -1, dtype=np.float64), n),
        }
    )
    kw = dict(col_user="user", col_item="item", col_rating="rating", col_prediction="prediction")
    t0, c0 = time.perf_counter(), time.process_time()
    out = {
        f"nDCG@{K}": pe.ndcg_at_k(truth, reco, relevancy_method="top_k", k=K, **kw),
        f"HR@{K}": pe.recall_at_k(truth, reco, relevancy_method="top_k", k=K, **kw),
    }
    return out, time.perf_counter() - t0, time.process_time() - c0


def command_side(
    users: int, depth: int, data: Path, src: Path, repeat: int, lists_format: str = "parquet"
) -> None:
    """Time ``cranfield rec eval`` on the files of ``write_files`` (see the docstring)."""
    here = str(Path(__file__).resolve())
    subprocess.run(
        [sys.executable, here, "--write", "--users", str(users), "--data", str(data)]
        + ["--lists-format", lists_format],
        check=True,
    )
    paths = {n: data / f"{n}-{users}x{depth}.parquet" for n in ("train", "test")}
    paths["recs"] = lists_path(users, depth, data, lists_format)
    command = [sys.executable, "-m", "cranfield", "rec", "eval", str(paths["test"])]
    command += [str(paths["recs"]), "--train", str(paths["train"]), "-m", f"HR@{K}"]
    command += [f"nDCG@{K}", f"coverage@{K}", f"novelty@{K}", "-f", "json"]
    env = dict(os.environ, PYTHONPATH=str(src))
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = child.stdout.read()
        child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        if status:
            print(f"{users:>9,} users x {depth}: the command failed ({status})", flush=True)
            return
        run = (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 2**20)
        best = run if best is None or run[0] < best[0] else best
    values = json.loads(out)["measures"]
    print(
        f"{users:>9,} users x {depth}: cranfield rec eval ({src}) {best[0]:.2f} s "
        f"(CPU {best[1]:.2f}), peak RSS {best[2]:.2f} GB; {values}",
        flush=True,
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--users", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--peer-max", type=int, default=100_000)
    p.add_argument("--command", action="store_true", help="time the command on files")
    p.add_argument("--write", action="store_true", help="only write the files")
    p.add_argument("--data", type=Path, default=Path("/tmp/cranfield-rec"))
    p.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument(
        "--lists-format",
        choices=("parquet", "csv", "tsv"),
        default="parquet",
        help="the format of the lists file --command reads",
    )
    a = p.parse_args()
    if a.write or a.command:
        for users in a.users:
            if a.write:
                write_files(users, a.depth, a.data)
                lists_path(users, a.depth, a.data, a.lists_format)
            else:
                command_side(users, a.depth, a.data, a.src.resolve(), a.repeat, a.lists_format)
        return
    for users in a.users:
        data = make(users, a.depth)
        ours, wall, cpu = cranfield_side(*data)
        line = f"{users:>9,} users x {a.depth}: cranfield {wall:.2f} s (CPU {cpu:.2f})"
        if users <= a.peer_max:
            theirs, pwall, pcpu = recommenders_side(*data)
            same = all(abs(ours[m] - v) < 1e-9 for m, v in theirs.items() if m in ours)
            line += (
                f"; recommenders {pwall:.2f} s (CPU {pcpu:.2f}), {pwall / wall:.1f}x; "
                f"values {'equal' if same else 'DIFFERENT'}"
            )
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(line + f"; peak RSS so far {peak:.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
