"""The engine's judge against a plain-Python reference judge written here (dicts and
sorting: trec_eval's ``form_res_rels`` spelled out), on both of its paths:

* TREC files (``_engine.judge_trec_files``, the crate ``rust/eval``'s ``judge``);
* Arrow tables (``cranfield.core.judged.judge`` -> ``_engine.judge_arrow_runs``, after the
  readers' duplicate check ``_engine.repeated_pairs``): tables chunked and sliced
  every which way, ``string`` and ``large_string`` ids, queries interleaved.

Array for array, dtype for dtype, on random inputs built to hit trec_eval's ordering
(ties, scores equal only as float32), ids sorted by bytes (case, digits, non-ASCII
UTF-8, Latin-1), duplicate lines under each policy, negative and fractional grades, and
every judging option; and raising where the reference raises."""

from __future__ import annotations

import gzip
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest

from cranfield import _engine
from cranfield.core.io import arrays
from cranfield.core.judged import judge, judge_runs
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.errors import InputError
from generators import judging_files

SEEDS = range(120)

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


class Repeated(Exception):
    """The reference's error: a (query, document) pair listed twice ("error" policy)."""

    def __init__(self, which: str):
        super().__init__(which)
        self.which = which


def parse_text(text: bytes, kind: str, latin1: bool, fractional: bool = False):
    """The rows of a TREC file, plainly: (query, doc, value) per data line and the run's
    tag (the sixth field of its last line)."""
    encoding = "latin-1" if latin1 else "utf-8"
    rows, tag = [], None
    for line in text.replace(b"\r\n", b"\n").split(b"\n"):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        q, d = fields[0].decode(encoding), fields[2].decode(encoding)
        if kind == "run":
            rows.append((q, d, float(fields[4])))
            tag = fields[5]
        else:
            rows.append((q, d, float(fields[3]) if fractional else int(fields[3])))
    if tag is not None:
        tag = tag.decode(encoding, "replace")
    return rows, tag


def deduplicated(rows: list, policy: str, which: str) -> list:
    """``rows`` with each (query, doc) once: the first row, or the first of the highest
    value ("max"); "error" raises :class:`Repeated`."""
    kept: dict = {}
    for i, (q, d, v) in enumerate(rows):
        if (q, d) not in kept:
            kept[q, d] = i
        elif policy == "error":
            raise Repeated(which)
        elif policy == "max" and v > rows[kept[q, d]][2]:
            kept[q, d] = i
    return sorted(kept.values())


def _byte_key(s: str) -> bytes:
    return s.encode("utf-8")


def _rank_key(compat: int):
    def key(item):
        doc, score = item[0], item[1]
        if compat == 9:
            with np.errstate(over="ignore"):
                score = float(np.float32(score))
        return (score + 0.0, _byte_key(doc))

    return key


