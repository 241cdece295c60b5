"""Hostile inputs: every reader ends in bounded time and memory with a result or one
InputError (huge lines, deep nesting, pathological markup, arbitrary bytes)."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cranfield.collection import _input, read_documents, read_topics
from cranfield.collection.html_text import html_to_text
from cranfield.errors import InputError

SRC = str(Path(__file__).resolve().parents[2] / "src")
TIMEOUT = 60  # seconds: a linear reader needs well under one; a quadratic one never ends
MEMORY = 3 << 30


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def outcome(path: Path, reader: str) -> str:
    """Run ``reader`` (read_topics or read_documents) on ``path`` in a child process with a
    time and memory limit; return ``"ok N"`` or ``"InputError: message"``."""
    code = textwrap.dedent(
        f"""
        import sys
        from cranfield.collection import read_documents, read_topics
        from cranfield.errors import InputError
        try:
            n = sum(1 for _ in {reader}(sys.argv[1]))
        except InputError as exc:
            print("InputError:", exc.message)
        else:
            print("ok", n)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr[-2000:]
    return done.stdout.strip()


N = 100_000


@pytest.mark.parametrize(
    ("reader", "content", "expected"),
    [
        # unclosed fields: each opening must not rescan the rest of the document
        (
            "read_documents",
            "<DOC><DOCNO>a</DOCNO>" + "<TEXT>" * N + "</DOC>\n",
            "unterminated <TEXT>",
        ),
        ("read_documents", "<DOC><DOCNO>a</DOCNO>" + "<" * (5 * N) + "</DOC>\n", "ok 1"),
        ("read_documents", "<DOC><DOCNO>a</DOCNO><TEXT>" + "<a " * N + "</TEXT></DOC>\n", "ok 1"),
        ("read_documents", "<DOC>\n" * N, "<DOC> inside a document"),
        ("read_documents", '{"id": "a", "text": ' + "[" * N + "]" * N + "}\n", "nested too deeply"),
        ("read_documents", '{"id": "a", "text": "' + "\\u00e9" * N + '"}\n', "ok 1"),
        ("read_documents", '{"id": 1' + "0" * 5000 + ', "text": "x"}\n', "bad JSON: integer"),
        ("read_topics", '{"id": "1", "title": 1' + "0" * 5000 + "}\n", "bad JSON: integer"),
        ("read_documents", '{"id": "a", "text": "x\\ud800"}\n', "unpaired surrogate"),
        ("read_topics", "<top>" * N, "topic without <num>"),
        ("read_topics", "<top><num>1<title>" + "<" * (5 * N) + "</top>\n", "ok 1"),
        ("read_topics", '{"id": "1", "title": ' + "[" * N + "\n", "nested too deeply"),
        ("read_topics", "id,title\n1," + '"' * (5 * N) + "\n", "bad CSV"),
    ],
)
def test_pathological_markup(tmp_file, reader, content, expected):
    assert expected in outcome(tmp_file("hostile", content), reader)


@pytest.mark.parametrize(
    "markup",
    [
        "<div>" * N,  # deep nesting: no tree is built
        "<!--" * N,  # unclosed comments
        "<script>" + "x" * N,  # unclosed script
        "&" * N + "&#" * N,
        "<" * N + ">" * N,
        "<a href='" + "x" * N,
        "</" * N + ">",  # each end tag far from a '>'
        "<![" * N + ">",  # broken marked sections (html.parser fails on '<![>')
        "<a title='" * N + ">",
        "<!-" * N,
    ],
)
def test_pathological_html(tmp_path, markup):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "page.html").write_text(markup)
    assert outcome(d, "read_documents") == "ok 1"


def test_huge_line_real_limit(tmp_file):
    """A line over 64 MiB stops the reading (JSON Lines documents, the real limit)."""
    path = tmp_file(
        "huge.jsonl", b'{"id": "a", "text": "' + b"x" * (_input.MAX_LINE + 10) + b'"}\n'
    )
    assert "line longer than 64 MiB" in outcome(path, "read_documents")


@pytest.mark.parametrize(
    ("reader", "content", "line"),
    [
        (
            read_documents,
            '{"id": "a", "text": "x"}\n{"id": "b", "text": "' + "y" * 5000 + '"}\n',
            2,
        ),
        (read_documents, "<DOC><DOCNO>a</DOCNO>\n" + "z" * 5000 + "\n</DOC>\n", 2),
        (read_topics, "id,title\n1," + "t" * 5000 + "\n", 2),
        (read_topics, "<top><num>1\n<title>" + "t" * 5000 + "\n</top>\n", 2),
    ],
)
def test_line_limit(tmp_file, monkeypatch, reader, content, line):
    monkeypatch.setattr(_input, "MAX_LINE", 1024)
    with pytest.raises(InputError) as info:
        list(reader(tmp_file("t", content)))
    assert info.value.line == line and "line longer than" in info.value.message


PREFIXES = [b"", b"<top>", b"<top><num>1<title>", b"<DOC>", b"<DOC><DOCNO>", b"{", b"id,title\n"]


@given(st.sampled_from(PREFIXES), st.binary(max_size=300))
def test_arbitrary_bytes_give_a_result_or_input_error(tmp_path_factory, prefix, junk):
    path = tmp_path_factory.mktemp("junk") / "f"
    path.write_bytes(prefix + junk)
    for reader in (read_topics, lambda p: list(read_documents(p))):
        try:
            reader(path)
        except InputError as exc:
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)


@given(st.lists(st.sampled_from(["<", ">", "!", "-", "/", "[", "]", "?", "a", "p", "script",
                                 "'", '"', "&", "#", ";", "x", " ", "=", "<!--", "-->"]),
                max_size=60))  # fmt: skip
def test_html_text_never_fails(parts):
    title, text = html_to_text("".join(parts))
    assert isinstance(title, str) and isinstance(text, str)


@pytest.mark.parametrize("body", ["plain line\n" * 200, "<P>tagged line</P>\n" * 200])
def test_document_size_limit(tmp_file, monkeypatch, body):
    from cranfield.collection import trec_docs

    monkeypatch.setattr(trec_docs, "MAX_DOC", 1000)
    path = tmp_file("d", "<DOC><DOCNO>a</DOCNO></DOC>\n<DOC>\n<DOCNO>b</DOCNO>\n" + body)
    with pytest.raises(InputError) as info:
        list(read_documents(path))
    assert info.value.line == 2 and "document longer than" in info.value.message
