"""The model file's weights, written and read by the engine in bulk (issue 39), against
Python's own: the file is byte for byte the one Python's ``json`` writes (each weight
``repr(float)``), ``json.loads`` reads every weight back to the same bits, and
``Model.load`` reads any text exactly as ``json.loads`` and ``Model.from_dict`` do,
malformed ones with the same one-line message."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cranfield import _engine
from cranfield.core.io.source import source_name
from cranfield.errors import InputError
from cranfield.ltr.model import WEIGHTS_PER_LINE, Model
from cranfield.output import dumps_json


def _adversarial() -> np.ndarray:
    """Doubles where a shortest decimal is hard to get right or to lay out."""
    tiny = 5e-324
    special = [
        0.0, -0.0, tiny, -tiny, 2 * tiny, 3 * tiny, 2.5e-323,
        np.nextafter(2.2250738585072014e-308, 0.0),  # the largest subnormal
        2.2250738585072014e-308, np.finfo(np.float64).max, -np.finfo(np.float64).max,
        1e16, -1e16, np.nextafter(1e16, 0.0), np.nextafter(1e16, np.inf), 9999999999999998.0,
        1e-7, 1e-4, np.nextafter(1e-4, 0.0), 1e-5, np.nextafter(1e-5, 1.0), 0.00012345,
        0.1, 0.2, 0.30000000000000004, 1 / 3, 2 / 3, 1e15, 1e17, 1e21, 1e22, 1e23, 5e-5,
        123456789.0, 9007199254740992.0, 9007199254740994.0, 2.0**63, 2.0**64, -1.0,
        1.7976931348623157e308, 4.35, 0.000123, 1e300, 1e-300, 1.5e-323,
    ]  # fmt: skip
    integers = np.arange(-20, 21, dtype=np.float64)
    powers_of_two = np.ldexp(1.0, np.arange(-1074, 1024))  # asymmetric rounding intervals
    powers_of_ten = np.array([float(f"1e{k}") for k in range(-323, 309)])
    neighbours = np.concatenate(
        [np.nextafter(powers_of_ten, 0.0), np.nextafter(powers_of_ten, np.inf)]
    )
    return np.concatenate([np.array(special), integers, powers_of_two, powers_of_ten, neighbours])


def _random(seed: int) -> np.ndarray:
    """Every kind of double: random bit patterns (all exponents), normals, uniforms."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**64, size=60_000, dtype=np.uint64).view(np.float64)
    return np.concatenate(
        [
            bits[np.isfinite(bits)],
            rng.normal(size=60_000),
            rng.random(30_000) * 1e-3,
            np.round(rng.normal(size=10_000), 4),
        ]
    )


def _written_by_json(model: Model) -> str:
    """The model file as Python's ``json`` writes it (the version-1 writer)."""
    d = model._fields()
    mark = "\0weights\0"
    d["weights"] = mark
    head, tail = dumps_json(d).split(json.dumps(mark))
    w = model.weights.tolist()
    lines = [
        json.dumps(w[start : start + WEIGHTS_PER_LINE])[1:-1]
        for start in range(0, len(w), WEIGHTS_PER_LINE)
    ]
    return head + "[" + ",".join("\n    " + line for line in lines) + "\n  ]" + tail + "\n"


def _bits(a) -> bytes:
    return np.asarray(a, dtype=np.float64).tobytes()


@pytest.mark.parametrize("seed", [0, 1])
def test_weights_round_trip_to_the_bit_in_the_text_pythons_json_writes(tmp_path, seed):
    w = np.concatenate([_adversarial(), _random(seed)])
    np.random.default_rng(seed).shuffle(w)
    model = Model("random-search", len(w), weights=w, parameters={"batch": 1})
    path = tmp_path / "m.json"
    model.save(path)
    text = path.read_text()
    assert text == _written_by_json(model)  # repr's digits and layout, every weight
    by_json = json.loads(text)["weights"]
    assert all(type(v) is float for v in by_json)
    assert _bits(by_json) == _bits(w)  # Python's float() reads each back exactly
    back = Model.load(path)
    assert _bits(back.weights) == _bits(w)
    assert back.to_dict() == json.loads(text)


def test_the_engine_formats_each_weight_as_repr():
    w = _adversarial()
    text = _engine.ltr_weight_lines(w, len(w), b"", False).decode()
    assert text == "\n" + ", ".join(repr(float(v)) for v in w)


