"""The trec_eval 10.0 front end: measure selection, order, names and output format.

``cranfield trec_eval`` takes trec_eval's arguments and prints byte-identical output
(``%-22s\\t%s\\t%6.4f``; counts with ``%ld``), measures in trec_eval's internal order,
per-topic blocks (``-q``) in byte order of topic id, then the ``all`` block.

Deliberate deviations from trec_eval 10.0 (documented in docs/trec_eval.md):

* qrels topics absent from the run, without ``-c``, are ignored with a note on
  stderr (trec_eval 10.0 aborts with a misleading message; its help text and 9.x
  ignore them);
* ndcg/G with custom gains less than 1 apart sort the ideal ranking correctly;
* two parameterised members of {ndcg, dcg, ideal_dcg} can be requested together;
* rbp normalises gains with the true minimum and maximum;
* ``-Z`` with a (topic, measure) missing from the z-score file is an input error
  instead of a silent placeholder value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import InputError, MeasureError
from .evaluation import MIN_GEO_MEAN, aggregate
from .judged import JudgedRun, judge
from .measures.names import TREC_DEFAULT_CUTOFFS, parse_trec
from .measures.registry import Measure


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure: how it is parameterised, printed and averaged."""

    name: str
    kind: str  # runid | num_q | long | float | gm | cut_long | cut_double | params | string


# te_trec_measures[] order of trec_eval 10.0 (measures.c); preference and
# judgment-group measures are not supported.
TREC_MEASURES = [
    TrecMeasure("runid", "runid"),
    TrecMeasure("num_q", "num_q"),
    TrecMeasure("num_ret", "long"),
    TrecMeasure("num_rel", "long"),
    TrecMeasure("num_rel_ret", "long"),
    TrecMeasure("map", "float"),
    TrecMeasure("gm_map", "gm"),
    TrecMeasure("Rprec", "float"),
    TrecMeasure("bpref", "float"),
    TrecMeasure("recip_rank", "float"),
    TrecMeasure("iprec_at_recall", "cut_double"),
    TrecMeasure("P", "cut_long"),
    TrecMeasure("relstring", "string"),
    TrecMeasure("recall", "cut_long"),
    TrecMeasure("infAP", "float"),
    TrecMeasure("gm_bpref", "gm"),
    TrecMeasure("Rprec_mult", "cut_double"),
    TrecMeasure("utility", "params"),
    TrecMeasure("11pt_avg", "params"),
    TrecMeasure("binG", "float"),
    TrecMeasure("G", "params"),
    TrecMeasure("dcg", "params"),
    TrecMeasure("ideal_dcg", "params"),
    TrecMeasure("ndcg", "params"),
    TrecMeasure("ndcg_rel", "params"),
    TrecMeasure("Rndcg", "params"),
    TrecMeasure("ndcg_cut", "cut_long"),
    TrecMeasure("map_cut", "cut_long"),
    TrecMeasure("relative_P", "cut_long"),
    TrecMeasure("success", "cut_long"),
    TrecMeasure("set_P", "float"),
    TrecMeasure("set_relative_P", "float"),
    TrecMeasure("set_recall", "float"),
    TrecMeasure("set_map", "float"),
    TrecMeasure("set_F", "params"),
    TrecMeasure("num_nonrel_judged_ret", "long"),
    TrecMeasure("yaap", "float"),
    TrecMeasure("rbp", "params"),
    TrecMeasure("rbp_resid", "float"),
    TrecMeasure("unj", "cut_long"),
]
BY_NAME = {m.name: m for m in TREC_MEASURES}

# trec_eval's nicknames (measures.c); membership only: output follows TREC_MEASURES
_OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
NICKNAMES = {
    "official": _OFFICIAL,
    "set": [
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ],
    "all_trec": _OFFICIAL
    + [
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ],
}
UNSUPPORTED = {
    "all_prefs",
    "prefs",
    "qrels_jg",
    "prefs_num_prefs_poss",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
}


@dataclass
class Column:
    """One printed measure: its printed name, the cranfield measure and the kind."""

    printed: str
    kind: str
    measure: Measure | None


