"""``cranfield.fuse``: combine runs into one run (rank fusion, score normalisation)."""

from __future__ import annotations

from typing import Any

from .._lazy import lazy
from ..core.declarations import WEIGHT_ALLOWED, weight
from ..core.io import arrays
from ..core.run import Run
from ..errors import InputError, ParameterError
from . import methods, normalise
from .choices import MISSING
from .rows import TOPIC_POLICIES, Rows, build

np = lazy("numpy", __name__, "np")
pa = lazy("pyarrow", __name__, "pa")


def as_run_list(runs) -> list[Run]:
    """Runs to fuse: Run objects, paths, tables or ``{qid: {docid: score}}`` mappings
    (as :func:`cranfield.evaluate` accepts them), at least two."""
    from ..core.evaluation import as_runs

    listed = as_runs(runs)
    if len(listed) < 2:
        raise ParameterError("runs", "at least two runs to fuse", f"{len(listed)} run")
    return listed


def as_qrels(qrels):
    """Training qrels: a Qrels, a path or a ``{qid: {docid: grade}}`` mapping."""
    from ..core.qrels import Qrels

    return qrels if isinstance(qrels, Qrels) else Qrels.read(qrels)


def check_weights(weights, n_runs: int, method: str) -> np.ndarray:
    """One finite weight per run, each 0 or of magnitude in [1e-100, 1e100]."""
    if isinstance(weights, str):
        weights = [w for w in weights.split(",") if w.strip()]
    try:
        w = np.array([float(x) for x in weights], dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"{method} weights", "numbers, one per run", weights) from None
    if len(w) != n_runs:
        raise ParameterError(
            f"{method} weights", f"{n_runs} numbers (one per run)", f"{len(w)} weights"
        )
    bad = [x for x in w if not weight(x)]
    if bad:
        raise ParameterError(f"{method} weight", WEIGHT_ALLOWED, bad[0])
    return w


class Plan:
    """A fusion checked before any run is read: the method's declaration and resolved
    parameters, the normalisation, the treatment of missing documents, the weights."""

    def __init__(
        self,
        method: str,
        norm: str | None,
        weights,
        missing: str,
        params: dict[str, Any],
        n_runs: int,
        tune: bool = False,
    ):
        """``tune``: the weights (or a required parameter) are to be chosen by
        :func:`cranfield.fusion.optimise.optimise`, not given."""
        self.method = methods.lookup(method)
        if tune:  # the tuned parameter gets a placeholder until it is chosen
            params = {
                p.name: (p.default if p.default is not None else _placeholder(p))
                for p in self.method.params
            } | params
        self.params = self.method.resolve(params)
        self.norm = normalise.normalise("none" if norm is None else norm)
        if missing not in MISSING:
            raise ParameterError("missing", "one of " + ", ".join(MISSING), missing)
        if missing == "min" and self.method.uses == "ranks":
            raise ParameterError(
                f"missing (fusion method {self.method.name} uses ranks only)",
                "'zero'",
                missing,
            )
        self.missing = missing
        if self.method.weighted and tune:
            self.weights = np.full(n_runs, 1.0 / n_runs)
        elif self.method.weighted:
            if weights is None:
                raise ParameterError(f"{self.method.name} weights", "one number per run", None)
            self.weights = check_weights(weights, n_runs, self.method.name)
        elif weights is not None:
            raise ParameterError(
                "weights",
                "none for an unweighted method (weighted: "
                + ", ".join(n for n, d in methods.FUSION_METHODS.items() if d.weighted)
                + ")",
                self.method.name,
            )
        else:
            self.weights = None

    def rows(self, runs: list[Run], topics: str) -> Rows:
        """The runs' coded rows, normalised (score methods) as planned."""
        rows = build(runs, topics)
        if self.method.uses == "scores":
            self.norm.behaviour(rows)
            if self.missing == "min":
                normalise.default_minimum(rows)
        return rows

    def trained(self, runs: list[Run], qrels) -> Any:
        if self.method.train is None:
            return None
        if qrels is None:
            raise ParameterError(
                f"qrels (fusion method {self.method.name} is trained)",
                "training qrels (qrels= / --qrels)",
                None,
            )
        return self.method.train(as_qrels(qrels), runs, **self.params)

    def scores(self, rows: Rows, trained: Any, weights=None) -> np.ndarray:
        w = self.weights if weights is None else weights
        out = self.method.behaviour(rows, w, trained, **self.params)
        if not np.isfinite(out).all():
            raise InputError(
                f"fusion method {self.method.name}: fused scores overflow (not finite); "
                "use smaller weights or a normalisation"
            )
        return out


