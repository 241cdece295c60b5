"""query_terms and highlight: the words of a topic and where they occur in a text."""

from __future__ import annotations

import html
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.collection import Topic, highlight, highlight_html, query_terms
from cranfield.collection.terms import _TOKEN, _norm
from cranfield.errors import ParameterError


def shown(text, terms):
    return [text[a:b] for a, b in highlight(text, terms)]


def test_query_terms_drop_stopwords_and_repeat():
    topic = Topic(
        "1", "The Effects of Coral Reef Bleaching on the Reef", "Find documents about fish."
    )
    assert query_terms(topic) == ["effects", "coral", "reef", "bleaching"]
    assert query_terms(topic, ("title", "description")) == [
        "effects", "coral", "reef", "bleaching", "fish",
    ]  # fmt: skip
    assert query_terms("A B c2 of") == ["c2"]  # one-letter Latin words and stopwords go
    assert query_terms("Straße ＣＡＦＥ 東京大学") == ["strasse", "cafe", "東京大学"]


def test_whole_words_only_and_any_case():
    text = "Art party; ART-deco, smart art."
    assert shown(text, ["art"]) == ["Art", "ART", "art"]
    assert highlight(text, ["art"])[0] == (0, 3)


def test_phrases_and_merging():
    text = "Offshore wind farms: the offshore, wind farm at sea. Wind wind."
    assert shown(text, ["offshore wind"]) == ["Offshore wind", "offshore, wind"]
    assert shown(text, ["wind", "offshore wind farm"]) == [
        "wind",
        "offshore, wind farm",
        "Wind",
        "wind",
    ]
    assert shown("covid-19 and covid 19", ["covid-19"]) == ["covid-19", "covid 19"]
    assert shown("ab", ["a b"]) == []


def test_unicode():
    nfd = unicodedata.normalize("NFD", "café crème")
    assert shown(nfd, ["CAFÉ"]) == [unicodedata.normalize("NFD", "café")]
    assert shown("STRASSE und Straße", ["strasse"]) == ["STRASSE", "Straße"]
    assert shown("ﬁsh and fish", ["fish"]) == ["ﬁsh", "fish"]  # compatibility ligature
    assert shown("東京大学の研究", ["大学"]) == ["大学"]  # no spaces between CJK words
    assert shown("Ελληνικά ΚΕΊΜΕΝΑ κείμενα", ["κείμενα"]) == ["ΚΕΊΜΕΝΑ", "κείμενα"]


@pytest.mark.parametrize("term", [".*", "(", "a|b", "[a-z]+", "\\", "(?i)x", "*", "", "   ", "!!"])
def test_terms_are_never_patterns(term):
    text = "a|b (x) [a-z]+ .* \\ anything"
    spans = highlight(text, [term])
    words = [_norm(m.group()) for m in _TOKEN.finditer(term)]
    # a term matches its own words only: 'a|b' is the words a, b in sequence
    if not words:
        assert spans == []
    for s, e in spans:
        assert {_norm(m.group()) for m in _TOKEN.finditer(text[s:e])} <= set(words)
    assert bool(spans) == (term in ("a|b", "[a-z]+"))  # "(?i)x" is the words i, x


def test_empty_inputs():
    assert highlight("", ["x"]) == []
    assert highlight("some text", []) == []


words = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=6)
separators = st.sampled_from([" ", ", ", "-", "\n", "'", " (", ". "])


@settings(max_examples=200)
@given(st.lists(st.tuples(words, separators), max_size=30), st.lists(words, max_size=5))
def test_highlight_properties(pieces, terms):
    text = "".join(w + s for w, s in pieces)
    spans = highlight(text, terms)
    wanted = {_norm(m.group()) for t in terms for m in _TOKEN.finditer(t)}
    # sorted, disjoint, inside the text, and every highlighted word is a term's word
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(spans, spans[1:], strict=False))
    for a, b in spans:
        assert {_norm(m.group()) for m in _TOKEN.finditer(text[a:b])} <= wanted
    # and every occurrence of a one-word term is highlighted
    single = set()
    for t in terms:
        tokens = [_norm(m.group()) for m in _TOKEN.finditer(t)]
        if len(tokens) == 1:
            single.add(tokens[0])
    covered = {i for a, b in spans for i in range(a, b)}
    for m in _TOKEN.finditer(text):
        if _norm(m.group()) in single:
            assert m.start() in covered


def test_bounded_on_many_terms_and_long_text():
    text = "a " * 200_000
    terms = [" ".join(["a"] * n) + " b" for n in range(1, 200)]  # many phrases, none match
    terms += ["a " * 10_000]  # too long a phrase: ignored
    assert highlight(text, terms) == []


def test_highlight_html_escapes_everything():
    text = "<script>alert('reef')</script> & \"Reef\" <b>"
    out = highlight_html(text, ["reef", "script"])
    assert out == (
        "&lt;<mark>script</mark>&gt;alert(&#x27;<mark>reef</mark>&#x27;)&lt;/<mark>script</mark>&gt;"
        " &amp; &quot;<mark>Reef</mark>&quot; &lt;b&gt;"
    )
    assert html.unescape(out.replace("<mark>", "").replace("</mark>", "")) == text
    assert highlight_html("a <i> reef", ["reef"], tag="em") == "a &lt;i&gt; <em>reef</em>"
    with pytest.raises(ParameterError, match="invalid value for tag"):
        highlight_html("x", ["x"], tag="b onclick=alert(1)")


@settings(max_examples=100)
@given(st.text(max_size=40), st.lists(st.text(max_size=6), max_size=4))
def test_highlight_html_is_the_text_escaped(text, terms):
    out = highlight_html(text, terms)
    assert "<" not in out.replace("<mark>", "").replace("</mark>", "")
    assert html.unescape(out.replace("<mark>", "").replace("</mark>", "")) == text
