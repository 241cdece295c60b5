"""``cranfield judge``, ``validate`` and ``ppi`` on the command line (a local server only)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from cranfield.cli.main import main
from cranfield.core.qrels import Qrels
from cranfield.judgments.simulate import simulate_assessor_qrels, simulate_collection

from .chat_server import ChatServer


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(0)
    topics, docs, pool, human = [], [], [], []
    for t in range(3):
        topics.append(
            json.dumps({"id": f"t{t}", "title": f"title {t}", "description": "d", "narrative": "n"})
        )
        for d in range(6):
            g = int(rng.integers(0, 4))
            docs.append(json.dumps({"id": f"d{t}-{d}", "title": "", "text": f"text truth={g}"}))
            pool.append(f"t{t} d{t}-{d}")
            human.append(f"t{t} 0 d{t}-{d} {g}")
    for name, lines in (
        ("topics.jsonl", topics),
        ("docs.jsonl", docs),
        ("pool.txt", pool),
        ("human.qrels", human),
    ):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def judge(files, url, *extra):
    return main(
        [
            "judge",
            str(files / "pool.txt"),
            str(files / "topics.jsonl"),
            str(files / "docs.jsonl"),
            "--base-url",
            url,
            "--model",
            "m1",
            "--cache",
            str(files / "cache.sqlite"),
            *extra,
        ]
    )


def test_judge_writes_qrels_and_a_rerun_costs_nothing(files, capsys):
    with ChatServer(accuracy=0.7) as server:
        assert judge(files, server.url, "-o", str(files / "machine.qrels")) == 0
        assert server.requests == 18
        first = capsys.readouterr().err
        assert judge(files, server.url, "-o", str(files / "again.qrels")) == 0
        assert server.requests == 18
    assert "18 labels (0 from the cache, 18 asked for, 0 retries); tokens 1800 in" in first
    assert "18 from the cache, 0 asked for" in capsys.readouterr().err
    lines = (files / "machine.qrels").read_text().splitlines()
    assert lines == (files / "again.qrels").read_text().splitlines()
    assert len(lines) == 18 and lines[0].startswith("t0 0 d0-0 ")
    q = Qrels.read(files / "machine.qrels")
    assert set(q.table["relevance"].to_pylist()) <= {0, 1, 2, 3}


def test_samples_feed_agreement_and_validate_unchanged(files, capsys):
    with ChatServer(accuracy=0.6) as server:
        out = files / "j.tsv"
        assert (
            judge(
                files,
                server.url,
                "--samples",
                "3",
                "--seed",
                "1",
                "-f",
                "judgments",
                "-o",
                str(out),
            )
            == 0
        )
        assert judge(files, server.url, "--seed", "1", "-o", str(files / "m.qrels")) == 0
        assert server.bodies[-1]["temperature"] == 0.0 and server.bodies[-1]["max_tokens"] == 64
        assert (
            judge(files, server.url, "--temperature", "0.7", "--max-tokens", "9", "--no-cache") == 0
        )
        assert server.bodies[-1]["temperature"] == 0.7 and server.bodies[-1]["max_tokens"] == 9
    head = out.read_text().splitlines()
    assert head[0] == "topic\tdocument\tassessor\tlabel" and len(head) == 1 + 54
    capsys.readouterr()
    assert main(["agreement", "--judgments", str(out), "--bootstrap", "0", "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["assessors"]) == 3 and doc["assessors"][0].startswith("m1@")
    assert (
        main(
            [
                "validate",
                str(files / "human.qrels"),
                str(files / "m.qrels"),
                "--samples",
                str(out),
                "-f",
                "json",
            ]
        )
        == 0
    )
    rep = json.loads(capsys.readouterr().out)
    assert rep["pairs"] == 18 and rep["self_consistency"]["samples"] == 3
    assert sum(map(sum, rep["confusion"]["matrix"])) == 18
    assert main(["validate", str(files / "human.qrels"), str(files / "m.qrels")]) == 0
    text = capsys.readouterr().out
    assert "cohen_kappa_unweighted" in text and "bias per human label" in text


@pytest.mark.parametrize(
    ("script", "extra", "message"),
    [
        (["401"], [], "HTTP 401) (check the key"),
        (["500"] * 9, ["--retries", "1"], "server error HTTP 500 on every retry"),
        ([], ["--concurrency", "0"], "--concurrency: expected an integer in [1, 256]"),
    ],
)
def test_judge_errors_are_one_line(files, capsys, script, extra, message):
    with ChatServer() as server:
        server.script = list(script)
        assert judge(files, server.url, "--no-cache", *extra) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("cranfield judge: error:")


def test_judge_needs_an_assessor(files, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    code = main(
        ["judge", str(files / "pool.txt"), str(files / "topics.jsonl"), str(files / "docs.jsonl")]
    )
    assert code == 2 and "--base-url URL --model NAME" in capsys.readouterr().err


def test_judge_reads_the_environment(files, capsys, monkeypatch):
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "secret")
        code = main(
            [
                "judge",
                str(files / "pool.txt"),
                str(files / "topics.jsonl"),
                str(files / "docs.jsonl"),
                "--model",
                "m",
                "--no-cache",
            ]
        )
        assert code == 0 and server.headers[0]["Authorization"] == "Bearer secret"


def test_ppi_command(tmp_path, capsys):
    qrels, runs = simulate_collection(40, 15, 3, seed=4)
    machine = simulate_assessor_qrels(qrels, 0.75, seed=2)
    machine.to_trec(tmp_path / "machine.qrels")
    import pyarrow.compute as pc

    keep = pc.is_in(qrels.table["query_id"], value_set=pa.array([str(t) for t in range(0, 40, 4)]))
    Qrels(qrels.table.filter(keep)).to_trec(tmp_path / "human.qrels")
    paths = []
    for name, run in runs.items():
        run.to_trec(tmp_path / f"{name}.txt")
        paths.append(str(tmp_path / f"{name}.txt"))
    args = [str(tmp_path / "machine.qrels"), str(tmp_path / "human.qrels"), *paths]
    assert main(["ppi", *args, "-m", "AP", "-f", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["sampled"] == 10 and rep["topics"] == 40 and rep["estimator"] == "ppi"
    assert len(rep["differences"]) == 3
    for r in rep["runs"].values():
        assert r["low"] < r["estimate"] < r["high"] and r["lam"] == 1.0
    assert main(["ppi", *args, "--estimator", "ppi++", "--inclusion", "0.25"]) == 0
    text = capsys.readouterr().out
    assert "ppi++ estimates with 95% t intervals, 10 of 40 topics" in text and "separated" in text
    assert main(["ppi", *args, "-m", "AP", "-f", "json", "--interval", "normal"]) == 0
    normal = json.loads(capsys.readouterr().out)
    assert rep["interval"] == "t" and normal["interval"] == "normal"
    from cranfield.judgments.ppi import ppi_evaluate

    machine, human = tmp_path / "machine.qrels", tmp_path / "human.qrels"
    direct = ppi_evaluate(machine, human, paths, "AP", estimator="ppi", interval="normal")
    assert normal["runs"] == direct["runs"] and normal["runs"] != rep["runs"]
    (tmp_path / "p.txt").write_text("".join(f"{t} 0.5\n" for t in range(0, 40, 4)))
    assert main(["ppi", *args, "--inclusion", str(tmp_path / "p.txt"), "-f", "json"]) == 0
    weighted = json.loads(capsys.readouterr().out)
    assert weighted["runs"] == rep["runs"]  # equal probabilities: the same weights
    assert main(["ppi", *args, "--units", "pairs", "-m", "P@10", "-f", "json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    assert pairs["units"] == "pairs" and pairs["pairs"] == 600 and pairs["sampled"] == 150
    assert main(["ppi", *args, "--units", "pairs", "-m", "DCG@5"]) == 0
    assert "150 of 600 pooled pairs judged by people" in capsys.readouterr().out
    assert main(["ppi", *args, "--estimator", "bogus"]) == 2
    assert "expected one of ppi++, ppi, classical" in capsys.readouterr().err


@pytest.mark.process
def test_an_interrupted_judge_keeps_every_label_it_received(files, capsys):
    """Ctrl-C: status 130, one line, no half-written output, and the labels received are
    in the cache, so the rerun asks only for the others."""
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    cache, target = files / "cache.sqlite", files / "out.qrels"
    with ChatServer() as server:
        server.script = ["ok"] * 5 + ["slow"] * 50
        server.slow_seconds = 20
        proc = subprocess.Popen(
            [sys.executable, "-m", "cranfield", "judge", str(files / "pool.txt"),
             str(files / "topics.jsonl"), str(files / "docs.jsonl"), "--base-url", server.url,
             "--model", "m1", "--cache", str(cache), "--concurrency", "1", "-o", str(target)],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while server.requests < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=30)[1]
        assert proc.returncode == 130 and err == "cranfield judge: interrupted\n"
        assert not target.exists()
        assert sqlite3.connect(cache).execute("SELECT COUNT(*) FROM labels").fetchone()[0] == 5
        server.script = []
        before = server.requests
        assert judge(files, server.url, "-o", str(target)) == 0
        assert server.requests - before == 13
    assert len(target.read_text().splitlines()) == 18


def test_ppi_flags_a_sample_that_is_not_random(tmp_path, capsys):
    """The check can fail: people judged the topics the machine scores highest."""
    from cranfield import evaluate

    qrels, runs = simulate_collection(60, 15, 3, seed=8)
    machine = simulate_assessor_qrels(qrels, 0.8, seed=3)
    res = evaluate(machine, runs, ["AP"], complete=True)
    mean = {}
    for r in res.run_names:
        for t, v in res.per_query(r, "AP").items():
            mean[t] = mean.get(t, 0.0) + v
    easiest = sorted(mean, key=mean.get)[-12:]
    import pyarrow.compute as pc

    keep = pc.is_in(qrels.table["query_id"], value_set=pa.array(easiest))
    machine.to_trec(tmp_path / "m.qrels")
    Qrels(qrels.table.filter(keep)).to_trec(tmp_path / "h.qrels")
    paths = []
    for name, run in runs.items():
        run.to_trec(tmp_path / f"{name}.txt")
        paths.append(str(tmp_path / f"{name}.txt"))
    assert main(["ppi", str(tmp_path / "m.qrels"), str(tmp_path / "h.qrels"), *paths]) == 0
    err = capsys.readouterr().err
    assert "was the sample drawn at random?" in err and err.startswith("cranfield ppi: note:")