def test_a_saved_model_is_read_by_the_engine(tmp_path):
    """The fast path is taken for the files ``save`` writes (not the whole-file json)."""
    w = np.random.default_rng(2).normal(size=2500)
    path = tmp_path / "m.json"
    Model("ga", len(w), weights=w).save(path)
    raw = path.read_bytes()
    found = _engine.ltr_model_weights(raw)
    assert found is not None
    start, end, back = found
    assert json.loads(raw[start:end]) == w.tolist()
    assert _bits(back) == _bits(w)


def test_a_letor_model_stays_readable(tmp_path):
    w = np.round(np.random.default_rng(3).normal(size=46), 6)
    w[5] = 0.0
    path = tmp_path / "m.json"
    Model("mga", 46, normalisation="query", weights=w, objective="nDCG@10").save(path)
    lines = path.read_text().splitlines()
    at = lines.index('  "weights": [')
    assert lines[at + 1] == "    " + ", ".join(repr(float(v)) for v in w)
    assert lines[at + 2] == "  ],"
    assert '  "objective": "nDCG@10",' in lines


def test_a_version_1_file_written_before_loads(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(
        '{\n  "format": "cranfield-ltr-model",\n  "version": 1,\n  "method": "ga",\n'
        '  "num_features": 3,\n  "normalisation": "query",\n  "objective": "nDCG@10",\n'
        '  "convention": "trec",\n  "parameters": {},\n  "seed": 0,\n'
        '  "train_value": 0.5,\n  "vali_value": null,\n  "seconds": 0.25,\n'
        '  "weights": [\n    0.1, -2.5e-07, 3.0\n  ],\n  "booster": null,\n  "history": []\n}\n'
    )
    model = Model.load(path)
    assert _bits(model.weights) == _bits([0.1, -2.5e-07, 3.0])
    assert (model.normalisation, model.train_value) == ("query", 0.5)


def test_saving_non_finite_weights_is_refused_and_writes_nothing(tmp_path):
    path = tmp_path / "m.json"
    with pytest.raises(ValueError, match="weight 1 is not a finite number"):
        Model("ga", 2, weights=np.array([1.0, np.nan])).save(path)
    assert not path.exists()


def _by_json(path):
    """The model as ``json.loads`` and ``from_dict`` read it (the version-1 reader)."""
    source = source_name(path)
    try:
        d = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"not valid JSON: {str(exc).splitlines()[0]}", source) from None
    return Model.from_dict(d, source)


def _outcome(read, path):
    try:
        model = read(path)
    except InputError as exc:
        return "error", str(exc)
    d = model.to_dict()
    return "model", d.pop("weights") and _bits(model.weights), d


def _doc(weights: str, n: int = 3, before: str = "", after: str = "") -> bytes:
    return (
        '{"format": "cranfield-ltr-model", "version": 1, "method": "ga", ' + before
        + '"weights": ' + weights + f', "num_features": {n}, "normalisation": "none"'
        + after + "}"
    ).encode()  # fmt: skip


WELL_FORMED = {
    # other spellings than save's
    "integers and exponents": _doc("[1, -0, -0.0, 0, 1E+2]", 5),
    "long and tiny": _doc("[12345678901234567891, 1e-400, 2.5e-324, 0.1e1]", 4),
    "whitespace": _doc("[\n\t1.5 ,\r\n 2 ,3]"),
    "compact": _doc("[1,2,3]").replace(b" ", b""),
    "many digits": _doc("[0." + "3" * 400 + ", 1" + "0" * 300 + ".5e-300, 7e0]"),
    "twice, the last kept": _doc("[1, 2, 3]", before='"weights": [9, 9, 9], '),
    "an escaped key before": _doc("[1, 2, 3]", before='"weight\\u0073": [7, 7, 7], '),
    "an escaped key after": _doc("[1, 2, 3]", after=', "weight\\u0073": [7, 7, 7]'),
    "nested weights": _doc("[1, 2, 3]", before='"parameters": {"weights": [5, "x"]}, '),
    "weights in a string": _doc("[1, 2, 3]", before='"objective": "\\"weights\\": [4]", '),
    "a key with a quote": _doc("[1, 2, 3]", before='"x\\"": {"weights": [1]}, '),
}

