"""The machine assessor's client against a local chat-completions server (127.0.0.1 only)."""

from __future__ import annotations

import sqlite3
import sys
import time

import numpy as np
import pytest

from cranfield.collection.records import Topic
from cranfield.judgments.data import Scale
from cranfield.judgments.label_cache import LabelCache
from cranfield.judgments.machine import (
    AssessorError,
    ChatCompletions,
    LocalCommand,
    judge_pairs,
)
from cranfield.judgments.prompts import (
    DEFAULT_TEMPLATE,
    parse_label,
    read_template,
    render,
)

from .chat_server import ChatServer

SCALE = Scale((0, 1, 2, 3))


def collection(n_topics=3, per_topic=8, seed=1):
    rng = np.random.default_rng(seed)
    topics, docs, truth = [], [], {}
    for t in range(n_topics):
        for d in range(per_topic):
            topics.append(f"t{t}")
            docs.append(f"d{t}-{d}")
            truth[f"d{t}-{d}"] = int(rng.integers(0, 4))
    topic_of = {
        f"t{t}": Topic(f"t{t}", f"title {t}", f"desc {t}", f"narr {t}") for t in range(n_topics)
    }
    text_of = {d: f"text of {d} truth={g}" for d, g in truth.items()}
    return np.array(topics, object), np.array(docs, object), topic_of, text_of, truth


def run(server, tmp_path, **kw):
    topics, docs, topic_of, text_of, truth = collection()
    backend = ChatCompletions(
        server.url, "test-model", kw.pop("api_key", None), timeout=kw.pop("timeout", 5)
    )
    kw.setdefault("backoff", 0.01)
    kw.setdefault("cache", tmp_path / "cache.sqlite")
    return judge_pairs(topics, docs, topic_of, text_of, SCALE, backend, progress=False, **kw), truth


def test_labels_are_the_servers_and_tokens_are_counted(tmp_path):
    with ChatServer(accuracy=0.7, seed=3) as server:
        labels, truth = run(server, tmp_path, price_input=2.0, price_output=10.0, api_key="k")
        assert server.requests == 24
        assert server.headers[0]["Authorization"] == "Bearer k"
        assert server.bodies[0]["model"] == "test-model"
        expected = [
            parse_label(
                server.answer(
                    render(
                        DEFAULT_TEMPLATE,
                        SCALE,
                        Topic(t, f"title {t[1:]}", f"desc {t[1:]}", f"narr {t[1:]}"),
                        f"text of {d} truth={truth[d]}",
                    )
                ),
                SCALE,
            )
            for t, d in zip(labels.topic, labels.document, strict=True)
        ]
    assert labels.label.tolist() == expected
    agree = np.mean([lab == truth[d] for lab, d in zip(labels.label, labels.document, strict=True)])
    assert 0.4 < agree < 1.0  # noisy, not random
    assert (labels.requested, labels.cached) == (24, 0)
    assert (labels.prompt_tokens, labels.completion_tokens) == (2400, 168)
    assert labels.cost == pytest.approx((2400 * 2 + 168 * 10) / 1e6)
    assert (
        labels.assessor.startswith("test-model@")
        and len(labels.assessor) == len("test-model@") + 12
    )


def test_a_rerun_costs_nothing(tmp_path):
    with ChatServer() as server:
        first, _ = run(server, tmp_path)
        before = server.requests
        second, _ = run(server, tmp_path)
        assert server.requests == before
    assert second.label.tolist() == first.label.tolist()
    assert (second.cached, second.requested, second.prompt_tokens) == (24, 0, 0)


def test_samples_are_separate_cache_entries(tmp_path):
    with ChatServer() as server:
        labels, _ = run(server, tmp_path, samples=2)
        assert server.requests == 48
    assert labels.sample.tolist() == [0] * 24 + [1] * 24
    j = labels.judgments(SCALE, samples_as_assessors=True)
    assert j.n_assessors == 2 and j.assessors[1].endswith("#1")


def test_retry_after_is_honoured(tmp_path):
    with ChatServer() as server:
        server.script = ["429"]
        server.retry_after = "1"
        start = time.monotonic()
        labels, _ = run(server, tmp_path, concurrency=1)
        assert time.monotonic() - start >= 1.0
        assert server.requests == 25
    assert labels.retries == 1 and labels.requested == 24


