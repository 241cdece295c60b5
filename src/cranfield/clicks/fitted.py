"""Fitting a click model and applying it to another log; the JSON model format."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core import backends
from ..errors import InputError, ParameterError
from .estimate import MAX_ITER, PYCLICK_PRIOR, TOL
from .log import ClickLog
from .models import Matrices, Pairs, Params, click_probabilities, distinct_sessions
from .registry import get

FORMAT_VERSION = 1


@dataclass(eq=False)
class FittedClickModel:
    """A fitted click model: parameters per (query, document) pair, per rank, global.

    ``pair_query``/``pair_doc`` name the pairs (strings); ``impressions`` and
    ``clicks`` are each pair's support in the training log; ``trace`` is the training
    log-likelihood after each EM iteration; ``prior`` the pseudo-counts it was fitted
    with (``None``: not known, a model file written before they were recorded).
    """

    name: str
    params: Params
    pair_query: np.ndarray
    pair_doc: np.ndarray
    impressions: np.ndarray
    clicks: np.ndarray
    queries: frozenset = field(default_factory=frozenset)
    iterations: int = 0
    converged: bool = True
    trace: list = field(default_factory=list)
    prior: tuple[float, float] | None = None

    def index(self, log: ClickLog) -> np.ndarray:
        """``n x K`` index of each shown (query, document) into this model's pairs, -1
        for a pair it has not seen."""
        lookup = {
            (q, d): i for i, (q, d) in enumerate(zip(self.pair_query, self.pair_doc, strict=True))
        }
        pairs = Pairs(log)
        local = np.array(
            [
                lookup.get((log.query_names[q], log.doc_names[d]), -1)
                for q, d in zip(pairs.query, pairs.doc, strict=True)
            ],
            dtype=np.int64,
        )
        return np.where(pairs.index >= 0, local[np.maximum(pairs.index, 0)], -1)

    def probabilities(self, log: ClickLog, conditional: bool = True) -> np.ndarray:
        """Click probabilities on ``log`` (see :func:`~.models.click_probabilities`)."""
        return click_probabilities(
            self.name, Matrices(self.params, self.index(log), log), conditional
        )

    def known_queries(self, log: ClickLog) -> np.ndarray:
        """Boolean per session of ``log``: its query occurs in the training log."""
        known = np.array([q in self.queries for q in log.query_names], dtype=bool)
        return known[log.query]


PRIOR_LIMIT = 1e6
"""The largest pseudo-count ``--prior`` takes (a prior of more impressions than any log
holds is a mistake, and keeps every sum finite)."""


def check_prior(prior) -> tuple[float, float]:
    """``prior = (a, b)`` as floats: pseudo-clicks ``a`` in pseudo-impressions ``b``,
    ``0 <= a <= b <= 1e6`` (``(0, 0)``: maximum likelihood); else a ParameterError."""
    try:
        a, b = (float(v) for v in prior)
    except (TypeError, ValueError):
        raise ParameterError("prior", "two numbers A,B with 0 <= A <= B", prior) from None
    if not (math.isfinite(a) and math.isfinite(b) and 0 <= a <= b <= PRIOR_LIMIT):
        raise ParameterError("prior", "two numbers A,B with 0 <= A <= B <= 1e6", prior)
    return a, b


def check_options(tol: float, max_iter: int, prior=PYCLICK_PRIOR) -> tuple[float, float]:
    """EM's options checked (a ParameterError names the first bad one); the prior as
    floats."""
    if not (
        isinstance(tol, (int, float))
        and not isinstance(tol, bool)
        and math.isfinite(tol)
        and 0 <= tol < 1
    ):
        raise ParameterError("tol", "a number in [0, 1)", tol)
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or not 1 <= max_iter <= 100_000:
        raise ParameterError("max_iter", "an integer in [1, 100000]", max_iter)
    return check_prior(prior)


def fit(
    log: ClickLog,
    model: str,
    *,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    seed: int | None = None,
    prior=PYCLICK_PRIOR,
) -> FittedClickModel:
    """Fit click model ``model`` (a registry name) on ``log``.

    ``prior = (a, b)`` adds ``a`` clicks in ``b`` impressions to every estimate
    (default ``(1, 2)``, PyClick's; ``(0, 0)`` is maximum likelihood; see
    :mod:`~cranfield.clicks.estimate`). Closed-form models ignore ``tol``, ``max_iter``
    and ``seed``. EM starts every parameter at 0.5, or, with ``seed``, at values drawn
    uniformly from [0.25, 0.75]; ``tol = 0`` runs exactly ``max_iter`` iterations.
    """
    d = get(model)
    prior = check_options(tol, max_iter, prior)
    rng = None if seed is None else np.random.default_rng(seed)
    log, weight = distinct_sessions(log)
    pairs = Pairs(log, weight)
    params, iterations, converged, trace = d.behaviour(
        log, pairs, tol=tol, max_iter=max_iter, rng=rng, prior=prior
    )
    clicks = np.bincount(
        pairs.index[log.clicks], weights=pairs.cell_weight[log.clicks], minlength=pairs.n
    ).round()
    return FittedClickModel(
        d.name,
        params,
        log.query_names[pairs.query],
        log.doc_names[pairs.doc],
        pairs.impressions.astype(np.int64),
        clicks.astype(np.int64),
        frozenset(log.query_names[np.unique(log.query)].tolist()),
        iterations,
        converged,
        trace,
        prior,
    )


def fit_log(
    log: str,
    models: list[str],
    *,
    engine: str = "local",
    scheduler: str | None = None,
    log_format: str | None = None,
    tol: float = TOL,
    max_iter: int = MAX_ITER,
    seed: int | None = None,
    prior=PYCLICK_PRIOR,
) -> list[FittedClickModel]:
    """The click models ``models`` fitted on the log file ``log`` by backend ``engine``
    (:func:`cranfield.core.backends.work`, kind ``"fit_clicks"``): in this process
    (``"local"``: :func:`~.log.read_log`, then :func:`fit` for each model), or, with
    ``"dask"``, by EM over the log's partitions in Dask workers (a directory or glob
    pattern of files; the EM models only, started at 0.5: no ``seed``).
    """
    return backends.work("fit_clicks", engine)(
        log,
        models,
        scheduler=scheduler,
        log_format=log_format,
        tol=tol,
        max_iter=max_iter,
        seed=seed,
        prior=prior,
    )


def _fit_here(log, models, *, scheduler=None, log_format=None, **options) -> list:
    """The local backend's ``"fit_clicks"``: the log read once, each model fitted on it."""
    if scheduler is not None:
        raise ParameterError("scheduler", "None with engine='local'", scheduler)
    from .log import read_log

    train = read_log(log, log_format)
    return [fit(train, name, **options) for name in models]


