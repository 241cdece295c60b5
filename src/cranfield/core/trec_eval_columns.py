"""trec_eval's measures as ``cranfield trec_eval`` selects and prints them: the ``-m``
arguments read as trec_eval 10.0 reads them (``meas_init.c``, ``gain_init.c``:
C's ``atol``/``atof`` on the parameters), the printed columns in trec_eval's order,
and the columns as the compiled engine takes them.

The CLI's cold path needs neither NumPy nor the judging code (PyArrow), and for
measures without parameters not even the measure registry (:func:`quick_columns`,
from the generated ``core/_trec_columns.py``).
"""

from __future__ import annotations

import os

from .. import _engine
from .._lazy import lazy
from .._record import Record
from ..errors import MeasureError

math = lazy("math", __name__, "math")  # (a shared library to load: parameters need it)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from .measures.registry import Measure, TrecEval


class Column(Record):
    """One printed measure: its printed name, the cranfield measure and the kind."""

    __slots__ = ("printed", "kind", "measure", "blank", "reset", "recount")
    _frozen = False
    printed: str
    kind: str
    measure: Measure | None
    blank: bool  # relstring of length <= 0: trec_eval prints '' for every topic
    reset: bool  # the topics -c adds score 0 (TrecEval.reset_with_c)
    recount: bool  # the summary under -c counts the qrels (TrecEval.recount_with_c)

    def __init__(
        self,
        printed: str,
        kind: str,
        measure: Measure | None,
        blank: bool = False,
        reset: bool = False,
        recount: bool = False,
    ) -> None:
        self.printed, self.kind, self.measure = printed, kind, measure
        self.blank, self.reset, self.recount = blank, reset, recount

    def spec(self) -> tuple | None:
        """The measure as the engine's kernels take it: ``(family, cutoff, params)``."""
        if self.measure is None:
            return None
        m = self.measure
        params = m.param_values()
        params.pop("judged_only", None)  # trec_eval's -J is applied by judging
        return (m.name, m.cutoff, params)

    def described(self, with_spec: bool = False) -> tuple:
        """The column for the engine's printer (``cranfield_eval::trec_eval::Col``)."""
        spec = self.spec() if with_spec else None
        return (self.printed, self.kind, spec, self.blank, self.reset, self.recount)


def select(measure_args: list[str]) -> list[tuple[TrecEval, str | None]]:
    """Marked measures in trec_eval order, each with the first parameters given.

    The measures, their order and the nicknames come from the measure registry
    (:class:`~cranfield.core.measures.registry.TrecEval`).
    """
    from .measures.registry import TREC_DEFAULT_NICKNAME, trec_measures, trec_nicknames

    table = {t.name: t for t in trec_measures()}
    nicknames = trec_nicknames()
    unsupported = {n for n, t in table.items() if not t.supported} | {
        n for n, members in nicknames.items() if not all(table[m].supported for m in members)
    }
    params: dict[str, str | None] = {}
    marked: set[str] = set()
    for arg in measure_args or [TREC_DEFAULT_NICKNAME]:
        name, _, param = arg.partition(".")
        if "." in arg and not param:
            raise MeasureError(f"improper measure in parameter '{name}'")
        if name in unsupported or name.startswith("prefs_"):
            raise MeasureError(
                f"'{name}' needs preference or judgment-group files, which are not supported"
            )
        if "." in arg:
            params.setdefault(name, param)
        if name in nicknames:
            marked.update(nicknames[name])
        elif name in table:
            marked.add(name)
        else:
            from .measures.names import suggest

            raise MeasureError(f"illegal measure '{arg}'{suggest(name)}")
    return [(t, params.get(t.name)) for t in table.values() if t.name in marked]


# -- trec_eval's reading of measure parameters (meas_init.c, gain_init.c) ---------------
# Numbers are read as C's atol/atof read them: the longest numeric prefix after leading
# white space, 0 when there is none ("1e3" -> 1 as a cutoff, "0.5x" -> 0.5, "x" -> 0).

# (patterns compiled on first use, by re's cache: plain numbers, such as the default
# cutoffs, are read without them)
_SPACE = " \t\n\v\f\r"
_ATOL = r"[+-]?\d+"
_ATOF = (
    r"[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    r"|(?i:inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))"
)
_LONG_MAX = 2**63 - 1


def c_atol(text: str) -> int:
    """C's ``atol`` (glibc's ``strtol``: saturates at the 64-bit range)."""
    text = text.lstrip(_SPACE)
    if text.isascii() and text.isdigit():  # digits only: the whole text is the number
        return min(_LONG_MAX, int(text))
    import re

    m = re.match(_ATOL, text)
    if not m:
        return 0
    return max(-_LONG_MAX - 1, min(_LONG_MAX, int(m.group())))