@pytest.mark.parametrize("failure", ["500", "garbage", "nolabel", "429"])
def test_transient_failures_are_retried(tmp_path, failure):
    with ChatServer() as server:
        server.script = [failure, failure]
        labels, _ = run(server, tmp_path, concurrency=1)
        assert server.requests == 26
    assert labels.retries == 2 and (labels.label >= 0).all()
    # an answer without a grade was paid for: its tokens count
    paid = 26 if failure == "nolabel" else 24
    assert (labels.prompt_tokens, labels.completion_tokens) == (100 * paid, 7 * paid)


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("500", "server error HTTP 500 on every retry: test 500"),
        ("garbage", "malformed answer on every retry"),
        ("nolabel", "the answer gives no grade on the scale 0,1,2,3"),
        ("429", "rate limited (HTTP 429) on every retry; lower --concurrency"),
    ],
)
def test_persistent_failures_are_one_clear_error(tmp_path, failure, message):
    with ChatServer() as server:
        server.script = [failure] * 50
        with pytest.raises(
            AssessorError, match=message.replace("(", r"\(").replace(")", r"\)")
        ) as exc:
            run(server, tmp_path, concurrency=1, retries=2)
    assert "\n" not in str(exc.value)


def test_a_refused_request_stops_at_once_with_a_hint(tmp_path):
    with ChatServer() as server:
        server.script = ["401"]
        with pytest.raises(AssessorError, match=r"HTTP 401\) \(check the key"):
            run(server, tmp_path, concurrency=1, retries=5)
        assert server.requests == 1


def test_timeouts(tmp_path):
    with ChatServer() as server:
        server.script = ["slow"] * 5
        server.slow_seconds = 1.0
        with pytest.raises(AssessorError, match=r"no answer within 0.2 s \(raise --timeout\)"):
            run(server, tmp_path, concurrency=1, retries=1, timeout=0.2)


def test_labels_paid_for_before_a_failure_are_kept(tmp_path):
    with ChatServer() as server:
        server.script = ["ok"] * 10 + ["401"]
        with pytest.raises(AssessorError, match="10 new label"):
            run(server, tmp_path, concurrency=1)
        rows = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT COUNT(*) FROM labels")
        assert rows.fetchone()[0] == 10
        before = server.requests
        labels, _ = run(server, tmp_path, concurrency=3)
        assert server.requests - before == 14
    assert labels.cached == 10 and labels.requested == 14


@pytest.mark.process
def test_a_local_command(tmp_path):
    script = tmp_path / "judge.py"
    script.write_text(
        "import re, sys\n"
        "text = sys.stdin.read()\n"
        "print('##final score:', re.search(r'truth=(\\d)', text).group(1))\n"
    )
    topics, docs, topic_of, text_of, truth = collection(1, 4)
    backend = LocalCommand([sys.executable, str(script)], timeout=30)
    labels = judge_pairs(topics, docs, topic_of, text_of, SCALE, backend, progress=False)
    assert labels.label.tolist() == [truth[d] for d in docs]


@pytest.mark.process
def test_a_failing_local_command(tmp_path):
    topics, docs, topic_of, text_of, _ = collection(1, 1)
    backend = LocalCommand([sys.executable, "-c", "import sys; sys.exit('boom')"])
    with pytest.raises(AssessorError, match="status 1.*boom"):
        judge_pairs(topics, docs, topic_of, text_of, SCALE, backend, progress=False, retries=0)


def test_missing_documents_and_topics_are_input_errors():
    topics, docs, topic_of, text_of, _ = collection(1, 2)
    del text_of[docs[0]]
    with pytest.raises(ValueError, match="1 document.*no text"):
        judge_pairs(topics, docs, topic_of, text_of, SCALE, LocalCommand(["true"]), progress=False)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("##final score: 2", 2),
        ("M=1 T=0\n##Final Score: **3**", 3),
        ("final score: 1 ... final score: 0", 0),
        ("2", 2),
        (" 3.", 3),
        ("score 7", None),
        ("##final score: 7", None),
        ("", None),
    ],
)
def test_parse_label(answer, label):
    assert parse_label(answer, SCALE) == label


def test_templates(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("Query: {title}")
    with pytest.raises(ValueError, match="no {document} placeholder"):
        read_template(bad)
    good = tmp_path / "good.txt"
    good.write_text('{"q": "{title}"} {document} {unknown} {lowest}-{highest}\n{scale}')
    text = render(read_template(good), Scale((0, 1), ("no", "yes")), Topic("1", "cats"), "DOC")
    assert text == '{"q": "cats"} DOC {unknown} 0-1\n0 = no\n1 = yes'


def test_cache_rejects_a_file_that_is_not_sqlite(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_text("not a database at all, just some text" * 20)
    with pytest.raises(ValueError, match="not a usable label cache"):
        LabelCache(path)
