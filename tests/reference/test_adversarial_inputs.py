"""Hostile run and qrels files through ``cranfield trec_eval`` and trec_eval 10.0: the
same bytes where trec_eval accepts the input and cranfield promises to (line endings,
blanks, comments, extra fields, extreme and unusual numbers, ties), both refusing what
both refuse, and cranfield refusing, with one line, the numbers trec_eval silently
reads as 0 or as a prefix (docs/trec_eval.md, deviation 11)."""

from __future__ import annotations

import pytest

from . import oracle

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n"
RUNS = {
    "crlf": "1 Q0 a 1 2.0 t\r\n1 Q0 b 2 1.0 t\r\n2 Q0 c 1 1 t\r\n",
    "tabs_and_spaces": "1\tQ0\ta\t1\t2.0\tt\n1 Q0  b 2 1.0 t \n  2 Q0 c 1 1 t\n",
    "extra_fields": "1 Q0 a 1 2.0 t x y\n1 Q0 b 2 1.0 t\n2 Q0 c 1 1 t z\n",
    "extreme_scores": "1 Q0 a 1 1e308 t\n1 Q0 b 2 -1e308 t\n2 Q0 c 1 4.9e-324 t\n2 Q0 d 2 -0 t\n",
    "infinite_scores": "1 Q0 a 1 inf t\n1 Q0 b 2 -inf t\n2 Q0 c 1 1 t\n",
    "signed_scores": "1 Q0 a 1 +5 t\n1 Q0 b 2 -5 t\n2 Q0 c 1 .5 t\n2 Q0 d 2 5. t\n",
    "near_ties": "1 Q0 a 1 1.0000000000000002 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n2 Q0 d 2 1 t\n",
    "blank_lines": "\n\n1 Q0 a 1 2 t\n\n2 Q0 c 1 1 t\n\n",
    "comments": "# a comment\n1 Q0 a 1 2 t\n2 Q0 c 1 1 t\n",
    "no_final_newline": "1 Q0 a 1 2 t\n2 Q0 c 1 1 t",
    "interleaved_topics_and_tags": "1 Q0 a 1 2 t1\n2 Q0 c 1 1 t2\n1 Q0 b 2 1 t3\n",
    "unjudged_only": "1 Q0 u 1 2 t\n1 Q0 v 2 2 t\n2 Q0 w 1 1 t\n",
    "topic_not_in_qrels": "1 Q0 a 1 2 t\n2 Q0 c 1 1 t\n3 Q0 a 1 1 t\n",
    "empty": "",
    "only_unknown_topic": "3 Q0 a 1 2 t\n",
    "five_fields": "1 Q0 a 1 2\n2 Q0 c 1 1 t\n",
    "duplicate_document": "1 Q0 a 1 2 t\n1 Q0 a 2 1 t\n2 Q0 c 1 1 t\n",
    "qrels_as_run": QRELS,
}
QRELS_FILES = {
    "fractional_grade": "1 0 a 2.7\n1 0 b 0\n2 0 c 1\n",
    "signed_grade": "1 0 a +1\n1 0 b -0\n2 0 c 1\n",
    "large_grade": "1 0 a 12\n1 0 b 0\n2 0 c 1\n",
    "negative_grades": "1 0 a -3\n1 0 b 0\n1 0 e 1\n2 0 c 1\n",
    "crlf": "1 0 a 1\r\n1 0 b 0\r\n2 0 c 1\r\n",
    "five_fields": "1 0 a 1 x\n2 0 c 1\n",
    "duplicate_document": "1 0 a 1\n1 0 a 0\n2 0 c 1\n",
    "empty": "",
}
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 e 3 0.5 t\n2 Q0 c 1 1 t\n2 Q0 d 2 2 t\n"
# numbers trec_eval reads with atof/atol without complaint; cranfield refuses them
REFUSED_RUNS = {
    "nan_score": "1 Q0 a 1 nan t\n2 Q0 c 1 1 t\n",
    "hexadecimal_score": "1 Q0 a 1 0x1p3 t\n2 Q0 c 1 1 t\n",
    "trailing_junk_score": "1 Q0 a 1 5abc t\n2 Q0 c 1 1 t\n",
    "word_score": "1 Q0 a 1 abc t\n2 Q0 c 1 1 t\n",
}
REFUSED_QRELS = {
    "exponent_grade": "1 0 a 1e3\n2 0 c 1\n",
    "word_grade": "1 0 a abc\n2 0 c 1\n",
}
OPTIONS = [["-q", "-m", "all_trec"], ["-c", "-J", "-q", "-m", "official", "-m", "relstring"]]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_hostile_runs(trec_eval_bin, tmp_path, name):
    q, r = tmp_path / "qrels", tmp_path / f"{name}.run"
    q.write_text(QRELS)
    r.write_bytes(RUNS[name].encode())
    for options in OPTIONS:
        args = [*options, str(q), str(r)]
        binary_qrels = str(q) if "-c" in options else oracle.restricted_qrels(q, r, tmp_path)
        allow = oracle.allowance(options)
        oracle.check(trec_eval_bin, args, [*options, binary_qrels, str(r)], allow)


@pytest.mark.parametrize("name", sorted(QRELS_FILES))
def test_hostile_qrels(trec_eval_bin, tmp_path, name):
    q, r = tmp_path / f"{name}.qrels", tmp_path / "run"
    q.write_bytes(QRELS_FILES[name].encode())
    r.write_text(RUN)
    for options in OPTIONS:
        allow = oracle.allowance(options)
        oracle.check(trec_eval_bin, [*options, str(q), str(r)], allow=allow)


@pytest.mark.parametrize(
    "kind,name", [("run", n) for n in REFUSED_RUNS] + [("qrels", n) for n in REFUSED_QRELS]
)
def test_numbers_trec_eval_reads_silently_are_refused(trec_eval_bin, tmp_path, kind, name):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(REFUSED_QRELS[name] if kind == "qrels" else QRELS)
    r.write_text(REFUSED_RUNS[name] if kind == "run" else RUN)
    args = ["-c", "-m", "map", str(q), str(r)]
    assert oracle.binary(trec_eval_bin, args).status == 0
    got = oracle.cranfield(args)
    assert got.status == 2 and got.stdout == b""
    assert got.stderr.count("\n") == 1 and f"{kind}:1:" in got.stderr
