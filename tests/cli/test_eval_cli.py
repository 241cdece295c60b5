"""cranfield eval and cranfield demo through the CLI."""

import csv
import io
import json

import pytest

import cranfield


@pytest.fixture(scope="module")
def collection(sample_paths):
    return sample_paths[0], sample_paths[1:]


def test_text_table(collection, cli):
    qrels, runs = collection
    code, out, err = cli("eval", qrels, *runs[:2], "-m", "AP", "nDCG@10")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["run", "AP", "nDCG@10"]
    expected = cranfield.evaluate(
        cranfield.Qrels.read(qrels), [cranfield.Run.read(p) for p in runs[:2]], ["AP", "nDCG@10"]
    )
    first = lines[1].split()
    assert first[0] == expected.run_names[0]
    assert float(first[1]) == pytest.approx(expected.aggregate(0, "AP"), abs=5e-5)


def test_json_matches_api(collection, cli):
    qrels, runs = collection
    code, out, _ = cli("eval", qrels, runs[0], "-m", "AP", "P@10", "--format", "json", "-q")
    data = json.loads(out)
    api = cranfield.evaluate(
        cranfield.Qrels.read(qrels), cranfield.Run.read(runs[0]), ["AP", "P@10"]
    )
    record = data.pop("provenance")  # what the CLI adds (tests/test_provenance.py)
    assert record["inputs"][0]["path"] == str(qrels)
    assert data == json.loads(api.dumps(per_query=True))


def test_csv_and_trec_formats(collection, cli):
    qrels, runs = collection
    _, out, _ = cli("eval", qrels, runs[0], "-m", "AP", "NumRet", "-f", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["run", "AP", "NumRet"] and rows[1][2] == "4000"
    _, out, _ = cli("eval", qrels, runs[0], "-m", "map", "-f", "trec")
    lines = out.splitlines()
    assert lines[0].startswith("runid") and lines[1].startswith("AP                    \tall\t")


def test_trec_eval_and_eval_agree(collection, cli):
    qrels, runs = collection
    _, te, _ = cli("trec_eval", "-m", "map", "-m", "ndcg_cut.10", qrels, runs[0])
    _, ev, _ = cli("eval", qrels, runs[0], "-m", "map", "ndcg_cut.10", "-f", "trec")
    te_vals = {line.split("\t")[0].strip(): line.split("\t")[2] for line in te.splitlines()}
    ev_vals = {line.split("\t")[0].strip(): line.split("\t")[2] for line in ev.splitlines()}
    assert te_vals["map"] == ev_vals["AP"] and te_vals["ndcg_cut_10"] == ev_vals["nDCG@10"]


def test_missing_topics_note_and_complete(collection, cli):
    qrels, runs = collection
    dense = [p for p in runs if p.stem == "dense"][0]
    code, _, err = cli("eval", qrels, dense, "-m", "AP")
    assert code == 0 and "no results for 1 qrels topic" in err
    code, _, err = cli("eval", qrels, dense, "-m", "AP", "--complete")
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    "args, message",
    [
        (["-m", "nDGC@10"], "did you mean nDCG"),
        (["-m", "AP", "--aggregate", "micro"], "micro averaging"),
        (["-m", "P@0"], "positive integer rank"),
        (["-m", "rbp.p=1.5"], "parameter p"),
        (["--depth", "0"], "--depth"),
    ],
)
def test_bad_options_one_line_exit_2(collection, cli, args, message):
    qrels, runs = collection
    code, out, err = cli("eval", qrels, runs[0], *args)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_file_names_the_line(tmp_path, collection, cli):
    qrels, _ = collection
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 1.0 r\n301 Q0 d2 2 high r\n")
    code, _, err = cli("eval", qrels, bad)
    assert code == 2 and f"{bad}:2" in err and len(err.strip().splitlines()) == 1


def test_demo(tmp_path, cli):
    code, out, _ = cli("demo", "--dir", tmp_path / "s")
    assert code == 0
    assert "hybrid" in out and "cranfield trec_eval" in out
    assert (tmp_path / "s" / "qrels.txt").exists()


def test_collection_size_fills_measures_that_need_it(collection, cli):
    qrels, runs = collection
    code, _, err = cli("eval", qrels, runs[0], "-m", "Fallout@10")
    assert code == 2 and "collection size" in err
    code, out, _ = cli(
        "eval",
        qrels,
        runs[0],
        "-m",
        "Fallout@10",
        "Generality",
        "-N",
        "100000",
        "-f",
        "json",
    )
    agg = json.loads(out)["runs"][0]["aggregate"]
    explicit = cranfield.evaluate(
        cranfield.Qrels.read(qrels),
        cranfield.Run.read(runs[0]),
        ["Fallout(collection_size=100000)@10", "Generality(collection_size=100000)"],
    ).aggregate(0)
    assert list(agg.values()) == pytest.approx(list(explicit.values()))
    assert 0 < agg[next(iter(agg))] < 0.001
