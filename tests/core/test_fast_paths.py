"""The fast paths of reading and judging give exactly what a plain Python reference gives.

The reference ranks each query's documents with Python's sort (score descending, doc id
descending in byte order, trec_eval's order) and looks labels up in a dict. Inputs are
generated to hit every branch of the fast path: files already in trec_eval order,
ties listed in the wrong doc order, topics out of byte order, a topic split over two
blocks, rising scores, shuffled lines, ids of mixed widths.
"""

from __future__ import annotations

import io
import zlib

import numpy as np
import pyarrow as pa
import pytest

from cranfield.core.io import arrays, dedup
from cranfield.core.judged import NOT_POOLED, UNJUDGED, judge
from cranfield.core.qrels import Qrels
from generators import (
    LAYOUTS,
    byte_sorted,
    layout_case,
    run_from_rows,
    trec_ranked,
)


def reference(qrels: dict, run_rows: list, compat: int = 10):
    """(query_ids, [labels per query], [doc ids per query]) the slow, obvious way."""
    by_q: dict = {}
    for q, d, s in run_rows:
        if compat == 9:
            s = float(np.float32(s))
        by_q.setdefault(q, []).append((d, s))
    qids = byte_sorted(q for q in by_q if q in qrels)
    labels, docs = [], []
    for q in qids:
        ranked = trec_ranked(by_q[q])
        docs.append([d for d, _ in ranked])
        lab = []
        for d, _ in ranked:
            g = qrels[q].get(d)
            lab.append(NOT_POOLED if g is None else (g if g >= 0 else UNJUDGED))
        labels.append(lab)
    return qids, labels, docs


def build(qrels: dict, rows: list):
    return Qrels.from_dict(qrels), run_from_rows(rows)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("compat", [10, 9])
def test_judge_matches_reference(layout, compat):
    rng = np.random.default_rng(zlib.crc32(f"{layout}/{compat}".encode()))
    for _ in range(40):
        qrels, rows = layout_case(rng, layout)
        qr, run = build(qrels, rows)
        jr = judge(qr, run, compat=compat)
        qids, labels, docs = reference(qrels, rows, compat)
        assert list(jr.query_ids) == qids
        got = [
            jr.labels[a:b].tolist() for a, b in zip(jr.offsets[:-1], jr.offsets[1:], strict=True)
        ]
        assert got == labels
        ids = jr.doc_ids(run)
        got_docs = [ids[a:b].tolist() for a, b in zip(jr.offsets[:-1], jr.offsets[1:], strict=True)]
        assert got_docs == docs
        # -M 3 then -J, and -c (every qrels topic, missing ones empty)
        jr = judge(qr, run, compat=compat, depth=3, judged_only=True, complete=True)
        want = {q: [x for x in lab[:3] if x >= 0] for q, lab in zip(qids, labels, strict=True)}
        all_topics = sorted(qrels, key=str.encode)
        assert list(jr.query_ids) == all_topics
        got = [
            jr.labels[a:b].tolist() for a, b in zip(jr.offsets[:-1], jr.offsets[1:], strict=True)
        ]
        assert got == [want.get(q, []) for q in all_topics]
        assert jr.in_run.tolist() == [q in want for q in all_topics]


def test_duplicate_check_finds_exactly_the_repeated_pairs():
    table = pa.table({"query_id": ["1", "1", "2", "1"], "doc_id": ["a", "b", "a", "a"]})
    table = table.append_column("score", pa.array([1.0, 2.0, 3.0, 4.0]))
    with pytest.raises(Exception, match="appears twice for query '1'.*rows 1 and 4"):
        dedup.resolve(table, "score", "error", None, None, unit="row")
    kept = dedup.resolve(table, "score", "first", None, None)
    assert kept.num_rows == 3


RUN_TEXTS = [
    b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n",
    b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 last",  # no final newline
    b"1 Q0 a 1 2.0 t \n1 Q0 b 2 1.0 t\n",  # trailing space
    b"1 Q0 a 1 2.0 t\n1  Q0 b 2 1.0 t\n",  # two spaces
    b"1 Q0 a 1 2.0 t\r\n1 Q0 b 2 1.0 t\r\n",  # CRLF
    b"1 Q0\ta 1 2.0 t\n1 Q0 b 2 1.0 t\n",  # a tab inside what Arrow sees as one field
    b"1 Q0 a 1 2.0 t\n\n1 Q0 b 2 1.0 t\n",  # blank line
    b"1 Q0 a 1 2.0 t\n#1 Q0 b 2 1.0 t\n2 Q0 c 1 1.0 u\n",  # comment
    b" 1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n",  # leading space
    b"1 Q0 a 1 2.0 t x\n1 Q0 b 2 1.0 t y\n",  # extra fields
    b"1\tQ0\ta\t1\t2.0\tt\n1\tQ0\tb\t2\t1.0\tt\n",  # tab-delimited
    b"1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\x0b\n",  # vertical tab at a line end
]