def c_atof(text: str) -> float:
    """C's ``atof`` (``strtod``): decimal, hexadecimal, inf and nan prefixes."""
    text = text.lstrip(_SPACE)
    digits = text.replace(".", "", 1)
    if digits.isascii() and digits.isdigit():  # 5, 0.25, .5, 5.: the whole text
        return float(text)
    import re

    m = re.match(_ATOF, text)
    if not m:
        return 0.0
    number = m.group()
    body = number.lstrip("+-")
    sign = -1.0 if number.startswith("-") else 1.0
    if body[:2].lower() == "0x":
        return sign * float.fromhex(body)
    if body[:3].lower() == "nan":
        return math.copysign(math.nan, sign)
    return float(number)


def _valid_int(text: str) -> bool:
    """gain_init.c's test of a gain level name: an optional sign, then digits only."""
    import re

    return re.fullmatch(r"[+-]?[0-9]+", text) is not None


def _cutoff_values(tm: TrecEval, param: str | None) -> list:
    text = param if param is not None else tm.cutoffs
    if tm.kind == "cut_long":
        values = sorted(c_atol(v) for v in text.split(","))
        if values[0] <= 0:
            raise MeasureError(f"{tm.name}: cutoffs must be positive, got '{text}'")
    else:
        values = sorted(c_atof(v) for v in text.split(","))
        if not all(math.isfinite(v) for v in values):
            raise MeasureError(f"{tm.name}: cutoffs must be finite numbers, got '{text}'")
    if len(set(values)) != len(values):
        raise MeasureError(f"{tm.name}: duplicate cutoffs in '{text}'")
    return values


def _params_as_read(tm: TrecEval, param: str) -> str | None:
    """The parameter string with every number as trec_eval reads it, for parse_trec.

    Comma lists (utility, 11pt_avg, set_F, relstring) are read with ``atof``; pair lists
    (``ndcg.1=3,2=9``, ``rbp.p=0.5``) must alternate names and values as trec_eval
    checks them, keep the gain levels named by an integer (and ``p`` for rbp), the first
    of repeated levels (the last ``p``), and read values with ``atof``; the keys the
    measure does not read (``TrecEval.pairs``: rbp_resid reads only ``p``) are then
    dropped. Returns None when nothing is left (trec_eval then uses the defaults).
    """
    if tm.pairs is None:
        values = [c_atof(v) for v in param.split(",")]
        if not all(math.isfinite(v) for v in values):
            raise MeasureError(f"{tm.name}: parameters must be finite numbers, got '{param}'")
        if tm.values[:1] == ("cutoff",):
            return str(int(values[0]))  # trec_eval truncates a length to an integer
        return ",".join(repr(v) for v in values)
    # the shape trec_eval accepts: the last separator is '=', no ',,' and no '=='
    last = ","
    for ch in param:
        if ch in ",=":
            if ch == last:
                last = ","
                break
            last = ch
    if last != "=":
        raise MeasureError(f"{tm.name}: malformed pair parameters in '{param}'")
    kept: dict[str, float] = {}
    for item in param.split(","):
        name, _, value = item.partition("=")
        if _valid_int(name):
            key = str(c_atol(name))
        elif name in tm.pairs:  # a named parameter (rbp's p)
            key = name
        else:
            continue  # trec_eval ignores other names
        number = c_atof(value)
        if not math.isfinite(number):
            raise MeasureError(f"{tm.name}: gains must be finite numbers, got '{param}'")
        if key in tm.pairs:
            kept[key] = number  # the last p is read (m_rbp.c loops over every pair)
        else:
            kept.setdefault(key, number)  # the first gain of a level is used
    if "gains" not in tm.pairs:
        kept = {k: v for k, v in kept.items() if k in tm.pairs}
    if not kept:
        return None
    return ",".join(f"{k}={v!r}" for k, v in kept.items())


def _double_name(name: str, value: float) -> str:
    """``snprintf(buf, strlen(name) + 10, "%s_%3.2f")``: at most 8 characters of value."""
    return f"{name}_{value:3.2f}"[: len(name) + 9]


# kinds whose trec_eval initialisation never reads parameters: `-m map.5` is `map`
TAKES_NO_PARAMS = ("run_name", "query_count", "long", "float", "gm")


