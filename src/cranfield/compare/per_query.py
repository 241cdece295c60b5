"""Read score tables -- per-query or aggregate -- written by cranfield or trec_eval.

This is the one reader of score tables: ``cranfield compare --from-per-query`` and
``cranfield correlate`` both use :func:`read_table`. Accepted (the shape is recognised
from the content, not the file name):

- ``cranfield eval --format csv|tsv`` output: a header ``run,query,M1,M2,...`` (one
  column per measure; ``query`` may also be spelled ``qid``/``query_id``), or without
  the query column for aggregate-only tables. Rows whose query is ``all`` hold the
  run's aggregate.
- long tables: a header naming ``run``, ``measure``, ``value`` and optionally ``qid``
  (or ``query``/``query_id``) columns, tab- or comma-separated.
- ``cranfield eval`` as printed for people (``--format text``, the default: columns
  aligned by spaces under a ``run ...`` header; ``--format markdown``): read as the
  CSV/TSV tables above (a run name with a space cannot be told from two text cells:
  use tsv or json then). Their values are rounded to ``--digits`` (a note says so).
- ``cranfield eval --format json``: ``{"runs": [{"name", "aggregate", "per_query"}]}``.
- ``trec_eval -q`` output and ``cranfield eval --format trec``: whitespace-separated
  ``measure qid value`` lines. Several runs may follow each other in one file: a run is
  named by its ``runid all NAME`` line (else by the file name); with trec_eval's layout
  (the ``runid`` line among the ``all`` lines at the end of a run) the next
  per-query line after them starts the next run, with cranfield's (``runid`` first) the
  next ``runid`` line does. ``all`` lines are the aggregates; the string-valued
  ``runid`` and ``relstring`` lines carry no score.

A delimited table (wide or long) may also have a ``seed`` (or ``fold``) column: the runs
of one system under several random seeds or folds, ``run`` naming the system. Each
(run, seed) is then a run of its own, named ``RUN@SEED``, and
:attr:`ScoreTable.systems` lists them per system (``cranfield compare --from-per-query``
merges them as ``--system RUN=RUN@1,RUN@2,...`` would: :mod:`cranfield.compare.seeds`).

A file may hold many runs and many measures; a score given twice for the same run,
measure and query is an error. Undefined values (``nan`` or an empty cell) are refused
with the line that holds them: the paired tests need a score for every query.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import InputError
from .correlation import (
    _check_inference,
    kendall_tau,
    kendall_tau_test,
    rbo,
    spearman_rho,
    spearman_rho_test,
    tau_ap,
)

__all__ = ["ScoreTable", "read_table", "read_per_query", "read_result_table", "correlate_tables"]

_QID_COLUMNS = ("qid", "query", "query_id")
_SEED_COLUMNS = ("seed", "fold")
_AGGREGATE = "all"
#: trec_eval measures whose value is a string, not a score.
_STRING_MEASURES = ("runid", "relstring")
#: Longest line accepted (characters); longer means the file is not a score table.
MAX_LINE = 1 << 20
_ROUNDED = re.compile(r"-?\d+\.\d{1,4}")


@dataclass
class ScoreTable:
    """Scores read from one or more files.

    Attributes
    ----------
    scores
        Per-query scores ``{measure: {run: {qid: value}}}`` (the input of
        :func:`cranfield.compare`).
    aggregates
        ``{measure: {run: value}}`` from ``all`` rows / ``aggregate`` fields, when the
        file has them.
    rounded
        Sources whose per-query values have at most 4 decimals (``trec_eval -q`` output):
        statistics on them differ slightly from those on the full-precision values.
    systems
        ``{system: [RUN@SEED, ...]}`` from a ``seed`` or ``fold`` column (in order of
        first appearance); empty without one.
    """

    scores: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    aggregates: dict[str, dict[str, float]] = field(default_factory=dict)
    rounded: list[str] = field(default_factory=list)
    systems: dict[str, list[str]] = field(default_factory=dict)

    def means(self) -> dict[str, dict[str, float]]:
        """``{measure: {run: value}}``: the file's aggregate where it gives one, else the
        mean of the run's per-query values (the macro average ``cranfield eval`` prints)."""
        out: dict[str, dict[str, float]] = {}
        for measure in dict.fromkeys([*self.scores, *self.aggregates]):
            cell = out.setdefault(measure, {})
            for run, per_q in self.scores.get(measure, {}).items():
                cell[run] = math.fsum(per_q.values()) / len(per_q)
            cell.update(self.aggregates.get(measure, {}))
        return out

    def _put(self, measure, run, qid, value, source, line) -> None:
        if qid == _AGGREGATE:
            cell = self.aggregates.setdefault(measure, {})
            if run in cell:
                raise InputError(
                    f"duplicate aggregate for run {run!r}, measure {measure!r}", source, line
                )
            cell[run] = value
            return
        cell = self.scores.setdefault(measure, {}).setdefault(run, {})
        if qid in cell:
            raise InputError(
                f"duplicate score for run {run!r}, measure {measure!r}, query {qid!r}",
                source,
                line,
            )
        cell[qid] = value


