"""evaluate_files and trec_eval_files: the one path of `cranfield eval` / `trec_eval`,
shared with `cranfield.evaluate` given paths (issue 21)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield import _engine, evaluate
from cranfield.cli.main import main
from cranfield.core import files, indexed
from cranfield.core import trec_eval as core
from cranfield.core.files import evaluate_files
from cranfield.core.options import JudgeOptions
from cranfield.core.qrels import Qrels
from cranfield.core.run import Run
from cranfield.core.trec_eval import trec_eval_files
from cranfield.output import render
from fifo import fifo_with_writer
from generators import trec_files

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "NumRet"]


def _collection(tmp_path: Path, seeds=(1, 2)) -> tuple[str, list[str]]:
    """A qrels file and TREC runs: the first seed's, then that run with every
    ``seed``-th line left out under the tag ``tag<seed>``."""
    qtext, rtext = trec_files(seeds[0])
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(qtext)
    runs = []
    for seed in seeds:
        lines = rtext.splitlines(keepends=True)
        if runs:
            lines = [x.replace(f"tag{seeds[0]}", f"tag{seed}") for x in lines[1::seed]]
        path = tmp_path / f"run{seed}.txt"
        path.write_text("".join(lines))
        runs.append(str(path))
    return str(qrels), runs


def _json(results) -> str:
    return render(results, "json", per_query=True, digits=4)


def test_evaluate_given_paths_gives_the_command_lines_results(tmp_path, capsys):
    qrels, runs = _collection(tmp_path, (1, 2, 3))
    runs.append(runs[0])  # the same tag twice: named apart by their files, as the CLI does
    for options in ({}, {"complete": True}, {"rel_level": 2, "depth": 7}):
        flags = ["-c"] * options.get("complete", False)
        flags += ["-l", str(options.get("rel_level", 1))]
        flags += ["-M", str(options.get("depth"))] * ("depth" in options)
        assert main(["eval", qrels, *runs, "-q", "-f", "json", "-m", *MEASURES, *flags]) == 0
        cli = _without_provenance(capsys.readouterr().out)
        api = evaluate(qrels, runs, MEASURES, **options)
        assert _json(api) == cli
        direct = evaluate_files(qrels, runs, MEASURES, options=JudgeOptions(**options))
        assert _json(direct) == cli


def test_the_engine_path_and_the_general_path_give_the_same_results(tmp_path, monkeypatch):
    qrels, runs = _collection(tmp_path)
    for kw in ({}, {"skip_no_relevant": True}, {"aggregate_by": "micro"}):
        measures = ["P@5", "R@10", "SetP"] if kw.get("aggregate_by") else MEASURES
        fast = evaluate_files(qrels, runs, measures, **kw)
        assert all(r.judged is None for r in fast.runs)  # measured by the engine
        with monkeypatch.context() as m:
            m.setattr(files, "_engine_results", lambda job: None)
            indexed_qrels = evaluate_files(qrels, runs, measures, **kw)  # Qrels.index()
            m.setattr(indexed, "evaluate_indexed", lambda *a, **k: None)
            general = evaluate_files(qrels, runs, measures, **kw)  # JudgedRun, run_result
        assert all(r.judged is None for r in indexed_qrels.runs)
        assert all(r.judged is not None for r in general.runs)
        assert _json(fast) == _json(general) == _json(indexed_qrels)


def test_an_engine_refusal_falls_back_to_the_general_path(tmp_path, monkeypatch):
    qrels, runs = _collection(tmp_path)
    want = _json(evaluate_files(qrels, runs, MEASURES))
    calls = []

    def refused(*a, **k):  # found before reading: the general path reads the files
        calls.append(1)
        raise _engine.JudgeError("unsupported", "qrels", None, "not a regular file")

    monkeypatch.setattr(_engine, "evaluate_trec_files", refused)
    got = evaluate_files(qrels, runs, MEASURES)
    assert calls and all(r.judged is not None for r in got.runs)
    assert _json(got) == want


def test_a_run_in_another_format_goes_through_the_engine_entry(tmp_path, monkeypatch):
    """Inputs in other formats are read as Arrow and evaluated by the engine entry the
    TREC files go through (its core shared: ``evaluate_arrow``), with the same output;
    the qrels are indexed once (``Qrels.index``), not written back as TREC text, and
    TREC runs against them are measured by the engine too."""
    from cranfield import _engine
    from cranfield.core import engine_judge

    pq = pytest.importorskip("pyarrow.parquet")
    qrels, runs = _collection(tmp_path, (4,))
    parquet = tmp_path / "run4.parquet"
    pq.write_table(Run.read(runs[0]).table, parquet)
    qrels_parquet = tmp_path / "qrels.parquet"
    pq.write_table(Qrels.read(qrels).table, qrels_parquet)
    calls = []
    real = _engine.evaluate_arrow
    monkeypatch.setattr(_engine, "evaluate_arrow", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(engine_judge, "judge_trec", None)  # no JudgedRun of a TREC run
    got = evaluate_files(qrels, [str(parquet)], MEASURES)
    want = evaluate_files(qrels, runs, MEASURES)
    assert got.runs[0].judged is None and want.runs[0].judged is None and calls == [1]
    mixed = evaluate_files(str(qrels_parquet), runs, MEASURES)  # TREC runs, indexed qrels
    assert render(mixed, "json", per_query=True) == render(want, "json", per_query=True)
    got.runs[0].name = want.runs[0].name  # (a Parquet run without a tag: its file's name)
    assert render(got, "json", per_query=True) == render(want, "json", per_query=True)


def test_named_pipes(tmp_path):
    qrels, runs = _collection(tmp_path, (5,))
    want = _json(evaluate_files(qrels, runs, MEASURES))
    qfifo, qt = fifo_with_writer(tmp_path / "q.fifo", Path(qrels).read_bytes())
    rfifo, rt = fifo_with_writer(tmp_path / "r.fifo", Path(runs[0]).read_bytes())
    got = evaluate_files(str(qfifo), [str(rfifo)], MEASURES)
    qt.join(5), rt.join(5)
    assert got.runs[0].judged is None  # the engine read both pipes
    # named after the run's tag either way
    assert _json(got) == want


def test_standard_input_on_the_engine_path_without_numpy(tmp_path):
    qrels, runs = _collection(tmp_path, (6,))
    want = _json(evaluate_files(qrels, runs, MEASURES))
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from cranfield.core.files import evaluate_files\n"
        "from cranfield.output import render\n"
        f"r = evaluate_files({qrels!r}, '-', {MEASURES!r})\n"
        "assert 'pyarrow' not in sys.modules\n"
        "print(render(r, 'json', per_query=True, digits=4))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=Path(runs[0]).read_bytes(),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == want + "\n"


def test_input_problems_are_raised_with_file_and_line(tmp_path, monkeypatch):
    from cranfield.errors import InputError

    qrels, runs = _collection(tmp_path, (7,))
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 high t\n")
    with pytest.raises(InputError) as fast:
        evaluate_files(qrels, [runs[0], str(bad)], MEASURES)
    monkeypatch.setattr(files, "_engine_results", lambda job: None)
    with pytest.raises(InputError) as general:
        evaluate_files(qrels, [runs[0], str(bad)], MEASURES)
    assert str(fast.value) == str(general.value)
    assert fast.value.source == str(bad) and fast.value.line == 2


@pytest.mark.parametrize("argv", [["-q"], ["-m", "all_trec", "-c"], ["-m", "map.5", "-m", "P.5"]])
def test_trec_eval_files_gives_the_command_lines_text_and_notes(tmp_path, capsysbinary, argv):
    qrels, runs = _collection(tmp_path, (8,))
    assert main(["trec_eval", *argv, qrels, runs[0]]) == 0
    out, err = capsysbinary.readouterr()
    measures = [a for i, a in enumerate(argv) if i and argv[i - 1] == "-m"]
    done = trec_eval_files(
        qrels,
        runs[0],
        measures,
        JudgeOptions(complete="-c" in argv),
        per_query="-q" in argv,
    )
    text = done.text if isinstance(done.text, bytes) else done.text.encode("latin-1")
    assert text == out
    assert "".join(f"cranfield trec_eval: {n}\n" for n in done.notes).encode() == err
    assert done.notes or "-c" in argv  # the missing topic 999, the ignored parameter


def test_trec_eval_files_general_path_gives_the_same(tmp_path, monkeypatch):
    qrels, runs = _collection(tmp_path, (9,))
    fast = trec_eval_files(qrels, runs[0], ["all_trec", "map.5"], per_query=True)
    assert isinstance(fast.text, bytes)  # printed by the engine alone
    monkeypatch.setattr(core, "trec_eval_by_engine", lambda *a, **k: None)
    said = []
    general = trec_eval_files(
        qrels, runs[0], ["all_trec", "map.5"], per_query=True, notes=said.append
    )
    assert general.text.encode("latin-1") == fast.text
    assert general.notes == fast.notes == said and len(said) == 2


def _without_provenance(text: str) -> str:
    """The command line's JSON without what it adds (the provenance of the inputs)."""
    import json

    from cranfield.output import dumps_json

    doc = json.loads(text)
    assert doc.pop("provenance")["command"].startswith("cranfield eval ")
    return dumps_json(doc) + "\n"
