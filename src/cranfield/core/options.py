"""How a run is judged against qrels: one frozen, validated value.

:class:`JudgeOptions` holds trec_eval's judging switches (``-l``, ``-M``, ``-J``,
``-c``, the 9.x compatibility mode) and the policy for a document ranked twice. It is
validated once, when it is made (scikit-learn style: every bad value is a
:class:`~cranfield.errors.ParameterError` with the one message template), and then
passed down unchanged: :func:`cranfield.evaluate`, ``engine_judge.judge_trec``,
``trec_eval.run_trec_eval`` and :func:`cranfield.core.judged.judge` all take it
(``options=``), and accept its fields as keyword arguments too. It crosses into the
compiled engine as it is: the bindings of ``cranfield._engine`` that judge take it as
``options=`` and read its fields once (``rust/engine/src/judge.rs``, ``judging``).

The module imports nothing heavy, so the command line can build the value before
NumPy is loaded.
"""

from __future__ import annotations

from .._record import Record
from ..errors import ParameterError

MIN_LEVEL, MAX_LEVEL = -(2**63), 2**63 - 1
COMPAT = (9, 10)
DUPLICATES = ("error", "first", "max")


def _is_bool(value) -> bool:
    # bool, or NumPy's bool scalar (numpy.bool_ / numpy.bool), without importing NumPy
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")


def _is_int(value) -> bool:
    if type(value) is int:
        return True
    import numbers  # NumPy's integers are registered as Integral

    return isinstance(value, numbers.Integral) and not _is_bool(value)


class JudgeOptions(Record):
    """Options of judging a run (trec_eval semantics).

    Parameters
    ----------
    rel_level
        Minimum grade of a relevant document (trec_eval ``-l``), an integer; default 1.
        Binary measures call a document relevant when its grade (or, for fractional
        qrels, its gain) is at least this.
    depth
        Evaluate only the top ``depth`` documents of each ranking (``-M``): a positive
        integer, or None (default) for the whole ranking.
    judged_only
        Drop documents without a judgment from the rankings before measuring (``-J``).
    complete
        Evaluate every qrels topic; a topic missing from a run scores as an empty
        ranking and counts in the mean (``-c``). Otherwise such topics are skipped.
    compat
        10 (trec_eval 10.0) or 9 (trec_eval 9.x / pytrec_eval: scores rounded to
        float32 before ranking, and 9.x recall-point rounding).
    duplicates
        A document ranked twice for one query, when a run is read from a file:
        ``"error"`` (default, as trec_eval), ``"first"`` (keep the first line) or
        ``"max"`` (keep the highest score).

    Examples
    --------
    >>> JudgeOptions(rel_level=2, depth=100).depth
    100
    >>> JudgeOptions.of(JudgeOptions(rel_level=2), judged_only=True).rel_level
    2
    """

    __slots__ = ("rel_level", "depth", "judged_only", "complete", "compat", "duplicates")
    rel_level: int
    depth: int | None
    judged_only: bool
    complete: bool
    compat: int
    duplicates: str

    def __init__(
        self,
        rel_level: int = 1,
        depth: int | None = None,
        judged_only: bool = False,
        complete: bool = False,
        compat: int = 10,
        duplicates: str = "error",
    ) -> None:
        if not _is_int(rel_level) or not MIN_LEVEL <= rel_level <= MAX_LEVEL:
            raise ParameterError("rel_level", "an integer grade", rel_level)
        if depth is not None and (not _is_int(depth) or depth <= 0):
            raise ParameterError("depth", "a positive integer", depth)
        for name, value in (("judged_only", judged_only), ("complete", complete)):
            if not _is_bool(value):
                raise ParameterError(name, "True or False", value)
        if compat not in COMPAT or _is_bool(compat):
            raise ParameterError("compat", "9 or 10", compat)
        if duplicates not in DUPLICATES:
            raise ParameterError("duplicates", "one of 'error', 'first', 'max'", duplicates)
        # plain Python values from here on (NumPy integers and bools are accepted); frozen
        set_ = object.__setattr__
        set_(self, "rel_level", int(rel_level))
        set_(self, "depth", None if depth is None else int(depth))
        set_(self, "judged_only", bool(judged_only))
        set_(self, "complete", bool(complete))
        set_(self, "compat", int(compat))
        set_(self, "duplicates", duplicates)

    @classmethod
    def of(cls, options: JudgeOptions | None = None, /, **changes) -> JudgeOptions:
        """``options`` (default: the defaults) with ``changes`` applied, validated.

        An unknown keyword is a ``TypeError``, as for any Python function.
        """
        if options is not None and not isinstance(options, JudgeOptions):
            raise ParameterError("options", "a JudgeOptions value or None", options)
        unknown = sorted(set(changes) - set(cls._fields))
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
        base = options if options is not None else cls()
        return base._replace(**changes) if changes else base

    def as_dict(self) -> dict:
        """The judging options as a dict (what :class:`~cranfield.core.evaluation.Results`
        records in ``options``: every field but ``duplicates``)."""
        return {name: getattr(self, name) for name in self._fields if name != "duplicates"}


def _same(value, default) -> bool:
    return value is default or (type(value) is type(default) and value == default)


DEFAULTS = dict(zip(JudgeOptions._fields, JudgeOptions()._values(), strict=True))


def merged(options: JudgeOptions | None, given: dict) -> JudgeOptions:
    """The options of a function that takes both ``options=`` and keyword arguments
    named after the fields (``given``: their values, defaults as in :class:`JudgeOptions`).

    Keywords left at their defaults do not override ``options``; a keyword set to
    another value together with ``options`` is a :class:`ParameterError` (one of the two
    would silently lose).
    """
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
    changed = {k: v for k, v in given.items() if not _same(v, DEFAULTS[k])}
    if options is None:
        return JudgeOptions.of(None, **changed)
    if changed:
        name = sorted(changed)[0]
        raise ParameterError(name, "no judging keyword together with options=", changed[name])
    return JudgeOptions.of(options)