def _lines(path, source: str) -> list[str]:
    """The lines of a text file, read once, each at most :data:`MAX_LINE` characters."""
    from ..core.io.source import check_path

    try:
        if str(path) == "-":
            stream, close = sys.stdin, False
            if stream is None:
                raise InputError("standard input is closed", source)
        else:
            stream, close = open(check_path(path, source), encoding="utf-8"), True  # noqa: SIM115
        try:
            out = []
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    return out
                if len(line) > MAX_LINE:
                    raise InputError(
                        f"line longer than {MAX_LINE} characters: not a score table",
                        source,
                        len(out) + 1,
                    )
                out.append(line.rstrip("\r\n"))
        finally:
            if close:
                stream.close()
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text: not a score table", source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source) from None


def _value(text: str, source: str, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"expected a number, got {text!r}", source, line) from None
    if not math.isfinite(v):
        raise InputError(
            f"value is {text!r}: undefined or infinite scores cannot be compared", source, line
        )
    return v


def _header(line: str) -> tuple[str, list[str]] | None:
    """(delimiter, column names) when ``line`` is a table header, else ``None``."""
    delim = "\t" if "\t" in line else ","
    if delim not in line:
        return None
    names = [h.strip() for h in next(csv.reader([line], delimiter=delim))]
    if names[0] == "runid":  # trec_eval's "runid all NAME", even for a run named "run"
        return None
    return (delim, names) if "run" in [n.lower() for n in names] else None


_MD_RULE = re.compile(r"\s*:?-+:?\s*")


def _markdown_cells(line: str) -> list[str]:
    """The cells of a Markdown table row ``| a | b\\|c |`` (``\\|`` is a ``|`` in a cell)."""
    inner = line.strip()[1:-1].replace("\\|", "\x00")
    return [c.strip().replace("\x00", "|") for c in inner.split("|")]


def _laid_out_table(lines: list[str], first: int):
    """(lines as tab-separated text, TSV header) when the file is a table as ``cranfield
    eval`` prints it for people (``--format text``: columns aligned by spaces, or
    ``markdown``) with a ``run`` column; else ``None``. Line numbers stay those of the file.

    Text cells are split at runs of spaces, so a run name with a space cannot be told
    from two cells: such a row has too many fields and is refused with its line (write
    the scores with ``--format tsv`` or ``json`` then).
    """
    top = lines[first].strip()
    if top.startswith("|") and top.endswith("|") and len(top) > 1:
        names = _markdown_cells(top)
        if "run" not in [n.lower() for n in names]:
            return None
        out = list(lines)
        for i in range(first, len(lines)):
            text = lines[i].strip()
            if not text:
                continue
            cells = _markdown_cells(text) if text.startswith("|") and text.endswith("|") else [text]
            out[i] = "" if all(_MD_RULE.fullmatch(c) for c in cells) else "\t".join(cells)
        return out, ("\t", names)
    if "\t" in top or "," in top:
        return None
    names = top.split()
    if len(names) < 2 or names[0].lower() != "run":
        return None
    out = list(lines)
    for i in range(first, len(lines)):
        out[i] = "\t".join(lines[i].split())
    return out, ("\t", names)


def _printed_rounded(rows: list[str]) -> bool:
    """Whether every number with decimals in these tab-separated rows has at most 4 of
    them (the default ``--digits`` of the text and Markdown tables)."""
    cells = [c for row in rows for c in row.split("\t") if "." in c]
    numbers = [c for c in cells if c.replace(".", "", 1).lstrip("-").isdigit()]
    return bool(numbers) and all(_ROUNDED.fullmatch(c) for c in numbers)