backends.provide("fit_clicks", "local", _fit_here)


# ------------------------------------------------------------------ JSON
def to_json(m: FittedClickModel) -> dict:
    """The JSON model format (docs/clicks.md, "Model files")."""
    pairs = [
        {
            "query": str(q),
            "doc": str(d),
            "impressions": int(n),
            "clicks": int(c),
            **{name: float(v[i]) for name, v in m.params.pair.items()},
        }
        for i, (q, d, n, c) in enumerate(
            zip(m.pair_query, m.pair_doc, m.impressions, m.clicks, strict=True)
        )
    ]
    return {
        "format": "cranfield-click-model",
        "version": FORMAT_VERSION,
        "model": m.name,
        "iterations": m.iterations,
        "converged": m.converged,
        "log_likelihood": m.trace[-1] if m.trace else None,
        "prior": None if m.prior is None else list(m.prior),
        "queries": sorted(m.queries),
        "global": dict(m.params.scalar),
        "ranks": {name: np.asarray(v).tolist() for name, v in m.params.rank.items()},
        "pairs": pairs,
    }


def from_json(obj: dict, source: str = "<model>") -> FittedClickModel:
    """Read back :func:`to_json`'s output, checked."""
    try:
        if obj.get("format") != "cranfield-click-model" or obj.get("version") != FORMAT_VERSION:
            raise InputError(
                f"not a cranfield click model (format version {FORMAT_VERSION})", source
            )
        d = get(obj["model"])
        names = d.laid_out("pair")
        rows = obj["pairs"]
        pair = {n: np.array([float(r[n]) for r in rows]) for n in names}
        ranks = {k: np.array(v, dtype=float) for k, v in obj["ranks"].items()}
        scalar = {k: float(v) for k, v in obj["global"].items()}
        for values in [*pair.values(), *ranks.values(), np.array(list(scalar.values()))]:
            if values.size and not ((values >= 0) & (values <= 1)).all():
                raise InputError("a probability outside [0, 1]", source)
        params = Params(pair, ranks, scalar)
        m = FittedClickModel(
            d.name,
            params,
            np.array([str(r["query"]) for r in rows], dtype=object),
            np.array([str(r["doc"]) for r in rows], dtype=object),
            np.array([int(r["impressions"]) for r in rows], dtype=np.int64),
            np.array([int(r["clicks"]) for r in rows], dtype=np.int64),
            frozenset(str(q) for q in obj["queries"]),
            int(obj.get("iterations", 0)),
            bool(obj.get("converged", True)),
            prior=None if obj.get("prior") is None else check_prior(obj["prior"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, InputError):
            raise
        if isinstance(exc, ParameterError):
            raise InputError(str(exc), source) from None
        raise InputError(f"malformed click model: {exc!r}", source) from None
    _check_shape(m, source)
    return m


def _check_shape(m: FittedClickModel, source: str) -> None:
    """The parameters a model of this kind has, with the right dimensions."""
    from .log import from_arrays

    tiny = fit(from_arrays([0], [[0, 1]], [[True, False]]), m.name)
    p, want = m.params, tiny.params
    if (
        set(p.pair) != set(want.pair)
        or set(p.scalar) != set(want.scalar)
        or set(p.rank) != set(want.rank)
    ):
        raise InputError(f"the parameters of a {m.name} model are missing or unexpected", source)
    for name, v in p.rank.items():
        w = want.rank[name]
        if v.ndim != w.ndim or v.size == 0:
            raise InputError(f"malformed rank parameter {name!r}", source)
        # a matrix (UBM's rank x previous-click rank) keeps its columns-minus-rows shape
        if v.ndim == 2 and v.shape[1] - v.shape[0] != w.shape[1] - w.shape[0]:
            raise InputError(f"malformed rank parameter {name!r}", source)
