"""read_topics: TREC <top> files, JSON Lines and CSV, recognised from the content."""

from __future__ import annotations

import gzip

import pytest

from cranfield.collection import Topic, read_topics
from cranfield.errors import InputError, ParameterError

TREC = """\
<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international
criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<head> Tipster Topic Description
<num> Number: 051
<dom> Domain: International Economics
<title> Topic: Airbus Subsidies
<desc> Description:
Document will discuss government assistance to Airbus.
<con> Concept(s):
1. Airbus Industrie
</top>
"""

EXPECTED = [
    Topic(
        "301",
        "International Organized Crime",
        "Identify organizations that participate in international criminal activity.",
        "A relevant document must as a minimum identify the organization.",
    ),
    Topic("051", "Airbus Subsidies", "Document will discuss government assistance to Airbus."),
]


def error(path, **kw) -> InputError:
    with pytest.raises(InputError) as info:
        read_topics(path, **kw)
    return info.value


def test_trec_topics(tmp_file):
    assert read_topics(tmp_file("t.txt", TREC)) == EXPECTED


def test_trec_closing_tags_and_case(tmp_file):
    text = (
        "<TOP><NUM>Number: 7</NUM><TITLE>a &amp; b</TITLE>\n"
        "<DESC>Description: one</DESC><NARR> Narrative: two </NARR></TOP>\n"
    )
    assert read_topics(tmp_file("t", text)) == [Topic("7", "a &amp; b", "one", "two")]


def test_trec_without_closing_top(tmp_file):
    text = "<top>\n<num> 1\n<title> first\n<top>\n<num> 2\n<title> second\n"
    assert [t.id for t in read_topics(tmp_file("t", text))] == ["1", "2"]


def test_trec_gzip_and_format_override(tmp_file):
    path = tmp_file("topics.weird", gzip.compress(TREC.encode()))
    assert read_topics(path) == EXPECTED
    assert read_topics(path, format="trec") == EXPECTED


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("<top>\n<title> x\n</top>\n", 1, "without <num>"),
        ("<top>\n<num> 1\n<desc> x\n</top>\n", 1, "no <title>"),
        ("<top><num>1<title>a</top>\n\n<top>\n<num>1<title>b</top>\n", 3, "duplicate topic id '1'"),
        ("<top><num>1<title>a</top>\njunk\n", 2, "text outside <top>"),
        ("<top><num>1<title>a</top>\n<top>\n<num>2\n<title> cut", 2, "unterminated <top>"),
        ("<top><num>1<num>2<title>a</top>\n", 1, "second <num>"),
        ("<top><num>1<title>a</top>\n</top>\n", 2, "</top> without <top>"),
        ("<top><num>1 2<title>a</top>\n", 1, "whitespace"),
        ("<top><num>1<title>a</top>\n<title>b\n", 2, "<title> outside <top>"),
    ],
)
def test_trec_errors(tmp_file, text, line, message):
    exc = error(tmp_file("t", text))
    assert exc.line == line and message in exc.message, str(exc)
    assert exc.source.endswith("t")


JSONL = (
    '{"id": "301", "title": "International Organized Crime", "description": "d", "narrative": "n"}\n'
    "\n"
    '{"id": 302, "title": "Poliomyelitis", "extra": [1, 2]}\n'
)


def test_jsonl_topics(tmp_file):
    assert read_topics(tmp_file("t.jsonl", JSONL)) == [
        Topic("301", "International Organized Crime", "d", "n"),
        Topic("302", "Poliomyelitis"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"id": "1", "title": "a"}\n{"id": "1", "title": "b"}\n', 2, "duplicate topic id '1'"),
        ('{"title": "a"}\n', 1, 'missing "id"'),
        ('{"id": "1"}\n', 1, 'missing "title"'),
        ('{"id": "1", "title": " "}\n', 1, "empty title"),
        ('{"id": "1", "title": "a"}\n{"id": "2", "title": "b"\n', 2, "bad JSON"),
        ('{"id": "1", "title": "a"}\n[1]\n', 2, "expected a JSON object"),
        ('{"id": true, "title": "a"}\n', 1, '"id" must be'),
        ('{"id": "1", "title": ["a"]}\n', 1, '"title" must be a string'),
        ('{"id": "", "title": "a"}\n', 1, "empty id"),
    ],
)
def test_jsonl_errors(tmp_file, text, line, message):
    exc = error(tmp_file("t", text))
    assert exc.line == line and message in exc.message, str(exc)


def test_csv_topics(tmp_file):
    text = 'ID,Title,narrative,other\n1,"Hello, world","two\nlines",x\n\n2,b,,y\n'
    assert read_topics(tmp_file("t.csv", text)) == [
        Topic("1", "Hello, world", "", "two lines"),
        Topic("2", "b"),
    ]


def test_tsv_topics(tmp_file):
    assert read_topics(tmp_file("t.tsv", "id\ttitle\n3\tx y\n")) == [Topic("3", "x y")]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("id,title\n1,a\n1,b\n", 3, "duplicate topic id '1'"),
        ("id,title\n1,a\n2\n", 3, "expected 2 fields"),
        ("id,title\n1,a\n2,\n", 3, "empty title"),
        ("id,title,title\n1,a,b\n", 1, "appears twice"),
        ('id,title\n1,a\n2,"open\n', 3, "bad CSV"),
        ("id,title\n", None, "no topics"),
    ],
)
def test_csv_errors(tmp_file, text, line, message):
    exc = error(tmp_file("t", text))
    assert exc.line == line and message in exc.message, str(exc)


def test_csv_without_required_columns(tmp_file):
    exc = error(tmp_file("t", "id,title\n1,a\n"), format="jsonl")
    assert "bad JSON" in exc.message
    exc = error(tmp_file("t2", "id,name\n1,a\n"), format="csv")
    assert "need columns id and title (missing title)" in exc.message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b"  \n\n", "empty file"),
        (b"hello world\n", "unknown topic format"),
        (b"\x89PNG\r\n\x1a\n\0\0\0", "unknown topic format"),
    ],
)
def test_unknown_format(tmp_file, content, message):
    assert message in error(tmp_file("t", content)).message


def test_binary_junk_is_reported_with_line(tmp_file):
    exc = error(tmp_file("t", b"<top><num>1<title>a</top>\n<top><num>2\0<title>b</top>\n"))
    assert exc.line == 2 and "NUL" in exc.message
    exc = error(tmp_file("u", b'{"id": "1", "title": "a"}\n{"id": "2", "title": "\xff\xfe"}\n'))
    assert exc.line == 2 and "not UTF-8" in exc.message


def test_bad_format_parameter_and_missing_file(tmp_path):
    with pytest.raises(ParameterError, match="invalid value for format"):
        read_topics(tmp_path / "x", format="xml")
    exc = error(tmp_path / "missing.txt")
    assert "no such file" in exc.message
    exc = error(tmp_path)
    assert "is a directory" in exc.message


def test_utf8_bom_is_ignored(tmp_file):
    path = tmp_file("t", "\ufeffid,title\n1,Café\n".encode())
    assert read_topics(path) == [Topic("1", "Café")]