def _read_delimited(table: ScoreTable, lines, first: int, source: str, head) -> None:
    delim, names = head
    lowered = [n.lower() for n in names]
    if len(set(lowered)) != len(lowered):
        dup = next(n for n in names if lowered.count(n.lower()) > 1)
        raise InputError(f"column {dup!r} appears twice in the header", source, first + 1)
    run_col = lowered.index("run")
    qid_col = next((lowered.index(c) for c in _QID_COLUMNS if c in lowered), None)
    seeds = [lowered.index(c) for c in _SEED_COLUMNS if c in lowered]
    if len(seeds) > 1:
        raise InputError("a table has a seed column or a fold column, not both", source, first + 1)
    seed_col = seeds[0] if seeds else None
    long = "measure" in lowered and "value" in lowered
    if long:
        m_col, v_col = lowered.index("measure"), lowered.index("value")
        measure_cols = []
    else:
        measure_cols = [
            (i, n)
            for i, n in enumerate(names)
            if i not in (run_col, qid_col, seed_col) and n.lower() not in _STRING_MEASURES
        ]
        if not measure_cols:
            raise InputError(
                "header names no measure: expected run,query,MEASURE... columns or "
                "run,qid,measure,value columns",
                source,
                first + 1,
            )
    rows = csv.reader(lines[first + 1 :], delimiter=delim)
    for no, fields in enumerate(rows, start=first + 2):
        if not fields or all(not f.strip() for f in fields):
            continue
        if len(fields) != len(names):
            raise InputError(f"expected {len(names)} fields, got {len(fields)}", source, no)
        run = fields[run_col].strip()
        if seed_col is not None:
            seed = fields[seed_col].strip()
            if not seed:
                raise InputError(f"the {names[seed_col]} column is empty", source, no)
            system, run = run, f"{run}@{seed}"
            members = table.systems.setdefault(system, [])
            if run not in members:
                members.append(run)
        qid = fields[qid_col].strip() if qid_col is not None else _AGGREGATE
        if long:
            table._put(
                fields[m_col].strip(),
                run,
                qid,
                _value(fields[v_col].strip(), source, no),
                source,
                no,
            )
            continue
        for i, name in measure_cols:
            text = fields[i].strip()
            if text:  # an empty cell: the measure is not defined for this row
                table._put(name, run, qid, _value(text, source, no), source, no)


def _read_trec(table: ScoreTable, lines, first: int, source: str) -> None:
    default = os.path.splitext(os.path.basename(source))[0]
    blocks: list[dict] = []  # {"name", "rows", "runid_first", "after_runid_all"}
    block = None
    for no, text in enumerate(lines[first:], start=first + 1):
        fields = text.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise InputError(
                "expected 3 fields (measure qid value, as trec_eval -q writes) or a header "
                f"naming run, query and measure columns; got {len(fields)} fields",
                source,
                no,
            )
        measure, qid, value = fields
        if measure == "runid":
            if block is not None and block["name"] is None and block["rows"]:
                block["name"], block["runid_last"] = value, True  # trec_eval's layout
                continue
            block = {"name": value, "rows": [], "runid_last": False}
            blocks.append(block)
            continue
        if block is None or (block["runid_last"] and qid != _AGGREGATE):
            block = {"name": None, "rows": [], "runid_last": False}
            blocks.append(block)
        if measure in _STRING_MEASURES:
            continue
        block["rows"].append((no, measure, qid, value))
    names = [b["name"] or default for b in blocks]
    for b, name in zip(blocks, names, strict=True):
        if names.count(name) > 1:
            line = b["rows"][0][0] if b["rows"] else first + 1
            raise InputError(f"run {name!r} appears twice", source, line)
    with_point = []  # per-query value texts with decimals
    for b, name in zip(blocks, names, strict=True):
        for no, measure, qid, value in b["rows"]:
            table._put(measure, name, qid, _value(value, source, no), source, no)
            if qid != _AGGREGATE and "." in value:
                with_point.append(value)
    if with_point and all(_ROUNDED.fullmatch(v) for v in with_point):
        table.rounded.append(source)


def _read_json(table: ScoreTable, text: str, source: str) -> None:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", source) from None
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list):
        raise InputError(
            'expected cranfield eval JSON: {"runs": [{"name", "aggregate", "per_query"}]}', source
        )
    for k, entry in enumerate(runs):
        where = f"runs[{k}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InputError(f"{where}: expected an object with a string 'name'", source)
        run = entry["name"]
        parts = [(_AGGREGATE, entry.get("aggregate") or {})]
        per_query = entry.get("per_query") or {}
        if not isinstance(per_query, dict):
            raise InputError(f"{where}.per_query: expected an object", source)
        parts += list(per_query.items())
        for qid, values in parts:
            if not isinstance(values, dict):
                raise InputError(f"{where}: query {qid!r}: expected an object", source)
            for measure, v in values.items():
                if measure in _STRING_MEASURES or v is None:
                    continue  # a string measure, or undefined (null) for this query
                if isinstance(v, str) and qid == _AGGREGATE:
                    continue  # string-valued aggregate (e.g. a run tag)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise InputError(
                        f"{where}: query {qid!r}, measure {measure!r}: expected a number, "
                        f"got {v!r}",
                        source,
                    )
                if not math.isfinite(v):
                    raise InputError(f"{where}: query {qid!r}: value {v!r}", source)
                table._put(measure, run, str(qid), float(v), source, None)


