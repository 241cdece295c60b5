"""cwl_eval's evaluation (Azzopardi, Thomas & Moffat 2019; cwl_eval 1.0.12): its
inputs, its metrics files, its table; the numbers come from the engine's C/W/L models
(:mod:`cranfield.core.measures.cwl`, ``rust/eval/src/measures/cwl.rs``).

cwl_eval's conventions, kept here: a topic is a block of consecutive run lines with
the same topic id, ranked in file order (not by score), reported in file order and
again if it comes back later; a document retrieved twice counts twice; qrels values are
the gains themselves (real numbers in [min_gain, max_gain]; the last line of a
document wins); a document without a qrels line is unjudged, and every ranking is cut
or completed to ``max_depth`` items, the unknown ones gaining ``min_gain`` (worst
case) or ``max_gain`` (best case, residuals) and costing ``max_cost`` or
``min_cost``. No mean row.

Costs come from cwl_eval's cost file (``element_type cost`` lines, the element type
being the run's second column, which the TREC reader does not keep: it is read here
from the run's lines) or per document (``topic document cost`` lines); an item without
one costs ``max_cost`` or ``min_cost``.
"""

from __future__ import annotations

from ..errors import InputError, MeasureError
from .io import trec
from .io.arrays import bools, ints, numbers

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np

#: cwl_eval's metric classes: family, constructor parameters with their defaults
#: (None: required) and the printed name.
MODELS: dict[str, tuple[str, tuple[tuple[str, object], ...], str]] = {
    "PrecisionCWLMetric": ("cwl_P", (("k", 10),), "P@{k}"),
    "RRCWLMetric": ("cwl_RR", (), "RR"),
    "APCWLMetric": ("cwl_AP", (), "AP"),
    "NDCGCWLMetric": ("SDCG", (("k", None),), "NDCG-k@{k}"),
    "RBPCWLMetric": ("cwl_RBP", (("theta", 0.9),), "RBP@{theta}"),
    "INSTCWLMetric": ("INST", (("T", 1.0),), "INST-T={T}"),
    "INSQCWLMetric": ("INSQ", (("T", 1.0),), "INSQ-T={T}"),
    "NPVCWLMetric": ("cwl_NPV", (("rate", 0.1),), "NPV-r@{rate}"),
    "SETCWLMetric": ("cwl_SET", (("beta", 0.5), ("k", 10)), "SET-k@{k}-b@{beta}"),
    "BPMCWLMetric": ("BPM", (("T", 1.0), ("K", 10)), "BPM-Static-T={T}-K={K}"),
    "BPMDCWLMetric": (
        "BPM_dynamic",
        (("T", 1), ("K", 10), ("hb", 1.0), ("hc", 1.0), ("gain_med", 0.5)),
        "BPM-Dynamic-T={T}-K={K}-hb={hb}-hc={hc}",
    ),
    "TBGCWLMetric": ("TBG", (("halflife", 224),), "TBG-H@{halflife} "),
    "UMeasureCWLMetric": ("U_measure", (("L", 1000),), "U-L@{L} "),
    "NERReq8CWLMetric": ("NERR_eq8", (("k", None),), "NERR-EQ8@k={k}"),
    "NERReq9CWLMetric": ("NERR_eq9", (("k", None),), "NERR-EQ9@k={k}"),
    "NERReq10CWLMetric": ("NERR_eq10", (("phi", 0.9),), "NERR-EQ10@phi={phi}"),
    "NERReq11CWLMetric": ("NERR_eq11", (("T", 1.0),), "NERR-EQ11@T={T}"),
}

#: cwl_eval's metrics when no metrics file is given.
DEFAULT_METRICS = (
    *(f"PrecisionCWLMetric({k})" for k in (1, 2, 3, 4, 5, 10)),
    *(f"RBPCWLMetric({t})" for t in (0.2, 0.4, 0.8)),
    "NDCGCWLMetric(5)",
    "NDCGCWLMetric(10)",
    "RRCWLMetric()",
    "APCWLMetric()",
    *(f"INSTCWLMetric({t})" for t in (1.0, 2.0, 3.0)),
)

