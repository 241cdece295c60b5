"""One self-contained HTML file with the results of an evaluation.

The page holds, in order: the summary table (aggregate of every measure for every
run), the significance comparison against the baseline (:mod:`cranfield.compare`),
the assessment coverage of each run (mean Judged@k at several depths: with sparse
judgments unjudged documents count as non-relevant, Buckley & Voorhees 2004), the
figures of :mod:`cranfield.report.plots`, and
the command and library versions that produced it.

Nothing is fetched when the page is opened: the figures are inline ``data:`` URIs
(PNG, or SVG), the style sheet is inline and there is no script. The bytes depend only
on the inputs: no dates, sorted everything, figures saved without timestamps and
with a fixed SVG hash salt.
"""

from __future__ import annotations

import base64
import html
import math
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from .. import curves
from ..errors import MissingDependencyError, ParameterError
from . import data as _data
from .progress import Progress

DIGITS = 4

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 2em auto; max-width: 1000px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f3f3f3; } #comparison td { white-space: nowrap; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.best { font-weight: bold; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #555; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
.note { color: #555; font-size: 0.92em; }
"""

__all__ = ["build_report", "write_report", "versions"]


def versions() -> dict[str, str]:
    """Versions of cranfield, Python and the libraries that shaped the numbers."""
    import numpy
    import pyarrow

    from .. import __version__

    out = {
        "cranfield": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
    }
    try:
        import matplotlib

        out["matplotlib"] = matplotlib.__version__
    except ImportError:  # pragma: no cover - the report needs it anyway
        out["matplotlib"] = "not installed"
    return out


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _num(value, digits: int = DIGITS) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return _e(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    v = float(value)
    if math.isnan(v):
        return "nan"
    return f"{v:.{digits}f}"


def _table(table_id: str, header: Sequence[str], rows: Iterable[Sequence], best=None) -> str:
    """An HTML table; numbers right-aligned with their full value in ``data-value``."""
    out = [f'<table id="{_e(table_id)}">', "<thead><tr>"]
    out += [f"<th>{_e(h)}</th>" for h in header]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>")
        for j, cell in enumerate(row):
            if isinstance(cell, (float, int, np.floating, np.integer)) and not isinstance(
                cell, bool
            ):
                cls = "num best" if best is not None and best(j, cell) else "num"
                out.append(f'<td class="{cls}" data-value="{float(cell)!r}">{_num(cell)}</td>')
            else:
                out.append(f"<td>{_e(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _figure_html(fig_id: str, fig, caption: str, image_format: str) -> str:
    from .plots import figure_bytes

    payload = base64.b64encode(figure_bytes(fig, image_format)).decode("ascii")
    mime = "image/png" if image_format == "png" else "image/svg+xml"
    fig.clear()
    return (
        f'<figure id="{_e(fig_id)}"><img alt="{_e(caption)}" '
        f'src="data:{mime};base64,{payload}"><figcaption>{_e(caption)}</figcaption></figure>'
    )


def comparison_html(scores: dict, baseline: str | None, tests: Sequence[str] = ("t",)) -> str:
    """The significance comparison of :func:`cranfield.compare.compare`, as HTML.

    Paired tests of every run against the baseline on the per-query values of every
    measure, with Holm's correction: the summary table (means, best in bold, letters of
    the runs each is significantly better than) and the detail table (differences,
    intervals, p-values). Runs are compared on the queries all of them have; the
    queries left out are named in a note.
    """
    from ..compare import compare

    if len(next(iter(scores.values()), {})) < 2:
        return '<p class="note">A comparison needs at least two runs.</p>'
    common: set | None = None
    for by_run in scores.values():
        for values in by_run.values():
            common = set(values) if common is None else common & set(values)
    common = common or set()
    dropped = sorted(
        {q for by_run in scores.values() for values in by_run.values() for q in values} - common
    )
    aligned = {
        m: {run: {q: v for q, v in values.items() if q in common} for run, values in by_run.items()}
        for m, by_run in scores.items()
    }
    try:
        result = compare(aligned, baseline=baseline, tests=tests)
    except MissingDependencyError as exc:  # the tests need SciPy (the stats extra)
        return f'<p class="note" id="comparison-unavailable">{_e(exc)}</p>'
    note = (
        f'<p class="note" id="comparison-dropped">Left out of the tests because some run '
        f"has no result for them: {len(dropped)} query(ies) ({_e(', '.join(dropped[:20]))}"
        f"{', ...' if len(dropped) > 20 else ''}).</p>"
        if dropped
        else ""
    )
    return (
        note
        + '<div id="comparison-summary">'
        + result.render("html", table="summary")
        + '</div><div id="comparison-detail">'
        + result.render("html", table="detail")
        + "</div>"
    )


def _qrels_density(qrels, rel_level: int) -> str:
    """Judgments and relevant documents per topic (dense or sparse assessments)."""
    import pyarrow.compute as pc

    t = qrels.table
    grades = t.column("relevance")
    per_topic = t.group_by("query_id").aggregate([("doc_id", "count")])
    judged = per_topic.column("doc_id_count").to_numpy()
    rel = (
        t.filter(pc.greater_equal(grades, rel_level))
        .group_by("query_id")
        .aggregate([("doc_id", "count")])
        .column("doc_id_count")
        .to_numpy()
    )
    n = len(judged)
    rel_mean = float(rel.sum()) / n if n else 0.0
    return (
        f'<p class="note" id="density">The qrels judge {int(judged.sum())} documents for {n} '
        f"topics: {judged.mean() if n else 0:.1f} per topic on average (min "
        f"{judged.min() if n else 0}, max {judged.max() if n else 0}), of which "
        f"{rel_mean:.1f} with grade &ge; {rel_level} (relevant). A run whose top k is poorly judged is scored as "
        "if its unjudged documents were not relevant (Buckley &amp; Voorhees 2004: "
        "incomplete judgments).</p>"
    )


#: The measures of a report when none are named (``cranfield report``'s default too).
DEFAULT_MEASURES: tuple[str, ...] = ("AP", "nDCG@10", "P@10", "RR")


def build_report(
    qrels,
    runs,
    measures=DEFAULT_MEASURES,
    *,
    baseline: str | None = None,
    query: str | None = None,
    depths: Sequence[int] = _data.DEFAULT_DEPTHS,
    max_depth: int = 20,
    depth_measures: Sequence[str] = ("P", "nDCG"),
    command: str | None = None,
    title: str = "cranfield evaluation report",
    image_format: str = "png",
    tests: Sequence[str] = ("t",),
    progress: bool = True,
    convention: str = "textbook",
    **options,
) -> str:
    """Evaluate runs and return the self-contained HTML report.

    Parameters
    ----------
    qrels, runs, measures
        As in :func:`cranfield.evaluate`.
    baseline
        Run the others are compared with (differences, significance tests); the
        first run by default.
    query
        Also draw the precision-recall curves of this query.
    depths
        Depths of the Judged@k coverage table.
    max_depth, depth_measures
        The measure-vs-depth figure: ``M@k`` for ``k = 1..max_depth``.
    command
        The command line to print as provenance.
    image_format
        ``"png"`` (default) or ``"svg"`` for the inline figures.
    tests
        Significance tests of :func:`cranfield.compare.compare` (the first decides
        significance; paired t-test by default, Holm correction).
    progress
        Draw a progress bar on standard error when it is a terminal.
    convention
        Interpolation of the averaged precision-recall curves: ``"textbook"`` (exact
        recall levels) or ``"trec_eval"`` (``iprec_at_recall``); named in the captions.
    options
        Passed to :func:`cranfield.evaluate` (``rel_level``, ``depth``,
        ``judged_only``, ``complete``, ``compat``, ``skip_no_relevant``).
    """
    from ..evaluation import evaluate
    from ..qrels import Qrels
    from . import plots

    if image_format not in ("png", "svg"):
        raise ParameterError("image_format", "'png' or 'svg'", image_format)
    convention = curves.check_convention(convention)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    run_list = _data._inputs(qrels, runs)[1]
    results = evaluate(qrels, run_list, measures, **options)
    names = results.run_names
    if baseline is None:
        baseline = names[0]
    elif baseline not in names:
        raise ParameterError("baseline", "one of the runs " + ", ".join(names), baseline)
    table = results.per_query_table()
    rel_level = options.get("rel_level", 1)
    interpolation = curves.CONVENTIONS[convention]
    curve_opts = dict(
        rel_level=rel_level,
        skip_no_relevant=options.get("skip_no_relevant", False),
        convention=convention,
    )
    eval_opts = {k: v for k, v in options.items() if k != "aggregate_by"}
    numeric = [m for m in results.measures if m.definition.kind != "str"]

    steps = 5 + (query is not None) + 2 * len(table) + 1
    bar = Progress(steps, "cranfield report") if progress else Progress(1, stream=_Null())
    parts: list[str] = []
    with bar:
        # summary
        header = ["run", "queries"] + [str(m) for m in numeric]
        rows = [
            [r.name, len(r.query_ids)] + [r.aggregates[m] for m in numeric] for r in results.runs
        ]
        best_col = {
            j + 2: max(float(r.aggregates[m]) for r in results.runs) for j, m in enumerate(numeric)
        }
        parts.append("<h2>Summary</h2>")
        parts.append(
            f'<p class="note">Mean over queries; the best value of each measure in bold. '
            f"Baseline: <b>{_e(baseline)}</b>.</p>"
        )
        parts.append(
            _table("summary", header, rows, best=lambda j, v: j in best_col and v == best_col[j])
        )
        bar.step("comparison")

        parts.append('<h2>Significance</h2><div id="comparison">')
        parts.append(comparison_html(table, baseline, tests))
        parts.append("</div>")
        bar.step("coverage")

        cov = _data.coverage_data(qrels, run_list, depths, **eval_opts)
        parts.append("<h2>Assessment coverage</h2>")
        parts.append(
            '<p class="note">Mean Judged@k: the fraction of each run\'s top k that has a '
            "judgment; below it, the fraction of queries whose top k is fully judged."
            "</p>"
        )
        cov_header = ["run"] + [f"Judged@{int(k)}" for k in depths]
        cov_rows = [[name] + list(map(float, c["judged"])) for name, c in cov.items()]
        parts.append(_table("coverage", cov_header, cov_rows))
        full_rows = [[name] + list(map(float, c["complete"])) for name, c in cov.items()]
        parts.append(
            _table("coverage-complete", ["run (fully judged queries)"] + cov_header[1:], full_rows)
        )
        parts.append(_qrels_density(qrels, rel_level))
        parts.append(
            _figure_html(
                "fig-coverage", plots.draw_coverage(cov), "Judged@k by depth", image_format
            )
        )
        bar.step("precision-recall")

        parts.append("<h2>Precision-recall</h2>")
        pr = _data.pr_data(qrels, run_list, **curve_opts)
        parts.append(
            _figure_html(
                "fig-pr",
                plots.draw_pr(pr, convention=convention),
                "Averaged precision-recall: raw (mean P and R at every rank) and "
                f"interpolated (mean interpolated precision at 11 recall levels; {interpolation})",
                image_format,
            )
        )
        if query is not None:
            prq = _data.pr_data(qrels, run_list, query=query, rel_level=rel_level)
            parts.append(
                _figure_html(
                    "fig-pr-query",
                    plots.draw_pr(prq, query=query),
                    f"Query {query}: sawtooth and interpolated step curve "
                    f"({curves.CONVENTIONS['textbook']})",
                    image_format,
                )
            )
            bar.step("averages")
        avg = _data.averages_data(qrels, run_list, **curve_opts)
        parts.append(
            _figure_html(
                "fig-averages",
                plots.draw_averages(avg, convention),
                "Two averages over queries: mean P and R at ranks 5, 10, 15, ..., and mean "
                f"interpolated precision at 11 recall levels ({interpolation})",
                image_format,
            )
        )
        bar.step("depth")

        parts.append("<h2>Measures by depth</h2>")
        depth = _data.depth_data(qrels, run_list, depth_measures, max_depth, **eval_opts)
        parts.append(
            _figure_html(
                "fig-depth",
                plots.draw_depth(depth),
                ", ".join(f"{m}@k" for m in depth) + f" for k = 1..{max_depth}",
                image_format,
            )
        )
        bar.step("per-query")

        parts.append("<h2>Per-query values</h2>")
        for i, (measure, scores) in enumerate(table.items()):
            if len(scores) > 1:
                delta = _data.delta_data(scores, baseline)
                parts.append(
                    _figure_html(
                        f"fig-delta-{i}",
                        plots.draw_delta(delta, baseline=baseline, measure=measure),
                        f"{measure}: per-query difference to {baseline}, sorted",
                        image_format,
                    )
                )
            bar.step(measure)
            dist = _data.distribution_data(scores)
            parts.append(
                _figure_html(
                    f"fig-dist-{i}",
                    plots.draw_distribution(dist, measure=measure),
                    f"{measure}: distribution of per-query values",
                    image_format,
                )
            )
            bar.step(measure)

        parts.append("<h2>Provenance</h2>")
        if command:
            parts.append(f'<pre id="command">{_e(command)}</pre>')
        opts = {k: results.options.get(k) for k in sorted(results.options)}
        parts.append(
            '<p class="note" id="options">Options: '
            + ", ".join(f"{_e(k)}={_e(v)}" for k, v in opts.items())
            + "</p>"
        )
        parts.append(_table("versions", ["package", "version"], sorted(versions().items())))
        bar.step("done")

    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        f'<p class="note">{len(names)} run(s): {_e(", ".join(names))}; '
        f"{len(qrels.query_ids())} qrels topics; measures: "
        f"{_e(', '.join(str(m) for m in results.measures))}.</p>"
    )
    return head + "\n".join(parts) + "\n</body></html>\n"


def write_report(path: str | Path, qrels, runs, measures=DEFAULT_MEASURES, **kw) -> Path:
    """Write :func:`build_report` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    text = build_report(qrels, runs, measures, **kw)
    from ..io.atomic import write_text

    write_text(path, text, newline="\n")
    return path


class _Null:
    def write(self, _):  # pragma: no cover - never called: not a TTY
        pass

    def flush(self):  # pragma: no cover
        pass

    def isatty(self) -> bool:
        return False
