"""Provenance in JSON outputs and the report: the command as given, the versions, and
each input file's size and SHA-256 (hashlib over the bytes on disk is the oracle)."""

from __future__ import annotations

import hashlib
import json
import re
import shlex

from cranfield import _engine
from cranfield.provenance import file_record


def files(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(1, 6) for d in range(6)))
    runs = []
    for name, sign in (("up", 1), ("down", -1)):
        path = tmp_path / f"{name}.txt"
        path.write_text(
            "".join(
                f"{q} Q0 d{d} {d + 1} {sign * d + q / 10} {name}\n"
                for q in range(1, 6)
                for d in range(6)
            )
        )
        runs.append(path)
    return qrels, runs


def expected_inputs(paths) -> list[dict]:
    return [
        {
            "path": str(p),
            "bytes": p.stat().st_size,
            "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
        }
        for p in paths
    ]


def test_eval_json_records_command_versions_and_hashes(tmp_path, cli):
    qrels, runs = files(tmp_path)
    argv = ["eval", str(qrels), *map(str, runs), "-m", "AP", "-l", "2", "-f", "json"]
    status, out, _ = cli(*argv)
    assert status == 0
    record = json.loads(out)["provenance"]
    assert record["command"] == shlex.join(["cranfield", *argv])
    assert (record["cranfield"], record["engine"]) == (_engine.__version__, _engine.BUILD)
    assert record["inputs"] == expected_inputs([qrels, *runs])
    assert record["options"]["rel_level"] == 2 and record["options"]["measures"] == ["AP"]
    assert record["collection"] is None


def test_compare_json_and_the_report_carry_it(tmp_path, cli):
    qrels, runs = files(tmp_path)
    status, out, _ = cli("compare", qrels, *runs, "-m", "AP", "-f", "json")
    assert status == 0
    assert json.loads(out)["provenance"]["inputs"] == expected_inputs([qrels, *runs])
    report = tmp_path / "r.html"
    assert cli("report", qrels, *runs, "-m", "AP", "-o", report)[0] == 0
    page = report.read_text(encoding="utf-8")
    table = page.split('id="input-files"')[1].split("</table>")[0]
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>", table)
    assert rows == [
        (e["path"], str(e["bytes"]), e["sha256"]) for e in expected_inputs([qrels, *runs])
    ]


def test_standard_input_is_recorded_without_a_hash(tmp_path):
    assert file_record("-") == {"path": "-"}
    assert file_record(tmp_path / "missing") == {"path": str(tmp_path / "missing")}
    big = tmp_path / "big"
    big.write_bytes(b"x" * (9 << 20))  # more than one chunk
    assert file_record(big)["sha256"] == hashlib.sha256(big.read_bytes()).hexdigest()
