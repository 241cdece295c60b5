"""The measure registry loads the built-in families as look-ups need them
(core/measures/_index.py says which module declares each name): every answer must be
the one a registry loaded whole at its first read gives, whatever was looked up before,
and the index must be the registry's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cranfield.core.measures import _index


def run(script: str):
    """The JSON printed last by ``script`` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_index_is_the_registrys():
    # when this fails, a family was added or renamed: regenerate the index as its
    # docstring says
    table = run(
        "import json\n"
        "from cranfield.core.measures.registry import index_table\n"
        "print(json.dumps(index_table()))\n"
    )
    assert table == json.loads(
        json.dumps(
            {
                "FAMILIES": _index.FAMILIES,
                "NAMES": _index.NAMES,
                "TREC": _index.TREC,
                "FOLDED": _index.FOLDED,
            }
        )
    )


PROBES = sorted(
    {n for name in _index.NAMES for n in (name, name.lower(), name.upper(), name.swapcase())}
    | set(_index.TREC)
    | {"nonexistent", "", "map_cut_10", "P_5", "Ap", "rBp"}
)

ANSWERS = """
import json, random
from cranfield.core.measures import registry as r
probes = {probes!r}
if {whole!r}:
    r.all_definitions()  # the registry loaded whole first
random.Random({seed!r}).shuffle(probes)
out = {{}}
for p in probes:
    d = r.lookup(p)
    t = r.trec_measure(p)
    out[p] = [
        d and d.name,
        t and [t.name, t.family, t.kind, t.order],
        d and r.case_twins(d.name),
        d and str(r.Measure.of(d.name, cutoff=1 if d.cutoff_required else None)),
    ]
out["*"] = [[d.name for d in r.all_definitions()], r.all_names()]
print(json.dumps(out))
"""


@pytest.mark.parametrize("seed", [0, 1])
def test_lazy_look_ups_answer_as_the_whole_registry(seed):
    lazy = run(ANSWERS.format(probes=PROBES, whole=False, seed=seed))
    whole = run(ANSWERS.format(probes=PROBES, whole=True, seed=seed))
    assert lazy == whole
    assert whole["*"][0] == list(_index.FAMILIES)


@pytest.mark.parametrize("first", ["AP", "ap", "ndcg", "NDCG", "rbp", "RBP", "map", "nonexistent"])
def test_a_first_look_up_loads_only_what_it_needs(first):
    answer = run(
        "import json, sys\n"
        "from cranfield.core.measures import registry as r\n"
        f"d = r.lookup({first!r})\n"
        "loaded = sorted(m.rpartition('.')[2] for m in sys.modules\n"
        "                if m.startswith('cranfield.core.measures.'))\n"
        "r.all_definitions()\n"
        f"print(json.dumps([d and d.name, loaded, r.lookup({first!r}) is d]))\n"
    )
    name, loaded, same = answer
    assert same
    families = {"counts", "gain", "precision", "set_based", "user_models", "graded_extra"}
    assert families - set(loaded)  # not every family: the modules of the name (and twins)
    if first == "AP":
        assert families & set(loaded) == {"precision"}
    assert (name is None) == (first == "nonexistent")


CUSTOM = """
import json
from cranfield.core.measures import registry as r

def kernel(jr, cutoff):
    return None

def declare(name):
    r.register(r.MeasureDef(name=name, behaviour=kernel, summary="s", formula="f", citation="x"))

declare("Custom1")  # before the first read: first, as when it loaded everything then
assert r.lookup({probe!r}) is not None
declare("Custom2")  # after it: last
try:  # an alias that is a built-in name, its module not loaded yet
    r.register(r.MeasureDef(name="Custom3", behaviour=kernel, summary="s", formula="f",
                            citation="x", aliases=({clash!r},)))
    clash = None
except ValueError as exc:
    clash = str(exc)
print(json.dumps([[d.name for d in r.all_definitions()], r.all_names()[:1], clash]))
"""


def test_families_registered_around_the_first_read_keep_their_place():
    families, names, clash = run(CUSTOM.format(probe="AP", clash="nDCG"))
    assert families == ["Custom1", *_index.FAMILIES, "Custom2"]
    assert names == ["Custom1"]
    assert clash == "measure name 'nDCG' already registered"


REMEMBERED = """
import json
from cranfield.core.measures import registry as r
from cranfield.core.results import as_measures
from cranfield.errors import MeasureError

def kernel(jr, cutoff):
    return None

def declare(name):
    r.register(r.MeasureDef(name=name, behaviour=kernel, summary="s", formula="f", citation="x"))

declare("Twinned")
before = r.case_twins("Twinned")  # remembered for this generation of the registry
try:
    as_measures(["Later"])
    unknown = None
except MeasureError as exc:
    unknown = "unknown"
first = as_measures(["Twinned", "AP"])
first.append("changed by the caller")
declare("twinned")  # a case twin, and a new generation
declare("Later")
print(json.dumps([before, r.case_twins("Twinned"), unknown, [str(m) for m in as_measures(["Later"])],
                  [str(m) for m in as_measures(["Twinned", "AP"])]]))
"""


def test_remembered_answers_follow_the_registry():
    """case_twins and as_measures keep their answers for one generation of the registry
    (a measure's printed name and a notebook's loop ask for them on every call): a family
    registered since is seen, and a caller's change to a returned list is not kept."""
    before, after, unknown, later, again = run(REMEMBERED)
    assert before == [] and after == ["twinned"]
    assert unknown == "unknown" and later == ["Later"]
    assert again == ["Twinned", "AP"]
