"""read_documents: JSON Lines, TREC SGML, Parquet and directories of text/HTML files."""

from __future__ import annotations

import gzip

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cranfield.collection import Document, parquet_docs, read_documents
from cranfield.errors import InputError, ParameterError

SGML = """\
<DOC>
<DOCNO> FT911-3 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<HEADLINE>
FT  14 MAY 91 / Airbus &amp; Boeing
</HEADLINE>
<TEXT>
Airbus said on Monday
that <F P=102>orders</F> rose.
</TEXT>
</DOC>
<DOC>
<DOCNO> FBIS3-1 </DOCNO>
<HEADER><H3> <TI>   Reef bleaching report </TI></H3></HEADER>
<TEXT>first part</TEXT>
<TEXT>second part</TEXT>
</DOC>
<DOC><DOCNO>LA-1</DOCNO>Just a body &lt;b&gt;</DOC>
"""

SGML_DOCS = [
    Document(
        "FT911-3", "FT 14 MAY 91 / Airbus & Boeing", "Airbus said on Monday\nthat orders rose."
    ),
    Document("FBIS3-1", "Reef bleaching report", "first part\nsecond part"),
    Document("LA-1", "", "Just a body <b>"),
]


def error(path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        list(read_documents(path, **kw))
    return info.value


def test_trec_sgml(tmp_file):
    assert list(read_documents(tmp_file("docs.sgml", SGML))) == SGML_DOCS


def test_trec_sgml_gzip(tmp_file):
    assert list(read_documents(tmp_file("docs", gzip.compress(SGML.encode())))) == SGML_DOCS


def test_truncated_gzip(tmp_file):
    data = gzip.compress((SGML * 50).encode())
    exc = error(tmp_file("docs.gz", data[: len(data) // 2]))
    assert "gzip" in exc.message


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("<DOC>\n<DOCNO>a</DOCNO>\n<TEXT>x</TEXT>\n", 1, "unterminated <DOC>"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\n<DOC>\n<DOCNO>b</DOCNO>\n<DOC>\n", 4, "<DOC> inside"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\n<DOC><DOCNO>a</DOCNO></DOC>\n", 2, "duplicate DOCNO 'a'"),
        ("<DOC><TEXT>x</TEXT></DOC>\n", 1, "without <DOCNO>"),
        ("<DOC><DOCNO>a</DOCNO><DOCNO>b</DOCNO></DOC>\n", 1, "two <DOCNO>"),
        ("<DOC><DOCNO> </DOCNO></DOC>\n", 1, "empty DOCNO"),
        ("<DOC><DOCNO>a</DOCNO><TEXT>x</DOC>\n", 1, "unterminated <TEXT>"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\njunk\n", 2, "text outside <DOC>"),
        ("<DOC><DOCNO>a</DOCNO></DOC></DOC>\n", 1, "</DOC> without <DOC>"),
        ("<DOC><DOCNO>a\0</DOCNO></DOC>\n", 1, "NUL byte"),
    ],
)
def test_trec_sgml_errors(tmp_file, text, line, message):
    exc = error(tmp_file("d", text))
    assert exc.line == line and message in exc.message, str(exc)


def test_documents_stream_before_a_later_error(tmp_file):
    path = tmp_file("d", "<DOC><DOCNO>a</DOCNO></DOC>\n<DOC><DOCNO>b</DOCNO>\n")
    documents = read_documents(path)
    assert next(documents).id == "a"  # the first document arrives before the error
    with pytest.raises(InputError, match="unterminated <DOC>"):
        next(documents)


def test_jsonl_documents(tmp_file):
    text = (
        '{"id": "d1", "title": "T", "text": "body"}\n'
        '{"id": 2, "text": "no title", "title": null}\n'
        "\n"
    )
    assert list(read_documents(tmp_file("d.jsonl", text))) == [
        Document("d1", "T", "body"),
        Document("2", "", "no title"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', 2, "duplicate document id 'a'"),
        ('{"text": "x"}\n', 1, 'missing "id"'),
        ('{"id": "a"}\n', 1, 'missing "text"'),
        ('{"id": "a", "text": "x"\n', 1, "bad JSON"),
        ('{"id": "a b", "text": "x"}\n', 1, "whitespace"),
        ('{"id": "a", "text": 3}\n', 1, '"text" must be a string'),
    ],
)
def test_jsonl_document_errors(tmp_file, text, line, message):
    exc = error(tmp_file("d", text))
    assert exc.line == line and message in exc.message, str(exc)


def test_parquet_documents(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_docs, "BATCH", 3)  # several batches
    n = 10
    table = pa.table(
        {
            "text": [f"text {i}" for i in range(n)],
            "id": [f"d{i}" for i in range(n)],
            "title": [None if i % 2 else f"t{i}" for i in range(n)],
            "other": list(range(n)),
        }
    )
    pq.write_table(table, tmp_path / "docs.parquet", row_group_size=4)
    docs = list(read_documents(tmp_path / "docs.parquet"))
    assert docs == [Document(f"d{i}", "" if i % 2 else f"t{i}", f"text {i}") for i in range(n)]


def test_parquet_integer_ids_without_title(tmp_path):
    pq.write_table(pa.table({"id": [5, 6], "text": ["a", "b"]}), tmp_path / "d")
    assert list(read_documents(tmp_path / "d")) == [Document("5", "", "a"), Document("6", "", "b")]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            {"id": ["a", "a"], "text": ["x", "y"]},
            "row 2: duplicate document id 'a' (first at row 1)",
        ),
        ({"id": ["a", None], "text": ["x", "y"]}, "row 2: missing id"),
        ({"id": ["a", "b"], "text": ["x", None]}, "row 2: missing text"),
        ({"id": ["a"], "body": ["x"]}, "need columns id and text (missing text)"),
        ({"id": [1.5], "text": ["x"]}, "column 'id' must hold strings"),
        ({"id": [], "text": []}, "no documents"),
    ],
)
def test_parquet_errors(tmp_path, table, message):
    types = {"id": pa.string(), "text": pa.string(), "body": pa.string()}
    arrays = {
        k: pa.array(v, type=None if v and isinstance(v[0], float) else types[k])
        for k, v in table.items()
    }
    pq.write_table(pa.table(arrays), tmp_path / "d.parquet")
    assert message in error(tmp_path / "d.parquet").message


