"""``cranfield runs describe``: the summary of a run checked against pandas on generated
runs (ties, one-document topics, equal scores), and ir_metadata headers read back as
the YAML that was written (PyYAML's own dump is the oracle)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest
import yaml

from adversarial.harness import Outcome, assert_clean_failure
from cranfield.core.describe import describe_run
from cranfield.core.io.metadata import read_metadata
from cranfield.core.run import Run


def generated(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(int(rng.integers(1, 12))):
        depth = int(rng.integers(1, 30))
        # few distinct scores: ties are common, sometimes a whole topic ties
        scores = rng.integers(0, int(rng.integers(1, 6)), depth) / 2 - 1
        rows += [
            (f"t{q}", f"d{d}", float(s))
            for d, s in zip(rng.permutation(depth), scores, strict=True)
        ]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@pytest.mark.parametrize("seed", range(60))
def test_summary_matches_pandas(seed):
    df = generated(seed)
    s = describe_run(Run.from_pandas(df, name="r"))
    depth = df.groupby("query_id").size()
    ties = df.groupby(["query_id", "score"]).size()
    tied = ties[ties > 1]
    assert (s.topics, s.documents) == (df.query_id.nunique(), len(df))
    assert (s.depth_min, s.depth_max) == (depth.min(), depth.max())
    assert s.depth_median == depth.median()
    assert s.topics_with_ties == tied.index.get_level_values(0).nunique()
    assert s.tied_documents == tied.sum()
    assert (s.score_min, s.score_max) == (df.score.min(), df.score.max())


def test_empty_run():
    s = describe_run(Run.from_dict({}, name="e"))
    assert (s.topics, s.documents, s.depth_max, s.score_min) == (0, 0, None, None)


ANNOTATIONS = {
    "schema-version": 0.1,
    "tag": "bm25-rm3",
    "platform": {"hardware": {"cpu": "2 cores"}, "software": {"libraries": ["pyterrier"]}},
    "method": {"retrieval": [{"name": "bm25", "k1": 0.9, "b": 0.4}]},
}


def annotated(path, doc=ANNOTATIONS, packed=False, body="1 Q0 d1 1 2.0 bm25-rm3\n"):
    text = yaml.safe_dump(doc, sort_keys=False)
    header = ["ir_metadata.start", *text.splitlines(), "ir_metadata.end"]
    content = "".join(f"# {line}\n" for line in header) + body
    if packed:
        path.write_bytes(gzip.compress(content.encode()))
    else:
        path.write_text(content)
    return path


@pytest.mark.parametrize("packed", [False, True])
def test_metadata_reads_back_what_was_written(tmp_path, packed):
    path = annotated(tmp_path / "a.run", packed=packed)
    assert read_metadata(path) == ANNOTATIONS
    assert Run.read(path).to_dict() == {"1": {"d1": 2.0}}  # comments do not change the run


def test_no_metadata(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("# just a comment\n1 Q0 d1 1 2.0 x\n# ir_metadata.start later is data\n")
    assert read_metadata(path) is None


def test_cli_json_and_text(tmp_path, cli):
    path = annotated(tmp_path / "a.run", body="1 Q0 d1 1 2 x\n1 Q0 d2 2 2 x\n2 Q0 d1 1 1 x\n")
    status, out, _ = cli("runs", "describe", path, "-f", "json")
    assert status == 0
    (doc,) = json.loads(out)
    assert doc["metadata"] == ANNOTATIONS
    assert (doc["topics"], doc["documents"], doc["tied_documents"]) == (2, 3, 2)
    status, out, _ = cli("runs", "describe", path)
    assert status == 0 and "method.retrieval.0.k1" in out and "ir_metadata of x" in out


@pytest.mark.parametrize(
    "header, mention",
    [
        (["ir_metadata.start", "tag: x"], "without ir_metadata.end"),
        (["ir_metadata.start", "tag: [x", "ir_metadata.end"], "ir_metadata:"),
        (["ir_metadata.start", "- a list", "ir_metadata.end"], "key: value"),
    ],
)
def test_bad_metadata_is_one_line_with_the_line(tmp_path, cli, header, mention):
    path = tmp_path / "bad.run"
    path.write_text("".join(f"# {h}\n" for h in header) + "1 Q0 d1 1 2 x\n")
    status, out, err = cli("runs", "describe", path)
    assert_clean_failure(Outcome([], status, out.encode(), err), mention, "bad.run:")
    assert out == ""


def test_bad_run_is_one_line(tmp_path, cli):
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 d1 1 2 x\n1 Q0 d1 2 1 x\n")
    status, out, err = cli("runs", "describe", path)
    assert_clean_failure(Outcome([], status, out.encode(), err), "dup.run")
    status, out, _ = cli("runs", "describe", path, "--duplicates", "max", "-f", "csv")
    assert status == 0 and out.splitlines()[1].startswith("x,1,1,1,1.0,1,0,0,2.0,2.0")
    status, out, err = cli("runs", "describe", tmp_path / "missing.run")
    assert_clean_failure(Outcome([], status, out.encode(), err), "missing.run")
