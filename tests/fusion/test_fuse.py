"""cranfield.fuse on its own: the result does not depend on the order of a run's rows
(each row order takes another path to trec_eval's ranking), a fused run is a run, and
the declarations hold what the CLI and docs need."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import cranfield
from cranfield.fusion import FUSION_METHODS, NORMALISATIONS
from generators import fusion_case


def _table(run: dict, order) -> pa.Table:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    rows = [rows[i] for i in order(len(rows))]
    return pa.table(
        {
            k: list(v)
            for k, v in zip(("query_id", "doc_id", "score"), zip(*rows, strict=True), strict=True)
        }
    )


@pytest.mark.parametrize("seed", range(12))
def test_row_order_does_not_matter(seed):
    runs, _, _ = fusion_case(seed, kind="ties")
    rng = np.random.default_rng(seed)
    orders = {
        "ranked": lambda n: range(n),  # trec order: no sort
        "ties reversed": None,  # grouped and score-sorted, ties by doc id ascending
        "shuffled": lambda n: rng.permutation(n),  # the full sort
    }
    for method in ("combmnz", "rrf", "borda", "isr"):
        want = cranfield.fuse(runs, method).to_dict()
        for name, order in orders.items():
            if order is None:
                tables = [
                    pa.table(
                        {
                            "query_id": [q for q, docs in run.items() for _ in docs],
                            "doc_id": [d for q, docs in run.items() for d in _ties_up(docs)],
                            "score": [docs[d] for q, docs in run.items() for d in _ties_up(docs)],
                        }
                    )
                    for run in runs
                ]
            else:
                tables = [_table(run, order) for run in runs]
            got = cranfield.fuse([cranfield.Run(t) for t in tables], method).to_dict()
            assert got == want, (seed, method, name)


def _ties_up(docs: dict) -> list:
    """Score descending, ties by document id ascending (the reverse of trec_eval's)."""
    return sorted(docs, key=lambda d: (-docs[d], d.encode()))


def test_every_method_and_normalisation_is_declared_with_its_source():
    assert len(FUSION_METHODS) == 25 and len(NORMALISATIONS) == 7
    for d in [*FUSION_METHODS.values(), *NORMALISATIONS.values()]:
        assert d.formula and d.citation and d.summary, d.name
    # ranx's names are aliases
    for name in ("mnz", "sum", "w_bordafuse", "w_condorcet", "log_isr", "logn_isr", "gmnz"):
        assert FUSION_METHODS.find(name) is not None, name


def test_a_fused_run_is_evaluated_like_any_run(tmp_path):
    runs, qrels, _ = fusion_case(5, kind="random")
    fused = cranfield.fuse(runs, "rrf")
    path = tmp_path / "fused.txt"
    fused.to_trec(path)
    a = cranfield.evaluate(qrels, fused, ["nDCG@10"])
    b = cranfield.evaluate(qrels, str(path), ["nDCG@10"])
    assert a.per_query(0, "nDCG@10") == b.per_query(0, "nDCG@10")
    assert a.aggregate(0, "nDCG@10") > 0


def test_optimise_fusion_reports_what_evaluate_gives():
    runs, qrels, _ = fusion_case(3, kind="random")
    report = cranfield.fusion.optimise_fusion(
        runs, qrels, "wsum", "P@5", search="coordinate-ascent", seed=1
    )
    fused = cranfield.fuse(runs, "wsum", weights=report["weights"])
    value = cranfield.evaluate(qrels, fused, ["P@5"]).aggregate(0, "P@5")
    assert abs(value - report["train"]) < 1e-12
    with pytest.raises(cranfield.ParameterError, match="tune"):
        cranfield.fusion.optimise_fusion(runs, qrels, "combsum")


def test_default_minimum_by_hand():
    """--missing min: a document a run did not retrieve gets that run's smallest score
    for the query; CombMNZ still counts only the runs that retrieved it."""
    runs = [{"q": {"x": 3.0, "y": 1.0}}, {"q": {"x": 2.0, "z": 5.0}}]
    assert cranfield.fuse(runs, "combsum", None, missing="min").to_dict()["q"] == {
        "x": 5.0,
        "y": 3.0,
        "z": 6.0,
    }
    assert cranfield.fuse(runs, "combmnz", None, missing="min").to_dict()["q"] == {
        "x": 10.0,
        "y": 3.0,
        "z": 6.0,
    }
    assert cranfield.fuse(runs, "combmin", None, missing="min").to_dict()["q"] == {
        "x": 2.0,
        "y": 1.0,
        "z": 1.0,
    }
    assert cranfield.fuse(runs, "combsum", None).to_dict()["q"] == {"x": 5.0, "y": 1.0, "z": 5.0}


def _trec_top(docs: dict, k: int) -> set:
    """A query's top k in trec_eval's order (score descending, ties by id descending)."""
    ranked = sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)
    return set(ranked[:k])


@pytest.mark.parametrize("seed", range(10))
def test_per_query_table_counts_the_documents_fusion_moved(seed, tmp_path):
    """--per-query's moved-document columns against a direct count: the fused top 5
    minus the top 5 of the run best on the query (first of equal ones), and how many of
    those are judged relevant."""
    from cranfield.cli.main import main

    runs, qrels, _ = fusion_case(seed, kind="random")
    paths = []
    for i, run in enumerate(runs):
        path = tmp_path / f"r{i}.txt"
        cranfield.Run.from_dict(run, name=f"r{i}").to_trec(path)
        paths.append(str(path))
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    table, fused_path = tmp_path / "pq.tsv", tmp_path / "fused.txt"
    status = main(["fuse", *paths, "--method", "combsum", "--qrels", str(qrels_path),
                   "--per-query", str(table), "-o", str(fused_path)])  # fmt: skip
    assert status in (0, None)
    fused = cranfield.Run.read(fused_path).to_dict()
    per_run = [cranfield.evaluate(str(qrels_path), p, ["nDCG@10"]) for p in paths]
    head, *rows = table.read_text().splitlines()
    assert head.split("\t")[-2:] == ["new in top 10", "new relevant in top 10"]
    assert rows
    total = 0
    for row in rows:
        cells = row.split("\t")
        q = cells[0]
        values = [r.per_query(0, "nDCG@10").get(q, 0.0) for r in per_run]
        best = runs[int(np.argmax(values))]
        moved = _trec_top(fused[q], 10) - _trec_top(best.get(q, {}), 10)
        relevant = sum(qrels.get(q, {}).get(d, 0) > 0 for d in moved)
        assert (int(cells[-2]), int(cells[-1])) == (len(moved), relevant), (seed, q)
        total += len(moved)
    assert total > 0, "no document moved: the case tests nothing"
