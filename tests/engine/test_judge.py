"""The engine's judging of TREC files (``_engine.judge_trec_files``, the crate
``rust/eval``'s ``judge``) against the Python path: ``judge(Qrels.read(q), Run.read(r),
options)`` array for array, dtype for dtype, on random files built to hit trec_eval's
ordering (ties, scores equal only as float32), ids sorted by bytes (case, digits,
non-ASCII UTF-8, Latin-1), duplicate lines, negative and fractional grades, and every
judging option; and raising where the Python path raises."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from cranfield import _engine
from cranfield.core.judged import judge
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError

SEEDS = range(120)

# query and document ids: byte order differs from any "natural" order
ASCII_IDS = ["1", "10", "2", "A", "a", "B", "b", "Z9", "z", "q-1", "q_1", "Q1", "q1", "0"]
UTF8_IDS = ["é", "e", "ü", "日本", "日", "Ω", "a\u00e9", "\U0001f600", "ß", "ss"]
LATIN1_IDS = [b"\xe9", b"e", b"\xff", b"\x80x", b"a\xa0", b"Z", b"\xc3\xa9", b"z"]

# scores: ties, -0.0 / 0.0, infinities, and pairs equal only after rounding to float32
SCORES = [
    "1",
    "1.0",
    "2",
    "0",
    "-0",
    "-0.0",
    "0.5",
    "-3",
    "inf",
    "-inf",
    "1e300",
    "-1e300",
    "0.1",
    "0.10000000000000002",
    "1.00000001",
    "1.00000002",
    "16777217",
    "16777216",
    "3.4028235e38",
    "3.4028236e38",
]
FRACTIONS = ["0.5", "-0.0", "0.0", "0", "1.25", "2", "-1.5", "-0", "3.75", "1e-300"]

OPTION_SETS = [
    {},
    {"rel_level": 2},
    {"rel_level": 0, "compat": 9},
    {"compat": 9},
    {"depth": 3},
    {"judged_only": True},
    {"depth": 4, "judged_only": True},
    {"complete": True},
    {"complete": True, "depth": 2, "judged_only": True, "compat": 9},
    {"duplicates": "first"},
    {"duplicates": "max", "compat": 9},
]


def _ids(rng, pool, n):
    return [pool[i] for i in rng.choice(len(pool), size=min(n, len(pool)), replace=False)]


def _encode(value, latin1: bool) -> bytes:
    return value if isinstance(value, bytes) else value.encode("latin-1" if latin1 else "utf-8")


def random_files(seed: int, tmp_path):
    """(run path, qrels path, latin1, fractional, qrels duplicates policy)."""
    rng = np.random.default_rng(seed)
    latin1 = seed % 4 == 3
    fractional = seed % 5 == 4
    pool = LATIN1_IDS + [s.encode() for s in ASCII_IDS] if latin1 else ASCII_IDS + UTF8_IDS
    queries = _ids(rng, pool, int(rng.integers(1, 9)))
    docs_pool = pool + [f"d{i}" for i in range(40)]
    big = seed % 7 == 0
    q_lines, r_lines = [], []
    for qi, q in enumerate(queries):
        docs = _ids(rng, docs_pool, int(rng.integers(0, 30)))
        # qrels: some topics only in the run, some only in the qrels
        if qi % 5 != 4:
            for d in docs[: int(rng.integers(0, len(docs) + 1))]:
                if fractional:
                    g = FRACTIONS[int(rng.integers(len(FRACTIONS)))]
                else:
                    g = str(int(rng.integers(-3, 5)) * (300 if big and rng.random() < 0.2 else 1))
                q_lines.append((q, d, g))
        if qi % 5 != 3:
            ranked = docs[: int(rng.integers(0, len(docs) + 1))] + [f"x{j}" for j in range(3)]
            for d in ranked:
                s = SCORES[int(rng.integers(len(SCORES)))] if seed % 3 else str(rng.normal())
                r_lines.append((q, d, s))
    # duplicate lines now and then (the policies decide what they mean)
    for lines in (q_lines, r_lines):
        if lines and rng.random() < 0.3:
            q, d, v = lines[int(rng.integers(len(lines)))]
            lines.insert(
                int(rng.integers(len(lines) + 1)), (q, d, v if rng.random() < 0.5 else "1")
            )
    # shuffled files: topics in several blocks
    for lines in (q_lines, r_lines):
        if rng.random() < 0.5:
            order = rng.permutation(len(lines))
            lines[:] = [lines[i] for i in order]
    if not r_lines:
        r_lines.append((pool[0], "d0", "1"))
    if not q_lines:
        q_lines.append((pool[1], "d0", "1"))
    tags = [b"runA", b"r\xe9n" if latin1 else "rün".encode(), b"t\xff" if not latin1 else b"x"]
    tag = tags[seed % 3]
    end = [b"\n", b"\r\n", b"\n"][seed % 3]
    q_text = b"".join(
        _encode(q, latin1) + b" 0 " + _encode(d, latin1) + b" " + g.encode() + end
        for q, d, g in q_lines
    )
    r_text = b"".join(
        _encode(q, latin1) + b" Q0 " + _encode(d, latin1) + f" {i} {s} ".encode() + tag + end
        for i, (q, d, s) in enumerate(r_lines)
    )
    if seed % 6 == 0:
        r_text = b"# a comment\n\n" + r_text
    run_path, qrels_path = tmp_path / f"run{seed}", tmp_path / f"qrels{seed}"
    run_path.write_bytes(r_text)
    qrels_path.write_bytes(q_text)
    qrels_policy = ["error", "first", "max"][seed % 3]
    return run_path, qrels_path, latin1, fractional, qrels_policy


def python_judge(run_path, qrels_path, latin1, fractional, qrels_policy, options):
    encoding = "latin-1" if latin1 else "utf-8"
    qrels = Qrels.read(
        qrels_path, format="trec", encoding=encoding, fractional=fractional, duplicates=qrels_policy
    )
    run = Run.read(run_path, format="trec", encoding=encoding, duplicates=options.duplicates)
    return judge(qrels, run, options)


def engine_judge(run_path, qrels_path, latin1, fractional, qrels_policy, options):
    return _engine.judge_trec_files(
        str(run_path),
        str(qrels_path),
        latin1=latin1,
        fractional=fractional,
        rel_level=options.rel_level,
        depth=options.depth,
        judged_only=options.judged_only,
        complete=options.complete,
        compat=options.compat,
        duplicates=options.duplicates,
        qrels_duplicates=qrels_policy,
    )


def same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and values, the sign of zero included."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b) and (np.signbit(a) == np.signbit(b)).all())
    return bool(np.array_equal(a, b))


def assert_same(got, jr) -> None:
    query_ids, offsets, labels, qrels_offsets, qrels_grades, in_run, run_name = got
    assert query_ids == list(jr.query_ids)
    assert same_array(offsets, jr.offsets.astype(np.int64, copy=False))
    assert offsets.dtype == np.int64 and jr.offsets.dtype == np.int64
    assert same_array(labels, jr.labels), (labels, jr.labels)
    assert same_array(qrels_offsets, jr.qrels_offsets)
    assert same_array(qrels_grades, jr.qrels_grades), (qrels_grades, jr.qrels_grades)
    assert same_array(in_run, jr.in_run)
    assert run_name == jr.run_name


def check(paths, options) -> str:
    """Compare the two paths; returns "ok" or "raised" (both raised, on the same file)."""
    try:
        jr = python_judge(*paths, options)
    except InputError as exc:
        with pytest.raises(_engine.JudgeError) as info:
            engine_judge(*paths, options)
        what, which, _, _ = info.value.args
        assert what in ("duplicate", "read", "empty")
        assert exc.source == str(paths[0] if which == "run" else paths[1])
        return "raised"
    assert_same(engine_judge(*paths, options), jr)
    return "ok"


@pytest.mark.parametrize("seed", SEEDS)
def test_engine_judges_as_python(seed, tmp_path):
    paths = random_files(seed, tmp_path)
    outcomes = [check(paths, JudgeOptions(**kw)) for kw in OPTION_SETS]
    assert "ok" in outcomes or "raised" in outcomes


def test_the_random_files_reach_every_case(tmp_path):
    """The generator makes judged runs of every shape the comparison must cover."""
    seen = set()
    for seed in SEEDS:
        paths = random_files(seed, tmp_path)
        for kw in ({}, {"complete": True}, {"duplicates": "first"}):
            try:
                jr = python_judge(*paths, JudgeOptions(**kw))
            except InputError:
                seen.add("error")
                continue
            seen.add(jr.labels.dtype.name)
            seen.add("empty" if jr.num_queries == 0 else "topics")
            if not jr.in_run.all():
                seen.add("complete")
            if (jr.labels == -2).any():
                seen.add("unjudged")
    assert seen >= {"int8", "int64", "float64", "error", "empty", "topics", "complete", "unjudged"}


def _write(tmp_path, name: str, text: bytes):
    path = tmp_path / name
    path.write_bytes(text)
    return path


def test_ties_only_as_float32(tmp_path):
    """1.00000001 and 1.00000002 differ as doubles and tie as float32: compat 9 orders
    them by document id, compat 10 by score."""
    run = _write(tmp_path, "r", b"q Q0 a 1 1.00000002 t\nq Q0 b 2 1.00000001 t\n")
    qrels = _write(tmp_path, "q", b"q 0 a 1\nq 0 b 0\n")
    for compat, expected in ((10, [1, 0]), (9, [0, 1])):
        got = _engine.judge_trec_files(str(run), str(qrels), compat=compat)
        assert got[2].tolist() == expected
        assert_same(
            got, python_judge(run, qrels, False, False, "error", JudgeOptions(compat=compat))
        )


def test_no_topic_left(tmp_path):
    """A run answering none of the qrels topics: no query, as in Python."""
    run = _write(tmp_path, "r", b"x Q0 a 1 1 t\n")
    qrels = _write(tmp_path, "q", b"q 0 a 1\n")
    got = _engine.judge_trec_files(str(run), str(qrels))
    assert got[0] == [] and got[1].tolist() == [0] and got[3].tolist() == [0]
    assert_same(got, python_judge(run, qrels, False, False, "error", JudgeOptions()))


@pytest.mark.parametrize(
    ("run_text", "qrels_text", "which", "what"),
    [
        (b"q Q0 a 1 1 t\nq Q0 a 2 0 t\n", b"q 0 a 1\n", "run", "duplicate"),
        (b"q Q0 a 1 1 t\n", b"q 0 a 1\nq 0 a 0\n", "qrels", "duplicate"),
        (b"x Q0 a 1 1 t\nx Q0 a 2 0 t\n", b"q 0 a 1\n", "run", "duplicate"),
        (b"q Q0 a 1 nan t\n", b"q 0 a 1\n", "run", "read"),
        (b"q Q0 a 1 1 t\n", b"q 0 a x\n", "qrels", "read"),
        (b"", b"q 0 a 1\n", "run", "empty"),
        (b"q Q0 a 1 1 t\n", b"# nothing\n", "qrels", "empty"),
        # the qrels are read first: their duplicate comes before any problem of the run
        (b"", b"q 0 a 1\nq 0 a 0\n", "qrels", "duplicate"),
        (b"q Q0 a 1 nan t\n", b"q 0 a 1\nq 0 a 0\n", "qrels", "duplicate"),
    ],
)
def test_raises_where_python_raises(tmp_path, run_text, qrels_text, which, what):
    run, qrels = _write(tmp_path, "r", run_text), _write(tmp_path, "q", qrels_text)
    with pytest.raises(InputError):
        python_judge(run, qrels, False, False, "error", JudgeOptions())
    with pytest.raises(_engine.JudgeError) as info:
        _engine.judge_trec_files(str(run), str(qrels))
    assert info.value.args[:2] == (what, which)


def test_gzip_files_are_judged_as_the_plain_ones(tmp_path):
    """gzip is recognised by its magic bytes, whatever the name, and decompressed as it
    is read; beyond ``max_bytes`` decompressed it is an I/O error (the caller reports it)."""
    run = b"q Q0 a 1 1 t\nq Q0 b 2 0.5 t\nr Q0 a 1 3 t\n"
    qrels = b"q 0 a 1\nq 0 b 2\nr 0 c 1\n"
    plain = _engine.judge_trec_files(
        str(_write(tmp_path, "r", run)), str(_write(tmp_path, "q", qrels))
    )
    zipped = _engine.judge_trec_files(
        str(_write(tmp_path, "r.txt", gzip.compress(run))),
        str(_write(tmp_path, "q.txt", gzip.compress(qrels))),
    )
    assert plain[0] == zipped[0] and plain[6] == zipped[6]
    assert all(same_array(a, b) for a, b in zip(plain[1:6], zipped[1:6], strict=True))
    with pytest.raises(_engine.JudgeError) as info:
        _engine.judge_trec_files(
            str(tmp_path / "r.txt"), str(tmp_path / "q.txt"), max_bytes=len(qrels) - 1
        )
    assert info.value.args[:2] == ("io", "qrels")


def test_pipes_and_qrels_text_are_read_directories_are_not(tmp_path):
    """A named pipe (run or qrels) is read once, as the regular file; the qrels may come
    as their text (plain or gzip); a directory is left to the Python readers."""
    from fifo import fifo_with_writer

    qrels_text = b"q 0 a 1\nq 0 b 0\nr 0 c 2\n"
    run_text = b"q Q0 b 1 2 t\nq Q0 a 2 1 t\nr Q0 c 1 1 t\n"
    qrels = _write(tmp_path, "q", qrels_text)
    run = _write(tmp_path, "r", run_text)
    want = _engine.judge_trec_files(str(run), str(qrels))
    pipe, writer = fifo_with_writer(tmp_path / "run-pipe", gzip.compress(run_text))
    assert _same(_engine.judge_trec_files(str(pipe), str(qrels)), want)
    writer.join(timeout=5)
    pipe, writer = fifo_with_writer(tmp_path / "qrels-pipe", qrels_text)
    assert _same(_engine.judge_trec_files(str(run), str(pipe)), want)
    writer.join(timeout=5)
    for text in (qrels_text, gzip.compress(qrels_text)):
        got = _engine.judge_trec_files(str(run), "<qrels>", qrels_text=text)
        assert _same(got, want)
    for text, problem in ((b"q 0 a 1\nq 0 b x\n", "grade"), (b"q 0 a 1\nq 0 \0 1\n", "nul")):
        with pytest.raises(_engine.JudgeError) as info:
            _engine.judge_trec_files(str(run), "<qrels>", qrels_text=text)
        assert info.value.args[:3] == ("read", "qrels", 2)
        assert info.value.args[3][0] == problem
    with pytest.raises(_engine.JudgeError) as info:
        _engine.judge_trec_files(str(tmp_path), str(qrels))
    assert info.value.args[:2] == ("unsupported", "run")
    with pytest.raises(_engine.JudgeError) as info:
        _engine.judge_trec_files(str(tmp_path / "missing"), str(qrels))
    assert info.value.args[:2] == ("io", "run")


def _same(a: tuple, b: tuple) -> bool:
    """Two judging tuples are equal, array for array (dtypes too)."""
    return all(
        x == y if not hasattr(x, "dtype") else (x.dtype == y.dtype and np.array_equal(x, y))
        for x, y in zip(a, b, strict=True)
    )


def test_bad_options_are_refused(tmp_path):
    run, qrels = _write(tmp_path, "r", b"q Q0 a 1 1 t\n"), _write(tmp_path, "q", b"q 0 a 1\n")
    with pytest.raises(_engine.JudgeError):
        _engine.judge_trec_files(str(run), str(qrels), depth=0)
    with pytest.raises(_engine.JudgeError):
        _engine.judge_trec_files(str(run), str(qrels), compat=8)
    with pytest.raises(ValueError):
        _engine.judge_trec_files(str(run), str(qrels), duplicates="last")
    # a depth beyond 2**64 is the whole ranking
    got = _engine.judge_trec_files(str(run), str(qrels), depth=2**70)
    assert got[2].tolist() == [1]


@pytest.mark.parametrize("policy", ["first", "max"])
def test_signed_zero_grades_kept_as_python_keeps_them(tmp_path, policy):
    """-0.0 and 0.0 judged twice for one document: the same one is kept, and the ideal
    grades keep file order between them."""
    qrels = _write(tmp_path, "q", b"q 0 a -0.0\nq 0 a 0.0\nq 0 b 0.0\nq 0 b -0.0\nq 0 c -0\n")
    run = _write(tmp_path, "r", b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nq Q0 c 1 3 t\n")
    got = _engine.judge_trec_files(str(run), str(qrels), fractional=True, qrels_duplicates=policy)
    assert_same(got, python_judge(run, qrels, False, True, policy, JudgeOptions()))
    assert np.signbit(got[2]).tolist() == [True, False, True]


def test_a_file_of_several_pieces(tmp_path):
    """A run of more than one 8 MiB piece (read in parallel), a topic straddling the
    border, duplicate lines kept by policy, ties and float32 ties: judged as in Python."""
    rng = np.random.default_rng(7)
    n = 360_000
    topic = np.sort(rng.integers(0, 40, n))
    topic[-50:] = 3  # topic 3 again at the end: in two blocks
    doc = rng.integers(0, 20_000, n)
    score = np.round(rng.normal(size=n), 3) + np.where(rng.random(n) < 0.1, 1e-9, 0.0)
    lines = [
        f"q{t} Q0 D{d:05d} 0 {float(s)!r} tag\n" for t, d, s in zip(topic, doc, score, strict=True)
    ]
    run = _write(tmp_path, "run", "".join(lines).encode())
    assert run.stat().st_size > (1 << 23) + (1 << 19)  # two pieces
    q_topic, q_doc = rng.integers(0, 45, 20_000), rng.integers(0, 20_000, 20_000)
    grades = rng.integers(-1, 3, 20_000)
    q_lines = {(t, d): int(g) for t, d, g in zip(q_topic, q_doc, grades, strict=True)}
    qrels = _write(
        tmp_path,
        "qrels",
        "".join(f"q{t} 0 D{d:05d} {g}\n" for (t, d), g in q_lines.items()).encode(),
    )
    paths = (run, qrels, False, False, "error")
    for options in (
        JudgeOptions(duplicates="max", compat=9, complete=True),
        JudgeOptions(duplicates="first", depth=100, judged_only=True),
    ):
        assert_same(engine_judge(*paths, options), python_judge(*paths, options))
    with pytest.raises(_engine.JudgeError):
        engine_judge(*paths, JudgeOptions())  # the duplicates are an error by default
