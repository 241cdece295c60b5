"""Execution backends: where an evaluation runs, declared to the core by name.

The core knows the interface (:class:`Backend`) and this registry, not the backends
beyond its own: ``"local"`` (this process, the compiled engine; defined here) is
registered by the core, every other backend registers itself with :func:`register`
when its module is imported. A backend that should be found by name before anything
imported it (``evaluate(..., engine="dask")`` in a fresh process) is declared in the
package root's ``_BACKENDS`` table (``cranfield/__init__.py``: name -> module), which
:func:`backend` imports on first use — so the core imports no backend package, and
``import cranfield`` imports none either.

One entry per kind of work, each with the same meaning on every backend:

* ``evaluate`` — :func:`cranfield.evaluate` and ``cranfield eval``:
  ``(qrels, runs, measures, options, *, aggregate_by, skip_no_relevant,
  collection_size, fractional, stream, client, scheduler) -> (Results, qrels)``, the
  second item being the qrels the runs were measured against (the ``Qrels``, their
  number of topics, or the engine's :class:`~cranfield.core.results.QrelsRead` of
  their file) for :func:`cranfield.core.results.missing_topics`;
* ``judge`` — ``cranfield trec_eval``'s general path: ``(qrels, qrels_path, run_path,
  options, *, encoding, stream, client, scheduler) -> JudgedRun | None`` (None: the
  run is to be read in Python and judged there; the local backend only);
* ``starmap`` — ``(function, jobs, *, client, scheduler) -> [function(*job) for job in
  jobs]`` for pure functions of their arguments (``compare``'s pairs).

Work that a capability package defines (the core does not know it) is registered per
backend with :func:`provide` and found with :func:`work`: the package gives its local
implementation, a backend its own when its module is imported. The kinds so far:

* ``"pool"`` — :func:`cranfield.pooling.files.pool_files`: ``(run_paths, strategy, *,
  scheduler, **options) -> (Pool, run names)``;
* ``"fit_clicks"`` — :func:`cranfield.clicks.logs.fit_log`: ``(log, models, *,
  scheduler, log_format, tol, max_iter, seed, prior) -> [FittedClickModel]``.

This module imports no arrays: ``cranfield eval``'s engine path goes through it.
"""

from __future__ import annotations

from .._lazy import lazy
from .._record import Record
from ..errors import ParameterError

# (modules a call of the Python API uses, bound on first use: an import statement in a
# function costs 2-3 us a call, and a loop of small evaluations makes dozens a call)
_files = lazy("cranfield.core.files", __name__, "_files")
_evaluation = lazy("cranfield.core.evaluation", __name__, "_evaluation")


class Backend(Record):
    """An execution backend (see the module notes for the signature of each entry).

    Parameters
    ----------
    name
        The name users give (``engine="dask"``, ``--engine dask``).
    evaluate, judge, starmap
        The backend's implementation of each kind of work.
    summary
        One line for documentation and messages.
    """

    __slots__ = ("name", "evaluate", "judge", "starmap", "summary")
    _no_repr = ("evaluate", "judge", "starmap")

    def __init__(self, name: str, evaluate, judge, starmap, summary: str = "") -> None:
        for field, value in zip(
            self.__slots__, (name, evaluate, judge, starmap, summary), strict=True
        ):
            object.__setattr__(self, field, value)


_REGISTERED: dict[str, Backend] = {}


def register(backend: Backend) -> Backend:
    """Make ``backend`` findable by its name (a second backend of that name replaces
    the first: re-importing its module registers it again)."""
    if not isinstance(backend, Backend):
        raise TypeError(f"a Backend is expected, not {type(backend).__name__}")
    _REGISTERED[backend.name] = backend
    return backend


def _declared() -> dict[str, str]:
    """Backends declared by the package root (name -> module), imported on first use."""
    from .. import _BACKENDS

    return _BACKENDS


def names() -> list[str]:
    """The backends known: the registered ones, then those declared and not yet loaded."""
    return list(_REGISTERED) + [n for n in _declared() if n not in _REGISTERED]


