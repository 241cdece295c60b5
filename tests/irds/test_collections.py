"""Collections by ir_datasets id: qrels, topics and conventions, with no download.

The tests register local datasets with ir_datasets' own registry (files they write,
read through ``LocalDownload``), so ir_datasets itself is the oracle of what a
collection holds; the conventions table is checked against the ``official_measures``
ir_datasets documents for the real datasets (shipped metadata, no network)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import ir_datasets
import pytest
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecQrels, TrecQueries
from ir_datasets.util import LocalDownload

from cranfield.core.io import collections as col
from cranfield.core.measures.names import parse_many
from cranfield.core.qrels import Qrels

ROOT = Path(__file__).resolve().parents[2]
GRADES = {0: "irrelevant", 1: "related", 2: "highly relevant", 3: "perfect"}


class _Documented:
    def __init__(self, doc: dict):
        self.doc = doc

    def documentation(self) -> dict:
        return self.doc


@pytest.fixture(scope="session")
def local(tmp_path_factory):
    """Two local collections: ``cranfield-test/dl`` (TREC qrels, DL-style measures) and
    ``cranfield-test/three`` (three-column qrels, read by ir_datasets' iterator)."""
    d = tmp_path_factory.mktemp("irds")
    lines = []
    for q in range(1, 9):
        lines += [f"{q} 0 d{q}-{k} {(q * 7 + k * 3) % 4}" for k in range(10)]
    (d / "qrels").write_text("\n".join(lines) + "\n")
    (d / "qrels3").write_text("\n".join(" ".join(ln.split()[::2] + ln.split()[3:]) for ln in lines))
    (d / "topics").write_text(
        "".join(
            f"<top>\n<num> Number: {q}\n<title> topic {q}\n<desc> Description:\nabout {q}\n"
            f"<narr> Narrative:\nrelevant to {q}\n</top>\n"
            for q in range(1, 9)
        )
    )
    registered = {
        "cranfield-test/dl": Dataset(
            TrecQrels(LocalDownload(d / "qrels"), GRADES),
            TrecQueries(LocalDownload(d / "topics")),
            _Documented({"official_measures": ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]}),
        ),
        "cranfield-test/three": Dataset(
            TrecQrels(LocalDownload(d / "qrels3"), GRADES, format_3col=True)
        ),
    }
    for name, ds in registered.items():
        if name not in ir_datasets.registry:
            ir_datasets.registry.register(name, ds)
    return d


def run_file(tmp_path) -> Path:
    path = tmp_path / "run.txt"
    path.write_text(
        "".join(
            f"{q} Q0 d{q}-{k} {k + 1} {10 - k} sys\n" for q in range(1, 9) for k in (3, 1, 4, 9, 5)
        )
    )
    return path


def test_qrels_by_id_are_the_collection_qrels(local):
    by_file = Qrels.read(local / "qrels")
    for spec in ("irds:cranfield-test/dl", "cranfield-test/dl"):
        q = Qrels.read(spec)
        assert q == by_file and q.source == "irds:cranfield-test/dl"
    # the three-column file through ir_datasets' iterator: what ir_datasets yields
    three = Qrels.read("irds:cranfield-test/three").to_dict()
    expected: dict = {}
    for r in ir_datasets.load("cranfield-test/three").qrels_iter():
        expected.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    assert three == expected == by_file.to_dict()


def test_topics_and_conventions(local):
    c = col.Collection.load("cranfield-test/dl")
    topics = c.topics_table().to_pylist()
    assert topics[0] == {
        "query_id": "1",
        "title": "topic 1",
        "description": "about 1",
        "narrative": "relevant to 1",
    }
    conv = c.conventions()
    assert conv.rel_level == 2 and conv.grades == GRADES
    assert conv.measures == ("nDCG@10", "RR(rel=2)", "AP(rel=2)")
    assert col.Collection.load("cranfield-test/three").conventions().rel_level is None


