"""gdeval_nDCG@k and gdeval_ERR@k against gdeval.pl itself, run by Perl: the copy
the ``ir-measures`` package (a test-only dependency, pinned in the ``test`` extra)
distributes as ``ir_measures/bin/gdeval.pl`` (version 1.2a, which prints no mean row),
read from the installed package, never copied into this repository.

The per-topic values are compared as gdeval.pl prints them (``%.5f``), on generated
runs with ties in score, unjudged and negatively judged documents, grades 0 to 4 and
topics without a positive judgment (which gdeval.pl leaves out and cranfield scores
0: compared where gdeval.pl prints them, and the mean with ``skip_no_relevant``).
"""

from __future__ import annotations

import pkgutil
import random
import shutil
import subprocess

import pytest

import cranfield

PERL = shutil.which("perl")


@pytest.fixture(scope="module")
def gdeval(tmp_path_factory):
    assert PERL, "perl is needed to run gdeval.pl (apt-get install perl)"
    text = pkgutil.get_data("ir_measures", "bin/gdeval.pl")
    assert text and b"Graded relevance assessment script" in text
    path = tmp_path_factory.mktemp("gdeval") / "gdeval.pl"
    path.write_bytes(text)
    return path


def _case(rng: random.Random, tmp):
    qrels, run = [], []
    for topic in rng.sample(range(1, 60), rng.randint(1, 6)):
        docs = [f"doc{rng.randint(0, 40)}" for _ in range(rng.randint(1, 25))]
        docs = list(dict.fromkeys(docs))
        no_relevant = rng.random() < 0.2
        for d in docs:
            if rng.random() < 0.8:
                grade = 0 if no_relevant else rng.choice([-1, 0, 0, 1, 1, 2, 3, 4])
                qrels.append(f"{topic} 0 {d} {grade}")
        ranked = rng.sample(docs + [f"new{j}" for j in range(4)], rng.randint(1, len(docs) + 4))
        for r, d in enumerate(ranked, 1):
            score = rng.choice([1.0, 2.0, 2.5, 3.0]) if rng.random() < 0.5 else rng.random()
            run.append(f"{topic} Q0 {d} {r} {score:.4f} tag")
    if not qrels:
        qrels.append(f"{topic} 0 {ranked[0]} 1")
    (tmp / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp / "run").write_text("\n".join(run) + "\n")
    return tmp / "qrels", tmp / "run"


def _perl(gdeval, qrels, run, k) -> dict[str, tuple[str, str]]:
    out = subprocess.run(
        [PERL, str(gdeval), str(qrels), str(run), str(k)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    rows = [line.split(",") for line in out.splitlines()[1:] if line]
    return {topic: (ndcg, err) for _, topic, ndcg, err in rows}


@pytest.mark.parametrize("seed", range(6))
def test_generated_cases_equal_gdeval(gdeval, tmp_path, seed):
    rng = random.Random(seed)
    for i in range(12):  # 72 cases, 2 subprocesses each
        case = tmp_path / str(i)
        case.mkdir()
        qrels, run = _case(rng, case)
        k = rng.choice([1, 3, 5, 10, 20])
        theirs = _perl(gdeval, qrels, run, k)
        names = [f"gdeval_nDCG@{k}", f"gdeval_ERR@{k}"]
        res = cranfield.evaluate(str(qrels), str(run), names)
        ndcg, err = (res.per_query(measure=n) for n in names)
        assert set(theirs) <= set(ndcg)
        for topic, (t_ndcg, t_err) in theirs.items():
            assert (f"{ndcg[topic]:.5f}", f"{err[topic]:.5f}") == (t_ndcg, t_err), topic
        for topic in set(ndcg) - set(theirs):  # no positive judgment: left out by gdeval
            assert ndcg[topic] == 0.0 and err[topic] == 0.0
        if theirs:  # gdeval.pl's mean: over the topics it prints
            skipped = cranfield.evaluate(str(qrels), str(run), names, skip_no_relevant=True)
            mean = sum(float(v[0]) for v in theirs.values()) / len(theirs)
            assert abs(skipped.aggregate(measure=names[0]) - mean) <= 5e-6
