"""The measure-name language.

Readable names follow ``Name(param=value, ...)@cutoff`` (ir_measures' syntax):
``AP``, ``nDCG@10``, ``P(rel=2)@5``, ``RBP(p=0.8)``, ``IPrec@0.3``. trec_eval names
are accepted and mapped: ``map``, ``ndcg_cut.10`` / ``ndcg_cut_10`` -> ``nDCG@10``,
``P.5,10`` -> ``P@5`` and ``P@10``, ``ndcg.1=3,2=9`` -> ``nDCG(gains='1=3,2=9')``,
``set_F.0.5`` -> ``set_F(x=0.5)``. ``str(parse(s))`` is the canonical name, and
parsing it again gives an equal measure.

Every malformed name raises :class:`~cranfield.errors.MeasureError` with a one-line
message (an unclosed bracket names its position; a parameter given twice, a value out
of its declared range, a cutoff written both as ``@k`` and ``cutoff=k`` are refused);
no other exception escapes :func:`parse_many`.
"""

from __future__ import annotations

from ..._memo import memo
from ...errors import MeasureError, invalid_value
from .registry import (
    MAX_NAME,
    Measure,
    TrecEval,
    _num,
    all_definitions,
    all_names,
    case_twins,
    generation,
    lookup,
    trec_measure,
    trec_measures,
)

_READABLE = (  # (compiled on first use, by re's cache)
    r"^\s*(?P<name>[A-Za-z0-9_][A-Za-z0-9_\-]*)\s*(?:\((?P<args>.*)\))?\s*(?:@\s*(?P<cut>[^\s]+))?\s*$"
)


def __getattr__(name: str):
    # trec_eval's cutoff measures, derived from the registry (kept for callers of the
    # former tables): trec_eval name -> family, and -> default cutoffs
    if name == "_TREC_CUTOFF":
        return {t.name: t.family for t in trec_measures() if t.cutoffs is not None}
    if name == "TREC_DEFAULT_CUTOFFS":
        return {t.name: t.cutoffs for t in trec_measures() if t.cutoffs is not None}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _cutoff_measure(name: str) -> TrecEval | None:
    """The trec_eval measure ``name`` if it is computed at cutoffs (P, ndcg_cut)."""
    t = trec_measure(name)
    return t if t is not None and t.cutoffs is not None else None


