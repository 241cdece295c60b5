"""The evaluation protocol: train on train, select on vali, measure on test, over folds.

* :func:`evaluate_model` -- a model's measures on test data, per query and in the mean.
  With the ``trec`` convention (the default) the model's scores become a run and the
  labels qrels, and :func:`cranfield.evaluate` measures them (every cranfield measure);
  with ``letor`` LETOR's Eval-Score-4.0 rules apply (:mod:`cranfield.ltr.letor`).
* :func:`cross_validate` -- every method on every fold: the test values per fold, the
  mean and sample standard deviation over folds of each measure, and the significance of
  the differences between methods over all test queries (:func:`cranfield.compare`,
  the first method as baseline); the test rankings can be written as TREC runs (with
  the test qrels beside them) so that every cranfield command applies.

The measures of Semenikhin & Denisova's comparison go by their usual names:
"accuracy" of the top-ranked document is P@1, precision P@5 and P@10, Bpref, and
"completeness" is recall, R@10 here (recall over the whole candidate list is always 1).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from .data import RankingData
from .model import Model
from .objective import CONVENTIONS

DEFAULT_MEASURES = ("nDCG@10", "P@1", "P@5", "P@10", "Bpref", "R@10", "AP")
LETOR_DEFAULT_MEASURES = ("NDCG@10", "P@1", "P@5", "P@10", "MAP")


def default_measures(convention: str) -> tuple[str, ...]:
    return LETOR_DEFAULT_MEASURES if convention == "letor" else DEFAULT_MEASURES


@dataclass
class Evaluation:
    """A model's values on one data set: ``per_query[measure][qid]`` and ``aggregate``."""

    per_query: dict[str, dict[str, float]]
    aggregate: dict[str, float]
    convention: str


def evaluate_scores(
    data: RankingData, scores: np.ndarray, measures, convention: str = "trec", name: str = "ltr"
) -> Evaluation:
    """Measures of one score per document of ``data``."""
    if convention not in CONVENTIONS:
        raise ParameterError("convention", "one of " + ", ".join(CONVENTIONS), convention)
    measures = list(measures)
    if convention == "trec":
        from ..core.evaluation import evaluate
        from .runs import to_qrels, to_run

        res = evaluate(to_qrels(data), to_run(data, scores, name), measures)
        names = [str(m) for m in res.measures]
        per_query = {m: res.per_query(name, m) for m in names}
        aggregate = res.aggregate(name)
        return Evaluation(per_query, {m: aggregate[m] for m in names}, convention)
    from dataclasses import replace

    from .objective import Objective

    one = replace(data, features=np.asarray(scores, dtype=np.float64)[:, None])
    per_query, aggregate = {}, {}
    for m in measures:
        obj = Objective(one, m, "letor")
        values = obj.per_query(np.array([1.0]))[0][0]
        key = str(obj)
        per_query[key] = dict(zip(obj.layout.query_ids.tolist(), values.tolist(), strict=True))
        aggregate[key] = float(obj(np.array([1.0]))[0])
    return Evaluation(per_query, aggregate, convention)


def evaluate_model(model: Model, data: RankingData, measures, convention: str = "trec"):
    """A model's measures on ``data`` (normalised as in training)."""
    return evaluate_scores(data, model.scores(data), measures, convention, model.method)


@dataclass
class FoldResult:
    fold: str
    method: str
    model: Model
    test: Evaluation
    seconds: float


@dataclass
class CVResult:
    """Results of :func:`cross_validate`."""

    methods: list[str]
    measures: list[str]
    folds: list[str]
    convention: str
    objective: str
    results: list[FoldResult] = field(default_factory=list)
    comparison: object | None = None

    def values(self, method: str, measure: str) -> list[float]:
        return [r.test.aggregate[measure] for r in self.results if r.method == method]

    def summary(self) -> dict:
        """``{method: {"aggregate": {measure: mean}, "sd": {...}, "folds": {...}}}``."""
        out = {}
        for m in self.methods:
            rows = [r for r in self.results if r.method == m]
            agg, sd = {}, {}
            for k in self.measures:
                v = [r.test.aggregate[k] for r in rows]
                agg[k] = float(np.mean(v)) if v else None
                sd[k] = float(np.std(v, ddof=1)) if len(v) > 1 else None
            out[m] = {
                "aggregate": agg,
                "sd": sd,
                "folds": {r.fold: r.test.aggregate for r in rows},
                "seconds": float(sum(r.seconds for r in rows)),
                "train_value": {r.fold: r.model.train_value for r in rows},
                "vali_value": {r.fold: r.model.vali_value for r in rows},
            }
        return out

    def to_dict(self) -> dict:
        d = {
            "convention": self.convention,
            "objective": self.objective,
            "measures": self.measures,
            "folds": self.folds,
            "methods": self.summary(),
        }
        if self.comparison is not None:
            d["comparison"] = self.comparison.to_rows()
        return d

    def render(self, fmt: str = "text", digits: int = 4) -> str:
        from ..output import table

        header = ["method", *self.measures, "seconds"]
        rows = []
        summary = self.summary()
        for m in self.methods:
            s = summary[m]
            cells = [m]
            for k in self.measures:
                mean, sd = s["aggregate"][k], s["sd"][k]
                text = "-" if mean is None else f"{mean:.{digits}f}"
                if sd is not None:
                    text += f" ± {sd:.{digits}f}"
                cells.append(text)
            cells.append(f"{s['seconds']:.2f}")
            rows.append(cells)
        fmt_table = "markdown" if fmt == "markdown" else "text"
        lines = [
            f"# convention: {self.convention}; objective: {self.objective}; "
            f"{len(self.folds)} fold(s), mean ± sd of the test values over folds",
            table(header, rows, fmt_table, rule=True),
        ]
        if self.comparison is not None:
            lines.append("")
            lines.append(self.comparison.render("markdown" if fmt == "markdown" else "text"))
        return "\n".join(lines).rstrip("\n") + "\n"