def reference(run_rows, qrels_rows, options, qrels_policy="error", fractional=False):
    """The judged run, the obvious way: ``(query_ids, offsets, labels, qrels_offsets,
    qrels_grades, in_run)`` as the engine gives them, and the run row of every ranked
    document. Raises :class:`Repeated` (qrels first)."""
    q_keep = deduplicated(qrels_rows, qrels_policy, "qrels")
    r_keep = deduplicated(run_rows, options.duplicates, "run")
    judged: dict = {}
    for i in q_keep:
        q, d, g = qrels_rows[i]
        judged.setdefault(q, {})[d] = g
    by_query: dict = {}
    for i in r_keep:
        q, d, s = run_rows[i]
        by_query.setdefault(q, []).append((d, s, i))
    topics = sorted(judged, key=_byte_key)
    evaluated = [t for t in topics if options.complete or t in by_query]
    grades_all = [qrels_rows[i][2] for i in q_keep]
    if fractional:
        dtype = np.float64
    elif all(-128 <= g <= 127 for g in grades_all):
        dtype = np.int8
    else:
        dtype = np.int64
    offsets, labels, rows, q_offsets, q_grades = [0], [], [], [0], []
    for t in evaluated:
        ranking = sorted(by_query.get(t, []), key=_rank_key(options.compat), reverse=True)
        if options.depth is not None:
            ranking = ranking[: options.depth]
        for d, _, row in ranking:
            g = judged[t].get(d)
            label = -1 if g is None else (g if g >= 0 else -2)
            if options.judged_only and label < 0:
                continue
            labels.append(label)
            rows.append(row)
        offsets.append(len(labels))
        ideal = [judged[t][d] for d in judged[t] if judged[t][d] >= 0]
        # descending; equal grades (0.0 and -0.0 too) in qrels row order
        q_grades += sorted(ideal, key=lambda g: -g)
        q_offsets.append(len(q_grades))
    got = (
        list(evaluated),
        np.array(offsets, dtype=np.int64),
        np.array(labels, dtype=dtype),
        np.array(q_offsets, dtype=np.int64),
        np.array(q_grades, dtype=np.float64 if fractional else np.int64),
        np.array([t in by_query for t in evaluated], dtype=bool),
    )
    return got, rows


def engine_judge(run_path, qrels_path, latin1, fractional, qrels_policy, options):
    return _engine.judge_trec_files(
        str(run_path),
        str(qrels_path),
        options=options,
        latin1=latin1,
        fractional=fractional,
        qrels_duplicates=qrels_policy,
    )


def same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and values, the sign of zero included."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b) and (np.signbit(a) == np.signbit(b)).all())
    return bool(np.array_equal(a, b))


def assert_same(got, want) -> None:
    """The engine's tuple (7 items, or 8 with the document rows) equals the reference's
    six arrays."""
    assert got[0] == want[0]
    for name, a, b in zip(
        ("offsets", "labels", "qrels_offsets", "qrels_grades", "in_run"),
        got[1:6],
        want[1:6],
        strict=True,
    ):
        assert same_array(a, b), (name, a, b)


def read_paths(paths):
    """The reference's rows of the files of :func:`judging_files`."""
    run_path, qrels_path, latin1, fractional, _ = paths
    run_rows, tag = parse_text(run_path.read_bytes(), "run", latin1)
    qrels_rows, _ = parse_text(qrels_path.read_bytes(), "qrels", latin1, fractional)
    return run_rows, tag, qrels_rows


def reference_of(run_path, qrels_path, latin1, fractional, qrels_policy, options):
    """The reference's arrays for two files."""
    paths = (run_path, qrels_path, latin1, fractional, qrels_policy)
    run_rows, _, qrels_rows = read_paths(paths)
    return reference(run_rows, qrels_rows, options, qrels_policy, fractional)[0]


def check_files(paths, options) -> str:
    """The file path against the reference; "ok" or "raised" (both raised)."""
    run_rows, tag, qrels_rows = read_paths(paths)
    try:
        want, _ = reference(run_rows, qrels_rows, options, paths[4], paths[3])
    except Repeated as exc:
        with pytest.raises(_engine.JudgeError) as info:
            engine_judge(*paths, options)
        assert info.value.args[:2] == ("duplicate", exc.which)
        return "raised"
    got = engine_judge(*paths, options)
    assert_same(got, want)
    assert got[6] == tag
    return "ok"


# -- Arrow tables: chunked, sliced, large_string ---------------------------------------------


def _column(values: list, type_, rng) -> pa.ChunkedArray:
    """``values`` as a chunked array of random chunks, each a slice (non-zero offset) of
    a larger array."""
    cuts = sorted(rng.integers(0, len(values) + 1, int(rng.integers(0, 4))).tolist())
    bounds = [0, *cuts, len(values)]
    chunks = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        pad = int(rng.integers(0, 3))
        filler = ["pad"] * pad if type_ in (pa.string(), pa.large_string()) else [0] * pad
        whole = pa.array(filler + values[a:b] + filler, type_)
        chunks.append(whole.slice(pad, b - a))
    return pa.chunked_array(chunks, type_)