#: Integer parameters (ranks): cwl_eval fails on a fraction there.
_INTEGER = {"k"}

HEADER = ("Topic", "Metric", "EU", "ETU", "EC", "ETC", "ED")
RESIDUAL_HEADER = ("ResEU", "ResETU", "ResEC", "ResETC", "ResED")


class Metric:
    """One line of a metrics file: the family, its parameters and cwl_eval's name."""

    __slots__ = ("family", "params", "name")

    def __init__(self, family: str, params: dict, name: str) -> None:
        self.family, self.params, self.name = family, params, name


def parse_metric(text: str, where: str = "metric") -> Metric:
    """``ClassName(p1, p2, ...)`` as cwl_eval reads it: a value with a ``.`` is a
    float, else an int; empty values are skipped; missing ones take the defaults."""
    body = text.strip()
    head, paren, rest = body.partition("(")
    head = head.strip()
    known = ", ".join(MODELS)
    if not paren and body.split()[0] in MODELS:
        raise MeasureError(
            f"{where}: write {body.split()[0]}(...), with the parameters in parentheses"
        )
    if head not in MODELS:
        raise MeasureError(f"{where}: unknown cwl_eval metric {head!r} (known: {known})")
    if not paren or not rest.endswith(")"):
        raise MeasureError(f"{where}: write {head}(...), with the parameters in parentheses")
    family, declared, fmt = MODELS[head]
    values = []
    for word in rest[:-1].split(","):
        if not word.strip():
            continue
        try:
            values.append(float(word) if "." in word else int(word))
        except ValueError:
            raise MeasureError(f"{where}: {head}: {word.strip()!r} is not a number") from None
    if len(values) > len(declared):
        raise MeasureError(f"{where}: {head} takes at most {len(declared)} parameters")
    params = {}
    for i, (pname, default) in enumerate(declared):
        value = values[i] if i < len(values) else default
        if value is None:
            raise MeasureError(f"{where}: {head} needs its parameter {pname}")
        if pname in _INTEGER and not isinstance(value, int):
            raise MeasureError(f"{where}: {head}: {pname} must be an integer, got {value}")
        params[pname] = value
    shown = {k: str(v) for k, v in params.items()}
    return Metric(family, params, fmt.format(**shown))


def read_metrics(path) -> list[Metric]:
    """The metrics of a cwl_eval metrics file, one ``ClassName(params)`` a line."""
    from .io.source import read_bytes, source_name

    source = source_name(path)
    try:
        text = read_bytes(path, source).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", source=source) from None
    metrics = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                metrics.append(parse_metric(line, f"{source}:{n}"))
            except MeasureError as exc:
                raise InputError(str(exc).split(": ", 1)[1], source=source, line=n) from None
    if not metrics:
        raise InputError("no metrics in the file", source=source)
    return metrics


def _check_model(metric: Metric) -> None:
    """The metric's parameters within the ranges its family declares."""
    from .measures.registry import lookup

    definition = lookup(metric.family)
    for key, value in metric.params.items():
        definition.param(key).coerce(value, metric.name.strip())


def read_gains(path, min_gain: float, max_gain: float):
    """cwl_eval's gain file: TREC qrels with real values (every one within
    [min_gain, max_gain]), in file order; of two lines for one (topic, document) the
    last wins (:func:`_lookup`)."""
    import numpy as np

    source = trec.source_name(path)
    parsed = trec.parse(path, trec.FRACTIONAL_QRELS, source)
    t = parsed.table
    gains = numbers(t["relevance"])
    bad = np.flatnonzero((gains > max_gain) | (gains < min_gain))
    if len(bad):
        row = int(bad[0])
        raise InputError(
            f"gain {gains[row]:g} outside [{min_gain:g}, {max_gain:g}] "
            "(--min_gain and --max_gain bound the gains, as cwl_eval)",
            source=source,
            line=parsed.line_of(row),
        )
    return t


