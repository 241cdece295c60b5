"""``cranfield trec_eval`` without measure parameters reads its columns from a table
(:mod:`cranfield.core._trec_columns`, :func:`cranfield.core.trec_eval.quick_columns`)
instead of importing every measure family: the table must be what the registry gives,
for every trec_eval measure name and nickname."""

from __future__ import annotations

import pytest

from cranfield.core import _trec_columns
from cranfield.core.measures.registry import TREC_NICKNAMES, trec_measures
from cranfield.core.trec_eval import (
    columns,
    engine_columns,
    quick_columns,
    select,
    trec_columns_table,
)
from fresh import loaded_after

NAMES = [t.name for t in trec_measures()]


def full(args: list[str], num_docs: int = 0):
    """The columns as the registry gives them (what quick_columns stands in for)."""
    return engine_columns(columns(select(args), num_docs))


def test_the_table_is_the_registrys():
    # when this fails, a family's declaration changed: regenerate the table as its
    # docstring says
    table = (
        _trec_columns.DEFAULT,
        _trec_columns.ORDER,
        _trec_columns.NICKNAMES,
        _trec_columns.COLUMNS,
    )
    assert table == trec_columns_table()


@pytest.mark.parametrize("name", NAMES + list(TREC_NICKNAMES))
def test_each_name_gives_the_registrys_columns(name):
    quick = quick_columns([name])
    supported = all(t.supported for t in trec_measures() if t.name == name)
    if name in _trec_columns.NICKNAMES or (name in NAMES and supported):
        assert quick is not None
        assert quick == full([name])
    else:  # unsupported: left to select(), which says so
        assert quick is None


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["all_trec"],
        ["set", "official"],
        ["P", "map", "num_q", "P"],  # repeated, out of trec_eval's order
        ["utility", "relstring", "runid", "set_F", "ndcg", "Rprec_mult", "iprec_at_recall"],
        NAMES[:12] + ["all_trec"],
    ],
)
def test_lists_of_names_give_the_registrys_columns(args):
    assert quick_columns(args) == full(args)


@pytest.mark.parametrize(
    "args",
    [
        ["P.5,10"],  # parameters: read by columns()
        ["map", "ndcg_cut.10"],
        ["map."],
        ["nonsense"],
        ["map", "prefs_simp"],  # unsupported
        ["all_prefs"],
        [""],
        ["official", "MAP"],
    ],
)
def test_other_measure_lists_are_left_to_select(args):
    assert quick_columns(args) is None


def test_a_collection_size_is_left_to_columns():
    assert quick_columns(["utility"], num_docs_in_coll=100) is None
    assert full(["utility"], 100) != full(["utility"])  # it would change the columns


def test_printed_names_are_ascii():
    # (trec_eval_by_engine re-encodes names that are not, from the Column list)
    for cols in _trec_columns.COLUMNS.values():
        assert all(col[0].isascii() for col in cols)


def test_quick_columns_import_no_measure_family():
    script = (
        "from cranfield.core.trec_eval import quick_columns\nassert quick_columns(['all_trec'])\n"
    )
    assert loaded_after(script, "cranfield.core.measures") == []