def test_corrupt_parquet(tmp_file):
    exc = error(tmp_file("d.parquet", b"PAR1" + b"\x00garbage" * 10))
    assert "Parquet" in exc.message


def test_directory(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "b.txt").write_text("  plain text\nsecond line\n")
    (d / "a.html").write_text(
        "<!doctype html><html><head><title>The &amp; title</title>"
        "<style>p {color: red}</style><script>alert('x')</script></head>"
        "<body><h1>Head</h1><p>First <b>para</b>graph &eacute;</p><script>var x;</script>"
        "<ul><li>one</li><li>two</li></ul>text<br>after break</body></html>"
    )
    (d / ".hidden").write_text("ignored")
    assert list(read_documents(d)) == [
        Document("a", "The & title", "Head\nFirst paragraph é\none\ntwo\ntext\nafter break"),
        Document("b", "", "plain text\nsecond line"),
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.txt": "x", "a.html": "y"}, "duplicate document id 'a' (first at a.html)"),
        ({"a.txt": "x", "notes.pdf": "y"}, "not a document file"),
        ({"a.txt": b"x\n\xff"}, "not UTF-8"),
        ({"a.txt": b"x\0"}, "NUL byte"),
        ({"sub/a.txt": "x"}, "not a document file"),
        ({}, "no documents"),
    ],
)
def test_directory_errors(tmp_path, files, message):
    d = tmp_path / "docs"
    d.mkdir()
    for name, content in files.items():
        (d / name).parent.mkdir(exist_ok=True)
        if isinstance(content, bytes):
            (d / name).write_bytes(content)
        else:
            (d / name).write_text(content)
    assert message in error(d).message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"hello\n", "unknown document format"),
        (b"\x7fELF\x02\x01\x01\0\0\0", "unknown document format"),
    ],
)
def test_unknown_document_format(tmp_file, content, message):
    with pytest.raises(InputError, match=message):
        read_documents(tmp_file("d", content))  # recognised at the call, not lazily


def test_format_override_and_bad_format(tmp_file):
    path = tmp_file("d", '{"id": "a", "text": "x"}\n')
    with pytest.raises(InputError, match="unterminated|text outside"):
        list(read_documents(path, format="trec"))
    with pytest.raises(ParameterError, match="invalid value for format"):
        read_documents(path, format="xml")
