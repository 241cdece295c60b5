"""Query terms of a topic and where they occur in a document, for judging interfaces.

* :func:`query_terms` -- the words of a topic's title (or other fields) without
  stopwords, lower-cased, each once;
* :func:`highlight` -- the ``(start, end)`` character spans of those terms in a text.

Words are runs of Unicode letters, digits and combining marks (so ``café`` written with
a combining accent is one word); Chinese and Japanese characters, written without
spaces, are one word each, and a term made of several of them matches where they
follow each other. Matching ignores case and Unicode compatibility differences (NFKC
normalisation and case folding: ``STRASSE`` matches ``Straße``), and only whole words
match (``art`` does not match ``party``). A term of several words (``offshore wind``,
``covid-19``) matches those words in sequence, whatever separates them. User terms are
never compiled into a regular expression, so any string is a safe term.

The stopword list is a short list of English function words in the tradition of the
SMART system's list (Salton 1971; Manning, Raghavan & Schütze 2008, sec. 2.2.2), plus
the words TREC topic statements use about themselves ("document", "relevant", ...) when
they are read from the description or narrative.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Iterable

from .records import Topic

_MARKS = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
# A word: letters/digits/marks, where a Chinese or Japanese character is a word alone.
_TOKEN = re.compile(rf"[{_CJK}][{_MARKS}]*|(?:[^\W{_CJK}]|[{_MARKS}])+")
# For query terms: runs of word characters, a run of CJK characters kept together.
_WORD = re.compile(rf"(?:\w|[{_MARKS}])+")

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can could did do does doing down during
    each either few for from further had has have having he her here hers herself him
    himself his how i if in into is it its itself just me more most my myself neither no
    nor not of off on once only or other our ours ourselves out over own same she should
    so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who
    whom why will with would you your yours yourself yourselves s t""".split()
)
"""English function words left out of query terms."""

TOPIC_WORDS = frozenset(
    """document documents relevant relevance irrelevant find identify information discuss
    discusses describe describes report reports mention mentions must may contain
    contains include includes including give gives name names known specific""".split()
)
"""Words topic statements use about the task itself, left out of description and
narrative terms (not of titles)."""


def _norm(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def query_terms(topic: Topic | str, fields: Iterable[str] = ("title",)) -> list[str]:
    """The distinct non-stopword words of a topic, normalised, in order of appearance.

    Parameters
    ----------
    topic
        A :class:`Topic`, or a query string.
    fields
        The topic's fields to take words from (``"title"``, ``"description"``,
        ``"narrative"``); words of fields other than the title also drop
        :data:`TOPIC_WORDS`.

    Returns
    -------
    list of str
        NFKC-normalised, case-folded words; stopwords and one-character Latin words left
        out.
    """
    if isinstance(topic, str):
        parts = [("title", topic)]
    else:
        parts = [(f, getattr(topic, f)) for f in fields]
    terms: dict[str, None] = {}
    for field, text in parts:
        for match in _WORD.finditer(text):
            word = _norm(match.group())
            if word in STOPWORDS or (field != "title" and word in TOPIC_WORDS):
                continue
            if len(word) == 1 and word.isascii():
                continue
            terms.setdefault(word)
    return list(terms)


def highlight(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """The spans of ``text`` where any of ``terms`` occurs as whole words.

    Parameters
    ----------
    text
        The document text.
    terms
        Words or phrases, as typed or as :func:`query_terms` returns them; empty
        terms and terms without any word character are ignored.

    Returns
    -------
    list of (int, int)
        ``(start, end)`` offsets into ``text`` (``text[start:end]`` is the match),
        sorted, with overlapping or touching matches merged.
    """
    # first word -> {length: phrases of that length}; longer phrases are tried first
    phrases: dict[str, dict[int, set[tuple[str, ...]]]] = {}
    for term in terms:
        words = tuple(_norm(m.group()) for m in _TOKEN.finditer(term))
        if words:
            phrases.setdefault(words[0], {}).setdefault(len(words), set()).add(words)
    if not phrases:
        return []
    longest = max(n for by_length in phrases.values() for n in by_length)
    by_first = {w: sorted(d.items(), reverse=True) for w, d in phrases.items()}
    tokens = ((m.start(), m.end(), _norm(m.group())) for m in _TOKEN.finditer(text))
    window: deque[tuple[int, int, str]] = deque()  # the current token and the next ones
    spans: list[tuple[int, int]] = []
    while True:
        while len(window) < longest:
            token = next(tokens, None)
            if token is None:
                break
            window.append(token)
        if not window:
            return spans
        start, _end, word = window[0]
        for n, candidates in by_first.get(word, ()):
            if n <= len(window) and tuple(window[k][2] for k in range(n)) in candidates:
                end = window[n - 1][1]
                if spans and start <= spans[-1][1]:
                    spans[-1] = (spans[-1][0], max(spans[-1][1], end))
                else:
                    spans.append((start, end))
                break
        window.popleft()
