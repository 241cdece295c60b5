"""Readers and writers for qrels and runs.

``trec`` parses TREC text files (the fast Arrow path and the exact fallback),
``tabular`` maps Parquet, CSV/TSV and DataFrame columns onto cranfield's schema,
``dedup`` finds duplicate documents within a query without a Python loop per row.
"""
