"""The measure-name language.

Readable names follow ``Name(param=value, ...)@cutoff`` (ir_measures' syntax):
``AP``, ``nDCG@10``, ``P(rel=2)@5``, ``rbp(p=0.8)``, ``IPrec@0.3``. trec_eval names
are accepted and mapped: ``map``, ``ndcg_cut.10`` / ``ndcg_cut_10`` -> ``nDCG@10``,
``P.5,10`` -> ``P@5`` and ``P@10``, ``ndcg.1=3,2=9`` -> ``nDCG(gains='1=3,2=9')``,
``set_F.0.5`` -> ``set_F(x=0.5)``. ``str(parse(s))`` is the canonical name, and
parsing it again gives an equal measure.
"""

from __future__ import annotations

import ast
import re

from ..errors import MeasureError
from .registry import Measure, all_definitions, all_names, lookup

_READABLE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9_][A-Za-z0-9_\-]*)\s*(?:\((?P<args>.*)\))?\s*(?:@\s*(?P<cut>[^\s]+))?\s*$"
)

# trec_eval measures whose parameters are cutoffs (one measure per value)
_TREC_CUTOFF = {
    "P": "P",
    "recall": "R",
    "success": "Success",
    "relative_P": "relative_P",
    "map_cut": "AP",
    "ndcg_cut": "nDCG",
    "unj": "Unjudged",
    "iprec_at_recall": "IPrec",
    "Rprec_mult": "Rprec_mult",
}
_STANDARD = "5,10,15,20,30,100,200,500,1000"
# trec_eval's default parameters of its cutoff measures
TREC_DEFAULT_CUTOFFS = {
    "P": _STANDARD,
    "recall": _STANDARD,
    "relative_P": _STANDARD,
    "map_cut": _STANDARD,
    "ndcg_cut": _STANDARD,
    "success": "1,5,10",
    "unj": "5,10,20",
    "iprec_at_recall": "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
    "Rprec_mult": "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
}
_TREC_PAIRS = {"ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "G", "rbp"}


def suggest(name: str) -> str:
    """A ' (did you mean ...?)' hint for a misspelt measure name, or ''."""
    import difflib  # only for error messages: keeps imports cheap

    close = difflib.get_close_matches(name, all_names(), n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), [n.lower() for n in all_names()], n=3)
        close = [n for n in all_names() if n.lower() in close][:3]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _literal(text: str):
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text  # bare words: dcg=exp-log2


def _split_args(args: str) -> list[str]:
    parts, depth, quote, current = [], 0, None, []
    for ch in args:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def _parse_readable(text: str) -> Measure | None:
    m = _READABLE.match(text)
    if not m:
        return None
    name, args, cut = m.group("name"), m.group("args"), m.group("cut")
    if lookup(name) is None:
        return None
    params = {}
    if args:
        for part in _split_args(args):
            if "=" not in part:
                raise MeasureError(
                    f"{text}: parameters are written name=value, got {part.strip()!r}"
                )
            key, value = part.split("=", 1)
            params[key.strip()] = _literal(value)
    cutoff = None
    if cut is not None:
        cutoff = _literal(cut)
        if isinstance(cutoff, str):
            raise MeasureError(f"{text}: invalid cutoff {cut!r}")
    return Measure.of(name, cutoff=cutoff, **params)


def parse_trec(name: str, params: str | None) -> list[Measure]:
    """Measures for a trec_eval measure name and its ``.params`` string."""
    if name in _TREC_CUTOFF:
        family = _TREC_CUTOFF[name]
        if params is None:
            params = TREC_DEFAULT_CUTOFFS[name]
        values = [v for v in params.split(",")]
        return [Measure.of(family, cutoff=_number(v, name)) for v in values]
    definition = lookup(name)
    if definition is None or definition.trec_name != name:
        return []
    if params is None:
        return [Measure.of(definition.name)]
    if name in _TREC_PAIRS:
        pairs = [p.split("=", 1) for p in params.split(",")]
        if any(len(p) != 2 for p in pairs):
            raise MeasureError(f"{name}: malformed pair parameters in {params!r}")
        kwargs = {}
        gains = [(k, v) for k, v in pairs if re.fullmatch(r"[+-]?\d+", k)]
        if gains:
            kwargs["gains"] = [(int(k), float(v)) for k, v in gains]
        for k, v in pairs:
            if not re.fullmatch(r"[+-]?\d+", k):
                kwargs[k] = float(v)
        return [Measure.of(definition.name, **kwargs)]
    values = [_number(v, name) for v in params.split(",")]
    if name == "utility":
        if len(values) != 4:
            raise MeasureError("utility takes 4 coefficients a,b,c,d, e.g. utility.1,-1,0,0")
        return [Measure.of("utility", a=values[0], b=values[1], c=values[2], d=values[3])]
    if name == "11pt_avg":
        return [Measure.of("11pt_avg", points=values)]
    if name == "set_F":
        return [Measure.of("set_F", x=values[0])]
    if name == "relstring":
        return [Measure.of("relstring", cutoff=int(values[0]))]
    raise MeasureError(f"{name} takes no parameters (got {params!r})")


def _number(text: str, name: str):
    try:
        value = float(text)
    except ValueError:
        raise MeasureError(f"{name}: invalid parameter {text!r}: expected a number") from None
    return int(value) if value.is_integer() and "." not in text else value


_TREC_PRINTED = re.compile(r"^(?P<name>[A-Za-z0-9_]+?)_(?P<cut>\d+(?:\.\d+)?)$")


def parse_many(text: str) -> list[Measure]:
    """Parse one name that may stand for several measures (``P.5,10``)."""
    text = text.strip()
    if not text:
        raise MeasureError("empty measure name")
    if "(" not in text and "@" not in text and "." in text:
        name, params = text.split(".", 1)
        if name in _TREC_CUTOFF or (lookup(name) is not None and lookup(name).trec_name == name):
            return parse_trec(name, params)
    if "(" not in text and "@" not in text and text in _TREC_CUTOFF:
        return parse_trec(text, None)
    if "(" not in text and "@" not in text:
        definition = lookup(text)
        if definition is None:
            m = _TREC_PRINTED.match(text)  # printed trec names: P_5, ndcg_cut_10
            if m and (m.group("name") in _TREC_CUTOFF):
                return parse_trec(m.group("name"), m.group("cut"))
    measure = _parse_readable(text)
    if measure is not None:
        return [measure]
    head = re.split(r"[(@.]", text, maxsplit=1)[0]
    raise MeasureError(f"unknown measure {head!r}{suggest(head)}")


def parse(text: str) -> Measure:
    """Parse one measure name (readable or trec_eval) into a :class:`Measure`."""
    measures = parse_many(text)
    if len(measures) != 1:
        raise MeasureError(f"{text!r} names {len(measures)} measures; pass them one at a time")
    return measures[0]


def families() -> list[str]:
    return [d.name for d in all_definitions()]
