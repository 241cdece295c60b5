"""Relevance judgments (qrels)."""

from __future__ import annotations

import os

from .._lazy import lazy
from .columnar import Columnar
from .io import trec

# (modules a call of the Python API uses, bound on first use: an import statement in a
# function costs 2-3 us a call, and a loop of small evaluations makes dozens a call)
_engine = lazy("cranfield._engine", __name__, "_engine")
_arrays = lazy("cranfield.core.io.arrays", __name__, "_arrays")


class Qrels(Columnar):
    """Relevance judgments, held as one Arrow table in reading order.

    Columns: ``query_id: string``, ``doc_id: string``, ``relevance: int64`` (grades may
    be negative: trec_eval treats a negative grade as "pooled but unjudged"), or
    ``relevance: float64`` for fractional gains (``fractional=True``).

    Parameters
    ----------
    table
        Any Arrow table with a query id, a doc id and a relevance column (aliases such
        as ``qid``, ``docno``, ``rel``, ``grade``, ``label`` are accepted). Integer ids
        become strings; float grades must be whole numbers (unless ``fractional``).
    source
        File name or description, used in messages.
    duplicates
        What to do with a document judged twice for one query: ``"error"`` (default,
        as trec_eval), ``"first"`` (keep the first row) or ``"max"`` (keep the highest
        grade).
    fractional
        Keep relevance as real numbers (float64): see :meth:`read`.

    Examples
    --------
    >>> q = Qrels.from_dict({"301": {"d1": 2, "d2": 0}})
    >>> len(q), q.query_ids()
    (2, ['301'])
    """

    _value = "relevance"
    _layout = trec.QRELS

    @classmethod
    def read(
        cls,
        path_or_file,
        *,
        format: str | None = None,
        duplicates: str = "error",
        encoding: str = "utf-8",
        fractional: bool = False,
    ) -> Qrels:
        """Read qrels from a file: TREC (default; ``-`` is stdin, gzip detected), Parquet,
        CSV or TSV (chosen from the extension unless ``format`` is given); or take them
        from a dict ``{qid: {docid: grade}}``, a pandas or polars DataFrame or an Arrow
        table (as :meth:`from_dict`, :meth:`from_pandas`, :meth:`from_polars`,
        :meth:`from_arrow`); or a test collection's by its ir_datasets id, ``irds:ID``
        (or a bare ``ID`` no file has; the ``ir_datasets`` extra, docs/collections.md).

        TREC lines are ``qid iter docno rel`` with exactly four fields; ``rel`` is read as
        an integer, a decimal being truncated toward zero (``2.7`` -> 2) as trec_eval's
        ``atol`` does. Blank lines and ``#`` lines are skipped. ``encoding`` (TREC files
        only): ``"utf-8"`` (default) or ``"latin-1"`` (ids as bytes, one character per
        byte, as ``cranfield trec_eval`` reads them; see docs/input-formats.md).

        ``fractional=True`` reads relevance as real numbers (float64), in every format:
        fractional gains such as the expected gains of aggregated judgments
        (``cranfield aggregate --soft``). Measures that take gains use them as they are,
        binary measures call a document relevant when its value is at least the
        relevance level, and the few measures for which a fraction has no meaning refuse
        non-integer values (docs/measures.md says which is which). The other
        constructors (:meth:`from_dict`, :meth:`from_pandas`, :meth:`from_polars`,
        :meth:`from_arrow`, ``Qrels(table)``) take the same keyword.
        """
        if isinstance(path_or_file, Qrels):  # e.g. a collection's, resolved by the CLI
            return path_or_file
        made = cls._read_object(path_or_file, format, duplicates, fractional=fractional)
        if made is not None:
            return made
        from .io.collections import collection_id

        named = collection_id(path_or_file)
        if named is not None:
            return cls._of_collection(named, duplicates, encoding, fractional)
        table, source, _ = cls.read_table(path_or_file, format, duplicates, encoding, fractional)
        return cls.of_table(table, source)

    @classmethod
    def _of_collection(cls, named: str, duplicates: str, encoding: str, fractional: bool):
        """The qrels of the ir_datasets collection ``named``: its TREC file through the
        engine's reader when it has one, else ir_datasets' own reader."""
        from .io.collections import Collection

        collection = Collection.load(named)
        path = collection.qrels_file()
        if path is None:  # checked and normalised as any table
            return cls(
                collection.qrels_table(),
                collection.source,
                duplicates=duplicates,
                fractional=fractional,
            )
        table, _, _ = cls.read_table(path, "trec", duplicates, encoding, fractional)
        return cls.of_table(table, collection.source)

    def to_trec(self, path_or_file: str | os.PathLike) -> None:
        """Write ``qid 0 docno rel`` lines in table order (``-`` writes to stdout)."""
        trec.check_writable_ids(self.table, self.source)
        t = self.table
        trec.write(t, path_or_file, [t["query_id"], "0", t["doc_id"], t["relevance"]])

    def index(self):
        """The engine's index of these judgments (``cranfield._engine.QrelsIndex``):
        the table copied into the compiled engine and indexed per topic once, then kept
        by this object (:meth:`derived`: until :attr:`table` is replaced) and reused by
        every later :func:`cranfield.evaluate` and judging of a run against it, so that
        a loop over many runs does not index the qrels again for each."""
        return self.derived(
            "engine_index",
            lambda: _engine.QrelsIndex(_arrays.engine_batches(self.table, "relevance")),
        )

    @property
    def fractional(self) -> bool:
        """Whether relevance is held as real numbers (float64) rather than integers."""
        import pyarrow as pa

        return pa.types.is_floating(self.table.schema.field("relevance").type)

    def __repr__(self) -> str:
        n_q = len(self.query_ids()) if len(self) < 10_000_000 else "?"
        src = f", source={self.source!r}" if self.source else ""
        return f"Qrels({n_q} {'query' if n_q == 1 else 'queries'}, {len(self)} judgments{src})"