def _placeholder(param):
    """A value inside a required parameter's range (replaced when it is tuned)."""
    for v in (1, 0.5, 0):
        if param.check is None or param.check(param.kind(v)):
            return param.kind(v)
    return None


def fuse_planned(runs: list[Run], plan: Plan, qrels, topics: str, name: str | None) -> Run:
    """The fused run of a checked plan."""
    trained = plan.trained(runs, qrels)
    rows = plan.rows(runs, topics)
    return fused_run(rows, plan.scores(rows, trained), name or plan.method.name)


def fused_run(rows: Rows, scores: np.ndarray, name: str) -> Run:
    table = pa.table(
        {
            "query_id": rows.query_ids.take(arrays.ints(rows.cand_query)),
            "doc_id": rows.doc_ids,
            "score": pa.Array.from_buffers(
                pa.float64(), len(scores), [None, pa.py_buffer(np.ascontiguousarray(scores))]
            ),
        }
    )
    return Run(table, f"<fused {name}>", name=name)


def fuse(
    runs,
    method: str = "combsum",
    norm: str | None = "min-max",
    weights=None,
    *,
    missing: str = "zero",
    topics: str = "same",
    qrels=None,
    name: str | None = None,
    **params: Any,
) -> Run:
    """Fuse runs into one :class:`~cranfield.Run` (docs/fusion.md).

    Parameters
    ----------
    runs
        Two or more runs: Run objects, file paths, tables or ``{qid: {docid: score}}``.
    method
        A fusion method of :data:`cranfield.fusion.FUSION_METHODS` (``combsum``,
        ``combmnz``, ``rrf``, ``wsum``, ``condorcet``, ``probfuse``, ...), by name or
        alias (ranx's names are aliases).
    norm
        Score normalisation (:data:`cranfield.fusion.NORMALISATIONS`): ``min-max``
        (default, as ranx), ``max``, ``sum``, ``zmuv``, ``rank``, ``borda`` or
        ``none`` (None). Applied per run and query before score-based methods;
        rank-based methods read ranks, which normalising does not change.
    weights
        One weight per run (weighted methods only: ``wsum``, ``wmnz``, ``mixed``,
        ``w-borda``, ``w-condorcet``).
    missing
        A document a run did not retrieve scores ``"zero"`` in it (default, as ranx)
        or ``"min"``: the run's smallest normalised score for the query (the default
        minimum); score-based methods only.
    topics
        ``"same"`` (default): the runs must answer the same queries; ``"union"``: fuse
        over the union, a run being empty on the queries it does not answer.
    qrels
        Training qrels, for the trained methods (probfuse, segfuse, slidefuse,
        posfuse, mapfuse, bayesfuse).
    name
        The fused run's name (default: the method's name).
    **params
        The method's parameters (``k=60`` for rrf, ``phi`` for rbc, ``gamma`` for
        combgmnz, ``sigma`` for logn-isr, ``n_segments`` for probfuse, ``w`` for
        slidefuse).

    Ties in the fused run are ranked as in every run: score descending, then document
    id descending (trec_eval's order).
    """
    if topics not in TOPIC_POLICIES:
        raise ParameterError("topics", "one of " + ", ".join(TOPIC_POLICIES), topics)
    listed = as_run_list(runs)
    plan = Plan(method, norm, weights, missing, params, len(listed))
    return fuse_planned(listed, plan, qrels, topics, name)
