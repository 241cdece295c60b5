"""The measure registry is the one source of trec_eval's measure table and nicknames.

trec_eval 10.0's own tables are read from its C source (measures.c: ``te_trec_measures``
and the nickname lists; each m_*.c: the measure's name, how it is initialised,
averaged and printed, and its default parameters), and the tables cranfield derives
from its registry (:func:`trec_measures`, :func:`trec_nicknames`) must equal them. A
second test checks that the trec_eval front end and the name parser hold no list of
trec_eval names of their own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cranfield.core.measures.registry import (
    TREC_NICKNAMES,
    lookup,
    trec_measure,
    trec_measures,
    trec_nicknames,
)

from .conftest import _source_dir

SRC = Path(__file__).resolve().parents[2] / "src" / "cranfield"


@pytest.fixture(scope="module")
def c_source() -> Path:
    src = _source_dir()
    if src is None:
        pytest.fail("trec_eval 10.0 source not found; set CRANFIELD_TREC_EVAL_SRC")
    return src


def _array(text: str, name: str) -> list[str]:
    """The items of the C array ``name[] = { ... };`` (string quotes and ``&`` removed)."""
    m = re.search(r"\b" + re.escape(name) + r"\[\]\s*=\s*\{(.*?)\};", text, re.S)
    assert m, name
    items = [i.strip().strip('"').lstrip("&").strip() for i in m.group(1).split(",")]
    return [i for i in items if i and i != "NULL"]


def _strip_strings(text: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text, flags=re.S)


def _c_measures(src: Path) -> dict[str, dict]:
    """Every ``TREC_MEAS te_meas_X = {...}`` of the m_*.c files, by variable name."""
    out = {}
    for path in sorted(src.glob("m_*.c")):
        text = path.read_text(encoding="latin-1")
        for m in re.finditer(r'TREC_MEAS\s+(te_meas_\w+)\s*=\s*\{\s*"([^"]+)"', text):
            body = _strip_strings(text[m.end() : text.index("};", m.end())])
            fields = [f.strip() for f in body.split(",")][2:]  # after the explanation
            init, _calc, _acc, avg, _single, final, params = fields[:7]
            default = None
            p = re.search(r"&(\w+)", params)
            if p:
                # static PARAMS NAME = { NULL, count, &array[0] }
                struct = re.search(r"\b" + p.group(1) + r"\s*=\s*\{(.*?)\};", text, re.S)
                arr = re.search(r"&(\w+)\[0\]", struct.group(1)) if struct else None
                if arr:
                    default = [float(v) for v in _array(text, arr.group(1))]
            out[m.group(1)] = {
                "name": m.group(2),
                "init": init,
                "avg": avg,
                "final": final,
                "default": default,
            }
    return out


def _c_kind(c: dict) -> str:
    """Our printed kind for a trec_eval measure, from the functions it is built of."""
    init = c["init"]
    if init == "te_init_meas_empty":
        return "run_name"
    if init == "te_init_meas_s_long":
        return "query_count" if c["avg"] == "te_calc_avg_num_q" else "long"
    if init == "te_init_meas_s_double":
        return "gm" if c["avg"] == "te_calc_avg_meas_s_gm" else "float"
    if init.startswith("te_init_meas_a_double_cut_"):
        return "cut_" + init.rsplit("_", 1)[1]
    if init.startswith("te_init_meas_s_double_p_"):
        return "string" if c["final"] == "te_print_relstring" else "params"
    raise AssertionError(f"unexpected trec_eval initialiser {init}")


def test_measure_table_is_trec_evals_in_order(c_source):
    text = (c_source / "measures.c").read_text(encoding="latin-1")
    measures = _c_measures(c_source)
    table = [measures[v]["name"] for v in _array(text, "te_trec_measures")]
    assert [t.name for t in trec_measures()] == table
    assert [t.order for t in trec_measures()] == list(range(len(table)))


def test_nicknames_are_trec_evals(c_source):
    text = (c_source / "measures.c").read_text(encoding="latin-1")
    pairs = re.search(r"te_trec_measure_nicknames\[\]\s*=\s*\{(.*?)\};", text, re.S).group(1)
    c_nicknames = {
        nick: _array(text, var) for nick, var in re.findall(r'\{\s*"(\w+)"\s*,\s*(\w+)\s*\}', pairs)
    }
    assert list(c_nicknames) == list(TREC_NICKNAMES)
    derived = trec_nicknames()
    # trec_eval prints what a nickname selects in its measure table's order, so only the
    # membership of each list matters; the derived lists are in that order
    for nick, members in c_nicknames.items():
        assert sorted(derived[nick]) == sorted(members), nick
        assert derived[nick] == [t.name for t in trec_measures() if t.name in members]


def test_kinds_and_defaults_are_trec_evals(c_source):
    for c in _c_measures(c_source).values():
        t = trec_measure(c["name"])
        if t is None:
            continue  # declared in a file but absent from the table (num_nonjudged_ret)
        if not t.supported:
            assert t.family is None
            continue
        assert t.kind == _c_kind(c), t.name
        if t.cutoffs is not None:
            assert [float(v) for v in t.cutoffs.split(",")] == c["default"], t.name
        if t.kind == "params":
            # p_pair measures read level=gain pairs; p_double ones a list of values
            assert (t.pairs is not None) == c["init"].endswith("_p_pair"), t.name
            assert bool(t.values) == c["init"].endswith("_p_double"), t.name
        if t.values and t.values != ("cutoff",):
            d = lookup(t.family)
            defaults = [d.param(v).default for v in t.values]
            flat = list(defaults[0]) if d.param(t.values[0]).kind == "floats" else defaults
            assert [float(v) for v in flat] == c["default"], t.name


def test_every_supported_trec_name_parses_to_its_family():
    from cranfield.core.measures.names import parse_many

    for t in trec_measures():
        if t.family is not None:
            assert {m.name for m in parse_many(t.name)} == {t.family}, t.name


def _names_in(path: Path) -> set[str]:
    """String constants of a module that are trec_eval measure names or nicknames."""
    names = {t.name for t in trec_measures()} | set(TREC_NICKNAMES)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found |= {node.value} & names
    return found


@pytest.mark.parametrize("module", ["core/trec_eval.py", "core/measures/names.py"])
def test_no_other_module_declares_trec_eval_names(module):
    assert _names_in(SRC / module) == set()


def test_pair_parameters_read_as_declared():
    """rbp_resid reads ``p`` from a pair list, as trec_eval does (m_rbp_resid.c); the
    measure language reads it the same way (it refused ``rbp_resid.p=0.5`` when its own
    list of pair measures left rbp_resid out)."""
    from cranfield.core.measures.names import parse_many
    from cranfield.core.measures.registry import Measure

    assert parse_many("rbp_resid.p=0.5") == [Measure.of("rbp_resid", p=0.5)]
    assert parse_many("rbp.p=0.5,2=3") == [Measure.of("rbp", p=0.5, gains={2: 3})]