@pytest.mark.parametrize("text", RUN_TEXTS)
def test_file_bytes_and_stream_read_alike(tmp_path, text):
    """A regular file (read by the engine), bytes and a stream (read by source.py first)
    give the same rows, tag and line numbers."""
    from cranfield.core.io import trec

    path = tmp_path / "run.txt"
    path.write_bytes(text)
    from_bytes = trec.parse(text, trec.RUN, "x")
    for parsed in (trec.parse(path, trec.RUN, "x"), trec.parse(io.BytesIO(text), trec.RUN, "x")):
        assert parsed.table.equals(from_bytes.table)
        assert parsed.tag == from_bytes.tag
        n = parsed.table.num_rows
        assert [parsed.line_of(i) for i in range(n)] == [from_bytes.line_of(i) for i in range(n)]
    assert from_bytes.table["doc_id"].to_pylist()[0] == "a"


def test_clean_files_number_rows_by_line(tmp_path):
    from cranfield.core.io import trec

    text = RUN_TEXTS[0] + b"2 Q0 c 1 -1e3 tag2\n"
    path = tmp_path / "run.txt"
    path.write_bytes(text)
    parsed = trec.parse(path, trec.RUN, "x")
    assert parsed.lines is None and parsed.tag == "tag2"
    assert parsed.table.column_names == ["query_id", "doc_id", "score"]
    for skipped in (RUN_TEXTS[6], RUN_TEXTS[7]):  # a blank line, a comment
        path.write_bytes(skipped)
        assert trec.parse(path, trec.RUN, "x").lines is not None


@pytest.mark.parametrize("seed", range(4))
def test_sequential_sum_skipping_zeros_equals_a_python_loop(seed):
    from cranfield.core import segments

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 200, 400)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    n = int(offsets[-1])
    values = rng.normal(size=n) * 10.0 ** rng.integers(-12, 12, n)
    values[rng.random(n) < 0.8] = 0.0
    values[rng.random(n) < 0.1] = -0.0
    got = segments.sequential_sum(values, offsets)
    for q in range(len(lengths)):
        total = 0.0
        for v in values[offsets[q] : offsets[q + 1]].tolist():
            total += v
        assert got[q] == total and np.signbit(got[q]) == np.signbit(total)


def test_take_across_chunks():
    values = ["a", "a", "b", "b", "b", "a", "c", "c"]
    for cuts in [(1,), (2,), (3, 5), (2, 2, 6), (1, 2, 3, 4, 5, 6, 7)]:
        bounds = [0, *cuts, len(values)]
        col = pa.chunked_array([values[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
        rows = np.array([7, 0, 3, 3, 5])
        assert arrays.take(col, rows).to_pylist() == [values[i] for i in rows]


@pytest.mark.parametrize("seed", range(3))
def test_segment_cumsums_equal_python_loops(seed):
    from cranfield.core import segments

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 300, 300)
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    n = int(offsets[-1])
    values = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, n)
    values[rng.random(n) < rng.choice([0.3, 0.9])] = 0.0
    values[rng.random(n) < 0.05] = -0.0
    flags = rng.random(n) < 0.2
    got = segments.sequential_cumsum(values, offsets)
    got_int = segments.int_cumsum(flags, offsets)
    for q in range(len(lengths)):
        total, count = 0.0, 0
        for i in range(offsets[q], offsets[q + 1]):
            total += float(values[i])
            count += int(flags[i])
            assert got[i] == total and got_int[i] == count


@pytest.mark.parametrize("layout", LAYOUTS)
def test_judge_with_qrels_topics_split_over_blocks(layout):
    # qrels lines shuffled: a topic's judgments come in several separate blocks
    rng = np.random.default_rng(11)
    for _ in range(20):
        qrels, rows = layout_case(rng, layout)
        flat = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
        flat = [flat[i] for i in rng.permutation(len(flat))]
        qr = Qrels(
            pa.table(
                {
                    "query_id": [f[0] for f in flat],
                    "doc_id": [f[1] for f in flat],
                    "relevance": pa.array([f[2] for f in flat], pa.int64()),
                }
            )
        )
        _, run = build(qrels, rows)
        jr = judge(qr, run)
        qids, labels, _ = reference(qrels, rows)
        got = [
            jr.labels[a:b].tolist() for a, b in zip(jr.offsets[:-1], jr.offsets[1:], strict=True)
        ]
        assert list(jr.query_ids) == qids and got == labels


def test_take_from_chunks_in_any_order():
    rng = np.random.default_rng(3)
    for _ in range(300):
        values = [str(x) for x in rng.integers(0, 100, int(rng.integers(1, 60)))]
        cuts = sorted(rng.integers(0, len(values) + 1, 3).tolist())
        pieces = [values[: cuts[0]], values[cuts[0] : cuts[1]], values[cuts[1] : cuts[2]]]
        col = pa.chunked_array([*pieces, values[cuts[2] :]], pa.string())
        rows = rng.integers(0, len(values), int(rng.integers(0, 30)))
        if rng.random() < 0.5:
            rows = np.sort(rows)  # ascending: one pass over the chunks
        assert arrays.take(col, rows).to_pylist() == [values[i] for i in rows]