def suggest(name: str) -> str:
    """A ' (did you mean ...?)' hint for a misspelt measure name, or ''."""
    import difflib  # only for error messages: keeps imports cheap

    folded = [n for n in all_names() if n.lower() == name.lower()]
    if len({lookup(n).name for n in folded}) > 1:  # rbp / RBP: say which is which
        options = [
            f"{n} ({'trec_eval' if lookup(n).trec_name == n else 'ir_measures'})" for n in folded
        ]
        return f" (names are case-sensitive here: did you mean {' or '.join(options)}?)"
    close = difflib.get_close_matches(name, all_names(), n=3, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(name.lower(), [n.lower() for n in all_names()], n=3)
        close = [n for n in all_names() if n.lower() in close][:3]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _literal(text: str):
    text = text.strip()
    if text == "0" or (text.isdigit() and text.isascii() and len(text) < 19 and text[0] != "0"):
        return int(text)  # a plain integer (a cutoff: nDCG@10), as literal_eval reads it
    import ast  # (not at the top: most names need no more than the above; a cold CLI)

    try:
        node = ast.parse(text, mode="eval").body
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return text  # bare words: dcg=exp-log2
    except (RecursionError, MemoryError, OverflowError):
        raise MeasureError(f"value {text[:40]!r} is nested too deeply to read") from None
    if isinstance(value, dict) and len(value) != len(node.keys):
        # {1:2,1:3}: a grade given twice is an error, not "the last one wins"
        raise MeasureError(f"value {text!r} gives a key twice")
    return value


_OPEN, _CLOSE = "([{", ")]}"


def _check_brackets(text: str) -> None:
    """Refuse unbalanced brackets and quotes, naming the (1-based) position."""
    stack: list[tuple[str, int]] = []
    quote: tuple[str, int] | None = None
    for i, ch in enumerate(text, 1):
        if quote:
            if ch == quote[0]:
                quote = None
        elif ch in "'\"":
            quote = (ch, i)
        elif ch in _OPEN:
            stack.append((ch, i))
        elif ch in _CLOSE:
            if not stack or _OPEN.index(stack[-1][0]) != _CLOSE.index(ch):
                raise MeasureError(f"{text}: unmatched {ch!r} at position {i}")
            stack.pop()
    if quote:
        raise MeasureError(f"{text}: unclosed quote {quote[0]} at position {quote[1]}")
    if stack:
        ch, i = stack[-1]
        raise MeasureError(f"{text}: unclosed {ch!r} at position {i}")


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside ``()``, ``[]``, ``{}`` and quotes (every
    part kept, empty ones too): ``"p=0.8, gains={0:0,1:1}"`` is two parts."""
    parts, depth, quote, current = [], 0, None, []
    for ch in text:
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
    parts.append("".join(current))
    return parts


def _split_args(args: str) -> list[str]:
    parts = split_top_level(args)
    if not parts[-1].strip():
        parts.pop()
    return parts


_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_CUT = _WORD | {"."}


def _parse_readable(text: str) -> Measure | None:
    name, at, cut = text.partition("@")
    if text[:1] not in ("", "-") and _WORD.issuperset(text):
        name, args, cut = text, None, None  # a bare name (AP): what _READABLE reads
    elif at and cut and name[:1] not in ("", "-") and _WORD.issuperset(name) and _CUT >= set(cut):
        args = None  # name@cut (nDCG@10): what _READABLE reads
    else:
        import re  # (not at the top: bare names need no pattern; a cold CLI)

        m = re.match(_READABLE, text)
        if not m:
            return None
        name, args, cut = m.group("name"), m.group("args"), m.group("cut")
    definition = lookup(name)
    if definition is None:
        return None
    twins = case_twins(definition.name)
    if args is not None and twins and definition.trec_name == definition.name:
        raise MeasureError(
            f"{text}: ambiguous: {definition.name}(...) is trec_eval's {definition.name}, "
            f"written {definition.name} or {definition.name}.param=value "
            f"(e.g. {definition.name}.p=0.8); for ir_measures' measure write "
            f"{twins[0]}(...)"
        )
    params = {}
    if args:
        for part in _split_args(args):
            if "=" not in part:
                raise MeasureError(
                    f"{text}: parameters are written name=value, got {part.strip()!r}"
                )
            key, value = part.split("=", 1)
            key = key.strip()
            if key in params:
                raise MeasureError(f"{text}: parameter {key!r} given twice")
            params[key] = _literal(value)
    cutoff = params.pop("cutoff", None)  # P(cutoff=5) is P@5, as in ir_measures
    if cut is not None:
        if "cutoff" in params or cutoff is not None:
            raise MeasureError(f"{text}: the cutoff is given twice (@{cut} and cutoff=)")
        cutoff = _literal(cut)
        if isinstance(cutoff, str):
            raise MeasureError(f"{text}: invalid cutoff {cut!r}")
    return Measure.of(name, cutoff=cutoff, **params)


def parse_trec(name: str, params: str | None) -> list[Measure]:
    """Measures for a trec_eval measure name and its ``.params`` string.

    How the parameters read is declared with the family (:class:`TrecEval`): a
    cutoff measure gives one measure per value, a pair list ``k=v,...`` gives gains
    and named parameters, a value list fills the declared parameters in order.
    """
    t = trec_measure(name)
    if t is not None and t.cutoffs is not None:
        values = (t.cutoffs if params is None else params).split(",")
        return [Measure.of(t.family, cutoff=_number(v, name)) for v in values]
    if t is None or t.family is None:
        return []
    if params is None:
        return [Measure.of(t.family)]
    if t.pairs is not None:
        return [Measure.of(t.family, **_pairs(name, params))]
    values = [_number(v, name) for v in params.split(",")]
    if not t.values:
        raise MeasureError(f"{name} takes no parameters (got {params!r})")
    definition = lookup(t.family)
    if len(t.values) > 1 and len(values) != len(t.values):
        example = ",".join(_num(definition.param(v).default) for v in t.values)
        raise MeasureError(
            f"{name} takes {len(t.values)} coefficients {','.join(t.values)}, e.g. {name}.{example}"
        )
    if (
        len(t.values) == 1
        and t.values[0] != "cutoff"
        and definition.param(t.values[0]).kind == "floats"
    ):
        kwargs = {t.values[0]: values}  # 11pt_avg.0.1,0.5: the whole list
    else:
        kwargs = dict(zip(t.values, values, strict=False))  # set_F.0.5,2: the first
    cutoff = kwargs.pop("cutoff", None)
    return [Measure.of(t.family, cutoff=cutoff, **kwargs)]


def _pairs(name: str, params: str) -> dict:
    """``level=gain`` pairs (and named parameters, ``rbp.p=0.8``) as keyword arguments."""
    pairs = [p.split("=", 1) for p in params.split(",")]
    if any(len(p) != 2 for p in pairs):
        raise MeasureError(
            f"{name}: malformed pair parameters in {params!r}: expected level=gain "
            f"pairs, e.g. {name}.1=3,2=9"
        )
    kwargs: dict = {}
    gains = []
    for k, v in pairs:
        k = k.strip()
        value = _number(v, name, f"parameter {k}")
        if _is_integer(k):
            gains.append((int(k), value))
        elif k in kwargs:
            raise MeasureError(f"{name}: parameter {k!r} given twice in {params!r}")
        else:
            kwargs[k] = value
    if gains:
        kwargs["gains"] = gains
    return kwargs


def _is_integer(text: str) -> bool:
    """``[+-]?\\d+`` exactly (\\d: any Unicode decimal digit, as ``re`` reads it)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isdecimal()


def _number(text: str, name: str, what: str = "parameter"):
    if _is_integer(text.strip()):  # an integer exactly, however large
        try:
            return int(text)
        except ValueError:  # more digits than Python converts: read as the float below
            pass
    try:
        value = float(text)
    except ValueError:
        raise MeasureError(f"{name}: {invalid_value(what, 'a number', text)}") from None
    if value.is_integer() and "." not in text and abs(value) < 2**63:
        return int(value)
    return value


_TREC_PRINTED = r"^(?P<name>[A-Za-z0-9_]+?)_(?P<cut>\d+(?:\.\d+)?)$"


def parse_many(text: str) -> list[Measure]:
    """Parse one name that may stand for several measures (``P.5,10``).

    Parsed once per name while the registry is unchanged (a loop of
    ``evaluate(qrels, run, ["AP", "nDCG@10"])`` calls parses each name once; a family
    registered since makes every name parsed again)."""
    if not isinstance(text, str):
        raise MeasureError(f"a measure name is a string, got {type(text).__name__}")
    return list(_parsed(text, generation()))


@memo(4096)
def _parsed(text: str, _generation: tuple) -> tuple[Measure, ...]:
    return tuple(_parse_many(text))


def _parse_many(text: str) -> list[Measure]:
    text = text.strip()
    if not text:
        raise MeasureError("empty measure name")
    if len(text) > MAX_NAME:
        raise MeasureError(f"measure name of {len(text)} characters: at most {MAX_NAME} allowed")
    _check_brackets(text)
    if "(" not in text and "@" not in text and "." in text:
        name, params = text.split(".", 1)
        t = trec_measure(name)
        if t is not None and t.family is not None:
            return parse_trec(name, params)
    if "(" not in text and "@" not in text and _cutoff_measure(text):
        return parse_trec(text, None)
    if "(" not in text and "@" not in text:
        definition = lookup(text)
        if definition is None:
            import re

            m = re.match(_TREC_PRINTED, text)  # printed trec names: P_5, ndcg_cut_10
            if m and _cutoff_measure(m.group("name")):
                return parse_trec(m.group("name"), m.group("cut"))
    measure = _parse_readable(text)
    if measure is not None:
        return [measure]
    import re

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
