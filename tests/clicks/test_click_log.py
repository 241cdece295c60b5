"""Click-log readers: every format gives the same arrays; errors name file and line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield.clicks.log import MAX_RANKS, from_arrays, read_log, sniff_format
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
    p.write_text("q1\ta,b,c : b;\nq2\tb,d : d , b , d;q1\ta,b :;\n")
    _check(read_log(p))


def test_pyclick_sample_lines_exactly_as_published(tmp_path):
    # sessions in the layout of PyClick's examples/data (WSCD): clicked documents by
    # id after ' : ', separated by ' , ', repeated clicks, '  ;  ' between sessions, a
    # session without clicks ':;' and a click on a document not in the list (ignored)
    line = (
        "98435_1\t232429,688835,50189248,16704940,688844 : 688835 , 232429 , 16704940; "
        "98435_1\t232429,688835,50189248,16704940,688844 :; "
        "98435_1\t232429,688835,50189248,16704940,688844 : 232429 , 232429 , 232429  ;  "
        "98435_1\t232429,688835,50189248,16704940,688844 : 232429 , 59472; "
        "98435_1\t232429,688835,50189248,16704940,688844 :  ;  "
        "98435_2\t11,12,13 : 1903261\n"
    )
    p = tmp_path / "oneQueryTrain"
    p.write_text(line)
    log = read_log(p, "pyclick")
    assert log.n_sessions == 6
    assert log.query_names[log.query].tolist() == ["98435_1"] * 5 + ["98435_2"]
    assert log.doc_names[log.docs[0]].tolist() == [
        "232429", "688835", "50189248", "16704940", "688844",
    ]  # fmt: skip
    assert log.clicks[:5].astype(int).tolist() == [
        [1, 1, 0, 1, 0],
        [0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
    ]
    assert not log.clicks[5].any()


def test_yandex_relevance_prediction_lines_exactly_as_published(tmp_path):
    # the challenge's layout: SessionID TimePassed TypeOfAction QueryID RegionID URLs /
    # SessionID TimePassed TypeOfAction URLID, tab-separated, numeric ids; session 0
    # goes back to its first page (a click on URL 3 after the second query), and
    # clicks URL 99, which no page of the session shows (ignored, as PyClick does)
    lines = [
        "0\t0\tQ\t10\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10",
        "0\t4\tC\t2",
        "0\t30\tQ\t11\t0\t21\t22\t23\t24\t25\t26\t27\t28\t29\t30",
        "0\t41\tC\t24",
        "0\t55\tC\t3",
        "0\t60\tC\t99",
        "1\t0\tQ\t10\t2\t2\t1\t3\t4\t5\t6\t7\t8\t9\t10",
        "1\t7\tC\t1",
        "1\t9\tC\t1",
    ]
    p = tmp_path / "YandexRelPredChallenge.txt"
    p.write_text("\r\n".join(lines) + "\r\n")
    log = read_log(p, "yandex")
    assert log.query_names[log.query].tolist() == ["10", "11", "10"]
    clicked = [log.doc_names[row[c]].tolist() for row, c in zip(log.docs, log.clicks, strict=True)]
    assert clicked == [["2", "3"], ["24"], ["1"]]
    assert log.times[0, 1] == 4 and log.times[0, 2] == 55  # from the first page's time
    assert log.times[1, 3] == 11 and log.times[2, 1] == 7  # the first click of 1 counts


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
        ("x.pyclick", "q1\ta,b : a;\nq2\ta,,b : b;\n", 2, "non-empty document id"),
        ("x.pyclick", "q1 a,b : a;\n", 1, "TAB"),
        ("x.pyclick", "q1\ta,b : a , , b;\n", 1, "non-empty clicked"),
        ("x.pyclick", "q1\ta,b : a : b;\n", 1, "one ':'"),
        ("x.jsonl", '{"query": "q", "docs": ["a"], "clicks": [1]}\n{bad\n', 2, "JSON"),
        ("x.jsonl", '{"query": "q", "docs": ["a"]}\n', 1, "exactly one of"),
        ("x.jsonl", '{"query": "q", "docs": ["a", "b"], "clicked": [3]}\n', 1, "[1, 2]"),
        ("x.jsonl", '{"query": "q", "docs": [], "clicked": []}\n', 1, "no document"),
        ("x.csv", "query,docs,clicks\nq,a b,0 1\nq,a,0 1\n", 3, "1 documents but 2"),
        ("x.yandex", "1\t0\tQ\tq\t0\ta\n2\t3\tC\ta\n", 2, "before any query"),
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
    p.write_text("q\t" + ",".join(f"d{i}" for i in range(n)) + " : d0;\n")
    with pytest.raises(InputError, match="more than"):
        read_log(p)


def test_empty_and_unknown_format(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("\n")
    with pytest.raises(InputError, match="no session"):
        read_log(p)
    q = tmp_path / "x.dat"
    q.write_text("q\ta : 1;\n")
    assert read_log(q).n_sessions == 1  # no known extension: told from the content
    assert read_log(q, "pyclick").n_sessions == 1
    unknown = tmp_path / "y.dat"
    unknown.write_text("hello\n")
    with pytest.raises(InputError, match="log-format"):
        read_log(unknown)
    with pytest.raises(ParameterError):
        read_log(q, "nope")


def test_from_arrays_checks():
    with pytest.raises(InputError, match="contiguous"):
        from_arrays([0], [[0, -1, 1]], [[0, 0, 0]])
    with pytest.raises(InputError, match="no document is shown"):
        from_arrays([0], [[0, -1]], [[0, 1]])
    log = from_arrays([0, 1], [[0, 1], [1, -1]], [[1, 0], [0, 0]])
    assert log.n_sessions == 2 and log.max_rank == 2


def test_parquet_told_from_its_magic_bytes(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"query": ["q1", "q2"], "docs": [["a", "b"], ["b"]], "clicks": [[0, 1], [1]]})
    pq.write_table(table, tmp_path / "log")
    pq.write_table(table, tmp_path / "log.parquet")
    bare, named = read_log(tmp_path / "log"), read_log(tmp_path / "log.parquet")
    assert bare.clicks.tolist() == named.clicks.tolist() == [[False, True], [True, False]]
    assert sniff_format(b"PAR1....") == "parquet"
    assert sniff_format(b"\n\n  \n") is None  # nothing to go by: --log-format is asked for
    assert sniff_format(b'\xef\xbb\xbf{"query": 1}\n') == "jsonl"
    assert sniff_format(b"1\t0\tQ\tq\t0\ta\n") == "yandex"
    assert sniff_format(b"q\ta,b : a;\n") == "pyclick"


def test_jsonl_numbers_as_names_read_as_pythons_str_writes_them(tmp_path):
    """A query given as a JSON number is named as Python's ``str`` of what
    ``json`` reads (the engine writes doubles as ``repr`` does), at the edges of the
    positional layout and beyond."""
    values = [1.5, -0.0, 1e16, 1e15, 9.999999e15, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308]
    values += [0.1 + 0.2, 123456789.125, -2.5e-7, 7, -3, 10**20]
    p = tmp_path / "log.jsonl"
    lines = [{"query": v, "docs": ["a", "d"], "clicks": [1, 0]} for v in values]
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    log = read_log(p)
    want = [str(json.loads(json.dumps(v))) for v in values]
    assert log.query_names[log.query].tolist() == want
