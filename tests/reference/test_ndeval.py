"""cranfield's diversity evaluation against ndeval itself (ndeval.c 4.5).

The oracle is the C source TREC distributes, compiled by the ``pyndeval`` package
(pyproject's ``test`` extra): its extension module includes ndeval.c whole, ``main``
too. ``cranfield ndeval`` is compared byte for byte with ndeval's ``main`` (run in a
process of its own: it exits on errors and keeps its options in globals) on generated
and adversarial files, under every option; the measure language (``evaluate(...,
subtopic_qrels=...)``) is compared bit for bit with ndeval's per-topic doubles
(``_pyndeval.eval``, ndeval's own functions on one topic).
"""

from __future__ import annotations

import random
import subprocess
import sys

import _pyndeval  # pyndeval (the test extra): ndeval.c compiled
import pytest

from cranfield.cli.main import main

ORACLE = (
    "import ctypes, sys, _pyndeval\n"
    "lib = ctypes.CDLL(_pyndeval.__file__)\n"
    "args = [b'ndeval'] + [a.encode() for a in sys.argv[1:]]\n"
    "argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)\n"
    "status = lib.main(len(args), argv)\n"
    "ctypes.CDLL(None).fflush(None)\n"
    "sys.exit(status)\n"
)


def ndeval(*args) -> subprocess.CompletedProcess:
    """ndeval's ``main`` with these arguments, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-c", ORACLE, *map(str, args)], capture_output=True, timeout=60
    )


def cranfield_ndeval(capsys, *args) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(["ndeval", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def collection(rng: random.Random, topics: int, prefix: str = "") -> tuple[str, str, dict]:
    """Subtopic qrels and a run (TREC text) with the awkward cases ndeval meets: ties,
    one subtopic, documents relevant to no subtopic, grades above 1, repeated lines,
    topics without a relevant subtopic, topics only one side knows, unjudged documents."""
    qrels, run = [], []
    truth = {}
    for t in range(1, topics + 1):
        kind = rng.random()
        n_sub = 1 if kind < 0.15 else rng.randint(2, 8)
        docs = [f"d{rng.randint(0, 60):02d}" for _ in range(rng.randint(1, 25))]
        if t % 11 != 3:  # some topics only the run has
            for d in set(docs):
                for s in rng.sample(range(n_sub + 2), rng.randint(1, n_sub)):
                    grade = 0 if kind > 0.9 else rng.choice([0, 0, 1, 1, 2, 3])
                    qrels.append(f"{t} {s} {d} {grade}")
                    if rng.random() < 0.05:  # a repeated line (same judgment)
                        qrels.append(f"{t} {s} {d} {grade}")
        if t % 13 == 5:
            continue  # a qrels topic the run does not answer
        ranked = rng.sample([f"d{i:02d}" for i in range(70)], rng.randint(1, 35))
        scores = [rng.choice([1.0, 2.0, 3.0, rng.random()]) for _ in ranked]  # ties
        for rank, (d, sc) in enumerate(zip(ranked, scores, strict=True), 1):
            run.append(f"{prefix}{t} Q0 {d} {rank} {sc!r} tag")
        truth[t] = list(zip(ranked, scores, strict=True))
    rng.shuffle(qrels)
    rng.shuffle(run)
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n", truth


OPTIONS = [
    [],
    ["-c"],
    ["-traditional"],
    ["-alpha", "0.3", "-beta", "0.8"],
    ["-alpha", "0", "-beta", "1"],
    ["-alpha", "1", "-beta", "0"],
    ["-M", "7", "-traditional"],
    ["-ca", "-alpha", "0.9"],
]


@pytest.mark.parametrize("seed", range(len(OPTIONS)))
def test_ndeval_output_byte_for_byte(tmp_path, capsys, seed):
    rng = random.Random(seed)
    qrels_text, run_text, _ = collection(rng, 40, prefix="wt09-" if seed % 2 else "")
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    options = OPTIONS[seed]
    expected = ndeval(*options, qrels, run)
    assert expected.returncode == 0, expected.stderr
    status, out, err = cranfield_ndeval(capsys, *options, qrels, run)
    assert (status, err) == (0, "")
    assert out.encode() == expected.stdout
    assert out.count("\n") > 30


def _run_in_layout(run_text: str, layout: str, rng: random.Random) -> str:
    """The lines of a run rearranged as run files are written: topic by topic in rank
    order, topics in string order, ranks descending, one topic split in two blocks."""
    rows = [line.split() for line in run_text.splitlines()]
    rows.sort(key=lambda r: (int(r[0].rpartition("-")[2]), int(r[3])))
    if layout == "topics as strings":
        rows.sort(key=lambda r: r[0])
    elif layout == "ranks descending":
        rows.sort(key=lambda r: (int(r[0].rpartition("-")[2]), -int(r[3])))
    elif layout == "a topic split":
        cut = rng.randrange(1, len(rows))
        moved = [r for r in rows[:cut] if r[0] == rows[cut][0]]
        rows = [r for r in rows if r not in moved] + moved
    return "".join(" ".join(r) + "\n" for r in rows)


LAYOUTS = ["by topic and rank", "topics as strings", "ranks descending", "a topic split"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("big", [False, True], ids=["small", "two halves"])
def test_run_layouts_as_ndeval_ranks_them(tmp_path, capsys, layout, big):
    """A run written topic by topic is taken block by block; any other order is ranked
    by its rank column: the same output as ndeval either way, and a run over 1 MB (read
    in two halves, a topic across the cut) too."""
    rng = random.Random(LAYOUTS.index(layout) + 10 * big)
    qrels_text, run_text, _ = collection(rng, 300 if big else 40)
    if big:  # long rankings of unjudged documents: over 1 MB, a topic across the cut
        extra = [
            f"{t} Q0 x{t}-{rank} {rank} 0.5 tag" for t in range(1, 301) for rank in range(100, 250)
        ]
        run_text += "\n".join(extra) + "\n"
        assert len(run_text) > 1 << 20
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(_run_in_layout(run_text, layout, rng))
    for options in ([], ["-M", "30"]):
        expected = ndeval(*options, qrels, run)
        assert expected.returncode == 0, expected.stderr
        status, out, err = cranfield_ndeval(capsys, *options, qrels, run)
        assert (status, err) == (0, "") and out.encode() == expected.stdout, options
    if big:  # a bad line in the second half is reported with its number in the file
        lines = run.read_text().splitlines()
        bad = len(lines) * 3 // 4
        lines[bad] = "1 Q0 d01 x 1 tag"
        run.write_text("\n".join(lines) + "\n")
        status, out, err = cranfield_ndeval(capsys, qrels, run)
        assert status == 2 and out == "" and f"{run}:{bad + 1}:" in err


@pytest.mark.parametrize(
    "run_text",
    [
        "1 Q0 a 1 1 r\n1 Q0 b 2 1 r\n2 Q0 c 1 1 r\n1 Q0 d 2 1 r\n",  # split, rank repeated
        "1 Q0 a 2 1 r\n1 Q0 b 2 1 r\n",  # one block, rank repeated
        "1 Q0 a 3 1 r\n1 Q0 b 1 1 r\n1 Q0 c 3 1 r\n",  # unordered block, rank repeated
        "1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n1 Q0 a 2 1 r\n",  # split, docno repeated
    ],
)
def test_repeated_ranks_and_docnos_refused_in_any_layout(tmp_path, capsys, run_text):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 1 a 1\n2 1 b 1\n")
    run.write_text(run_text)
    expected = ndeval(qrels, run)
    assert expected.returncode != 0 and expected.stdout == b""
    status, out, err = cranfield_ndeval(capsys, qrels, run)
    assert status == 2 and out == "" and err.count("\n") == 1
    word = "rank" if b"duplicate rank" in expected.stderr else "docno"
    assert f"duplicate {word}" in err, (expected.stderr, err)


@pytest.mark.parametrize("complete", [False, True])
def test_risk_sensitive_output_byte_for_byte(tmp_path, capsys, complete):
    rng = random.Random(100 + complete)
    qrels_text, run_text, _ = collection(rng, 30)
    _, base_text, _ = collection(random.Random(7), 34)  # other topics, ranks and docs
    paths = {}
    for name, text in (("qrels", qrels_text), ("run", run_text), ("base", base_text)):
        paths[name] = tmp_path / name
        paths[name].write_text(text.replace(" tag\n", f" {name}\n"))
    options = ["-baseline", paths["base"], "-riskAlpha", "2.50", *(["-c"] if complete else [])]
    expected = ndeval(*options, paths["qrels"], paths["run"])
    assert expected.returncode == 0, expected.stderr
    status, out, _ = cranfield_ndeval(capsys, *options, paths["qrels"], paths["run"])
    assert status == 0 and out.encode() == expected.stdout
    assert "(rel to. base; rs=1+a; a=2.50)" in out


def test_nan_and_no_known_topic_as_ndeval_prints_them(tmp_path, capsys):
    """A topic whose subtopics have no relevant document (nNRBP 0/0), and a run none of
    whose topics the qrels know (every mean 0/0)."""
    qrels = tmp_path / "q"
    qrels.write_text("1 1 a 0\n1 2 b 0\n2 1 a 1\n")
    cases = {"some": "1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n", "none": "7 Q0 a 1 1 r\n"}
    for name, text in cases.items():
        run = tmp_path / name
        run.write_text(text)
        expected = ndeval(qrels, run)
        status, out, _ = cranfield_ndeval(capsys, qrels, run)
        assert status == 0 and out.encode() == expected.stdout, name
        assert "nan" in out


@pytest.mark.parametrize(
    "qrels_text, run_text",
    [
        ("1 1 a 1\n1 x b 1\n", "1 Q0 a 1 1 r\n"),  # a subtopic that is not a number
        ("1 1 a -1\n", "1 Q0 a 1 1 r\n"),  # a negative judgment
        ("1 1 a\n", "1 Q0 a 1 1 r\n"),  # three fields
        ("", "1 Q0 a 1 1 r\n"),  # empty qrels
        ("1 1 a 1\n", ""),  # empty run
        ("1 1 a 1\n", "1 Q0 a 1 1 r\n1 Q0 b 1 1 r\n"),  # a rank repeated
        ("1 1 a 1\n", "1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n"),  # a docno repeated
        ("1 1 a 1\n", "1 Q0 a one 1 r\n"),  # a rank that is not a number
        ("1 1 a 1\n", "1 Q0 a 1 1\n"),  # five fields
        ("1 1 a 1\n", "x Q0 a 1 1 r\n"),  # a topic without a number
    ],
)
def test_what_ndeval_refuses_is_refused_in_one_line(tmp_path, capsys, qrels_text, run_text):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    expected = ndeval(qrels, run)
    assert expected.returncode != 0 and expected.stdout == b""
    status, out, err = cranfield_ndeval(capsys, qrels, run)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "cranfield ndeval: error:" in err
    assert str(qrels if "qrel" in expected.stderr.decode() else run) in err


def _pyndeval_topic(judgments, ranked, alpha, beta):
    """ndeval's doubles for one topic: ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG, P-IA,
    strec at each cut 1..20, then NRBP, nNRBP, MAP-IA."""
    _pyndeval.set_global_alpha_beta(alpha, beta)
    qrels = _pyndeval.Qrels([(s, d, min(g, 1)) for s, d, g in judgments], 20)
    asked = [(m, k) for m in range(6) for k in range(1, 21)] + [(6, None), (7, None), (8, None)]
    return asked, _pyndeval.eval(qrels, [(d, r) for r, d in enumerate(ranked, 1)], asked)


FAMILIES = ["ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "P_IA", "StRecall"]


def test_measure_language_equals_ndeval_bit_for_bit():
    """Every family at every cut to 20, random alpha and beta, on generated topics:
    cranfield's ranking (score descending, ties by document id descending) is
    ndeval's -traditional one."""
    import pyarrow as pa

    import cranfield
    from cranfield.core.subtopics import SubtopicQrels

    compared = 0
    for seed in range(6):
        rng = random.Random(1000 + seed)
        qrels_text, _, truth = collection(rng, 40)
        rows = [line.split() for line in qrels_text.splitlines()]
        subtopics = SubtopicQrels(
            pa.table(
                {
                    "query_id": [r[0] for r in rows],
                    "subtopic": [int(r[1]) for r in rows],
                    "doc_id": [r[2] for r in rows],
                    "relevance": [int(r[3]) for r in rows],
                }
            )
        )
        alpha, beta = rng.choice([0.5, 0.0, 1.0, rng.random()]), rng.random()
        names = [
            f"{f}(alpha={alpha!r})@{k}"
            for f in FAMILIES
            if f not in ("P_IA", "StRecall")
            for k in range(1, 21)
        ]
        names += [f"{f}@{k}" for f in ("P_IA", "StRecall") for k in range(1, 21)]
        names += [f"NRBP(alpha={alpha!r},beta={beta!r})", f"nNRBP(alpha={alpha!r},beta={beta!r})"]
        names += ["MAP_IA"]
        run = {str(t): {d: s for d, s in docs} for t, docs in truth.items()}
        adhoc = {str(t): {"d00": 0} for t in truth}  # every run topic evaluated
        result = cranfield.evaluate(adhoc, run, names, subtopic_qrels=subtopics)
        r = result.runs[0]
        measures = list(result.measures)
        assert [m.name for m in measures][-3:] == ["NRBP", "nNRBP", "MAP_IA"]
        column = {m: dict(zip(r.query_ids, r.values[m], strict=True)) for m in measures}
        qrels_of = {}
        for q, s, d, g in rows:
            qrels_of.setdefault(q, []).append((int(s), d, int(g)))
        for t, docs in truth.items():
            q = str(t)
            got = [column[m][q] for m in measures]
            if q not in qrels_of or not any(g > 0 for _, _, g in qrels_of[q]):
                assert got == [0.0] * len(measures), q  # no relevant subtopic: 0
                continue
            # ties: document id descending (trec_eval's and ndeval -traditional's order)
            ranked = [d for d, _ in sorted(docs, key=lambda x: (x[1], x[0]), reverse=True)]
            # ndeval's order of families is the order of ``names`` above
            expected = _pyndeval_topic(qrels_of[q], ranked, alpha, beta)[1]
            for m, a, b in zip(measures, got, expected, strict=True):
                assert a == b, (seed, q, str(m), a, b)
                compared += 1
    assert compared > 10_000


def test_a_large_qrels_file_read_in_two_halves_is_ndevals(tmp_path, capsys):
    """Qrels over 1 MB are read by two threads, cut at a line end: the same output as
    ndeval, and a bad line in the second half reported with its own number."""
    rng = random.Random(42)
    qrels_text, run_text, _ = collection(rng, 40)
    lines = qrels_text.splitlines()
    while sum(len(x) + 1 for x in lines) < 1_300_000:  # repeated judgments: same meaning
        lines += lines[:5000]
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("\n".join(lines) + "\n")
    run.write_text(run_text)
    expected = ndeval(qrels, run)
    assert expected.returncode == 0, expected.stderr
    status, out, err = cranfield_ndeval(capsys, qrels, run)
    assert (status, err) == (0, "") and out.encode() == expected.stdout
    bad = len(lines) * 3 // 4
    lines[bad] = "1 x d01 1"
    qrels.write_text("\n".join(lines) + "\n")
    status, out, err = cranfield_ndeval(capsys, qrels, run)
    assert status == 2 and out == "" and f"{qrels}:{bad + 1}:" in err
