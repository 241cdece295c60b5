"""``cranfield ltr`` under hostile input: one line and status 2, never a traceback; and
its outputs agree with the rest of cranfield (the runs it writes evaluate the same)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from .harness import Unchanged, assert_clean_failure, assert_success, run_cli


def _write(path, seed, queries=12, docs=8, features=4):
    rng = np.random.default_rng(seed)
    w = np.arange(1, features + 1, dtype=float)
    lines = []
    for q in range(queries):
        x = np.round(rng.normal(size=(docs, features)), 4)
        s = x @ w + rng.normal(size=docs)
        labels = np.digitize(s, np.quantile(s, [0.6, 0.85]))
        for i in range(docs):
            feats = " ".join(f"{j + 1}:{float(x[i, j])!r}" for j in range(features))
            lines.append(f"{labels[i]} qid:{seed}{q:03d} {feats} #docid = d{seed}-{q}-{i}\n")
    path.write_text("".join(lines))
    return path


@pytest.fixture
def folds(tmp_path):
    root = tmp_path / "folds"
    for k in (1, 2):
        d = root / f"Fold{k}"
        d.mkdir(parents=True)
        for part, seed in (("train", 1), ("vali", 2), ("test", 3)):
            _write(d / f"{part}.txt", seed + 10 * k)
    return root


@pytest.fixture
def model(folds, tmp_path):
    target = tmp_path / "model.json"
    out = run_cli("ltr", "train", folds / "Fold1" / "train.txt", "--vali",
                  folds / "Fold1" / "vali.txt", "--method", "ga", "--budget", "300",
                  "-o", target)  # fmt: skip
    assert_success(out)
    assert "ga: nDCG@10 (trec) training" in out.stderr
    return target


def test_train_eval_and_the_written_run_evaluate_alike(folds, model, tmp_path):
    test = folds / "Fold1" / "test.txt"
    run = tmp_path / "ga.run"
    with Unchanged(test, model):
        out = run_cli("ltr", "eval", model, test, "-m", "nDCG@10", "P@10", "AP",
                      "-f", "json", "--run", run)  # fmt: skip
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    assert doc["convention"] == "trec"
    assert set(doc["aggregate"]) == {"nDCG@10", "P@10", "AP"}
    # the qrels of the test file, and cranfield eval on the written run
    qrels = tmp_path / "test.qrels"
    qrels.write_text(
        "".join(
            f"{line.split()[1][4:]} 0 {line.split('docid = ')[1].split()[0]} {line.split()[0]}\n"
            for line in test.read_text().splitlines()
        )
    )
    ev = run_cli("eval", qrels, run, "-m", "nDCG@10", "P@10", "AP", "-f", "json")
    assert_success(ev, quiet=True)
    values = json.loads(ev.stdout)["runs"][0]["aggregate"]
    assert values == doc["aggregate"]  # exactly: the run holds the scores to the last bit


def test_letor_convention_is_stated(model, folds):
    out = run_cli("ltr", "eval", model, folds / "Fold1" / "test.txt", "-m", "NDCG@10",
                  "--convention", "letor")  # fmt: skip
    assert_success(out, quiet=True)
    assert b"convention: letor" in out.stdout
    bad = run_cli("ltr", "eval", model, folds / "Fold1" / "test.txt", "-m", "Bpref",
                  "--convention", "letor")  # fmt: skip
    assert_clean_failure(bad, "not defined under --convention letor")


def test_cv_writes_runs_that_cranfield_eval_reads(folds, tmp_path):
    runs = tmp_path / "runs"
    out = run_cli("ltr", "cv", folds, "--methods", "ga,coordinate-ascent", "--budget", "200",
                  "-m", "nDCG@10", "AP", "--runs", runs, "-f", "json")  # fmt: skip
    assert_success(out, quiet=True)
    doc = json.loads(out.stdout)
    assert doc["convention"] == "trec" and doc["folds"] == ["Fold1", "Fold2"]
    ga = doc["methods"]["ga"]
    assert set(ga["aggregate"]) == {"nDCG@10", "AP"}
    assert ga["aggregate"]["AP"] == pytest.approx(np.mean([f["AP"] for f in ga["folds"].values()]))
    assert {r["run"] for r in doc["comparison"]} == {"coordinate-ascent"}
    for fold in ("Fold1", "Fold2"):
        ev = run_cli("eval", runs / fold / "test.qrels", runs / fold / "ga.run", "-m", "AP",
                     "-f", "json")  # fmt: skip
        assert_success(ev, quiet=True)
        assert json.loads(ev.stdout)["runs"][0]["aggregate"]["AP"] == ga["folds"][fold]["AP"]


_MODEL_HEAD = (
    '{"format": "cranfield-ltr-model", "version": 1, "method": "ga", '
    '"num_features": 4, "normalisation": "none", "weights": '
)
#: Model files whose weights are malformed (the engine reads well-formed ones).
BAD_WEIGHTS = {
    "nanweights": "[1.0, NaN, 2, 3]",
    "hugeweights": "[1, 2, 3, 1e400]",
    "shortweights": "[1, 2, 3]",
    "textweights": '[1, 2, 3, "4"]',
    "zeroweights": "[1, 2, 3, 04]",
    "cutweights": "[1, 2, 3, 4",
}


@pytest.mark.parametrize(
    ("argv", "mention"),
    [
        (["train", "{missing}", "-o", "{out}"], "no such file"),
        (["train", "{dir}", "-o", "{out}"], "directory"),
        (["train", "{garbage}", "-o", "{out}"], "garbage.txt:2"),
        (["train", "{empty}", "-o", "{out}"], "no documents"),
        (["train", "{train}", "-o", "{train}"], "input"),
        (["train", "{train}", "--budget", "0", "-o", "{out}"], "--budget"),
        (["train", "{train}", "--budget", "many", "-o", "{out}"], "--budget"),
        (["train", "{train}", "--seed", "-1", "-o", "{out}"], "--seed"),
        (["train", "{train}", "--objective", "nDGC@10", "-o", "{out}"], "did you mean"),
        (["train", "{train}", "--objective", "0*AP", "-o", "{out}"], "objective weight"),
        (["train", "{train}", "--param", "population=0", "-o", "{out}"], "population"),
        (["train", "{train}", "--param", "subsample=-0.5", "-o", "{out}"], "subsample"),
        (["train", "{train}", "--param", "subsample=nan", "-o", "{out}"], "subsample"),
        (["train", "{train}", "--param", "bogus", "-o", "{out}"], "--param"),
        (["train", "{train}", "--method", "ga", "--param", "nope=1", "-o", "{out}"], "nope"),
        (["train", "{wide}", "-o", "{out}"], "at most 2,000 features"),
        (["eval", "{notjson}", "{train}"], "not valid JSON"),
        (["eval", "{wrongmodel}", "{train}"], "not a cranfield learning-to-rank model"),
        (["eval", "{narrow}", "{train}"], "the model has 2 features"),
        # malformed weights (issue 39: read by the engine, the same lines as json's)
        (["eval", "{nanweights}", "{train}"], "weights must be 4 finite numbers"),
        (["eval", "{hugeweights}", "{train}"], "weights must be 4 finite numbers"),
        (["eval", "{shortweights}", "{train}"], "weights must be 4 finite numbers"),
        (["eval", "{textweights}", "{train}"], "weights must be 4 finite numbers"),
        (["eval", "{zeroweights}", "{train}"], "not valid JSON: Expecting ',' delimiter"),
        (["eval", "{cutweights}", "{train}"], "not valid JSON: Expecting"),
        (["cv", "{dir}"], "no Fold1"),
        (["cv", "{folds}", "--methods", "ga,bogus"], "bogus"),
        (["cv", "{folds}", "--methods", "ga,ga"], "distinct"),
        (["cv", "{folds}", "--param", "x=1"], "METHOD.KEY=VALUE"),
    ],
)
def test_bad_input_is_one_line(tmp_path, folds, argv, mention):
    train = folds / "Fold1" / "train.txt"
    (tmp_path / "d").mkdir()
    (tmp_path / "garbage.txt").write_bytes(b"1 qid:1 1:0.5\n\x01\x02 qid:1 1:1\n")
    (tmp_path / "empty.txt").write_text("")
    # 16 GB dense, read sparse; mga's simplex refuses 100,000 features
    (tmp_path / "wide.txt").write_text("0 qid:1 100000:1\n" * 20000)
    (tmp_path / "notjson.json").write_text("{")
    (tmp_path / "wrong.json").write_text('{"format": "other"}')
    (tmp_path / "narrow.json").write_text(json.dumps({
        "format": "cranfield-ltr-model", "version": 1, "method": "ga", "num_features": 2,
        "normalisation": "none", "weights": [1.0, 2.0]}))  # fmt: skip
    for name, weights in BAD_WEIGHTS.items():
        (tmp_path / f"{name}.json").write_text(_MODEL_HEAD + weights + "}")
    names = {
        **{name: tmp_path / f"{name}.json" for name in BAD_WEIGHTS},
        "missing": tmp_path / "nope.txt", "dir": tmp_path / "d", "out": tmp_path / "m.json",
        "garbage": tmp_path / "garbage.txt", "empty": tmp_path / "empty.txt", "train": train,
        "notjson": tmp_path / "notjson.json", "wrongmodel": tmp_path / "wrong.json",
        "narrow": tmp_path / "narrow.json", "folds": folds, "wide": tmp_path / "wide.txt",
    }  # fmt: skip
    args = [a.format(**names) for a in argv]
    with Unchanged(train):
        out = run_cli("ltr", *args, cwd=tmp_path)
    err = assert_clean_failure(out, mention)
    assert err.startswith("cranfield ltr")
    assert not (tmp_path / "m.json").exists()


def test_a_missing_boosting_package_gives_the_install_hint(tmp_path, folds):
    fake = tmp_path / "fake"
    (fake / "lightgbm").mkdir(parents=True)
    (fake / "lightgbm" / "__init__.py").write_text("raise ImportError('no lightgbm here')\n")
    from .harness import SRC

    out = run_cli("ltr", "train", folds / "Fold1" / "train.txt", "--method", "lightgbm",
                  "-o", tmp_path / "m.json", env={"PYTHONPATH": f"{fake}:{SRC}"})  # fmt: skip
    assert_clean_failure(out, "pip install 'cranfield[ltr]'")
    assert not (tmp_path / "m.json").exists()


def test_closed_stdout_is_one_line(model, folds):
    out = run_cli("ltr", "eval", model, folds / "Fold1" / "test.txt", close_stdout=True)
    assert_clean_failure(out, "standard output")


@pytest.mark.parametrize(
    "argv",
    [
        ["train"],
        ["train", "t", "--method", "bogus", "-o", "m.json"],
        ["eval", "m.json"],
        ["cv", "d", "-f", "bogus"],
        ["eval", "m", "t", "--no-such-option"],
    ],
)
def test_usage_errors_of_each_action_are_one_line(tmp_path, argv):
    err = assert_clean_failure(
        run_cli("ltr", *argv, cwd=tmp_path), f"cranfield ltr {argv[0]}: error: "
    )
    assert err.endswith(f"(see cranfield ltr {argv[0]} --help)")


@pytest.mark.parametrize("method", ["lightgbm", "xgboost"])
def test_a_corrupt_booster_is_one_line(tmp_path, folds, method):
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps({
        "format": "cranfield-ltr-model", "version": 1, "method": method, "num_features": 4,
        "normalisation": "none", "booster": "garbage"}))  # fmt: skip
    out = run_cli("ltr", "eval", bad, folds / "Fold1" / "test.txt")
    assert_clean_failure(out, "model")


@pytest.mark.parametrize(
    ("content", "mention"),
    [
        (b"1 qid:1 99999999999999999999999999:1\n", "bad.txt:1: feature index"),
        (b"1 qid:1 1:0.5\n1 qid:1 1:1e400\n", "bad.txt:2: a feature value is not a finite"),
        (b"1 qid:1 1:0.5 # docid = a\n" * 100_000 + b"2 qid:1 1:\xff\xfe\n", "bad.txt:100001:"),
        (b"1 qid:1 1:0.5\r\n\r\n\x0c\r\n1 qid:\xff 2:x\r\n", "bad.txt:4: expected INDEX:VALUE"),
        (b"1 qid:1 " + b"1:1 " * 5000 + b"\n", "bad.txt:1: a feature index appears twice"),
        # sparse indices: 0, negative, beyond int32 (2^31) and beyond 64 bits; a repeat
        # out of order (scikit-learn's load_svmlight_file refuses repeats too)
        (b"1 qid:1 0:1\n", "bad.txt:1: feature index 0 is outside [1, 2147483647]"),
        (b"1 qid:1 5:1\n1 qid:1 -7:1\n", "bad.txt:2: feature index -7 is outside"),
        (b"1 qid:1 2147483648:1\n", "bad.txt:1: feature index 2147483648 is outside"),
        (b"1 qid:1 18446744073709551617:1\n", "bad.txt:1: feature index 1844674407370"),
        (b"1 qid:1 2000000000:1 3:1 2000000000:2\n", "bad.txt:1: a feature index appears twice"),
        (b"\xef\xbb\xbf1 qid:1 1:1\n", "bad.txt:1: label"),  # a byte-order mark
        (b"   \n#\n\t\n", "no documents"),
    ],
)
def test_the_svmlight_reader_names_the_line(tmp_path, content, mention):
    """The compiled reader's problems, past its first chunk too, as one line naming
    file and line (never a traceback, never a panic)."""
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    with Unchanged(bad):
        out = run_cli("ltr", "train", bad, "-o", tmp_path / "m.json", cwd=tmp_path)
    assert_clean_failure(out, mention)
    assert not (tmp_path / "m.json").exists()


def test_a_gzipped_letor_file_trains_as_the_plain_one(tmp_path, folds):
    import gzip

    train = folds / "Fold1" / "train.txt"
    packed = tmp_path / "train.txt.gz"
    packed.write_bytes(gzip.compress(train.read_bytes()))
    models = []
    for i, path in enumerate((train, packed)):
        target = tmp_path / f"m{i}.json"
        assert_success(run_cli("ltr", "train", path, "--method", "ga", "--budget", "100",
                               "-o", target))  # fmt: skip
        models.append(json.loads(target.read_text())["weights"])
    assert models[0] == models[1]


@pytest.mark.parametrize(
    ("label", "mention"),
    [
        ("99999999999", "label 99999999999 is out of range"),
        ("1.5", "label 1.5 is not a whole number"),
        ("nan", "is not a whole number"),
    ],
)
def test_a_label_that_is_not_a_grade_is_named_as_written(tmp_path, label, mention):
    data = tmp_path / "l.txt"
    data.write_text(f"{label} qid:1 1:0.5\n0 qid:1 1:0.2\n")
    err = assert_clean_failure(run_cli("ltr", "train", data, "-o", tmp_path / "m.json"), mention)
    assert "np." not in err and "l.txt:1" in err