def arrow_table(rows: list, value: str, value_type, rng, large: bool) -> pa.Table:
    ids = pa.large_string() if large else pa.string()
    return pa.table(
        {
            "query_id": _column([r[0] for r in rows], ids, rng),
            "doc_id": _column([r[1] for r in rows], ids, rng),
            value: _column([r[2] for r in rows], value_type, rng),
        }
    )


def judge_arrow(run_table, qrels_table, options):
    [got] = _engine.judge_arrow_runs(
        [arrays.engine_batches(run_table, "score")],
        _engine.QrelsIndex(arrays.engine_batches(qrels_table, "relevance")),
        options=options,
    )
    return got


def check_tables(run_rows, qrels_rows, options, qrels_policy, fractional, rng) -> str:
    """The table path against the reference: the engine call on raw chunked tables
    (deduplicated as the reference does) and the Python API (``Run``/``Qrels`` of the
    tables with their policies, then ``judge``); "ok" or "raised"."""
    try:
        want, want_rows = reference(run_rows, qrels_rows, options, qrels_policy, fractional)
    except Repeated as exc:
        qrels_table = pa.table(_as_columns(qrels_rows, "relevance"))
        with pytest.raises(InputError, match="appears twice"):
            Qrels(qrels_table, duplicates=qrels_policy, fractional=fractional)
            assert exc.which == "run"
            Run(pa.table(_as_columns(run_rows, "score")), duplicates=options.duplicates)
        return "raised"
    large = bool(rng.random() < 0.4)
    grade_type = pa.float64() if fractional else pa.int64()
    run_kept = [run_rows[i] for i in deduplicated(run_rows, options.duplicates, "run")]
    qrels_kept = [qrels_rows[i] for i in deduplicated(qrels_rows, qrels_policy, "qrels")]
    run_t = arrow_table(run_kept, "score", pa.float64(), rng, large)
    qrels_t = arrow_table(qrels_kept, "relevance", grade_type, rng, large)
    got = judge_arrow(run_t, qrels_t, options)
    assert_same(got, want)
    ranked = range(len(run_kept)) if got[7] is None else got[7].tolist()
    assert [run_kept[r][1] for r in ranked] == [run_rows[r][1] for r in want_rows]
    # the Python API: tables through the readers' duplicate check, then judge
    qrels = Qrels(
        arrow_table(qrels_rows, "relevance", grade_type, rng, large),
        duplicates=qrels_policy,
        fractional=fractional,
    )
    run_t = arrow_table(run_rows, "score", pa.float64(), rng, large)
    run = Run(run_t, duplicates=options.duplicates)
    jr = judge(qrels, run, options)
    arrays_of = (jr.offsets, jr.labels, jr.qrels_offsets, jr.qrels_grades, jr.in_run)
    assert_same((list(jr.query_ids), *arrays_of), want)
    assert jr.doc_ids(run).tolist() == [run_rows[r][1] for r in want_rows]
    # several runs at once, the qrels indexed once: each as judge gives it alone
    other = Run(run_t.slice(0, len(run_t) // 2), duplicates=options.duplicates)
    other_alone = judge(qrels, other, options)
    for runs, alone in (([run, other, run], [jr, other_alone, jr]), ([other], [other_alone])):
        for r, got_jr, want_jr in zip(runs, judge_runs(qrels, runs, options), alone, strict=True):
            assert_same_judged(got_jr, want_jr, r)
    return "ok"


def assert_same_judged(got, want, run) -> None:
    """Two JudgedRuns of ``run`` hold the same arrays, ids and document rows."""
    assert list(got.query_ids) == list(want.query_ids)
    for name in ("offsets", "labels", "qrels_offsets", "qrels_grades", "in_run"):
        assert same_array(getattr(got, name), getattr(want, name)), name
    assert got.doc_ids(run).tolist() == want.doc_ids(run).tolist()


def _as_columns(rows, value):
    return {
        "query_id": [r[0] for r in rows],
        "doc_id": [r[1] for r in rows],
        value: [r[2] for r in rows],
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_engine_judges_as_the_reference(seed, tmp_path):
    paths = judging_files(seed, tmp_path)
    run_rows, _, qrels_rows = read_paths(paths)
    rng = np.random.default_rng(seed)
    for kw in OPTION_SETS:
        options = JudgeOptions(**kw)
        outcome = check_files(paths, options)
        assert check_tables(run_rows, qrels_rows, options, paths[4], paths[3], rng) == outcome


def test_the_random_files_reach_every_case(tmp_path):
    """The generator makes judged runs of every shape the comparison must cover."""
    seen = set()
    for seed in SEEDS:
        paths = judging_files(seed, tmp_path)
        run_rows, _, qrels_rows = read_paths(paths)
        for kw in ({}, {"complete": True}, {"duplicates": "first"}):
            try:
                want, _ = reference(run_rows, qrels_rows, JudgeOptions(**kw), paths[4], paths[3])
            except Repeated:
                seen.add("error")
                continue
            query_ids, _, labels, _, _, in_run = want
            seen.add(labels.dtype.name)
            seen.add("empty" if not query_ids else "topics")
            if not in_run.all():
                seen.add("complete")
            if (labels == -2).any():
                seen.add("unjudged")
            runs_of = [q for q, _, _ in run_rows]
            if any(runs_of.index(q) < i and runs_of[i - 1] != q for i, q in enumerate(runs_of)):
                seen.add("interleaved")
    assert seen >= {
        "int8",
        "int64",
        "float64",
        "error",
        "empty",
        "topics",
        "complete",
        "unjudged",
        "interleaved",
    }


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
        got = _engine.judge_trec_files(str(run), str(qrels), options=JudgeOptions(compat=compat))
        assert got[2].tolist() == expected
        assert_same(
            got, reference_of(run, qrels, False, False, "error", JudgeOptions(compat=compat))
        )


def test_no_topic_left(tmp_path):
    """A run answering none of the qrels topics: no query, as in Python."""
    run = _write(tmp_path, "r", b"x Q0 a 1 1 t\n")
    qrels = _write(tmp_path, "q", b"q 0 a 1\n")
    got = _engine.judge_trec_files(str(run), str(qrels))
    assert got[0] == [] and got[1].tolist() == [0] and got[3].tolist() == [0]
    assert_same(got, reference_of(run, qrels, False, False, "error", JudgeOptions()))


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
def test_raises_where_the_readers_raise(tmp_path, run_text, qrels_text, which, what):
    run, qrels = _write(tmp_path, "r", run_text), _write(tmp_path, "q", qrels_text)
    with pytest.raises(InputError):
        Qrels.read(qrels, format="trec")
        Run.read(run, format="trec")
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


def test_pipes_and_qrels_indexes_are_read_directories_are_not(tmp_path):
    """A named pipe (run or qrels) is read once, as the regular file; the qrels may come
    indexed (a ``QrelsIndex``, ``Qrels.index()``; empty ones refused as an empty file);
    a directory is left to the Python readers."""
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
    index = Qrels.read(qrels).index()
    assert _same(_engine.judge_trec_files(str(run), index), want)
    empty = _engine.QrelsIndex(arrays.engine_batches(Qrels.from_dict({}).table, "relevance"))
    with pytest.raises(_engine.JudgeError) as info:
        _engine.judge_trec_files(str(run), empty)
    assert info.value.args[:2] == ("empty", "qrels")
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


def _unchecked(**changes):
    """Judging options with fields :class:`JudgeOptions` itself refuses (the engine
    checks them again: it reads any object with the six fields)."""
    return SimpleNamespace(**{**JudgeOptions().as_dict(), "duplicates": "error", **changes})


def test_bad_options_are_refused(tmp_path):
    run, qrels = _write(tmp_path, "r", b"q Q0 a 1 1 t\n"), _write(tmp_path, "q", b"q 0 a 1\n")
    with pytest.raises(_engine.JudgeError):
        _engine.judge_trec_files(str(run), str(qrels), options=_unchecked(depth=0))
    with pytest.raises(_engine.JudgeError):
        _engine.judge_trec_files(str(run), str(qrels), options=_unchecked(compat=8))
    with pytest.raises(ValueError):
        _engine.judge_trec_files(str(run), str(qrels), options=_unchecked(duplicates="last"))
    with pytest.raises(AttributeError):  # not judging options
        _engine.judge_trec_files(str(run), str(qrels), options={"depth": 3})
    # a depth beyond 2**64 is the whole ranking
    got = _engine.judge_trec_files(str(run), str(qrels), options=JudgeOptions(depth=2**70))
    assert got[2].tolist() == [1]


@pytest.mark.parametrize("policy", ["first", "max"])
def test_signed_zero_grades_kept_as_python_keeps_them(tmp_path, policy):
    """-0.0 and 0.0 judged twice for one document: the same one is kept, and the ideal
    grades keep file order between them."""
    qrels = _write(tmp_path, "q", b"q 0 a -0.0\nq 0 a 0.0\nq 0 b 0.0\nq 0 b -0.0\nq 0 c -0\n")
    run = _write(tmp_path, "r", b"q Q0 a 1 1 t\nq Q0 b 1 2 t\nq Q0 c 1 3 t\n")
    got = _engine.judge_trec_files(str(run), str(qrels), fractional=True, qrels_duplicates=policy)
    assert_same(got, reference_of(run, qrels, False, True, policy, JudgeOptions()))
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
        assert_same(engine_judge(*paths, options), reference_of(*paths, options))
    with pytest.raises(_engine.JudgeError):
        engine_judge(*paths, JudgeOptions())  # the duplicates are an error by default


def test_tables_with_nulls_or_other_types_are_refused():
    """The readers refuse null ids; the engine's inputs are checked anyway: a null or a
    column of another type is a ValueError, never a misread."""
    good = pa.table({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    assert len(arrays.engine_batches(good, "score")) == 1
    for column, values in (
        ("query_id", pa.array([None], pa.string())),
        ("doc_id", pa.array([None], pa.string())),
        ("score", pa.array([None], pa.float64())),
        ("doc_id", pa.array([b"a"], pa.binary())),
        ("score", pa.array([1], pa.int32())),
    ):
        bad = good.set_column(good.schema.get_field_index(column), column, values)
        with pytest.raises(ValueError):
            arrays.engine_batches(bad, "score")


def test_interleaved_queries_and_repeats_across_chunks():
    """A query's rows in several blocks and chunks, a pair repeated across chunks: the
    duplicate check and the judge see the whole table."""
    rows = [
        ("q1", "a", 1.0),
        ("q2", "a", 5.0),
        ("q1", "b", 3.0),
        ("q2", "b", 1.0),
        ("q1", "a", 2.0),
    ]
    table = pa.table(
        {
            "query_id": pa.chunked_array([["q1", "q2"], ["q1", "q2", "q1"]]),
            "doc_id": pa.chunked_array([["a"], ["a", "b", "b", "a"]]),
            "score": pa.chunked_array([[1.0, 5.0, 3.0], [1.0, 2.0]]),
        }
    )
    with pytest.raises(
        InputError, match=r"document 'a' appears twice for query 'q1'.*rows 1 and 5"
    ):
        Run(table)
    judged = {"q1": {"a": 1, "b": 0}, "q2": {"b": 2}}
    qrels = Qrels.from_dict(judged)
    qrels_rows = [(q, d, g) for q, docs in judged.items() for d, g in docs.items()]
    for policy in ("first", "max"):
        run = Run(table, duplicates=policy)
        assert run.table.num_rows == 4
        options = JudgeOptions(duplicates=policy)
        want, want_rows = reference(rows, qrels_rows, options)
        jr = judge(qrels, run, options)
        got = (jr.offsets, jr.labels, jr.qrels_offsets, jr.qrels_grades, jr.in_run)
        assert_same((list(jr.query_ids), *got), want)
        assert jr.doc_ids(run).tolist() == [rows[r][1] for r in want_rows]


def test_unaligned_buffers_are_judged():
    """Arrow buffers at an odd address (as a table unpickled in a Dask worker may have)
    are handed to the engine aligned."""
    scores = np.array([1.0, 3.0, 2.0])
    raw = np.zeros(scores.nbytes + 1, dtype=np.uint8)
    raw[1:] = scores.view(np.uint8)
    odd = pa.Array.from_buffers(pa.float64(), 3, [None, pa.py_buffer(raw)[1:]])
    offsets = np.zeros(4 * 4 + 1, dtype=np.uint8)
    offsets[1:] = np.array([0, 1, 2, 3], dtype=np.int32).view(np.uint8)
    ids = pa.Array.from_buffers(
        pa.string(), 3, [None, pa.py_buffer(offsets)[1:], pa.py_buffer(b"abc")]
    )
    table = pa.table({"query_id": pa.array(["q", "q", "q"]), "doc_id": ids, "score": odd})
    assert not np.frombuffer(table["score"].chunk(0).buffers()[1], np.float64).flags.aligned
    run = Run(table)
    jr = judge(Qrels.from_dict({"q": {"b": 1, "c": 2}}), run)
    assert jr.labels.tolist() == [1, 2, -1]
    assert jr.doc_ids(run).tolist() == ["b", "c", "a"]


def test_document_rows_only_when_asked_for():
    """``judge(..., doc_rows=False)`` (what the measures need) gives the same arrays
    without the rows, and its ``doc_ids`` refuses rather than guess."""
    run = Run(pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}))
    qrels = Qrels.from_dict({"q": {"a": 1}})
    full, lean = judge(qrels, run), judge(qrels, run, doc_rows=False)
    assert full.doc_ids(run).tolist() == ["b", "a"]
    assert full.labels.tolist() == lean.labels.tolist() == [-1, 1]
    assert lean.doc_rows is None
    with pytest.raises(ValueError, match="without its document rows"):
        lean.doc_ids(run)


def test_several_runs_problems_name_their_run(monkeypatch):
    """The engine's several-runs judge appends the index of the run with the problem;
    ``judge_runs`` then judges each run alone, so its errors are ``judge``'s."""
    table = pa.table({"query_id": ["q"], "doc_id": ["a"], "score": [1.0]})
    qrels_table = pa.table({"query_id": ["q"], "doc_id": ["a"], "relevance": [1]})
    batches = arrays.engine_batches(table, "score")
    qrels_batches = _engine.QrelsIndex(arrays.engine_batches(qrels_table, "relevance"))
    with pytest.raises(_engine.JudgeError) as raised:
        _engine.judge_arrow_runs([batches, batches], qrels_batches, options=_unchecked(depth=0))
    assert raised.value.args[-1] == 0
    assert len(_engine.judge_arrow_runs([batches, batches, batches], qrels_batches)) == 3
    assert _engine.judge_arrow_runs([], qrels_batches) == []

    real = _engine.judge_arrow_runs

    def refused(runs, *args, **kwargs):  # several runs: a problem with the second
        if len(runs) > 1:
            raise _engine.JudgeError("options", None, None, "injected", 1)
        return real(runs, *args, **kwargs)

    qrels, run = Qrels(qrels_table), Run(table)
    expected = judge(qrels, run)
    monkeypatch.setattr(_engine, "judge_arrow_runs", refused)
    for got in judge_runs(qrels, [run, run]):
        assert_same_judged(got, expected, run)
