"""One generic robustness test run over every registered measure (DESIGN.md).

Each measure family is evaluated, with and without its cutoff, on adversarial inputs:
queries with empty rankings (only in the qrels, under complete=True), queries without
relevant documents, queries where nothing retrieved is judged, negative judgments,
tied scores, a one-document ranking. It must return one finite value per query (or a
string for relstring), the same values twice, the same values whatever the order of the
run's rows, and reject a parameter of the wrong kind with a message naming it.
"""

from __future__ import annotations

import numpy as np
import pytest
from measures_helpers import instances

from cranfield import Qrels, Run
from cranfield.core.judged import judge
from cranfield.core.measures.registry import Measure, all_definitions
from cranfield.errors import MeasureError

QRELS = {
    "q_normal": {"a": 2, "b": 0, "c": 1, "d": 3, "e": 0, "f": -1},
    "q_norel": {"a": 0, "b": 0},
    "q_unjudged_ret": {"z": 1},
    "q_missing": {"a": 1, "b": 2},
    "q_negative": {"a": -1, "b": -2, "c": 1},
    "q_one": {"only": 1},
}
RUN = {
    "q_normal": {"a": 1.0, "b": 1.0, "c": 0.5, "x": 0.5, "d": 0.1, "f": 2.0},
    "q_norel": {"a": 3.0, "b": 2.0, "y": 1.0},
    "q_unjudged_ret": {"u1": 1.0, "u2": 1.0, "u3": 0.0},
    "q_negative": {"a": 5.0, "b": 4.0, "c": 3.0, "n": 3.0},
    "q_one": {"only": 0.3},
    "q_not_in_qrels": {"a": 1.0},
}


ALL = [m for d in all_definitions() for m in instances(d)]


def _subtopics():
    """The qrels above as subtopic qrels (for the diversity families): each judgment on
    subtopic grade mod 3, negative grades as 0."""
    import pyarrow as pa

    from cranfield.core.subtopics import SubtopicQrels

    rows = [(q, g % 3, d, max(g, 0)) for q, docs in QRELS.items() for d, g in docs.items()]
    names = ("query_id", "subtopic", "doc_id", "relevance")
    return SubtopicQrels(pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)}))


@pytest.fixture(scope="module")
def judged():
    qrels = Qrels.from_dict(QRELS)
    run = Run.from_dict(RUN, name="r")
    table = run.table
    reversed_run = Run(table.take(np.arange(len(table))[::-1]), name="r")
    from cranfield.core.options import JudgeOptions
    from cranfield.core.sampled_run import attach_sampled
    from cranfield.core.subtopics import judge_intents

    subtopics = _subtopics()
    sampled = _sampled()
    out = {}
    for complete in (False, True):
        for judged_only in (False, True):
            key = (complete, judged_only)
            out[key] = (
                judge(qrels, run, complete=complete, judged_only=judged_only),
                judge(qrels, reversed_run, complete=complete, judged_only=judged_only),
            )
            options = JudgeOptions(complete=complete, judged_only=judged_only)
            for jr, r in zip(out[key], (run, reversed_run), strict=True):
                attach_sampled(sampled, jr, r, options)  # (for the sampled estimators)
            out[(*key, "diversity")] = (
                judge_intents(subtopics, run, options),
                judge_intents(subtopics, reversed_run, options),
            )
    return out


def _sampled() -> dict:
    """The qrels above as sampled qrels (for the sampled estimators): two strata, the
    negative grades pooled and not sampled, every inclusion probability 1/2."""
    from cranfield.core.sampled import SampledTopic

    out = {}
    for q, docs in QRELS.items():
        topic = out[q] = SampledTopic()
        for k, (d, g) in enumerate(docs.items()):
            topic.docs[d] = (str(1 + k % 2), max(g, -1), str(max(g, -1)))
            topic.probability[d] = 0.5
    return out


@pytest.mark.parametrize("measure", ALL, ids=str)
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("judged_only", [False, True])
def test_every_measure_on_adversarial_input(measure, complete, judged_only, judged):
    diversity = ("diversity",) if measure.definition.family == "diversity" else ()
    jr, jr_reversed = judged[(complete, judged_only, *diversity)]
    values = measure.compute(jr)
    assert len(values) == jr.num_queries == (6 if complete else 5)
    if measure.definition.kind == "str":
        assert all(isinstance(v, str) for v in values)
    else:
        values = np.asarray(values, dtype=np.float64)
        assert np.all(np.isfinite(values)), dict(zip(jr.query_ids, values, strict=True))
    again = measure.compute(jr)
    reordered = measure.compute(jr_reversed)
    assert list(map(str, again)) == list(map(str, values))
    assert list(map(str, reordered)) == list(map(str, values))


@pytest.mark.parametrize("definition", all_definitions(), ids=lambda d: d.name)
def test_bad_parameter_values_name_the_parameter(definition):
    for p in definition.params:
        if p.kind in (int, float):
            bad = "not-a-number"
        elif p.kind is bool:
            bad = "perhaps"
        elif p.choices:
            bad = "no-such-choice"
        else:
            continue
        with pytest.raises(MeasureError, match=p.name):
            Measure.of(definition.name, cutoff=instances(definition)[0].cutoff, **{p.name: bad})
    with pytest.raises(MeasureError, match="unknown parameter"):
        Measure.of(definition.name, cutoff=instances(definition)[0].cutoff, no_such_param=1)


@pytest.mark.parametrize("measure", ALL, ids=str)
def test_canonical_names_round_trip(measure):
    from cranfield.core.measures import parse

    assert parse(str(measure)) == measure
