"""Partitioned files on a LocalCluster: the command line's output is byte-identical to
the local engine's (``eval`` and ``trec_eval``, on the sample collection and the TREC
file generator), Parquet datasets and many runs work, and a query split over two
partitions is refused, never evaluated twice."""

from __future__ import annotations

import socket

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cranfield
from cranfield.errors import InputError, ParameterError
from fresh import loaded_after
from generators import trec_files


def split_file(path, out_dir, k: int, name: str = "p") -> list:
    """The lines of a TREC file cut into ``k`` files by query (round robin over the
    queries in order of appearance; comment lines go with the query before them)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    groups: dict[str, list[str]] = {}
    last = None
    for line in open(path, encoding="utf-8").read().splitlines(True):
        fields = line.split()
        key = fields[0] if fields and not fields[0].startswith("#") else last
        if key is None:
            continue
        groups.setdefault(key, []).append(line)
        last = key
    files = [out_dir / f"{name}{i}.txt" for i in range(k)]
    texts = [""] * k
    for i, lines in enumerate(groups.values()):
        texts[i % k] += "".join(lines)
    for f, t in zip(files, texts, strict=True):
        f.write_text(t)
    return files


def same_as_local(dist, local) -> None:
    """The Dask engine's output is the local engine's, plus the one note that the local
    engine is faster for runs this small (cranfield.distributed.break_even)."""
    assert local[0] == 0 and dist[:2] == local[:2]
    lines = dist[2].splitlines()
    dask = [line for line in lines if line.startswith("cranfield eval: note: --engine dask: ")]
    assert len(dask) == 1 and [line for line in lines if line not in dask] == local[2].splitlines()


@pytest.fixture(scope="module")
def partitioned_sample(sample_paths, tmp_path_factory):
    """``(qrels, runs, [directory of each run's 3 partitions])`` of the sample."""
    root = tmp_path_factory.mktemp("parts")
    qrels, *runs = sample_paths
    dirs = []
    for run in runs:
        split_file(run, root / run.stem, 3)
        dirs.append(root / run.stem)
    return qrels, runs, dirs


def test_eval_sample_byte_identical(cli, dask_client, partitioned_sample):
    qrels, runs, dirs = partitioned_sample
    address = dask_client.scheduler.address
    for extra in ([], ["-c", "-J", "-M", "50"], ["--aggregate", "micro", "-m", "P@5", "SetF"]):
        measures = [] if "-m" in extra else ["-m", "AP", "nDCG@10", "P@5", "GMAP", "relstring@5"]
        local = cli("eval", qrels, *runs, *measures, *extra, "-q", "-f", "trec")
        dist = cli(
            "eval", qrels, *dirs, *measures, *extra, "-q", "-f", "trec", "--scheduler", address
        )
        same_as_local(dist, local)
        assert len(local[1].splitlines()) > 100


def test_trec_eval_byte_identical(cli, dask_client, partitioned_sample, tmp_path):
    qrels, runs, _ = partitioned_sample
    address = dask_client.scheduler.address
    pattern = str(partitioned_sample[2][0] / "p*.txt")
    for extra in ([], ["-c"], ["-J", "-M", "20", "-l", "2"]):
        local = cli("trec_eval", "-q", "-m", "all_trec", *extra, qrels, runs[0])
        dist = cli(
            "trec_eval", "-q", "-m", "all_trec", *extra, qrels, pattern, "--scheduler", address
        )
        assert local[0] == 0 and dist == local
    for seed in range(3):  # topics in file order, comments, a qrels topic without results
        q_text, r_text = trec_files(seed)
        (tmp_path / "q.txt").write_text(q_text)
        (tmp_path / "r.txt").write_text(r_text)
        split_file(tmp_path / "r.txt", tmp_path / f"r{seed}", 4)
        for extra in ([], ["-c"], ["--compat", "9"]):
            local = cli(
                "trec_eval", "-q", "-m", "all_trec", *extra, tmp_path / "q.txt", tmp_path / "r.txt"
            )
            dist = cli(
                "trec_eval", "-q", "-m", "all_trec", *extra, tmp_path / "q.txt",
                tmp_path / f"r{seed}", "--scheduler", address,
            )  # fmt: skip
            assert local[0] == 0 and dist == local


def test_parquet_dataset_and_many_runs(dask_client, sample_paths, tmp_path):
    """A hive-partitioned Parquet dataset holding four runs (a run column): the same
    Results as the local engine given the four runs."""
    qrels, *runs = sample_paths
    local = cranfield.evaluate(qrels, [str(r) for r in runs], ["AP", "nDCG@10", "RR"])
    tables = []
    for path in runs:
        run = cranfield.Run.read(path)
        t = run.table.select(["query_id", "doc_id", "score"])
        tables.append(t.append_column("run", pa.array([run.name] * len(t))))
    table = pa.concat_tables(tables)
    qids = np.array(table["query_id"].to_pylist())
    buckets = {q: i % 4 for i, q in enumerate(sorted(set(qids)))}
    which = np.array([buckets[q] for q in qids])
    for b in range(4):
        part = tmp_path / "dataset" / f"bucket={b}"
        part.mkdir(parents=True)
        pq.write_table(table.take(pa.array(np.flatnonzero(which == b))), part / "part-0.parquet")
    (tmp_path / "dataset" / "_SUCCESS").write_text("")
    dist = cranfield.evaluate(
        qrels, tmp_path / "dataset", ["AP", "nDCG@10", "RR"], engine="dask", client=dask_client
    )
    assert dist.run_names == local.run_names
    assert dist.dumps(per_query=True) == local.dumps(per_query=True)


def test_split_query_is_refused(cli, dask_client, sample_paths, tmp_path):
    qrels, run = sample_paths[0], sample_paths[1]
    lines = run.read_text().splitlines(True)
    first = lines[0].split()[0]
    half = [ln for ln in lines if ln.split()[0] == first]
    (tmp_path / "a.txt").write_text("".join(half[: len(half) // 2]))
    (tmp_path / "b.txt").write_text(
        "".join(half[len(half) // 2 :]) + "".join(ln for ln in lines if ln.split()[0] != first)
    )
    with pytest.raises(InputError) as caught:
        cranfield.evaluate(qrels, tmp_path, "AP", engine="dask", client=dask_client)
    message = str(caught.value)
    assert f"query {first!r}" in message and "a.txt" in message and "b.txt" in message
    status, out, err = cli("eval", qrels, tmp_path, "--scheduler", dask_client.scheduler.address)
    assert status == 2 and out == "" and err.count("\n") == 1 and "two partitions" in err
    status, out, err = cli(
        "trec_eval", qrels, str(tmp_path / "*.txt"), "--scheduler", dask_client.scheduler.address
    )
    assert status == 2 and out == "" and err.count("\n") == 1 and "two partitions" in err


def test_split_qrels_topic_is_refused(dask_client, sample_paths, tmp_path):
    qrels, run = sample_paths[0], sample_paths[1]
    lines = qrels.read_text().splitlines(True)
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "1.txt").write_text("".join(lines[: len(lines) // 2 + 1]))
    (tmp_path / "q" / "2.txt").write_text("".join(lines[len(lines) // 2 :]))
    with pytest.raises(InputError, match="of the qrels is in two partitions"):
        cranfield.evaluate(tmp_path / "q", run, "AP", engine="dask", client=dask_client)
    # cut at a topic boundary, the partitioned qrels give the local values
    topic = lines[len(lines) // 2].split()[0]
    cut = next(i for i, ln in enumerate(lines) if ln.split()[0] == topic)
    (tmp_path / "q" / "1.txt").write_text("".join(lines[:cut]))
    (tmp_path / "q" / "2.txt").write_text("".join(lines[cut:]))
    local = cranfield.evaluate(qrels, run, ["AP", "nDCG@10"])
    dist = cranfield.evaluate(
        tmp_path / "q", run, ["AP", "nDCG@10"], engine="dask", client=dask_client
    )
    assert dist.dumps(per_query=True) == local.dumps(per_query=True)


def test_engine_parameters(sample_paths):
    qrels, run = sample_paths[0], sample_paths[1]
    with pytest.raises(ParameterError, match="engine"):
        cranfield.evaluate(qrels, run, "AP", engine="spark")
    with pytest.raises(ParameterError, match="client"):
        cranfield.evaluate(qrels, run, "AP", client=object())


def test_import_does_not_load_dask():
    code = "import cranfield, cranfield.distributed, cranfield.core.evaluation; cranfield.evaluate"
    assert loaded_after(code, "dask", "distributed") == []


def test_fractional_qrels_byte_identical(cli, dask_client, partitioned_sample, tmp_path):
    """Soft labels (``--fractional``): gains are the fractions, on both engines."""
    qrels, runs, dirs = partitioned_sample
    rng = np.random.default_rng(1)
    lines = []
    for line in qrels.read_text().splitlines():
        q, it, d, g = line.split()
        lines.append(f"{q} {it} {d} {int(g) * rng.choice([0.25, 0.5, 1.0]):g}")
    soft = tmp_path / "soft.txt"
    soft.write_text("\n".join(lines) + "\n")
    argv = ["-m", "AP", "nDCG@10", "P@5", "-q", "-f", "csv", "--fractional"]
    local = cli("eval", soft, runs[0], *argv)
    dist = cli("eval", soft, dirs[0], *argv, "--scheduler", dask_client.scheduler.address)
    same_as_local(dist, local)


def test_relative_paths_reach_workers_with_another_working_directory(
    dask_client, partitioned_sample, monkeypatch
):
    """The workers were started from the session's directory; a run named relative to
    another one is still found (sent as an absolute path)."""
    qrels, runs, dirs = partitioned_sample
    local = cranfield.evaluate(qrels, runs[0], ["AP", "P@5"])
    monkeypatch.chdir(dirs[0].parent)
    with pytest.warns(cranfield.errors.CranfieldNote):
        dist = cranfield.evaluate(
            qrels, dirs[0].name, ["AP", "P@5"], engine="dask", client=dask_client
        )
    assert dist.runs[0].aggregates == local.runs[0].aggregates


def test_the_reachability_check_lets_a_listening_scheduler_through(dask_client):
    """The plain connection made before the client's: None for a scheduler that listens
    (the address is then the client's to use), a reason for a port that refuses."""
    from cranfield.distributed.cluster import _unreachable

    address = dask_client.scheduler.address
    assert address.startswith("tcp://127.0.0.1:")  # the local cluster's worker processes
    assert _unreachable(address) is None
    with socket.socket() as s:  # a port bound but not listening refuses connections
        s.bind(("127.0.0.1", 0))
        refused = f"tcp://127.0.0.1:{s.getsockname()[1]}"
        assert "refused" in _unreachable(refused)
    assert _unreachable("nonsense") is None  # malformed: distributed says how