def read_table(paths) -> ScoreTable:
    """Read score tables (see the module docstring) from one or more files.

    Raises :class:`InputError` naming the file and line of the first problem.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = list(paths)
    table = ScoreTable()
    for path in paths:
        source = "<stdin>" if str(path) == "-" else str(path)
        lines = _lines(path, source)
        first = next((i for i, s in enumerate(lines) if s.strip()), None)
        if first is None:
            raise InputError("file is empty", source)
        if lines[first].lstrip().startswith("{"):
            _read_json(table, "\n".join(lines), source)
            continue
        laid_out = _laid_out_table(lines, first)
        if laid_out is not None:  # cranfield's text or Markdown table: as TSV, same lines
            lines, head = laid_out
        else:
            head = _header(lines[first])
        if head is not None:
            _read_delimited(table, lines, first, source, head)
            if laid_out is not None and _printed_rounded(lines[first + 1 :]):
                table.rounded.append(source)
        else:
            _read_trec(table, lines, first, source)
    if not table.scores and not table.aggregates:
        raise InputError("no scores found", ", ".join(str(p) for p in paths))
    return table


def read_per_query(paths) -> dict[str, dict[str, dict[str, float]]]:
    """Per-query scores ``{measure: {run: {qid: value}}}`` from score tables.

    See :func:`read_table`; fails when the files hold aggregates only.
    """
    table = read_table(paths)
    if not table.scores:
        raise InputError(
            "no per-query scores, only aggregates (write them with cranfield eval "
            "--per-query or trec_eval -q)",
            ", ".join(
                str(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)
            ),
        )
    return table.scores


def read_result_table(path) -> dict[str, dict[str, float]]:
    """One score per run and measure, ``{measure: {run: value}}``: the aggregates of a
    score table, or the means of its per-query scores (see :meth:`ScoreTable.means`)."""
    return read_table(path).means()


def correlate_tables(
    a: Mapping[str, float],
    b: Mapping[str, float],
    p: float = 0.9,
    confidence: float | None = None,
) -> dict[str, float]:
    """Correlation of two system orderings given as ``{run: score}`` mappings.

    Both mappings must score the same runs. Returns Kendall's tau-b, tau_AP (``a`` is the
    reference ordering; ``nan`` when ``b`` has tied scores), Spearman's rho and RBO_ext
    with persistence ``p`` of the two rankings by decreasing score (ties broken by run
    name). With ``confidence`` (e.g. 0.95) also the two-sided p-values and confidence
    intervals of tau and rho (:func:`~cranfield.compare.correlation.kendall_tau_test`,
    :func:`~cranfield.compare.correlation.spearman_rho_test`): keys ``kendall_tau_p``,
    ``kendall_tau_p_method`` (how the p-value was found: ``exact``, ``permutation``,
    ``asymptotic`` or ``t-distribution``), ``kendall_tau_ci_low``, ``kendall_tau_ci_high``
    and the same for ``spearman_rho``.
    """
    if confidence is not None:
        _check_inference("two-sided", confidence)
    if set(a) != set(b):
        only_a = sorted(set(a) - set(b))
        only_b = sorted(set(b) - set(a))
        raise InputError(
            f"the two tables score different runs: only in the first {only_a}, "
            f"only in the second {only_b}"
        )
    runs = sorted(a)
    x = [a[r] for r in runs]
    y = [b[r] for r in runs]
    try:
        tap = tau_ap(x, y)
    except InputError:
        tap = math.nan
    rank_a = sorted(runs, key=lambda r: (-a[r], r))
    rank_b = sorted(runs, key=lambda r: (-b[r], r))
    out = {
        "kendall_tau": kendall_tau(x, y),
        "tau_ap": tap,
        "spearman_rho": spearman_rho(x, y),
        "rbo": rbo(rank_a, rank_b, p),
    }
    if confidence is not None:
        for name, test in (("kendall_tau", kendall_tau_test), ("spearman_rho", spearman_rho_test)):
            res = test(x, y, "two-sided", confidence)
            out[f"{name}_p"] = res.pvalue
            out[f"{name}_p_method"] = res.method
            out[f"{name}_ci_low"] = res.ci_low
            out[f"{name}_ci_high"] = res.ci_high
    return out
