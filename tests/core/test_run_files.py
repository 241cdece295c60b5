"""RunFiles: run files named up front and read one at a time (the report's memory is
one run's rows). Everything it feeds must equal what the runs read at once give."""

import pytest

import cranfield
from cranfield.core.evaluation import RunFiles, read_runs
from cranfield.errors import InputError


def _files(tmp_path, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(1, 6) for d in range(12))
    )
    paths = []
    for i in range(3):
        path = tmp_path / f"run{i}.txt"
        lines = [
            f"{q} Q0 d{d} {r + 1} {float(rng.normal()):.6f} {'same' if i < 2 else 'other'}"
            for q in range(1, 6)
            for r, d in enumerate(rng.permutation(12)[: int(rng.integers(1, 12))])
        ]
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(qrels), paths


@pytest.mark.parametrize("seed", range(4))
def test_names_values_and_report_equal_the_runs_read_at_once(seed, tmp_path):
    from cranfield.report.html import build_report

    qrels, paths = _files(tmp_path, seed)
    lazy, eager = RunFiles(paths), read_runs(paths)
    assert lazy.names == [r.name for r in eager]  # two files share a tag: file names
    assert len(set(lazy.names)) == 3
    assert [r.name for r in lazy] == lazy.names
    a = cranfield.evaluate(qrels, lazy, ["AP", "nDCG@10", "P@5"])
    b = cranfield.evaluate(qrels, eager, ["AP", "nDCG@10", "P@5"])
    assert a.run_names == b.run_names
    for name in a.run_names:
        for m in ("AP", "nDCG@10", "P@5"):
            assert a.per_query(name, m) == b.per_query(name, m)
    q = cranfield.Qrels.read(qrels)
    kw = dict(progress=False, query="1", max_depth=5)
    assert build_report(q, lazy, **kw) == build_report(q, eager, **kw)


def test_a_bad_file_fails_when_the_files_are_named(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 notanumber x\n")
    with pytest.raises(InputError):
        RunFiles([str(bad)])
