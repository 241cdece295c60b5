"""The campaign service: run submission, pooling, blind relevance judging, qrels and
results in the browser (``cranfield serve``).

The service closes the loop of the Cranfield paradigm (a collection, relevance
judgments, evaluation measures; Cleverdon 1967; Voorhees & Harman 2005, *TREC*) for a
shared task. Layers, each in its own module:

* :mod:`.models` — the SQLAlchemy 2 tables; :mod:`.migrations` — their Alembic history,
  applied by :func:`.db.open_database` whenever a database is opened;
* :mod:`.db` — engines (SQLite in WAL mode by default, PostgreSQL through psycopg 3)
  and the one transaction helper every write goes through;
* the domain layer — plain functions taking a :class:`~.db.Database`, called by the
  command line, the API and the tests alike: :mod:`.accounts`, :mod:`.campaigns`,
  :mod:`.submissions`, :mod:`.pooling`, :mod:`.judging`, :mod:`.quality`,
  :mod:`.exports`, :mod:`.results`;
* the web layer — :mod:`.app` (the ASGI application), :mod:`.api` (JSON),
  :mod:`.web` (server-rendered HTML), :mod:`.security` (passwords, sessions, CSRF,
  login rate limit) and :mod:`.access` (the one table of who may call what).

Nothing in the core of cranfield imports this package; its dependencies are the
``serve`` extra (``pip install 'cranfield[serve]'``). See docs/service.md.
"""

from __future__ import annotations

EXTRA = "serve"
MODULES = ("sqlalchemy", "alembic", "fastapi", "uvicorn", "jinja2", "argon2", "python_multipart")


def require_serve() -> None:
    """Fail with the one-line install hint when a dependency of the service is missing."""
    from ..errors import require

    for module in MODULES:
        require(module, EXTRA)
