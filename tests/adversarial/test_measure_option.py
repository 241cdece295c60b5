"""``-m`` as a process: options first work, ambiguous or misspelt words fail cleanly."""

from __future__ import annotations

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli


def test_options_first_and_ambiguity_as_a_process(tmp_path, sample_paths):
    qrels, bm25, dense = (str(p) for p in sample_paths[:3])
    out = run_cli("eval", "-m", "AP", "-m", "nDCG@10", qrels, bm25, dense, "-f", "csv")
    assert_success(out)
    assert out.stdout.splitlines()[0] == b"run,AP,nDCG@10"
    assert len(out.stdout.splitlines()) == 3
    (tmp_path / "Bpref").write_text("")
    with Unchanged(qrels, bm25, tmp_path / "Bpref"):
        bad = run_cli("eval", "-m", "AP", "Bpref", qrels, bm25, cwd=tmp_path)
        assert_clean_failure(bad, "'Bpref'", "existing file", "-m")
        bad = run_cli("report", qrels, bm25, "-m", "AP", "nDGC@10", "-o", tmp_path / "r.html")
        assert_clean_failure(bad, "did you mean nDCG")
    assert not (tmp_path / "r.html").exists()
