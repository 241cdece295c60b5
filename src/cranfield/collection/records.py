"""The two records of a test collection: a topic (an information need) and a document.

A topic is what TREC calls a topic statement (Voorhees & Harman 2005, ch. 2): a short
``title`` (the query a user would type), a one-sentence ``description`` of the need and a
``narrative`` telling the assessor what makes a document relevant. A document is an
identifier, a title (possibly empty) and its plain text.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One information need: ``id`` (as in qrels and runs), ``title``, ``description``,
    ``narrative``."""

    id: str
    title: str
    description: str = ""
    narrative: str = ""


@dataclass(frozen=True)
class Document:
    """One document of the collection: ``id`` (as in qrels and runs), ``title``, ``text``."""

    id: str
    title: str
    text: str