def backend(name: str) -> Backend:
    """The backend called ``name``, importing its module if it is declared and not yet
    loaded; :class:`~cranfield.errors.ParameterError` (``engine``) for an unknown name."""
    found = _REGISTERED.get(name) if isinstance(name, str) else None
    if found is None and isinstance(name, str) and name in _declared():
        from importlib import import_module

        import_module("." + _declared()[name], __name__.partition(".")[0])
        found = _REGISTERED.get(name)
    if found is None:
        raise ParameterError("engine", " or ".join(map(repr, names())), name)
    return found


_WORK: dict[tuple[str, str], object] = {}


def provide(kind: str, name: str, function) -> None:
    """Register ``function`` as backend ``name``'s implementation of ``kind``, work that
    a capability package defines (a second registration replaces the first)."""
    _WORK[kind, name] = function


def work(kind: str, name: str):
    """Backend ``name``'s implementation of ``kind`` (its module imported first if it is
    declared and not yet loaded: it provides its implementations then);
    :class:`~cranfield.errors.ParameterError` (``engine``) for an unknown backend or one
    that does not do ``kind``."""
    backend(name)
    found = _WORK.get((kind, name))
    if found is None:
        doing = [n for n in names() if (kind, n) in _WORK]
        raise ParameterError("engine", " or ".join(map(repr, doing)) + f" for {kind}", name)
    return found


def _no_cluster(client, scheduler) -> None:
    """The local backend runs in this process: a Dask client or scheduler is refused."""
    if client is not None:
        raise ParameterError("client", "None with engine='local'", client)
    if scheduler is not None:
        raise ParameterError("scheduler", "None with engine='local'", scheduler)


def _local_evaluate(
    qrels,
    runs,
    measures,
    options,
    *,
    aggregate_by: str = "macro",
    skip_no_relevant: bool = False,
    collection_size: int | None = None,
    fractional: bool = False,
    stream: bool | None = None,
    client=None,
    scheduler=None,
    subtopic_qrels=None,
    sampled_qrels=None,
) -> tuple:
    """Evaluation in this process: files by :func:`cranfield.core.files.evaluate_files`
    (the compiled engine where it can; NumPy is not imported then), anything else by
    :func:`cranfield.core.evaluation.evaluate_objects`."""
    _no_cluster(client, scheduler)
    if _files.all_paths(qrels, runs):
        return _files.evaluate_files_counted(
            qrels,
            runs,
            measures,
            options=options,
            aggregate_by=aggregate_by,
            skip_no_relevant=skip_no_relevant,
            collection_size=collection_size,
            fractional=fractional,
            stream=stream,
            subtopic_qrels=subtopic_qrels,
            sampled_qrels=sampled_qrels,
        )
    return _evaluation.evaluate_objects(
        qrels,
        runs,
        measures,
        options,
        aggregate_by=aggregate_by,
        skip_no_relevant=skip_no_relevant,
        collection_size=collection_size,
        subtopic_qrels=subtopic_qrels,
        sampled_qrels=sampled_qrels,
    )


def _local_judge(
    qrels,
    qrels_path,
    run_path,
    options,
    *,
    encoding="utf-8",
    stream=None,
    client=None,
    scheduler=None,
):
    """A TREC run read and judged by the compiled engine (in pieces when large), or None
    when it cannot read it (then the run is read in Python)."""
    _no_cluster(client, scheduler)
    from .engine_judge import judge_trec

    return judge_trec(
        qrels, qrels_path, run_path, options, encoding=encoding, stream=stream, trec=True
    )


def _local_starmap(function, jobs, *, client=None, scheduler=None) -> list:
    """``[function(*job) for job in jobs]`` in this process."""
    _no_cluster(client, scheduler)
    return [function(*job) for job in jobs]


LOCAL = register(
    Backend(
        "local",
        _local_evaluate,
        _local_judge,
        _local_starmap,
        "this process: the compiled engine, NumPy where the engine does not compute",
    )
)