def _pair_codes(*tables) -> list[np.ndarray]:
    """For each table, one int64 per row naming its (topic, document) pair, the same
    number for the same pair in every table (hash look-ups in Arrow's compute kernels;
    the Arrow query engine's joins would import pandas, half a second per command)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def universe(column: str):
        return pc.unique(
            pa.chunked_array([c for t in tables for c in t[column].chunks], pa.string())
        )

    queries, docs = universe("query_id"), universe("doc_id")

    def codes(t, column, values):
        return numbers(pc.index_in(t[column], value_set=values)).astype(np.int64)

    return [codes(t, "query_id", queries) * len(docs) + codes(t, "doc_id", docs) for t in tables]


def _read_cost_table(path, keys: list[str]):
    """A cost file: ``keys`` columns (read as strings) then a cost column, a table in
    any format cranfield reads, with or without a header; the costs finite and >= 0,
    else one error naming the file and line. Returns the key columns (strings) and the
    costs."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .io.table import read_table

    read = read_table(path, header=False, strings=tuple(str(i + 1) for i in range(len(keys))))
    t = read.table
    if t.num_columns != len(keys) + 1:
        count = ("two", "three")[len(keys) - 1]
        raise InputError(
            f"a cost file has {count} columns ({' '.join(keys)} cost), not {t.num_columns}",
            source=read.source,
        )
    names = t.column_names
    try:
        cost = numbers(pc.cast(t[names[-1]], pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise InputError("the cost column is not a number", source=read.source) from None
    bad = np.flatnonzero(~np.isfinite(cost) | (cost < 0))  # (NaN included)
    if len(bad):
        raise InputError(
            f"cost {cost[bad[0]]:g} is not a finite number >= 0",
            source=read.source,
            line=None if read.lines is None else int(read.lines[int(bad[0])]),
        )
    key_columns = [pc.cast(t[name], pa.string()).combine_chunks() for name in names[:-1]]
    return read.source, key_columns, cost


def read_costs(path):
    """Per-document costs (``--doc-costs``): ``topic document cost`` rows, one per
    (topic, document)."""
    import numpy as np
    import pyarrow as pa

    source, (topic, doc), cost = _read_cost_table(path, ["topic", "document"])
    out = pa.table(
        {
            "query_id": topic,
            "doc_id": doc,
            "cost": pa.Array.from_buffers(pa.float64(), len(cost), [None, pa.py_buffer(cost)]),
        }
    )
    if len(np.unique(_pair_codes(out)[0])) != out.num_rows:
        raise InputError("a (topic, document) has two costs", source=source)
    return out


def read_type_costs(path):
    """cwl_eval's cost file (``-c``): ``element_type cost`` rows, the element type being
    the run's second column, one per element type."""
    import pyarrow.compute as pc

    source, (types,), cost = _read_cost_table(path, ["element_type"])
    if len(pc.unique(types)) != len(types):
        raise InputError("an element type has two costs", source=source)
    return types, cost


def _run_element_types(result_file, n: int):
    """The run's second column (cwl_eval's element type) of its ``n`` rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    with open(result_file, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        import gzip

        data = gzip.decompress(data)
    text = data.decode("utf-8", "replace")
    lines = pa.array(text.splitlines())
    fields = pc.utf8_split_whitespace(lines)
    fields = fields.filter(pc.greater(pc.list_value_length(fields), 0))
    if len(fields) != n:
        raise InputError(
            "the run's lines could not be matched to its rows for -c", source=str(result_file)
        )
    return pc.list_element(fields, 1)


def _type_lookup(types, table) -> np.ndarray:
    """The cost of each run row's element type, NaN for a type without one."""
    import numpy as np
    import pyarrow.compute as pc

    names, cost = table
    at = _positions(pc.index_in(types, value_set=names))
    return np.where(at >= 0, cost[np.maximum(at, 0)], np.nan) if len(cost) else at * np.nan


def _positions(found) -> np.ndarray:
    """An ``index_in`` answer as int64 positions, -1 where not found."""
    import numpy as np

    # the int32 data under the nulls, masked (fill_null(-1) or to_numpy with nulls would
    # make Arrow import pandas)
    data = np.frombuffer(found.buffers()[1], np.int32, len(found) + found.offset)
    return np.where(bools(found.is_valid()), data[found.offset :], -1).astype(np.int64)


def _lookup(run, table, value: str) -> np.ndarray:
    """``value`` of each run row's (topic, document) in ``table``, NaN where missing;
    of two rows of ``table`` for one pair, the last (looked up in reverse order: a hash
    look-up answers the first match)."""
    import numpy as np
    import pyarrow.compute as pc

    wanted, keys = _pair_codes(run, table)
    values = numbers(table[value]).astype(np.float64)[::-1]
    at = _positions(pc.index_in(ints(wanted), value_set=ints(keys[::-1])))
    return np.where(at >= 0, values[np.maximum(at, 0)], np.nan) if len(values) else at * np.nan


def evaluate(
    gain_file,
    result_file,
    metrics: list[Metric] | None = None,
    *,
    costs=None,
    type_costs=None,
    residuals: bool = False,
    max_gain: float = 1.0,
    min_gain: float = 0.0,
    max_cost: float = 1.0,
    min_cost: float = 1.0,
    max_depth: int = 1000,
) -> tuple[list[str], list[Metric], np.ndarray]:
    """cwl_eval's numbers: the topics (one per block of the run), the metrics and a
    ``topics x metrics x 10`` array (EU, ETU, EC, ETC, ED, then their residuals, 0
    without ``residuals``)."""
    import numpy as np
    import pyarrow.compute as pc

    from .. import _engine

    metrics = list(metrics) if metrics is not None else [parse_metric(m) for m in DEFAULT_METRICS]
    for m in metrics:
        _check_model(m)
    if type_costs is not None and str(result_file) == "-":
        # the element types are read from the run's lines, a second read
        raise InputError("-c needs the run as a file, not standard input", source="-")
    gains_table = read_gains(gain_file, min_gain, max_gain)
    source = trec.source_name(result_file)
    run = trec.parse(result_file, trec.RUN, source).table
    q = run["query_id"].combine_chunks()
    n = len(q)
    change = np.flatnonzero(bools(pc.not_equal(q.slice(1), q.slice(0, n - 1))))
    starts = np.concatenate(([0], change + 1)).astype(np.int64)
    offsets = np.concatenate((starts, [n])).astype(np.int64)
    topics = q.take(ints(starts)).to_pylist()
    gains = _lookup(run, gains_table, "relevance")
    doc_costs = _lookup(run, read_costs(costs), "cost") if costs is not None else np.full(n, np.nan)
    if type_costs is not None:
        if costs is not None:
            raise InputError(
                "give costs per document (--doc-costs) or per element type (-c), not both"
            )
        doc_costs = _type_lookup(_run_element_types(result_file, n), read_type_costs(type_costs))
    specs = [(m.family, None, m.params) for m in metrics]
    try:
        values = _engine.cwl_table(
            specs,
            offsets,
            gains,
            doc_costs,
            int(max_depth),
            float(min_gain),
            float(max_gain),
            float(min_cost),
            float(max_cost),
            bool(residuals),
        )
    except ValueError as exc:
        where, _, why = str(exc).partition(": model ")
        index, _, why = why.partition(": ")
        topic = topics[int(where.split()[-1])]
        name = metrics[int(index)].name.strip()
        raise MeasureError(
            f"{name}: topic {topic}: {why}: this model needs gains in [0, 1] (cwl_eval "
            "refuses them too; see --max_gain)"
        ) from None
    return topics, metrics, values.reshape(len(topics), len(metrics), 10)


def render(topics, metrics, values, *, residuals: bool = False, colnames: bool = False) -> str:
    """cwl_eval's output: tab-separated, four decimals, a row per topic and metric."""
    import numpy as np

    width = 10 if residuals else 5
    cells = np.char.mod("%.4f", values[:, :, :width])
    lines = []
    if colnames:
        lines.append("\t".join(HEADER + (RESIDUAL_HEADER if residuals else ())))
    names = [m.name for m in metrics]
    for topic, row in zip(topics, cells, strict=True):
        lines.extend(
            f"{topic}\t{name}\t" + "\t".join(v) for name, v in zip(names, row, strict=True)
        )
    return "\n".join(lines) + "\n" if lines else ""
