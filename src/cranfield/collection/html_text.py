"""HTML to plain text with the standard library's ``html.parser``.

The text a reader sees: ``<script>``, ``<style>``, ``<template>`` and ``<head>``
content are dropped (the ``<title>`` is returned apart), character references are
decoded, block elements (paragraphs, headings, list items, table rows, ``<br>``) end a
line, and whitespace inside a line becomes one space. The parser builds no tree, so
deeply nested markup costs no more than flat markup.
"""

from __future__ import annotations

from html.parser import HTMLParser

DROPPED = {"script", "style", "template", "noscript", "head"}
BLOCKS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
}  # fmt: skip


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.dropped = 0  # depth inside dropped elements
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        elif tag in DROPPED:
            self.dropped += 1
        elif tag in BLOCKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag in DROPPED:
            self.dropped = max(0, self.dropped - 1)
        elif tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.dropped:
            self.parts.append(data)


def html_to_text(markup: str) -> tuple[str, str]:
    """``(title, text)`` of an HTML page: the ``<title>`` and the visible text."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    title = " ".join("".join(parser.title).split())
    paragraphs = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return title, "\n".join(p for p in paragraphs if p)
