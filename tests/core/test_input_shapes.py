"""The shapes researchers have at hand go straight into ``cranfield.evaluate``:
pytrec_eval's dicts, ranx's ``Qrels``/``Run``, ir_measures' records (lists and
iterators), with ir_measures (pytrec_eval underneath) as the oracle of the numbers;
anything else gets one clear message. Results and comparisons display as tables in
Jupyter (``_repr_html_``)."""

from __future__ import annotations

import html
import re

import ir_measures
import numpy as np
import pytest
import ranx
from ir_measures import AP, P, Qrel, ScoredDoc, nDCG

from cranfield import evaluate
from cranfield.compare import compare
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError

MEASURES = ["AP", "nDCG@10", "P@5"]
ORACLE = [AP, nDCG @ 10, P @ 5]


def generated(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(2, 9))):
        docs = [f"d{k}" for k in range(int(rng.integers(3, 25)))]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(docs, len(docs) // 2)}
        run[f"q{q}"] = {d: float(rng.integers(0, 50)) / 7 for d in docs}
    return qrels, run


def oracle(qrels: dict, run: dict) -> dict:
    values = ir_measures.calc_aggregate(ORACLE, qrels, run)
    return {name: values[m] for name, m in zip(MEASURES, ORACLE, strict=True)}


def ours(results, name=None) -> dict:
    return results[name if name is not None else results.run_names[0]]


@pytest.mark.parametrize("seed", range(6))
def test_every_shape_gives_the_oracle_numbers(seed):
    qrels, run = generated(seed)
    expected = oracle(qrels, run)
    qrecords = [Qrel(q, d, g, "0") for q, by in qrels.items() for d, g in by.items()]
    rrecords = [ScoredDoc(q, d, s) for q, by in run.items() for d, s in by.items()]
    shapes = {
        "pytrec_eval dicts": (qrels, run),
        "ranx": (ranx.Qrels(qrels), ranx.Run(run, name="sys")),
        "ir_measures lists": (qrecords, rrecords),
        "ir_measures iterators": (iter(qrecords), iter(rrecords)),
    }
    for shape, (q, r) in shapes.items():
        got = ours(evaluate(q, r, MEASURES))
        for m in MEASURES:
            assert got[m] == pytest.approx(expected[m], abs=1e-12), (shape, m)


def test_ranx_run_keeps_its_name_and_a_list_of_runs_works():
    qrels, run = generated(1)
    results = evaluate(
        ranx.Qrels(qrels), [ranx.Run(run, name="a"), ranx.Run(run, name="b")], MEASURES
    )
    assert results.run_names == ["a", "b"]
    assert Run.coerce(ranx.Run(run, name="bm25")).name == "bm25"
    assert Qrels.coerce(ranx.Qrels(qrels)).to_dict() == qrels


@pytest.mark.parametrize(
    "qrels, mention",
    [
        (42, "cannot make Qrels from int"),
        ([1, 2, 3], "cannot make Qrels from list"),
        ([ScoredDoc("q", "d", 1.0)], "'relevance' field"),
    ],
)
def test_shapes_it_cannot_read_get_one_message(qrels, mention):
    with pytest.raises(InputError, match=re.escape(mention)) as info:
        evaluate(qrels, {"q": {"d": 1.0}}, ["AP"])
    assert "\n" not in str(info.value)


def test_results_and_comparisons_display_as_html_tables():
    qrels, run = generated(2)
    other = {q: {d: -s for d, s in by.items()} for q, by in run.items()}
    results = evaluate(qrels, {"sys": run, "rev": other}, MEASURES)
    page = results._repr_html_()
    cells = re.findall(r"<td>([^<]*)</td>", page)
    assert cells == [f"{results[r][m]:.4f}" for r in ("sys", "rev") for m in MEASURES]
    body = page.split("<tbody>")[1]
    assert re.findall(r"<tr><th>([^<]*)</th>", body) == ["sys", "rev"]
    comparison = compare(results.per_query_table())
    assert comparison._repr_html_() == comparison.render("html", "summary")
    assert html.escape("nDCG@10") in page