def select(measure_args: list[str]) -> list[tuple[TrecMeasure, str | None]]:
    """Marked measures in trec_eval order, each with the first parameters given."""
    params: dict[str, str | None] = {}
    marked: set[str] = set()
    for arg in measure_args or ["official"]:
        name, _, param = arg.partition(".")
        if "." in arg and not param:
            raise MeasureError(f"improper measure in parameter '{name}'")
        if name in UNSUPPORTED or name.startswith("prefs_"):
            raise MeasureError(
                f"'{name}' needs preference or judgment-group files, which are not supported"
            )
        if "." in arg:
            params.setdefault(name, param)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in BY_NAME:
            marked.add(name)
        else:
            from .measures.names import suggest

            raise MeasureError(f"illegal measure '{arg}'{suggest(name)}")
    return [(m, params.get(m.name)) for m in TREC_MEASURES if m.name in marked]


def _cutoff_values(tm: TrecMeasure, param: str | None) -> list:
    text = param if param is not None else TREC_DEFAULT_CUTOFFS[tm.name]
    try:
        if tm.kind == "cut_long":
            values = sorted(int(float(v)) if v.strip() else 0 for v in text.split(","))
            if values[0] <= 0:
                raise MeasureError(f"{tm.name}: cutoffs must be positive, got '{text}'")
        else:
            values = sorted(float(v) for v in text.split(","))
    except ValueError:
        raise MeasureError(f"{tm.name}: malformed cutoffs '{text}'") from None
    if len(set(values)) != len(values):
        raise MeasureError(f"{tm.name}: duplicate cutoffs in '{text}'")
    return values


def columns(selected, num_docs_in_coll: int = 0) -> list[Column]:
    """Expand the selected trec measures into printed columns."""
    out: list[Column] = []
    for tm, param in selected:
        if tm.kind in ("runid", "num_q"):
            out.append(Column(tm.name, tm.kind, None))
        elif tm.kind in ("cut_long", "cut_double"):
            values = _cutoff_values(tm, param)
            joined = ",".join(str(v) for v in values)
            for v, m in zip(values, parse_trec(tm.name, joined), strict=True):
                printed = f"{tm.name}_{v}" if tm.kind == "cut_long" else f"{tm.name}_{v:3.2f}"
                out.append(Column(printed, tm.kind, m))
        else:
            (m,) = parse_trec(tm.name, param)
            if tm.name == "utility" and num_docs_in_coll:
                m = Measure.of("utility", **{**dict(m.params), "collection_size": num_docs_in_coll})
            printed = tm.name if param is None else f"{tm.name}_{param}"
            out.append(Column(printed, tm.kind, m))
    return out


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """z-score file: lines ``qid measure mean stddev``."""
    table = {}
    with open(path, "rb") as fh:  # ids are bytes, read as Latin-1 like the qrels and run
        for lineno, line in enumerate(fh, 1):
            fields = [f.decode("latin-1") for f in line.split()]
            if not fields:
                continue
            if len(fields) != 4:
                raise InputError(
                    f"expected 4 fields (qid measure mean stddev), got {len(fields)}", path, lineno
                )
            try:
                table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
            except ValueError:
                raise InputError("mean and stddev must be numbers", path, lineno) from None
    if not table:
        raise InputError("empty z-score file", path)
    return table


def _zscore(values: np.ndarray, qids, printed: str, zscores, path) -> np.ndarray:
    out = np.empty_like(values)
    for i, q in enumerate(qids):  # one lookup per (query, measure) printed: output-sized work
        key = (q, printed)
        if key not in zscores:
            raise InputError(f"no mean/stddev for query {q!r} and measure {printed!r}", path)
        mean, sd = zscores[key]
        if sd:
            out[i] = (values[i] - mean) / sd
        elif values[i] == mean:
            out[i] = 0.0
        else:
            raise InputError(
                f"stddev 0 for query {q!r}, measure {printed!r} but value != mean", path
            )
    return out


def _fmt_long(v) -> str:
    return str(int(v))