MALFORMED = {
    "twice, the last null": _doc("[1, 2, 3]", after=', "weights": null'),
    "an escaped key, null": _doc("[1, 2, 3]", after=', "weight\\u0073": null'),
    "NaN": _doc("[NaN, 1, 2]"),
    "Infinity": _doc("[1, Infinity, 2]"),
    "-Infinity": _doc("[1, 2, -Infinity]"),
    "beyond the doubles": _doc("[1e400, 1, 2]"),
    "a huge integer": _doc("[1" + "0" * 400 + ", 1, 2]"),
    "a string": _doc('["1", 2, 3]'),
    "a list": _doc("[[1], 2, 3]"),
    "a boolean": _doc("[true, 2, 3]"),
    "a null": _doc("[null, 2, 3]"),
    "too few": _doc("[1, 2]"),
    "too many": _doc("[1, 2, 3, 4]"),
    "empty": _doc("[]"),
    "an object": _doc('{"a": 1}'),
    "a string of numbers": _doc('"[1, 2, 3]"'),
    "a trailing comma": _doc("[1, 2, 3,]"),
    "two commas": _doc("[1, , 3]"),
    "a leading zero": _doc("[01, 2, 3]"),
    "no integer part": _doc("[.5, 2, 3]"),
    "a plus": _doc("[+1, 2, 3]"),
    "no fraction": _doc("[1., 2, 3]"),
    "no exponent": _doc("[1e, 2, 3]"),
    "a lone minus": _doc("[-, 2, 3]"),
    "no comma": _doc("[1 2, 3]"),
    "hexadecimal": _doc("[0x10, 2, 3]"),
    "unclosed": _doc("[1, 2, 3").replace(b"]", b""),
    "cut short": _doc("[1, 2, 3]")[:-40],
    "extra data": _doc("[1, 2, 3]") + b" x",
    "a top-level array": b'[{"weights": [1, 2, 3]}]',
    "a byte-order mark": b"\xef\xbb\xbf" + _doc("[1, 2, 3]"),
    "not UTF-8": _doc("[1, 2, 3]", before='"method": "\xff", '.replace("\xff", "@")).replace(
        b"@", b"\xff"
    ),
    "a surrogate": _doc("[1, 2, 3]", after=', "x": "@"').replace(b"@", b"\xed\xa0\x80"),
    "deep nesting": _doc("[1, 2, 3]", after=', "x": ' + "[" * 5000 + "]" * 5000),
    "no weights, no booster": b'{"format": "cranfield-ltr-model", "version": 1, '
    b'"method": "ga", "num_features": 2, "normalisation": "none"}',
}


@pytest.mark.parametrize("name", [*WELL_FORMED, *MALFORMED])
def test_any_text_reads_as_pythons_json_reads_it(tmp_path, name):
    path = tmp_path / "m.json"
    path.write_bytes(WELL_FORMED.get(name) or MALFORMED[name])
    want = _outcome(_by_json, path)
    assert _outcome(Model.load, path) == want
    assert want[0] == ("model" if name in WELL_FORMED else "error")
    if want[0] == "error":  # one line naming the file
        assert "\n" not in want[1] and "m.json" in want[1]


def test_mutated_files_read_as_pythons_json_reads_them(tmp_path):
    """A differential fuzz: a small model file with random edits (bytes of JSON's
    grammar and others inserted, deleted or replaced, mostly in the weights), read
    by ``Model.load`` and by ``json`` + ``from_dict``: the same model or the same line."""
    path = tmp_path / "m.json"
    w = np.array([0.5, -1.25e-7, 3.0, 1e16, -0.0])
    Model("ga", len(w), weights=w, parameters={"weights": [1]}).save(path)
    base = path.read_bytes()
    at = base.index(b'\n  "weights": [\n') + 14  # the top-level key's array
    pieces = [bytes([b]) for b in b'0123456789-+.eE ,[]{}":\\\n\tx\xff']
    pieces += [b", 1", b", -0", b"NaN", b"Infinity", b"1e400", b'"1"', b"null", b"true"]
    rng = np.random.default_rng(5)
    outcomes, by_engine = set(), 0
    for _ in range(600):
        text = bytearray(base)
        for _ in range(rng.integers(1, 4)):
            i = (
                int(rng.integers(at, at + 60))
                if rng.random() < 0.8
                else int(rng.integers(len(text)))
            )
            piece = pieces[rng.integers(len(pieces))]
            kind = rng.integers(3)
            if kind == 0:
                text[i:i] = piece
            elif kind == 1:
                del text[i : i + 1]
            else:
                text[i : i + 1] = piece
        path.write_bytes(bytes(text))
        by_engine += _engine.ltr_model_weights(bytes(text)) is not None
        want = _outcome(_by_json, path)
        assert _outcome(Model.load, path) == want, bytes(text)
        outcomes.add(want[0] if want[0] == "model" else want[1].split(":")[1])
    # read, and refused in several ways, the weights' own among them
    assert {"model", " not valid JSON", " weights must be 5 finite numbers"} <= outcomes
    assert by_engine > 100  # (161 of 600; the others read whole by json)