def test_cli_applies_the_conventions_and_says_so(local, tmp_path, cli):
    run = run_file(tmp_path)
    status, out, err = cli("eval", "cranfield-test/dl", run, "-f", "csv")
    assert status == 0
    notes = err.splitlines()
    assert len(notes) == 2 and "grade >= 2" in notes[0] and "-l overrides" in notes[0]
    assert "nDCG@10, RR(rel=2), AP(rel=2)" in notes[1]
    # the same as the file with the convention spelled out
    status, expected, _ = cli(
        "eval", local / "qrels", run, "-l", "2", "-m", "nDCG@10", "RR(rel=2)", "AP(rel=2)",
        "-f", "csv",
    )  # fmt: skip
    assert status == 0 and out == expected
    status, out, _ = cli("eval", "cranfield-test/dl", run, "-f", "json")
    assert status == 0 and json.loads(out)["provenance"]["collection"] == "cranfield-test/dl"
    # -l and -m given: used as given, no notes
    status, out, err = cli("eval", "irds:cranfield-test/dl", run, "-l", "1", "-m", "P@5")
    status2, expected, _ = cli("eval", local / "qrels", run, "-l", "1", "-m", "P@5")
    assert status == status2 == 0 and err == "" and out == expected


def test_compare_and_report_take_ids(local, tmp_path, cli):
    run = run_file(tmp_path)
    other = tmp_path / "other.txt"
    other.write_text(run.read_text().replace(" sys\n", " other\n").replace("Q0 d", "Q0 x", 7))
    status, out, err = cli("compare", "irds:cranfield-test/dl", run, other, "-f", "json")
    assert status == 0 and '"AP(rel=2)"' in out and "official measures" in err
    status, _, err = cli("curve", "pr", "irds:cranfield-test/dl", run)
    assert status == 0 and "grade >= 2" in err


@pytest.mark.parametrize(
    "spec, mention",
    [
        ("irds:cranfield-test/nope", "unknown collection id 'cranfield-test/nope'"),
        ("no-such-dir/qrels.txt", "no such file"),
    ],
)
def test_bad_ids_are_one_line(local, tmp_path, cli, spec, mention):
    status, out, err = cli("eval", spec, run_file(tmp_path))
    assert status == 2 and out == "" and err.count("\n") == 1 and mention in err


def test_without_the_extra_an_id_says_how_to_install(monkeypatch, tmp_path, cli):
    monkeypatch.setitem(__import__("sys").modules, "ir_datasets", None)
    status, _, err = cli("eval", "irds:beir/scifact/test", run_file(tmp_path))
    assert status == 2 and "pip install" in err and "ir_datasets" in err


# the real datasets' documentation, under the prefixes cranfield lists (shipped metadata)
def _documented():
    for name in sorted(ir_datasets.registry._registered):
        if col.known(name) is None:
            continue
        doc = ir_datasets.load(name).documentation()
        if doc.get("official_measures"):
            yield name, tuple(doc["official_measures"])


def test_known_conventions_agree_with_ir_datasets():
    checked = 0
    for name, measures in _documented():
        entry = col.known(name)
        assert set(entry.measures) == set(measures), name
        levels = {int(k) for k in re.findall(r"rel=(\d+)", " ".join(measures))}
        assert levels <= {entry.rel_level}, name
        checked += 1
    assert checked >= 10  # the DL tracks and MS MARCO dev are documented there


def test_known_measures_are_measure_names():
    for entry in col.KNOWN:
        for name in entry.measures:
            assert len(parse_many(name)) == 1, name


def test_docs_table_is_up_to_date():
    page = (ROOT / "docs" / "collections.md").read_text(encoding="utf-8")
    assert col.with_table(page) == page, (
        "regenerate: python -m cranfield.core.io.collections docs/collections.md"
    )


def test_campaign_topics_by_id(local):
    from cranfield.collection import read_topics

    topics = read_topics("irds:cranfield-test/dl")
    expected = list(ir_datasets.load("cranfield-test/dl").queries_iter())
    assert [(t.id, t.title, t.description, t.narrative) for t in topics] == [
        (q.query_id, q.title, q.description, q.narrative) for q in expected
    ]
