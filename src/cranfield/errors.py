"""Exceptions raised by cranfield.

Every problem with user input is an :class:`InputError`: a ``ValueError`` whose
message names the source (file name or object), the line number when there is one,
and the problem, on one line. The command-line interface prints that line to stderr
and exits with status 2.
"""

from __future__ import annotations


class CranfieldError(Exception):
    """Base class of all cranfield errors."""


class InputError(CranfieldError, ValueError):
    """Malformed or inconsistent input data.

    Parameters
    ----------
    message
        What is wrong, e.g. ``"expected 6 fields, got 4"``.
    source
        File name (``"<stdin>"`` for standard input) or a description of the object.
    line
        1-based line number in ``source``, when the problem is tied to one line.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = str(self.source)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        return f"{where}{self.message}"


def shown(value: object) -> str:
    """``repr`` of a value for a message, a NumPy scalar as the Python value it holds
    (NumPy 2's own repr, ``np.float64(-5.0)``, is not for users); a list shows its items
    so."""
    if isinstance(value, list):
        return "[" + ", ".join(map(shown, value)) + "]"
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        value = value.item()
    return repr(value)


def number_shown(value: object) -> str:
    """A number for a message: a whole float without its ``.0`` (``99999999999``)."""
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)


def invalid_value(name: str, allowed: str, given: object) -> str:
    """The one message template for a bad parameter value.

    ``invalid value for NAME: expected ALLOWED, got GIVEN`` -- ``allowed`` names the
    accepted values or range (``"an integer in [1, 1000]"``).
    """
    return f"invalid value for {name}: expected {allowed}, got {shown(given)}"


class ParameterError(CranfieldError, ValueError):
    """A bad parameter value: names the parameter, what is allowed and what was given."""

    def __init__(self, name: str, allowed: str, given: object):
        self.name = name
        self.allowed = allowed
        self.given = given
        super().__init__(invalid_value(name, allowed, given))


class MeasureError(CranfieldError, ValueError):
    """An unknown measure name or a measure with bad parameters."""


class MissingDependencyError(CranfieldError, ImportError):
    """An optional dependency is not installed; the message says how to install it."""


def require(module: str, extra: str):
    """Import an optional dependency or fail with a one-line install hint.

    Parameters
    ----------
    module
        Module to import, e.g. ``"scipy.stats"``.
    extra
        The cranfield extra that provides it, e.g. ``"stats"``.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{top} is required for this feature: pip install 'cranfield[{extra}]'"
        ) from exc


class OutputError(CranfieldError, OSError):
    """An output that cannot be written (full disk, missing directory, an input's path).

    ``str()`` is ``"<target>: <message>"``, like :class:`InputError`. It is an
    ``OSError``, so code that tolerates a failing write (argparse's help) still does.
    """

    def __init__(self, message: str, target: str | None = None):
        self.message = message
        self.target = target
        super().__init__(message)

    def __str__(self) -> str:
        return f"{self.target}: {self.message}" if self.target is not None else self.message


class CranfieldNote(UserWarning):
    """Something the user should know that changes no number (a Python warning; the
    command line prints it as one ``cranfield COMMAND: note: ...`` line)."""


_note_sink = None


def set_note_sink(sink) -> None:
    """Where :func:`note` sends its text: ``sink(text)`` (the command line prints it as
    a one-line note), or ``None`` for a :class:`CranfieldNote` warning."""
    global _note_sink
    _note_sink = sink


def note(text: str) -> None:
    """Tell the user something that changes no number: a one-line note on the command
    line, a :class:`CranfieldNote` warning in Python."""
    if _note_sink is not None:
        _note_sink(text)
        return
    import warnings

    warnings.warn(text, CranfieldNote, stacklevel=3)