def cross_validate(
    folds,
    methods,
    objective: str = "nDCG@10",
    measures=None,
    *,
    budget: int = 16_000,
    seed: int = 0,
    normalisation: str = "query",
    convention: str = "trec",
    params: dict | None = None,
    runs_dir=None,
    progress=None,
    tests=("t",),
) -> CVResult:
    """Train, select and test every method on every fold.

    Parameters
    ----------
    folds
        ``(name, train, vali_or_None, test)`` tuples of :class:`RankingData`, or a
        directory of LETOR folds (``Fold1..Fold5``).
    methods
        Ranker names (:data:`~cranfield.ltr.rankers.RANKERS`).
    measures
        Measures reported on the test folds (default: :func:`default_measures`).
    params
        ``{method: {parameter: value}}``.
    runs_dir
        Write ``FOLD/METHOD.run`` (TREC runs of the test queries) and ``FOLD/test.qrels``.
    progress
        A :class:`~cranfield.progress.Progress` of ``len(folds) * len(methods)`` steps.
    """
    from .rankers import ranker, train

    methods = list(methods)
    if not methods:
        raise ParameterError("methods", "at least one ranker", methods)
    for m in methods:
        ranker(m)
    if len(set(methods)) != len(methods):
        raise ParameterError("methods", "distinct rankers", ",".join(methods))
    measures = list(measures or default_measures(convention))
    if isinstance(folds, (str, Path)):
        folds = load_folds(folds)
    folds = list(folds)
    result = CVResult(methods, [], [f[0] for f in folds], convention, objective)
    for name, tr, va, te in folds:
        for method in methods:
            start = time.perf_counter()
            model = train(
                tr,
                method,
                objective,
                vali=va,
                budget=budget,
                seed=seed,
                normalisation=normalisation,
                convention=convention,
                params=(params or {}).get(method),
            )
            seconds = time.perf_counter() - start
            result.objective = model.objective
            test = evaluate_model(model, te, measures, convention)
            result.measures = list(test.aggregate)
            result.results.append(FoldResult(name, method, model, test, seconds))
            if runs_dir is not None:
                _write_run(Path(runs_dir) / name, method, te, model)
            if progress is not None:
                progress.step(f"{name} {method} done")
    if len(methods) > 1:
        result.comparison = _compare(result, tests)
    return result


def load_folds(directory) -> list[tuple]:
    """``(name, train, vali, test)`` of a LETOR fold directory, read."""
    from .readers import fold_paths, read

    out = []
    for f in fold_paths(directory):
        out.append((f.name, read(f.train), None if f.vali is None else read(f.vali), read(f.test)))
    return out


def _write_run(directory: Path, method: str, test: RankingData, model: Model) -> None:
    from ..core.io.atomic import write_text
    from .runs import to_qrels, trec_run_text

    directory.mkdir(parents=True, exist_ok=True)
    write_text(directory / f"{method}.run", trec_run_text(test, model.scores(test), method))
    qrels = directory / "test.qrels"
    if not qrels.exists():
        to_qrels(test).to_trec(qrels)


def _compare(result: CVResult, tests):
    """Significance between methods over all test queries (queries named FOLD/QID)."""
    from ..compare import compare

    scores: dict = {}
    for k in result.measures:
        scores[k] = {}
        for m in result.methods:
            values = {}
            for r in result.results:
                if r.method == m:
                    for qid, v in r.test.per_query[k].items():
                        values[f"{r.fold}/{qid}"] = v
            scores[k][m] = values
    # measures undefined on some query (none here) would make compare refuse them
    scores = {
        k: v
        for k, v in scores.items()
        if all(
            all(isinstance(x, float) and math.isfinite(x) for x in d.values()) for d in v.values()
        )
    }
    if not scores:
        return None
    return compare(scores, baseline=result.methods[0], tests=tests)