def columns(selected, num_docs_in_coll: int = 0) -> list[Column]:
    """Expand the selected trec measures into printed columns."""
    from .measures.names import parse_trec
    from .measures.registry import Measure

    out: list[Column] = []
    for tm, param in selected:
        if tm.kind in TAKES_NO_PARAMS:
            param = None
        if tm.kind in ("run_name", "query_count"):
            out.append(Column(tm.name, tm.kind, None))
        elif tm.kind in ("cut_long", "cut_double"):
            values = _cutoff_values(tm, param)
            joined = ",".join(repr(v) for v in values)
            for v, m in zip(values, parse_trec(tm.name, joined), strict=True):
                printed = f"{tm.name}_{v}" if tm.kind == "cut_long" else _double_name(tm.name, v)
                out.append(Column(printed, tm.kind, m, reset=tm.reset_with_c))
        else:
            read = None if param is None else _params_as_read(tm, param)
            blank = tm.kind == "string" and read is not None and int(read) <= 0
            (m,) = parse_trec(tm.name, "1" if blank else read)
            if "collection_size" in (p.name for p in m.definition.params) and num_docs_in_coll:
                m = Measure.of(m.name, **{**dict(m.params), "collection_size": num_docs_in_coll})
            printed = tm.name if param is None else f"{tm.name}_{param}"
            reset = tm.reset_with_c and param is None
            out.append(Column(printed, tm.kind, m, blank, reset, tm.recount_with_c))
    return out


def quick_columns(measure_args: list[str], num_docs_in_coll: int = 0) -> list[tuple] | None:
    """The columns for the engine (as :func:`engine_columns` gives them) of measures
    named without parameters, read from :mod:`cranfield.core._trec_columns`, or None.

    That table is what :func:`select`, :func:`columns` and :func:`engine_columns` make
    of each supported trec_eval measure and nickname without parameters; it spares a
    ``cranfield trec_eval -m all_trec`` the import of every measure family (tests/core/
    test_trec_columns.py checks it against the registry). Parameters (``P.5,10``), a
    collection size (``-N``), a name it does not hold (unsupported, unknown) and a
    family the engine does not compute all return None: :func:`select` and
    :func:`columns` then read the measures (and raise the errors).
    """
    from ._trec_columns import COLUMNS, DEFAULT, NICKNAMES, ORDER

    if num_docs_in_coll:
        return None
    marked: set[str] = set()
    for arg in measure_args or [DEFAULT]:
        if arg in NICKNAMES:
            marked.update(NICKNAMES[arg])
        elif arg in COLUMNS:
            marked.add(arg)
        else:
            return None
    described = [col for name in ORDER if name in marked for col in COLUMNS[name]]
    families = _engine.measure_families()
    if any(col[2] is not None and col[2][0] not in families for col in described):
        return None
    return described


def trec_columns_table() -> tuple[str, tuple[str, ...], dict, dict]:
    """(DEFAULT, ORDER, NICKNAMES, COLUMNS) of :mod:`cranfield.core._trec_columns`, made
    from the measure registry: the nickname used without ``-m``, the supported trec_eval
    measures in trec_eval's order, the nicknames all of whose measures are supported,
    and each measure's engine columns without parameters (:func:`quick_columns`)."""
    from .measures.registry import TREC_DEFAULT_NICKNAME, trec_measures, trec_nicknames

    table = [t for t in trec_measures() if t.supported]
    order = tuple(t.name for t in table)
    nicknames = {
        n: tuple(members)
        for n, members in trec_nicknames().items()
        if all(m in order for m in members)
    }
    cols = {t.name: tuple(engine_columns(columns([(t, None)]))) for t in table}
    return TREC_DEFAULT_NICKNAME, order, nicknames, cols


def write_trec_columns() -> None:
    """Write :mod:`cranfield.core._trec_columns` from the registry (then ruff-format it)."""
    from pprint import pformat

    default, order, nicknames, cols = trec_columns_table()
    text = (
        '"""trec_eval\'s measures as ``cranfield trec_eval`` prints them without parameters.\n\n'
        "Generated from the measure registry by\n"
        "``python -c 'from cranfield.core.trec_eval import write_trec_columns as w; w()'``\n"
        "(do not edit; tests/core/test_trec_columns.py checks it). See\n"
        ':func:`cranfield.core.trec_eval.quick_columns`.\n"""\n\n'
        f"DEFAULT = {default!r}\n\n"
        f"ORDER = {pformat(order, width=88)}\n\n"
        f"NICKNAMES = {pformat(nicknames, width=88, sort_dicts=False)}\n\n"
        f"COLUMNS = {pformat(cols, width=88, sort_dicts=False)}\n"
    )
    with open(os.path.join(os.path.dirname(__file__), "_trec_columns.py"), "w") as fh:
        fh.write(text)


def engine_columns(cols: list[Column]) -> list[tuple] | None:
    """The columns with their measures as the engine takes them, or None when a measure
    is one the engine does not compute or a printed name is not text (lone surrogates
    from undecodable arguments)."""
    families = _engine.measure_families()
    measures = [c.measure for c in cols if c.measure is not None]
    if any(m.name not in families for m in measures):
        return None
    try:
        for c in cols:
            c.printed.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return [c.described(with_spec=True) for c in cols]