def _formatted(values: np.ndarray, long: bool) -> list[str]:
    """``%6.4f`` (or ``%ld``) of every value; each distinct bit pattern formatted once."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    bits = values.view(np.int64)
    order = np.argsort(bits, kind="stable")
    sorted_bits = bits[order]
    first = np.ones(len(bits), dtype=bool)
    first[1:] = sorted_bits[1:] != sorted_bits[:-1]
    group = np.cumsum(first) - 1
    inverse = np.empty(len(bits), dtype=np.int64)
    inverse[order] = group
    distinct = values[order[first]].tolist()
    # printf-style formatting is faster than f-strings here and prints the same digits
    texts = [str(int(v)) for v in distinct] if long else ["%6.4f" % v for v in distinct]  # noqa: UP031
    return [texts[i] for i in inverse.tolist()]


def run_trec_eval(
    qrels,
    run,
    measure_args: list[str],
    *,
    per_query: bool = False,
    complete: bool = False,
    rel_level: int = 1,
    summary: bool = True,
    judged_only: bool = False,
    num_docs_in_coll: int = 0,
    depth: int | None = None,
    zscores_path: str | None = None,
    compat: int = 10,
    notes=None,
    judged: JudgedRun | None = None,
) -> str:
    """Evaluate like trec_eval and return its exact output text.

    ``judged`` is the run already judged with these options (e.g. by
    :func:`cranfield.streaming.judge_file`); ``run`` is then not read.
    """
    selected = select(measure_args)
    cols = columns(selected, num_docs_in_coll)
    jr: JudgedRun = (
        judged
        if judged is not None
        else judge(
            qrels,
            run,
            rel_level=rel_level,
            depth=depth,
            judged_only=judged_only,
            complete=complete,
            compat=compat,
        )
    )
    if not complete and notes is not None:
        all_topics = set(qrels.query_ids())
        missing = sorted(all_topics - set(jr.query_ids))
        if missing:
            shown = " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            notes(
                f"note: {len(missing)} qrels topic(s) have no results and are ignored "
                f"(use -c to score them as 0): {shown}"
            )
    if jr.num_queries == 0:
        raise InputError("no queries with both results and relevance info")
    zscores = read_zscores(zscores_path) if zscores_path else None

    qids = list(jr.query_ids)
    per_values: list[np.ndarray | None] = []
    for col in cols:
        if col.measure is None:
            per_values.append(None)
            continue
        values = col.measure.compute(jr)
        if col.kind == "gm":
            values = np.maximum(values, MIN_GEO_MEAN)
        if zscores is not None and col.kind != "string":
            if col.kind == "gm":
                from .measures._common import libm_exp, libm_log

                values = libm_exp(
                    _zscore(libm_log(values), qids, col.printed, zscores, zscores_path)
                )
            else:
                values = _zscore(values, qids, col.printed, zscores, zscores_path)
        per_values.append(values)

    lines: list[str] = []
    if per_query:
        printable = [
            (c, v)
            for c, v in zip(cols, per_values, strict=True)
            if c.kind not in ("runid", "num_q", "gm")
        ]
        # column by column (each distinct value formatted once), then query-major order
        tails = [f"\t{q}\t" for q in qids]
        per_column = []
        for col, values in printable:
            prefix = f"{col.printed:<22}"
            if col.kind == "string":
                texts = [f"'{v}'" for v in values]
            else:
                texts = _formatted(values, col.kind == "long")
            per_column.append([prefix + t + x for t, x in zip(tails, texts, strict=True)])
        lines.extend(line for row in zip(*per_column, strict=True) for line in row)
    if summary:
        n = jr.num_queries
        for col, values in zip(cols, per_values, strict=True):
            if col.kind == "runid":
                lines.append(f"{'runid':<22}\tall\t{jr.run_name}")
            elif col.kind == "num_q":
                lines.append(f"{'num_q':<22}\tall\t{n}")
            elif col.kind == "string":
                continue
            elif col.kind == "long":
                total = aggregate(values, "sum")
                if col.printed == "num_rel" and complete and zscores is None:
                    total = float(np.sum(qrels.table.column("relevance").to_numpy() > 0))
                lines.append(f"{col.printed:<22}\tall\t{_fmt_long(total)}")
            elif col.kind == "gm":
                value = aggregate(values, "gmean", n)
                lines.append(f"{col.printed:<22}\tall\t{value:6.4f}")
            else:
                value = aggregate(values, "mean", n)
                lines.append(f"{col.printed:<22}\tall\t{value:6.4f}")
    return "\n".join(lines) + ("\n" if lines else "")


def trec_format_number(value: float) -> str:
    """trec_eval's ``%6.4f`` (NaN printed as C does on glibc)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:6.4f}"
