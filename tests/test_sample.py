"""The sample test collection: deterministic and shaped as documented."""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow.compute as pc

from cranfield import sample
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run


def test_shape_of_the_collection():
    qrels, runs = sample.load()
    assert qrels.query_ids() == [str(q) for q in range(301, 341)]
    per_query = pc.value_counts(qrels.table["query_id"]).field("counts").to_numpy()
    assert per_query.min() >= 150 and per_query.max() <= 400
    grades = qrels.table["relevance"].to_numpy()
    assert set(np.unique(grades)) == {0, 1, 2, 3}
    relevant = qrels.table.filter(pc.greater(qrels.table["relevance"], 0))
    with_rel = set(relevant["query_id"].to_pylist())
    assert set(qrels.query_ids()) - with_rel == set(sample.NO_RELEVANT)
    assert sorted(runs) == ["bm25", "dense", "hybrid", "random"]
    judged = set(
        zip(qrels.table["query_id"].to_pylist(), qrels.table["doc_id"].to_pylist(), strict=True)
    )
    for name, run in runs.items():
        assert run.name == name
        counts = pc.value_counts(run.table["query_id"]).field("counts").to_numpy()
        assert (counts == 100).all()
        missing = set(qrels.query_ids()) - set(run.query_ids())
        assert missing == ({"317"} if name == "dense" else set())
        pairs = zip(run.table["query_id"].to_pylist(), run.table["doc_id"].to_pylist(), strict=True)
        assert any(p not in judged for p in pairs), "runs retrieve unjudged documents"
        scores = run.table["score"].to_numpy()
        if name in ("bm25", "random"):
            assert len(np.unique(scores)) < len(scores), "ties in score"


def _precision_at_10(qrels: Qrels, run: Run) -> float:
    rel = {
        k
        for k, g in zip(
            zip(
                qrels.table["query_id"].to_pylist(), qrels.table["doc_id"].to_pylist(), strict=True
            ),
            qrels.table["relevance"].to_pylist(),
            strict=True,
        )
        if g > 0
    }
    ranked = run.ranked().to_pydict()
    hits = [
        (q, d) in rel
        for q, d, k in zip(ranked["query_id"], ranked["doc_id"], ranked["rank"], strict=True)
        if k <= 10
    ]
    return sum(hits) / (10 * len(run.query_ids()))


def test_runs_differ_clearly_in_quality():
    qrels, runs = sample.load()
    p10 = {name: _precision_at_10(qrels, run) for name, run in runs.items()}
    assert p10["hybrid"] > p10["bm25"] + 0.1 > p10["dense"] + 0.2 > p10["random"] + 0.3


def test_deterministic_and_written_files_read_back(tmp_path):
    paths = sample.write(tmp_path / "a")
    again = sample.write(tmp_path / "b")
    assert [p.name for p in paths] == [
        "qrels.txt",
        "bm25.txt",
        "dense.txt",
        "hybrid.txt",
        "random.txt",
    ]
    for p, q in zip(paths, again, strict=True):
        assert hashlib.sha256(p.read_bytes()).digest() == hashlib.sha256(q.read_bytes()).digest()
    qrels, runs = sample.load()
    assert Qrels.read(paths[0]).table.equals(qrels.table)
    for p in paths[1:]:
        back = Run.read(p)
        assert back.name == p.stem
        assert back.to_dict() == runs[p.stem].to_dict()


def test_demo_refuses_to_overwrite_an_edited_collection(tmp_path, capsys):
    from cranfield.cli.main import main

    target = tmp_path / "sample-collection"
    assert main(["demo", "--dir", str(target)]) == 0
    assert main(["demo", "--dir", str(target)]) == 0  # unchanged: written again, no error
    edited = (target / "dense.txt").read_bytes() + b"1 Q0 extra 999 0.5 mine\n"
    (target / "dense.txt").write_bytes(edited)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    capsys.readouterr()
    assert main(["demo", "--dir", str(target)]) != 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "dense.txt: differs from the sample collection" in err[0]
    assert "--force" in err[0]
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before  # nothing written
    assert main(["demo", "--dir", str(target), "--force"]) == 0
    assert (target / "dense.txt").read_bytes() == sample.write(tmp_path / "fresh")[2].read_bytes()
