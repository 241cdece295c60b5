"""Small value classes without :mod:`dataclasses`, for the modules the CLI's cold path loads.

``import dataclasses`` costs about 10 ms (it imports :mod:`inspect`, which imports
:mod:`ast`, :mod:`dis` and :mod:`tokenize`), and each ``@dataclass`` compiles its methods
when its module is imported: about a fifth of what ``cranfield trec_eval`` on a
100,000-line run takes in all. The measure registry, the judging options and the
results of an evaluation are therefore plain classes with ``__slots__`` and an explicit
``__init__``, and this base gives them what ``@dataclass`` gave: equality and (for
frozen values) hashing over the fields in order (but those in ``_no_compare``), the
same ``repr``, and a frozen value's refusal to change (an ``AttributeError``, as
``dataclasses.FrozenInstanceError`` is).

A subclass lists its fields in ``__slots__`` (in ``__init__``'s order), may leave some
out of ``repr`` (``_no_repr``), and is frozen unless it sets ``_frozen = False`` (then
its fields are assigned as usual and it has no hash, as a mutable dataclass); a frozen
class sets its fields in ``__init__`` with ``object.__setattr__``. A class that only
stores its fields needs no ``__init__`` of its own: the base's takes them positionally
or by keyword, as a dataclass's does, the trailing ones defaulting to ``_defaults``.
"""

from __future__ import annotations

from operator import attrgetter as _attrgetter

_NO_FIELDS = staticmethod(lambda record: ())


class Record:
    """Base of a value class whose fields are its ``__slots__`` (see the module notes)."""

    __slots__ = ()
    _frozen = True
    _no_repr: tuple[str, ...] = ()
    #: fields left out of equality and hashing (a dataclass field's ``compare=False``)
    _no_compare: tuple[str, ...] = ()

    #: values of the trailing fields a caller may leave out (a dataclass field's default;
    #: a dict, list or set is copied for each value, as a ``default_factory`` makes it)
    _defaults: dict = {}

    _fields: tuple[str, ...] = ()
    _compared: tuple[str, ...] = ()

    def __init__(self, *args, **kwargs) -> None:
        if len(args) > len(self._fields):
            raise TypeError(
                f"{type(self).__name__}: {len(self._fields)} fields, {len(args)} values"
            )
        values = dict(zip(self._fields, args, strict=False))
        given_twice = values.keys() & kwargs.keys()
        if given_twice:
            raise TypeError(f"{type(self).__name__}: {sorted(given_twice)} given twice")
        defaults = {
            name: type(value)(value) if isinstance(value, (dict, list, set)) else value
            for name, value in self._defaults.items()
        }
        fill(self, defaults | values | kwargs)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(
            name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ())
        )
        cls._compared = tuple(name for name in cls._fields if name not in cls._no_compare)
        # the key in one C call (a measure is hashed a few dozen times an evaluation);
        # with one field attrgetter gives the value itself, wrapped as a 1-tuple
        if len(cls._compared) == 1:
            one = _attrgetter(cls._compared[0])
            cls._key_of = staticmethod(lambda record: (one(record),))
        else:
            cls._key_of = _attrgetter(*cls._compared) if cls._compared else _NO_FIELDS
        if not cls._frozen:  # a mutable value: fields assigned as usual, and no hash
            cls.__setattr__ = object.__setattr__
            cls.__delattr__ = object.__delattr__
            cls.__hash__ = None

    def _values(self) -> tuple:
        return tuple([getattr(self, name) for name in self._fields])

    #: the compared fields' values of a record, as a tuple (set for each subclass)
    _key_of = _NO_FIELDS

    def _key(self) -> tuple:
        return self._key_of(self)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key_of(self) == other._key_of(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key_of(self))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._fields if name not in self._no_repr
        )
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __reduce__(self):
        # pickle and copy rebuild the value from its fields (a frozen one cannot be
        # filled in attribute by attribute, and an __init__ may take keywords only)
        return (_rebuilt, (type(self), self._values()))

    def _replace(self, **changes):
        """A copy with ``changes`` applied, made (and checked) by ``__init__``."""
        values = dict(zip(self._fields, self._values(), strict=True))
        values.update(changes)
        return type(self)(**values)


def _rebuilt(cls: type[Record], values: tuple) -> Record:
    """A value of ``cls`` with these fields, without its ``__init__`` (pickle, copy)."""
    record = cls.__new__(cls)
    fill(record, values)
    return record


def fill(record: Record, values: dict | tuple) -> None:
    """Set every field of a frozen ``record``: from a tuple in field order, or from a
    dict of every field (the ``__init__(**values)`` of a value class with many fields,
    which takes keywords only, as a dataclass's). A missing or unknown field is a
    ``TypeError``."""
    fields = record._fields
    if isinstance(values, tuple):
        if len(values) != len(fields):
            raise TypeError(f"{type(record).__name__}: {len(fields)} fields, {len(values)} values")
        values = dict(zip(fields, values, strict=True))
    if values.keys() != set(fields):
        missing, extra = set(fields) - values.keys(), values.keys() - set(fields)
        raise TypeError(
            f"{type(record).__name__}: missing {sorted(missing)}, unknown {sorted(extra)}"
        )
    for name in fields:
        object.__setattr__(record, name, values[name])
