"""Click-log readers: every format gives the same arrays; errors name file and line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.clicks.log import MAX_RANKS, from_arrays, read_log
from cranfield.errors import InputError, ParameterError

# q1: a b c, click on b; q2: b d, clicks on both; q1: a b, no click
SESSIONS = [
    ("q1", ["a", "b", "c"], [0, 1, 0]),
    ("q2", ["b", "d"], [1, 1]),
    ("q1", ["a", "b"], [0, 0]),
]


def _check(log):
    names_q = log.query_names[log.query].tolist()
    assert names_q == ["q1", "q2", "q1"]
    docs = [[log.doc_names[d] if d >= 0 else None for d in row] for row in log.docs]
    assert docs == [["a", "b", "c"], ["b", "d", None], ["a", "b", None]]
    assert log.clicks.tolist() == [[False, True, False], [True, True, False], [False, False, False]]
    assert log.docs.dtype == np.int64 and (log.docs[1:, 2] == -1).all()
    # interned once: a document id has one code everywhere
    assert log.docs[0, 1] == log.docs[1, 0] == log.docs[2, 1]


def test_pyclick(tmp_path):
    p = tmp_path / "log.pyclick"
    p.write_text("q1\ta,b,c : 0,1,0;\nq2\tb,d : 1,1;q1\ta,b : 0,0;\n")
    _check(read_log(p))


def test_jsonl_flags_and_ranks(tmp_path):
    p = tmp_path / "log.jsonl"
    lines = [
        {"query": "q1", "docs": ["a", "b", "c"], "clicks": [0, 1, 0], "user": "u1"},
        {"query": "q2", "docs": ["b", "d"], "clicked": [1, 2], "times": [3.5, None]},
        {"query": "q1", "docs": ["a", "b"], "clicked": []},
    ]
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    log = read_log(p)
    _check(log)
    assert log.user.tolist() == ["u1", None, None]
    assert log.times[1, 0] == 3.5 and np.isnan(log.times[1, 1])


def test_csv(tmp_path):
    p = tmp_path / "log.csv"
    p.write_text('query,docs,clicks\nq1,"a,b,c","0,1,0"\nq2,b d,1 1\nq1,"a,b","0,0"\n')
    _check(read_log(p))


def test_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "log.parquet"
    table = pa.table(
        {
            "query": [s[0] for s in SESSIONS],
            "docs": [s[1] for s in SESSIONS],
            "clicks": [s[2] for s in SESSIONS],
        }
    )
    pq.write_table(table, p)
    _check(read_log(p))


def test_yandex(tmp_path):
    p = tmp_path / "log.yandex"
    p.write_text(
        "7\t0\tQ\tq1\t213\ta\tb\tc\n7\t12\tC\tb\n7\t30\tC\tb\n"
        "8\t0\tQ\tq2\t1\tb\td\n8\t2\tC\tb\n8\t9\tC\td\n9\t5\tQ\tq1\t1\ta\tb\n"
    )
    log = read_log(p)
    _check(log)
    assert log.times[0, 1] == 12  # first click on b, 12 s after the page
    assert log.times[1].tolist()[:2] == [2, 9]


@pytest.mark.parametrize(
    "name, text, line, words",
    [
        ("x.pyclick", "q1\ta,b : 0,1;\nq2\ta,b : 0,1,1;\n", 2, "2 documents but 3"),
        ("x.pyclick", "q1 a,b : 0,1;\n", 1, "TAB"),
        ("x.pyclick", "q1\ta,b : 0,2;\n", 1, "0 or 1"),
        ("x.jsonl", '{"query": "q", "docs": ["a"], "clicks": [1]}\n{bad\n', 2, "JSON"),
        ("x.jsonl", '{"query": "q", "docs": ["a"]}\n', 1, "exactly one of"),
        ("x.jsonl", '{"query": "q", "docs": ["a", "b"], "clicked": [3]}\n', 1, "[1, 2]"),
        ("x.jsonl", '{"query": "q", "docs": [], "clicked": []}\n', 1, "no document"),
        ("x.csv", "query,docs,clicks\nq,a b,0 1\nq,a,0 1\n", 3, "1 documents but 2"),
        ("x.yandex", "1\t0\tQ\tq\t0\ta\n1\t3\tC\tz\n", 2, "not shown"),
        ("x.yandex", "1\t3\tC\tz\n", 1, "before any query"),
        ("x.yandex", "1\t0\tX\tq\n", 1, "Q) or click (C)"),
        ("x.yandex", "1\tsoon\tQ\tq\t0\ta\n", 1, "time"),
    ],
)
def test_errors_name_file_and_line(tmp_path, name, text, line, words):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(InputError) as err:
        read_log(p)
    assert err.value.source == str(p)
    assert err.value.line == line
    assert words in str(err.value)


def test_too_many_ranks(tmp_path):
    p = tmp_path / "x.pyclick"
    n = MAX_RANKS + 1
    p.write_text("q\t" + ",".join(f"d{i}" for i in range(n)) + " : " + ",".join(["0"] * n) + ";\n")
    with pytest.raises(InputError, match="more than"):
        read_log(p)


def test_empty_and_unknown_format(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("\n")
    with pytest.raises(InputError, match="no session"):
        read_log(p)
    q = tmp_path / "x.dat"
    q.write_text("q\ta : 1;\n")
    with pytest.raises(InputError, match="log-format"):
        read_log(q)
    assert read_log(q, "pyclick").n_sessions == 1
    with pytest.raises(ParameterError):
        read_log(q, "nope")


def test_from_arrays_checks():
    with pytest.raises(InputError, match="contiguous"):
        from_arrays([0], [[0, -1, 1]], [[0, 0, 0]])
    with pytest.raises(InputError, match="no document is shown"):
        from_arrays([0], [[0, -1]], [[0, 1]])
    log = from_arrays([0, 1], [[0, 1], [1, -1]], [[1, 0], [0, 0]])
    assert log.n_sessions == 2 and log.max_rank == 2
