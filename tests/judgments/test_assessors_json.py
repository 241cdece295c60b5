"""``cranfield assessors -f json`` writes its rows a column at a time
(``output.json_texts``, ``output.json_objects``): the same bytes as ``json.dumps`` of
each row's dict, the way it wrote them before, on random and hostile values."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from cranfield.judgments import Judgments
from cranfield.judgments.quality import assessor_columns, assessor_rows
from cranfield.output import dumps_json, json_objects, json_texts

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, 1e300, -1.5, 0.1, 1 / 3, 2.0**53]


def _row_by_row(a: np.ndarray) -> list[str]:
    return [dumps_json(item, indent=None) for item in a.tolist()]


@pytest.mark.parametrize("seed", range(40))
def test_json_texts_equal_one_dump_per_item(seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(0, 6)), *rng.integers(0, 4, int(rng.integers(0, 3))).tolist())
    kind = seed % 4
    if kind == 0:  # floats, the special values among them
        a = rng.normal(0, 10.0 ** rng.integers(-300, 300), shape)
        a.flat[rng.random(a.size) < 0.3] = rng.choice(SPECIAL, a.size)[rng.random(a.size) < 0.3]
    elif kind == 1:
        a = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, shape, dtype=np.int64)
    elif kind == 2:
        a = rng.random(shape) < 0.5
    else:
        a = rng.integers(0, 2**64 - 1, shape, dtype=np.uint64)
    assert json_texts(a) == _row_by_row(a), (shape, a.dtype)


def test_json_texts_of_all_special_floats_and_nested_items():
    a = np.array(SPECIAL * 3).reshape(3, len(SPECIAL))
    assert json_texts(a) == _row_by_row(a)
    cube = np.array(SPECIAL[:8]).reshape(2, 2, 2)
    assert json_texts(cube) == _row_by_row(cube)
    assert json_texts(np.array([np.nan])) == ["null"]
    with pytest.raises(TypeError):
        json_texts(np.array(["a"]))


def test_json_objects_equal_a_dump_of_each_dict():
    rows = [
        {"a": 1, 'q"uote': None, "per%cent": [1.5, None], "é": "x"},
        {"a": -2, 'q"uote': 0.1, "per%cent": [], "é": 'y "z"'},
    ]
    columns = {k: [json.dumps(r[k]) for r in rows] for k in rows[0]}
    assert json_objects(columns) == [dumps_json(r, indent=None) for r in rows]
    assert json_objects({"a": []}) == []


NAMES = ['w"q', "w\\b", "w\ttab", "wé", "w☃", "w\x01", "w%s", "w, [x]", "plain"]


@pytest.mark.parametrize("seed", range(6))
def test_the_command_writes_what_a_dump_of_each_row_gives(cli, tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    names = [NAMES[i % len(NAMES)] + str(i) for i in range(int(rng.integers(1, 40)))]
    labels = int(rng.integers(2, 5))
    path = tmp_path / "j.csv"
    rows = [
        (int(rng.integers(1, 6)), int(rng.integers(0, 30)), str(rng.choice(names)), lab)
        for lab in rng.integers(0, labels, n).tolist()
    ]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["topic", "document", "assessor", "label"])
        once = {(t, d, a): lab for t, d, a, lab in rows}  # a pair judged once by each
        writer.writerows((t, f"d{d}", a, lab) for (t, d, a), lab in once.items())
    status, out, err = cli("assessors", "--judgments", str(path), "-f", "json")
    assert status == 0, err
    j = Judgments.read(str(path))
    table = assessor_columns(j)
    expected = [
        dumps_json(r, indent=None, plain=True) for r in assessor_rows(j, table, undefined=None)
    ]
    body = out.split('"assessors": [\n', 1)[1].rsplit("\n  ]", 1)[0]
    assert body == ",\n".join("    " + line for line in expected)
    assert len(json.loads(out)["assessors"]) == j.n_assessors


def test_json_texts_of_random_doubles_equal_pythons_repr():
    """Every bit pattern is a double (subnormals, NaN payloads, both zeros, both
    infinities): the engine writes what json.dumps writes, on 200,000 of them and at the
    edges of the positional layout (decimal exponents -5, -4, 15, 16)."""
    rng = np.random.default_rng(2026)
    bits = rng.integers(0, 2**64 - 1, 200_000, dtype=np.uint64, endpoint=True)
    a = bits.view(np.float64)
    edges = [
        s * m * 10.0**e for e in (-5, -4, 15, 16) for m in (1.0, 9.999999, 1.5) for s in (1, -1)
    ]
    a = np.concatenate([a, edges, np.nextafter(edges, np.inf), [2.0**-1074, -(2.0**-1074)]])
    assert json_texts(a) == _row_by_row(a)
    assert json_texts(a.reshape(-1, 2)) == _row_by_row(a.reshape(-1, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_json_texts_of_narrower_floats_equal_one_dump_per_item(dtype):
    """Written as the doubles ``tolist()`` gives for them."""
    rng = np.random.default_rng(7)
    a = rng.normal(0, 1e3, (500, 3)).astype(dtype)
    a[0, 0], a[1, 1], a[2, 2] = np.nan, np.inf, -0.0
    assert json_texts(a) == _row_by_row(a)
    assert json_texts(a[:, 0]) == _row_by_row(a[:, 0])
