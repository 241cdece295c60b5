"""``cranfield trec_eval``'s engine path (one engine call: read, judge, compute, print)
prints what the general path (``run_trec_eval``) prints, byte for byte, and hands every
case it cannot do to the general path.

The general path is itself compared with the trec_eval 10.0 binary in tests/reference.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield import _engine
from cranfield.cli.main import main
from cranfield.core import trec_eval as core
from cranfield.core.measures.registry import trec_measures
from cranfield.errors import InputError, MeasureError
from generators import trec_files

OPTIONS = [
    [],
    ["-q"],
    ["-q", "-c"],
    ["-c", "-J"],
    ["-q", "-l", "2", "-M", "7"],
    ["-q", "-J"],
    ["-q", "--compat", "9", "-c"],
    ["-q", "-l", "0", "-N", "1000"],
]


def engine_measures() -> list[str]:
    """The trec_eval measures whose family the engine computes, and runid/num_q."""
    families = set(_engine.measure_families())
    return [
        t.name
        for t in trec_measures()
        if t.supported and (t.family in families or t.kind in ("run_name", "query_count"))
    ]


def run(capsys, argv, monkeypatch=None, general=False):
    if general:
        monkeypatch.setattr(core, "trec_eval_by_engine", lambda *a, **k: None)
    code = main(["trec_eval", *argv])
    out, err = capsys.readouterr()
    if general:
        monkeypatch.undo()
    return code, out, err


@pytest.fixture
def pair(tmp_path):
    def make(seed):
        qrels, run_text = trec_files(seed)
        q, r = tmp_path / f"q{seed}", tmp_path / f"r{seed}"
        q.write_text(qrels)
        r.write_text(run_text)
        return str(q), str(r)

    return make


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_engine_path_prints_what_the_general_path_prints(pair, capsys, monkeypatch, seed, options):
    extra = ["num_ret.5", "P.3,7", "relstring.4", "utility.1,-1,0,2", "set_F.0.5"]
    measures = [a for m in engine_measures() + extra for a in ("-m", m)]
    argv = [*options, *measures, *pair(seed)]
    taken = []
    real = core.trec_eval_by_engine

    def spy(*a, **k):
        result = real(*a, **k)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(core, "trec_eval_by_engine", spy)
    engine = run(capsys, argv)
    assert taken == [True]  # the engine path gave the output
    assert engine == run(capsys, argv, monkeypatch, general=True)
    assert engine[0] == 0 and engine[1]


def test_engine_path_is_taken_for_engine_measures(pair, capsys, monkeypatch):
    def refused(*a, **k):
        raise AssertionError("the general path ran")

    monkeypatch.setattr(core, "run_trec_eval", refused)
    code, out, _ = run(capsys, ["-q", "-m", "num_ret", "-m", "runid", *pair(1)])
    assert code == 0 and "num_ret" in out and "runid" in out


def general_path_taken(capsys, monkeypatch, argv, stdin: bytes | None = None):
    """Run argv, recording whether the engine path gave the output."""
    calls = []
    real = core.trec_eval_by_engine

    def spy(*a, **k):
        try:
            result = real(*a, **k)
        except (InputError, MeasureError):
            calls.append(True)  # the engine path reported the problem
            raise
        calls.append(result is not None)
        return result

    monkeypatch.setattr(core, "trec_eval_by_engine", spy)
    code, out, err = run(capsys, argv)
    return code, out, err, not any(calls)


def test_measures_the_engine_does_not_compute_fall_back(pair, capsys, monkeypatch):
    (family,) = {t.family for t in trec_measures() if t.name == "map"}
    families = [f for f in _engine.measure_families() if f != family]
    argv = ["-q", "-m", "num_ret", "-m", "map", *pair(2)]
    monkeypatch.setattr(_engine, "measure_families", lambda: families)
    code, out, err, general = general_path_taken(capsys, monkeypatch, argv)
    assert general and code == 0
    assert (code, out, err) == run(capsys, argv, monkeypatch, general=True)


def test_zscores(pair, capsys, monkeypatch, tmp_path):
    q, r = pair(0)
    qids = sorted(
        {line.split()[0] for line in Path(r).read_text().splitlines() if line[:1].isdigit()}
    )
    z = tmp_path / "z"
    # some pairs scored, one with stddev 0, the others missing (notes)
    z.write_text(f"{qids[0]} P_5 0.1 0.2\n{qids[1]} P_5 0.3 0\n{qids[0]} num_ret 10 5\n")
    argv = ["-Z", str(z), "-q", "-m", "P.5", "-m", "num_ret", "-m", "num_q", q, r]
    code, out, err, general = general_path_taken(capsys, monkeypatch, argv)
    monkeypatch.undo()
    assert not general and code == 0 and "ZP_5" in out and "note:" in err
    assert (code, out, err) == run(capsys, argv, monkeypatch, general=True)


def test_gzip_input_errors_and_zscore_errors(pair, capsys, monkeypatch, tmp_path):
    """gzip runs and problems in the qrels, the run or the z-score file are the engine
    path's, with the general path's messages, notes and order."""
    q, r = pair(3)
    gz = tmp_path / "r.gz"
    gz.write_bytes(gzip.compress(Path(r).read_bytes()))
    z = tmp_path / "z"
    z.write_text("1 num_ret 1\n")  # three fields: an error in the z-score file
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 d1 1 x tag\n")
    dup = tmp_path / "dup"
    dup.write_text("1 Q0 d1 1 1 tag\n1 Q0 d1 2 0 tag\n")
    none = tmp_path / "none"
    none.write_text("no-such-query Q0 d1 1 1 tag\n")
    cases = [
        (["-m", "num_ret", q, str(gz)], 0, False),
        (["-Z", str(z), "-q", "-m", "num_ret", q, r], 2, False),
        (["-Z", str(z), "-m", "num_ret", q, str(bad)], 2, False),
        (["-Z", str(z), "-m", "map.5", q, str(none)], 2, False),
        (["-Z", str(tmp_path / "absent"), "-m", "map.5", q, r], 2, False),
        (["-m", "num_ret", q, str(bad)], 2, False),
        (["-m", "num_ret", q, str(dup)], 2, False),
        (["-m", "num_ret", q, str(tmp_path / "absent")], 2, False),
        (["-m", "num_ret", str(tmp_path / "absent"), r], 2, False),
        (["-m", "num_ret", "-m", "map.5", q, str(none)], 2, False),
        (["-m", "num_ret", q, str(tmp_path)], 2, True),  # a directory: read in Python
    ]
    for argv, status, general_expected in cases:
        code, out, err, general = general_path_taken(capsys, monkeypatch, argv)
        monkeypatch.undo()
        assert general == general_expected, argv
        assert code == status, (argv, err)
        assert (code, out, err) == run(capsys, argv, monkeypatch, general=True)
        if status:
            notes = "map.5" in argv and "bad" not in argv[-1]
            assert err.count("\n") == 1 + notes and "error" in err and not out


@pytest.mark.parametrize("name", ["relstring.é", "relstring.ŝ"])
def test_non_ascii_printed_names(pair, capsysbinary, monkeypatch, tmp_path, name):
    """Printed names beyond ASCII print in Latin-1 ('?' beyond it) on both paths, in
    every line and in the -Z note."""
    q, r = pair(4)
    z = tmp_path / "z"
    z.write_text("nosuchquery num_ret 1 2\n")  # every other pair is noted
    for extra in (["-q"], ["-q", "-c", "-Z", str(z)]):
        argv = ["trec_eval", *extra, "-m", "num_ret", "-m", name, q, r]
        with monkeypatch.context() as m:
            m.setattr(core, "run_trec_eval", None)  # the engine path alone
            fast = (main(argv), *capsysbinary.readouterr())
        with monkeypatch.context() as m:
            m.setattr(core, "trec_eval_by_engine", lambda *a, **k: None)
            general = (main(argv), *capsysbinary.readouterr())
        assert fast == general and fast[0] == 0
        assert name.split(".")[1].encode("latin-1", "replace") in fast[1]


def test_engine_path_process_imports_neither_numpy_nor_pyarrow(pair):
    q, r = pair(5)
    script = (
        "import sys\n"
        "from cranfield.cli.main import main\n"
        f"status = main(['trec_eval', '-q', '-c', '-m', 'all_trec', {q!r}, {r!r}])\n"
        "print(status, sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "0 []"


def test_selection_imports_neither_numpy_nor_pyarrow():
    script = (
        "import sys\n"
        "from cranfield.core.trec_eval import columns, select, engine_columns\n"
        "cols = columns(select(['all_trec']), 1000)\n"
        "engine_columns(cols)\n"
        "print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
