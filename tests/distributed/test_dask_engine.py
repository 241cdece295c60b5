"""``evaluate(..., engine="dask")`` equals the local engine bit for bit.

Runs are cut into partitions by query (in memory and as TREC and Parquet files) and
evaluated on a LocalCluster of worker processes; every per-query value, every
aggregate, the query order and the run names are compared with the local engine's on
the differential-test generators (ties, unjudged and negative labels, topics on one
side only) under every judging option, and on the sample collection through the
command line (byte-identical output, also for ``trec_eval``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import cranfield
from cranfield.core.measures.registry import all_definitions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError
from generators import (
    adversarial_case,
    graded_collection,
    layout_case,
    mixed_topics_case,
    run_from_rows,
    sparse_case,
)


def _measures() -> list:
    """Every measure family with its default parameters (those that parse bare)."""
    out = []
    for d in all_definitions():
        if d.family in ("diversity", "sampled"):  # subtopic/sampled qrels: local engine only
            continue
        try:
            out.append(cranfield.parse_measure(d.name))
        except Exception:  # a family that needs a parameter (none is meant here)
            continue
    return out + [cranfield.parse_measure(s) for s in ("nDCG@10", "P@5", "relstring@5", "nCG@10")]


MEASURES = _measures()
MICRO = ["P@5", "R@10", "SetP", "SetR", "SetF", "Fallout", "Generality"]

OPTIONS = [
    {"collection_size": 5000},
    {"collection_size": 5000, "complete": True},
    {"collection_size": 5000, "judged_only": True, "depth": 7},
    {"collection_size": 5000, "skip_no_relevant": True, "rel_level": 2},
    {"collection_size": 9000, "compat": 9, "complete": True},
]


def parts_of(run: Run, k: int, seed: int) -> list[Run]:
    """``run`` cut into ``k`` partitions of whole queries (random assignment)."""
    rng = np.random.default_rng(seed)
    qids = run.table["query_id"]
    topics = pc.unique(qids).to_pylist()
    owner = dict(zip(topics, rng.integers(0, k, len(topics)).tolist(), strict=True))
    which = np.array([owner[q] for q in qids.to_pylist()])
    out = []
    for i in range(k):
        rows = np.flatnonzero(which == i)
        if len(rows):
            out.append(Run(run.table.take(pa.array(rows)), name=run.name))
    return out


def assert_same(local, dist) -> None:
    assert dist.run_names == local.run_names
    assert dist.measures == local.measures
    assert dist.options == local.options
    for a, b in zip(local.runs, dist.runs, strict=True):
        assert list(b.query_ids) == list(a.query_ids)
        for m in local.measures:
            va, vb = np.asarray(a.values[m]), np.asarray(b.values[m])
            assert va.dtype == vb.dtype, m
            if va.dtype == object:
                assert va.tolist() == vb.tolist(), m
            else:
                assert np.array_equal(va.view(np.int64), vb.view(np.int64)), m  # same bits
            assert repr(b.aggregates[m]) == repr(a.aggregates[m]), m


def cases():
    for seed in range(6):
        q, r = adversarial_case(seed)
        yield f"adversarial{seed}", q, Run.from_dict(r, name="adv") if r else None
        q, r = mixed_topics_case(seed)
        yield f"mixed{seed}", q, Run.from_dict(r, name="mixed")
        q, rows, _ = sparse_case(seed)
        yield f"sparse{seed}", q, run_from_rows(rows, "sparse")
    rng = np.random.default_rng(7)
    for layout in ("ranked", "wrong_ties", "topics_unordered", "split", "shuffled"):
        q, rows = layout_case(rng, layout)
        yield layout, q, run_from_rows(rows, layout)
    q, r = graded_collection(rng, 20)
    yield "graded", q, Run.from_dict(r, name="graded")


@pytest.mark.parametrize("k", range(len(OPTIONS)), ids=lambda k: ",".join(OPTIONS[k]))
def test_generators_equal_local(dask_client, k):
    """Each case under two of the option sets (case i: sets i and i + 1, cyclically)."""
    options = OPTIONS[k]
    checked = 0
    for i, (case, qrels_dict, run) in enumerate(cases()):
        if run is None or k not in (i % len(OPTIONS), (i + 1) % len(OPTIONS)):
            continue
        qrels = Qrels.from_dict(qrels_dict)
        try:
            local = cranfield.evaluate(qrels, run, MEASURES, **options)
        except InputError as exc:  # the same refusal from both engines
            with pytest.raises(InputError) as caught:
                cranfield.evaluate(
                    qrels, [parts_of(run, 3, 1)], MEASURES, engine="dask", client=dask_client,
                    **options,
                )  # fmt: skip
            assert str(caught.value) == str(exc)
            continue
        dist = cranfield.evaluate(
            qrels, [parts_of(run, 3, len(case))], MEASURES, engine="dask", client=dask_client,
            **options,
        )  # fmt: skip
        assert_same(local, dist)
        checked += 1
    assert checked >= 3


def test_micro_equal_local(dask_client):
    for seed in range(4):
        q, rows, _ = sparse_case(seed)
        qrels, run = Qrels.from_dict(q), run_from_rows(rows, "sparse")
        for complete in (False, True):
            options = dict(aggregate_by="micro", complete=complete, collection_size=80)
            local = cranfield.evaluate(qrels, run, MICRO, **options)
            parts = [parts_of(run, 4, seed)]
            dist = cranfield.evaluate(
                qrels, parts, MICRO, engine="dask", client=dask_client, **options
            )
            assert_same(local, dist)


def test_same_inputs_after_a_failed_job(dask_client):
    """A job that fails in the workers (its other tasks cancelled) leaves nothing behind
    that the next job on the same data could trip over (inputs are sent under keys of
    their own, never shared by content)."""
    from cranfield.errors import MeasureError

    qrels = Qrels.from_dict({"1": {"a": 1, "b": 0}, "2": {"c": 2}})
    parts = [Run.from_dict({"1": {"a": 1.0, "b": 0.5}}, name="r")]
    parts.append(Run.from_dict({"2": {"c": 3.0, "a": 1.0}}, name="r"))
    local = cranfield.evaluate(
        qrels, Run.from_dict({**parts[0].to_dict(), **parts[1].to_dict()}, name="r"), "AP"
    )
    for _ in range(4):
        with pytest.raises(MeasureError, match="collection size"):
            cranfield.evaluate(qrels, [parts], "Fallout", engine="dask", client=dask_client)
        dist = cranfield.evaluate(qrels, [parts], "AP", engine="dask", client=dask_client)
        assert dist.dumps(per_query=True) == local.dumps(per_query=True)
