"""The engine's trec_eval printer (rust/eval/src/trec_eval.rs) prints numbers as C's
``printf("%6.4f")`` and ``printf("%ld", (long) v)`` do, and aggregates as trec_eval.

The references here are Python's own ``'%6.4f'`` (correctly rounded, ties to even, as
glibc's printf), C's conversion rules for ``(long)`` on x86-64, and the summary
formulas written out with ``math``.
"""

from __future__ import annotations

import math
import random
import struct

import numpy as np
import pytest

from cranfield import _engine

LONG_MIN = -(2**63)


def c_float(v: float) -> str:
    if math.isnan(v):
        return "%6s" % ("-nan" if math.copysign(1.0, v) < 0 else "nan")  # noqa: UP031
    return "%6.4f" % v  # noqa: UP031


def c_long(v: float) -> str:
    if not math.isfinite(v) or not -(2.0**63) <= v < 2.0**63:
        return str(LONG_MIN)
    return str(int(v))


def edge_values() -> list[float]:
    values = [0.0, -0.0, 0.5, -0.5, 5e-5, 1.5e-4, 2.5e-4, -5e-5, 0.03125, 1.00005, 0.99995]
    values += [1e300, -1e300, 1.7976931348623157e308, 5e-324, -5e-324, math.inf, -math.inf]
    values += [math.nan, -math.nan, 2.0**63, -(2.0**63), 2.0**63 - 1024, 1e19, -1e19]
    values += [k / 20000 for k in range(-400, 401)]  # ties at the fifth decimal
    values += [k / 2**14 for k in range(0, 300)]  # exact binary ties
    return values


def random_values(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        out.append(rng.uniform(-2, 2))
        out.append(struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0])
        out.append(rng.random() * 10 ** rng.randint(-8, 20))
        out.append(round(rng.uniform(0, 1), 5))
    return out


def printed(columns, values, qids, *, per_query=True, summary=False, **kw):
    text, unusable = _engine.trec_eval_print(
        columns,
        values,
        kw.pop("added", [False] * len(qids)),
        [q.encode() for q in qids],
        kw.pop("run_name", b"run"),
        per_query,
        summary,
        kw.pop("complete", False),
        kw.pop("relevant", 0.0),
        kw.pop("zscores", None),
    )
    assert not kw
    return text.decode(), unusable


def col(name, kind, blank=False, reset=False, recount=False):
    return (name, kind, None, blank, reset, recount)


@pytest.mark.parametrize("seed", range(3))
def test_float_and_long_formats(seed):
    values = edge_values() + random_values(3000, seed)
    qids = [str(i) for i in range(len(values))]
    array = np.array(values, dtype=np.float64)
    text, _ = printed([col("map", "float"), col("num_rel", "long")], [array, array], qids)
    lines = text.splitlines()
    assert len(lines) == 2 * len(values)
    for i, v in enumerate(values):
        assert lines[2 * i] == f"{'map':<22}\t{i}\t{c_float(v)}", v
        assert lines[2 * i + 1] == f"{'num_rel':<22}\t{i}\t{c_long(v)}", v


def test_summary_means_sums_and_geometric_means():
    rng = np.random.default_rng(5)
    values = rng.random(37)
    values[3] = 0.0  # floored at 1e-5 by the geometric mean
    qids = [f"q{i}" for i in range(len(values))]
    cols = [
        col("runid", "run_name"),
        col("num_q", "query_count"),
        col("num_ret", "long"),
        col("map", "float"),
        col("gm_map", "gm"),
        col("relstring", "string"),
    ]
    counts = np.floor(values * 1000)
    vals = [None, None, counts, values, values, ["1"] * len(values)]
    text, _ = printed(cols, vals, qids, per_query=False, summary=True)
    total, logs = 0.0, 0.0
    for v in values:
        total += v
        logs += math.log(max(v, 1e-5))
    expected = [
        f"{'runid':<22}\tall\trun",
        f"{'num_q':<22}\tall\t{len(values)}",
        f"{'num_ret':<22}\tall\t{int(sum(counts.tolist()))}",
        f"{'map':<22}\tall\t{c_float(total / len(values))}",
        f"{'gm_map':<22}\tall\t{c_float(math.exp(logs / len(values)))}",
    ]
    assert text.splitlines() == expected


def test_placeholder_resets_blank_texts_and_recount():
    qids = ["a", "b"]
    cols = [
        col("num_rel", "long", recount=True),
        col("P_5", "cut_long", reset=True),
        col("relstring", "string", reset=True),
        col("relstring_0", "string", blank=True),
    ]
    vals = [np.array([2.0, 0.0]), np.array([0.4, 0.2]), ["10", "-"], ["1", "1"]]
    text, _ = printed(
        cols, vals, qids, summary=True, added=[False, True], complete=True, relevant=7.0
    )
    assert text.splitlines() == [
        f"{'num_rel':<22}\ta\t2",
        f"{'P_5':<22}\ta\t0.4000",
        f"{'relstring':<22}\ta\t'10'",
        f"{'relstring_0':<22}\ta\t''",
        f"{'num_rel':<22}\tb\t0",
        f"{'P_5':<22}\tb\t0.0000",
        f"{'relstring':<22}\tb\t''",
        f"{'relstring_0':<22}\tb\t''",
        f"{'num_rel':<22}\tall\t7",
        f"{'P_5':<22}\tall\t0.2000",
    ]


def test_zscores():
    qids = ["a", "b", "c"]
    table = {(b"a", "map"): (0.5, 0.25), (b"b", "map"): (0.1, 0.0), (b"c", "map"): (0.3, 0.0)}
    text, unusable = printed(
        [col("map", "float"), col("num_ret", "long")],
        [np.array([1.0, 0.7, 0.3]), np.array([3.0, 4.0, 5.0])],
        qids,
        summary=True,
        zscores=table,
    )
    miss = -1000000.0
    assert text.splitlines() == [
        f"Z{'map':<22}\ta\t2.0000",
        f"Z{'num_ret':<22}\ta\t{c_float(miss)}",
        f"Z{'map':<22}\tb\t{c_float(miss)}",
        f"Z{'num_ret':<22}\tb\t{c_float(miss)}",
        f"Z{'map':<22}\tc\t0.0000",
        f"Z{'num_ret':<22}\tc\t{c_float(miss)}",
        f"Z{'map':<22}\tall\t{c_float((2.0 + miss + 0.0) / 3)}",
        f"Z{'num_ret':<22}\tall\t{c_float(3 * miss)}",
    ]
    assert unusable == [b"b map (stddev 0)", b"a num_ret", b"b num_ret", b"c num_ret"]


@pytest.mark.parametrize(
    "values",
    [
        [np.array([1.0])],  # one value for two queries
        [["x", "y"]],  # texts for a numeric column
        [None],  # no values
        [],  # no column of values
    ],
)
def test_values_that_do_not_fit_are_value_errors(values):
    with pytest.raises(ValueError):
        printed([col("map", "float")], values, ["a", "b"])


def test_unknown_kind_is_a_value_error():
    with pytest.raises(ValueError):
        printed([col("map", "bogus")], [np.array([1.0])], ["a"])
