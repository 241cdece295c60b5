"""The Dask client cranfield runs on, and how its tasks are waited for.

``connect(client, scheduler)`` yields a ``distributed.Client``: the one given; else,
with a scheduler address, a client of that (the user's) cluster; else the client this
process already has (``distributed.default_client()``); else a ``LocalCluster`` sized
to the machine (one single-threaded worker process per core), closed afterwards.

``gather(client, futures, labels, what)`` waits for every task, drawing the progress
bar (:class:`cranfield.progress.Progress`, on a terminal only) as tasks complete, and
returns all results or raises one error: a task that failed raises the error it
raised in the worker (as one line); a task whose workers died (Dask retries a task
whose worker dies, ``distributed.scheduler.allowed-failures`` times) raises a
:class:`~cranfield.errors.CranfieldError` naming the partition. Nothing partial is
ever returned: the remaining tasks are cancelled on the first failure.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

from ..errors import CranfieldError, InputError, MeasureError, ParameterError, require

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a scheduler to answer before giving up."""


def machine_workers() -> int:
    """Cores this process may use (the size of the default ``LocalCluster``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def local_cluster(n_workers: int | None = None, threads_per_worker: int = 1):
    """A ``LocalCluster`` of worker processes (one thread each; its HTTP server on a free
    port)."""
    distributed = require("distributed", "dask")
    return distributed.LocalCluster(
        n_workers=machine_workers() if n_workers is None else n_workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        dashboard_address=":0",  # any free port: 8787 may be another cluster's
        silence_logs=logging.CRITICAL,  # errors of tasks are reported once, by gather()
    )


@contextlib.contextmanager
def connect(client=None, scheduler: str | None = None) -> Iterator:
    """The client to run on (see the module docstring); closes only what it opened."""
    distributed = require("distributed", "dask")
    if client is not None:
        if scheduler is not None:
            raise ParameterError("scheduler", "None when a client is given", scheduler)
        yield client
        return
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise ParameterError(
                "scheduler", "a scheduler address such as tcp://host:8786", scheduler
            )
        unreachable = _unreachable(scheduler)
        if unreachable:
            raise CranfieldError(
                f"cannot connect to the Dask scheduler at {scheduler!r}: {unreachable}"
            )
        try:
            own = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as exc:  # OSError, TimeoutError, ValueError (bad address), ...
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise CranfieldError(
                f"cannot connect to the Dask scheduler at {scheduler!r}: {reason}"
            ) from None
        with own:
            yield own
        return
    with contextlib.suppress(ValueError):
        yield distributed.default_client()
        return
    with local_cluster() as cluster, distributed.Client(cluster, set_as_default=False) as own:
        yield own


def _unreachable(scheduler: str) -> str | None:
    """Why a TCP scheduler address cannot be reached, found with one plain connection
    (``None``: it answers, or the address is one for ``distributed`` to judge).

    ``distributed.Client`` retries a refused connection until its timeout ends; a port
    nobody listens on refuses at once, so the command says so at once, not after
    :data:`CONNECT_TIMEOUT` seconds.
    """
    import socket

    from distributed.comm import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        host, port = parse_host_port(location)
    except (ValueError, TypeError):
        return None  # malformed: the client's own message says how
    if protocol not in ("tcp", "tls"):
        return None
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            return None
    except ConnectionRefusedError:
        return "connection refused (nothing listens on that port)"
    except TimeoutError:
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    except OSError as exc:  # a name that does not resolve, a network that is unreachable
        return exc.strerror or str(exc) or type(exc).__name__


class RemoteError(Exception):
    """A cranfield error raised in a worker, carried back as its class name and text
    (cranfield's exceptions take constructor arguments pickle cannot restore)."""

    def __init__(self, kind: str, text: str):
        super().__init__(kind, text)
        self.kind, self.text = kind, text


def remote(fn):
    """``fn`` wrapped so that a cranfield error in the worker comes back whole."""

    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CranfieldError as exc:
            raise RemoteError(type(exc).__name__, str(exc)) from None

    call.__name__ = call.__qualname__ = "cranfield-" + fn.__name__.strip("_").replace("_", "-")
    call.__module__ = fn.__module__
    return call


class InputsLost(CranfieldError):
    """The scheduler cancelled a task because its inputs were lost (data scattered to a
    worker that died cannot be recomputed): the job may be submitted again."""


def _local_error(exc: BaseException, label: str) -> BaseException:
    """The error to raise on the client for a task of partition ``label`` that failed."""
    if isinstance(exc, RemoteError):
        if exc.kind == "InputError":
            return InputError(exc.text)
        if exc.kind == "MeasureError":
            return MeasureError(exc.text)
        return CranfieldError(exc.text)
    if exc is None:  # cancelled by the scheduler (its inputs were lost)
        return InputsLost(f"{label}: the Dask scheduler cancelled this task; nothing was returned")
    if type(exc).__name__ == "KilledWorker":
        return CranfieldError(
            f"{label}: the Dask workers running this partition died (killed, or out of "
            "memory) as many times as the scheduler retries a task; nothing was returned"
        )
    if isinstance(exc, MemoryError):
        return CranfieldError(f"{label}: out of memory in a Dask worker")
    text = str(exc).splitlines()[0] if str(exc) else ""
    return CranfieldError(f"{label}: {type(exc).__name__} in a Dask worker: {text}".rstrip(": "))


def gather(client, futures: list, labels: list[str], what: str = "partitions") -> list:
    """All results of ``futures`` (in their order), or one error (see module docstring).

    ``labels[i]`` names task ``i`` in messages (its partition's file)."""
    distributed = require("distributed", "dask")
    from ..progress import Progress

    if not futures:
        return []
    index = {f.key: i for i, f in enumerate(futures)}
    bar = Progress(len(futures), "evaluating")
    try:
        for fut in distributed.as_completed(futures, loop=client.loop):
            if fut.status != "finished":
                i = index[fut.key]
                exc = fut.exception()
                client.cancel(futures)
                raise _local_error(exc, labels[i]) from None
            bar.step(what)
        return client.gather(futures)
    finally:
        bar.close()
