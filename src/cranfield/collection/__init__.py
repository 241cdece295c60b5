"""Test collections: topics and documents, read from the formats they are shipped in.

* :func:`read_topics` -- TREC ``<top>`` files, JSON Lines, CSV -> ``list[Topic]``;
* :func:`read_documents` -- JSON Lines, TREC SGML ``<DOC>``, Parquet, a directory of
  text/HTML files -> an iterator of :class:`Document` (streamed, bounded memory);
* :func:`query_terms` and :func:`highlight` -- a topic's query words and where they
  occur in a text, for judging interfaces.

Every problem with the input is an :class:`~cranfield.errors.InputError` naming the file
and line. See docs/collection.md.
"""

from __future__ import annotations

from .documents import read_documents
from .records import Document, Topic
from .terms import highlight, query_terms
from .topics import read_topics

__all__ = ["Document", "Topic", "highlight", "query_terms", "read_documents", "read_topics"]
