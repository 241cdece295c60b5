"""One self-contained HTML file with the results of an evaluation, for 2 to 100 runs.

The page holds, in order:

1. the leaderboard: runs x measures, sortable, best value bold, the runs not
   significantly different from the best marked (:mod:`cranfield.compare`), 95%
   confidence intervals;
2. per measure (a selector shows one at a time; print shows all): runs sorted by mean
   with confidence intervals, the per-topic summary (worst, median, best run and the
   baseline on every topic) and a runs x topics heat map;
3. assessment coverage: mean Judged@k of each run (Buckley & Voorhees 2004);
4. one run in detail (a selector): its averaged precision-recall curve, M@k by depth,
   per-topic differences to the baseline and its distribution, against the best and
   median runs, drawn by a short inline script from JSON data embedded in the page;
5. the paired comparison of every run with the baseline, and provenance.

Every figure is inline SVG drawn by :mod:`cranfield.report.svg` (no matplotlib) and has
a caption and its data as a table. Nothing is fetched when the page is opened. The
bytes depend only on the inputs: no dates, fixed orders, rounded coordinates.
"""

from __future__ import annotations

import html
import math
import platform
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..defaults import REPORT_MEASURES
from ..errors import MissingDependencyError, ParameterError
from ..progress import Progress
from . import curves
from . import data as _data
from .chart import STYLE

DIGITS = 4

_STYLE = (
    """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       margin: 2em auto; max-width: 1000px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.08em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
.scroll, details, #comparison { max-width: 100%; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; max-width: 24em;
         overflow-wrap: anywhere; }
th { background: #f3f3f3; text-align: left; overflow-wrap: break-word; hyphens: none; }
#comparison td { white-space: nowrap; }
#comparison { max-width: none; width: calc(100vw - max(1em, 50vw - 500px) - 1em); }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { font-weight: bold; } tr.baseline th { font-style: italic; } td.above { background: #e8f1fa; } td.below { background: #fbeee6; }
.leaderboard th button { font: inherit; font-weight: bold; background: none; border: 0;
                         padding: 0; cursor: pointer; text-align: left; color: inherit; }
.leaderboard th button:focus-visible { outline: 2px solid #0072B2; }
.leaderboard th[aria-sort=descending] button::after { content: " \\25BC"; }
.leaderboard th[aria-sort=ascending] button::after { content: " \\25B2"; }
figure { margin: 1.2em 0; max-width: 100%; }
"""
    + STYLE
    + """figcaption { font-size: 0.9em; color: #444; }
details { margin: 0.3em 0; } summary { cursor: pointer; color: #0058a0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap;
      overflow-wrap: anywhere; }
.note { color: #555; font-size: 0.92em; overflow-wrap: anywhere; }
select { max-width: 100%; font: inherit; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  #comparison { width: auto; }
  section.measure[hidden] { display: block; }
  .needs-script, nav, details, #detail { display: none !important; }
  figure, tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
}
"""
)

__all__ = ["build_report", "figure_html", "page_head", "table_html", "versions", "write_report"]


def versions() -> dict[str, str]:
    """Versions of cranfield, Python and the libraries that shaped the numbers."""
    import numpy
    import pyarrow

    from .. import __version__

    return {
        "cranfield": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,
    }


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
    out = [f'<div class="scroll"><table id="{_e(table_id)}">', "<thead><tr>"]
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
    out.append("</tbody></table></div>")
    return "".join(out)


def _qrels_density(qrels, rel_level: int) -> str:
    """Judgments and relevant documents per topic (dense or sparse assessments)."""
    import pyarrow.compute as pc

    t = qrels.table
    grades = t.column("relevance")
    # judgments per topic (value_counts: no group-by engine to start for one count)
    judged = pc.value_counts(t.column("query_id")).field("counts").to_numpy()
    rel = pc.sum(pc.greater_equal(grades, rel_level)).as_py() or 0
    n = len(judged)
    rel_mean = float(rel) / n if n else 0.0
    return (
        f'<p class="note" id="density">The qrels judge {int(judged.sum())} documents for {n} '
        f"topics: {judged.mean() if n else 0:.1f} per topic on average (min "
        f"{judged.min() if n else 0}, max {judged.max() if n else 0}), of which "
        f"{rel_mean:.1f} with grade &ge; {rel_level} (relevant). A run whose top k is poorly judged is scored as "
        "if its unjudged documents were not relevant (Buckley &amp; Voorhees 2004: "
        "incomplete judgments).</p>"
    )


def _aligned(scores: dict) -> tuple[dict, list]:
    """Scores restricted to the queries every run has, and the queries left out."""
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
    return aligned, dropped


def comparison_html(
    scores: dict,
    baseline: str | Sequence[str] | None,
    tests: Sequence[str] = ("t",),
    id_prefix: str = "comparison",
) -> str:
    """The significance comparison of :func:`cranfield.compare.compare`, as HTML.

    Paired tests of every run against the baseline (or each of several baselines) on the
    per-query values of every measure, with Holm's correction over all compared pairs: the summary table (means, best in bold, letters of
    the runs each is significantly better than) and the detail table (differences,
    intervals, p-values). Runs are compared on the queries all of them have; the
    queries left out are named in a note. ``id_prefix`` starts the elements' ids (one
    comparison per topic group needs its own).
    """
    from ..compare import compare

    if len(next(iter(scores.values()), {})) < 2:
        return '<p class="note">A comparison needs at least two runs.</p>'
    aligned, dropped = _aligned(scores)
    try:
        result = compare(aligned, baseline=baseline, tests=tests)
    except MissingDependencyError as exc:  # the tests need SciPy (the stats extra)
        return f'<p class="note" id="{id_prefix}-unavailable">{_e(exc)}</p>'
    note = (
        f'<p class="note" id="{id_prefix}-dropped">Left out of the tests because some run '
        f"has no result for them: {len(dropped)} query(ies) ({_e(', '.join(dropped[:20]))}"
        f"{', ...' if len(dropped) > 20 else ''}).</p>"
        if dropped
        else ""
    )
    return (
        note
        + f'<div id="{id_prefix}-summary">'
        + result.render("html", table="summary")
        + f'</div><div id="{id_prefix}-detail">'
        + result.render("html", table="detail")
        + "</div>"
    )


def top_groups(scores: dict, tests: Sequence[str] = ("t",)) -> dict[str, set[str]] | None:
    """Per measure, the runs not significantly different from the run with the best mean.

    Each measure is compared separately with :func:`cranfield.compare.compare`, the
    best run as the baseline (paired tests on the queries all runs have, Holm's
    correction over the runs; the first test decides). ``None`` without SciPy.
    """
    from ..compare import compare

    aligned, _ = _aligned(scores)
    out = {}
    for measure, by_run in aligned.items():
        names = list(by_run)
        if len(names) < 2 or not len(next(iter(by_run.values()))):
            out[measure] = set(names)
            continue
        means = [np.mean(list(by_run[r].values())) for r in names]
        best = names[int(np.argmax(means))]
        try:
            result = compare({measure: by_run}, baseline=best, tests=tests)
        except MissingDependencyError:
            return None
        out[measure] = {best} | {r.run for r in result.rows if not r.significant}
    return out


def baseline_marks(
    scores: dict, baselines: str | Sequence[str], tests: Sequence[str] = ("t",)
) -> dict[str, dict[str, dict[str, int]]] | None:
    """Per measure, run and baseline: +1 when the run is significantly above that
    baseline, -1 when below, 0 otherwise (a baseline against itself: 0).

    The tests are those of the comparison section (:func:`comparison_html`: one
    :func:`cranfield.compare.compare` call against all ``baselines`` on the queries all
    runs have, one correction over all compared pairs, the first test decides), so the
    marks agree with its table. Two baselines are compared once (the later against the
    earlier); each gets the mark against the other, with opposite signs. ``None``
    without SciPy."""
    from ..compare import compare

    baselines = (baselines,) if isinstance(baselines, str) else tuple(baselines)
    aligned, _ = _aligned(scores)
    marks = {m: {r: dict.fromkeys(baselines, 0) for r in by_run} for m, by_run in aligned.items()}
    if len(next(iter(aligned.values()), {})) < 2:
        return marks
    try:
        result = compare(aligned, baseline=list(baselines), tests=tests)
    except MissingDependencyError:
        return None
    for row in result.rows:
        if row.significant:
            sign = 1 if row.diff > 0 else -1
            marks[row.measure][row.run][row.baseline] = sign
            if row.run in marks[row.measure][row.baseline]:  # a baseline against a baseline
                marks[row.measure][row.baseline][row.run] = -sign
    return marks


def mean_intervals(values: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """t confidence interval of the mean of each row (:func:`compare.mean_difference_ci`
    against zero: ``mean +- t_{1-a/2, n-1} s / sqrt(n)``); ``nan`` without SciPy or
    with fewer than two values."""
    from ..compare import mean_difference_ci

    low = np.full(len(values), np.nan)
    high = np.full(len(values), np.nan)
    for i, row in enumerate(values):
        row = row[np.isfinite(row)]
        if len(row) < 2:
            continue
        try:
            low[i], high[i] = mean_difference_ci(row, np.zeros_like(row), confidence)
        except MissingDependencyError:
            break
    return low, high


def _matrix(by_run: dict, names: Sequence[str], topics: Sequence[str]) -> np.ndarray:
    """``{run: {qid: value}}`` as a runs x topics array (``nan`` where missing)."""
    index = {q: j for j, q in enumerate(topics)}
    out = np.full((len(names), len(topics)), np.nan)
    for i, name in enumerate(names):
        values = by_run.get(name, {})
        if values:
            cols = np.fromiter((index[q] for q in values), dtype=np.int64, count=len(values))
            out[i, cols] = np.fromiter(values.values(), dtype=np.float64, count=len(values))
    return out


def _rounded(a: np.ndarray, digits: int = DIGITS):
    """Nested lists rounded to ``digits`` (``None`` for undefined values)."""
    r = np.round(np.asarray(a, dtype=float), digits)
    return np.where(np.isfinite(r), r, np.nan).tolist()


def page_head(title: str) -> str:
    """The start of a report page: the document head with the style, the body, the
    title; the page ends with ``</body></html>``."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
    )


def table_html(table_id: str, header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """An HTML table of a report (numbers right-aligned, full values in ``data-value``)."""
    return _table(table_id, header, rows)


def figure_html(fig_id: str, svg_text: str, caption: str, data_table: str) -> str:
    """A figure of a report: the SVG, its caption and its data as a folded table."""
    return _fig(fig_id, svg_text, caption, data_table)


def _details(table_html: str, summary: str = "Data table") -> str:
    return f"<details><summary>{_e(summary)}</summary>{table_html}</details>"


def _fig(fig_id: str, svg_text: str, caption: str, table_html: str) -> str:
    return (
        f'<figure id="{_e(fig_id)}">{svg_text}<figcaption>{caption}</figcaption>'
        f"{_details(table_html)}</figure>"
    )


#: The measures of a report when none are named (``cranfield report``'s default too).
DEFAULT_MEASURES: tuple[str, ...] = REPORT_MEASURES


_MARKS = {1: ("\u25b2", "above"), -1: ("\u25bc", "below")}


def _marks_html(signs: dict[str, int], baselines: Sequence[str]) -> tuple[str, int]:
    """The marks of one cell (one per baseline the run differs from significantly,
    numbered by the baseline's position when there are several) and the cell's overall
    sign (+1 above every such baseline, -1 below every one, else 0) for its colour."""
    spans, seen = [], set()
    for k, name in enumerate(baselines, 1):
        sign = signs.get(name, 0)
        if not sign:
            continue
        symbol, word = _MARKS[sign]
        meaning = f"significantly {word} the baseline {name}"
        index = f"<sub>{k}</sub>" if len(baselines) > 1 else ""
        spans.append(
            f'<span class="baseline-mark" data-baseline="{_e(name)}" '
            f'aria-label="{_e(meaning)}" title="{_e(meaning)}"> {symbol}{index}</span>'
        )
        seen.add(sign)
    return "".join(spans), (seen.pop() if len(seen) == 1 else 0)


def _mean(run, measure) -> float:
    """A run's aggregate of ``measure`` (``nan`` where it has no topic to average)."""
    value = run.aggregates[measure]
    return math.nan if value is None else float(value)


def _leaderboard(
    results, numeric, marks, intervals, baselines: Sequence[str], table_id: str = "summary"
) -> str:
    """The runs x measures table: sortable headers, best bold, each run marked against
    each baseline (:func:`baseline_marks`)."""
    header = ["run", "queries"] + [str(m) for m in numeric]
    best = {}
    for m in numeric:
        means = np.array([_mean(r, m) for r in results.runs])
        best[m] = np.max(means[np.isfinite(means)]) if np.isfinite(means).any() else math.nan
    out = [f'<div class="scroll"><table id="{_e(table_id)}" class="leaderboard"><thead><tr>']
    for j, h in enumerate(header):
        out.append(f'<th scope="col"><button type="button" data-col="{j}">{_e(h)}</button></th>')
    out.append("</tr></thead><tbody>")
    for i, r in enumerate(results.runs):
        role = ""
        if r.name in baselines:
            k = baselines.index(r.name) + 1
            which = f"baseline {k}" if len(baselines) > 1 else "the baseline"
            role = f' class="baseline" title="{which}"'
        out.append(f'<tr{role}><th scope="row">{_e(r.name)}</th>')
        out.append(f'<td class="num" data-value="{len(r.query_ids)}">{len(r.query_ids)}</td>')
        for m in numeric:
            v = _mean(r, m)
            low, high = intervals[str(m)]
            cls = "num best" if v == best[m] else "num"
            ci = (
                f' title="95% confidence interval {low[i]:.{DIGITS}f} to {high[i]:.{DIGITS}f}"'
                if math.isfinite(low[i])
                else ""
            )
            signs = {} if marks is None else marks.get(str(m), {}).get(r.name, {})
            mark, sign = _marks_html(signs, baselines)
            if sign:
                cls += " above" if sign > 0 else " below"
            out.append(f'<td class="{cls}" data-value="{v!r}"{ci}>{_num(v)}{mark}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _seeds_section(results, numeric_table, systems, baselines, tests) -> str:
    """``--system``: each system's spread over its seeds (the measures' own aggregates of
    each seed: :func:`cranfield.compare.seeds.result_spreads`), then the comparison of
    the systems on their per-topic means over seeds
    (:func:`cranfield.compare.seeds.merge_seeds`, as ``cranfield compare --system``);
    a baseline that is one seed of a system stands for its system there."""
    from ..compare.seeds import merge_seeds, result_spreads

    spreads = result_spreads(results, systems)
    head = ["system", "measure", "seeds", "topics", "mean", "sd", "min", "max"]
    rows = [
        [s.system, s.measure, len(s.runs), s.topics, s.mean, s.sd, s.min, s.max, *s.ci]
        for s in spreads
    ]
    merged, _, notes = merge_seeds(numeric_table, systems)
    system_of = {r: name for name, runs in systems.items() for r in runs}
    merged_baselines = tuple(dict.fromkeys(system_of.get(b, b) for b in baselines))
    out = [
        '<section id="seeds"><h2>Systems over seeds</h2><p class="note">Each system\'s '
        "value under each of its seeds (the measure's own aggregate of the run of that seed): "
        "mean, standard deviation, range and 95% t interval over its seeds. Below, the "
        "systems compared on their per-topic means over seeds (topics are the sampling "
        "unit; as <code>cranfield compare --system</code>)"
        + "".join(f"; {_e(n)}" for n in notes)
        + ".</p>",
        _table("seed-spread", [*head, "ci_low", "ci_high"], rows),
        comparison_html(merged, merged_baselines, tests, "comparison-seeds"),
        "</section>",
    ]
    return "".join(out)


def _groups_section(
    results, groups, numeric, numeric_table, matrices, topics, baselines, tests, systems=None
) -> str:
    """``--topic-groups``: per group, the leaderboard (the measures' own aggregates over
    the group's topics, :func:`cranfield.core.groups.by_group`) marked against each
    baseline, and the comparison with the baselines on the group's topics
    (:func:`cranfield.core.groups.select_topics`, as ``compare --topic-groups``); with
    ``systems`` (``--system``) also each system's spread over its seeds on the group's
    topics (as ``compare --system --topic-groups``)."""
    from ..compare.seeds import merge_seeds
    from ..core.groups import by_group, select_topics

    per_group = by_group(results, groups)
    topic_array = np.asarray(topics, dtype=object)
    out = [
        '<section id="topic-groups"><h2>Per topic group</h2>'
        f'<p class="note">Groups of <code>{_e(groups.source)}</code>: each run\'s means '
        "and the tests against the baselines on the group's topics only (the tests of "
        "each group corrected on their own, as <code>cranfield compare --topic-groups</code> "
        "does).</p>"
    ]
    for k, name in enumerate(groups.names):
        members = groups.topics[groups.groups == name]
        columns = np.isin(topic_array, members)
        scores = select_topics(numeric_table, groups, name)
        aligned, _ = _aligned(scores)
        testable = len(results.runs) > 1 and any(
            len(v) for by_run in aligned.values() for v in by_run.values()
        )
        marks = baseline_marks(scores, baselines, tests) if testable else None
        intervals = {m: mean_intervals(matrices[m][:, columns]) for m in matrices}
        out.append(
            f'<section class="topic-group" data-group="{_e(name)}"><h3>{_e(name)} '
            f"({len(members)} topics)</h3>"
        )
        out.append(
            _leaderboard(
                per_group[name], numeric, marks, intervals, baselines, f"summary-group-{k}"
            )
        )
        out.append(
            comparison_html(scores, baselines, tests, f"comparison-group-{k}")
            if testable
            else '<p class="note">No tests: no topic of the group has a result from every run.</p>'
        )
        if systems:
            spreads = merge_seeds(scores, systems)[1]
            head = ["system", "measure", "seeds", "topics", "mean", "sd", "min", "max"]
            rows = [
                [x.system, x.measure, len(x.runs), x.topics, x.mean, x.sd, x.min, x.max, *x.ci]
                for x in spreads
            ]
            out.append(
                '<p class="note">Systems over seeds on this group\'s topics (the mean over '
                "seeds of the mean over them of the run of each seed).</p>"
                + _table(f"seed-spread-group-{k}", [*head, "ci_low", "ci_high"], rows)
            )
        out.append("</section>")
    out.append("</section>")
    return "".join(out)


def build_report(
    qrels,
    runs,
    measures=DEFAULT_MEASURES,
    *,
    baseline: str | Sequence[str] | None = None,
    query: str | None = None,
    depths: Sequence[int] = _data.DEFAULT_DEPTHS,
    max_depth: int = 20,
    depth_measures: Sequence[str] = ("P", "nDCG"),
    command: str | None = None,
    provenance: dict | None = None,
    title: str = "cranfield evaluation report",
    image_format: str = "svg",
    tests: Sequence[str] = ("t",),
    progress: bool = True,
    convention: str = "textbook",
    subtopic_qrels=None,
    topic_groups=None,
    systems: dict[str, Sequence[str]] | None = None,
    sampled_qrels=None,
    **options,
) -> str:
    """Evaluate runs and return the self-contained HTML report.

    Parameters
    ----------
    qrels, runs, measures
        As in :func:`cranfield.evaluate`.
    baseline
        Run the others are compared with (differences, significance tests); the
        first run by default. Several runs: the comparison section tests every run
        against each of them; the first is the baseline of the per-topic views and of
        the leaderboard's marks.
    query
        Also draw the precision-recall curves of this query (in the detail view).
    depths
        Depths of the Judged@k coverage figure and table.
    max_depth, depth_measures
        The measure-vs-depth figures of the detail view: ``M@k`` for ``k = 1..max_depth``.
    command
        The command line to print as provenance.
    provenance
        The inputs' record (:func:`cranfield.provenance.provenance`): each file's size and
        SHA-256, and the collection id, in the provenance section.
    image_format
        Accepted for compatibility: the figures are always inline SVG.
    tests
        Significance tests of :func:`cranfield.compare.compare` (the first decides
        significance; paired t-test by default, Holm correction).
    progress
        Draw a progress bar on standard error when it is a terminal.
    convention
        Interpolation of the averaged precision-recall curves: ``"textbook"`` (exact
        recall levels) or ``"trec_eval"`` (``iprec_at_recall``); named in the captions.
    subtopic_qrels
        Subtopic (intent) judgments for the diversity measures among ``measures``, as
        :func:`cranfield.evaluate` takes them (a
        :class:`~cranfield.core.subtopics.SubtopicQrels`, a path or a table); the
        figures of ordinary measures do not need them.
    topic_groups
        A :class:`cranfield.core.groups.TopicGroups` (or a group file's path): a section
        per group with the leaderboard and the comparison with the baselines on the
        group's topics, as ``cranfield compare --topic-groups`` computes them (each
        group's tests corrected on their own). A group naming a topic that was not
        evaluated is an error.
    sampled_qrels
        Sampled judgments for the sampled estimators among ``measures`` (``xinfAP``,
        ``statAP``, ...), as :func:`cranfield.evaluate` takes them.
    options
        Passed to :func:`cranfield.evaluate` (``rel_level``, ``complete``, ``compat``,
        ``skip_no_relevant``).
    """
    from ..core.evaluation import RunFiles, evaluate
    from ..core.qrels import Qrels
    from . import svg
    from .script import SCRIPT

    if image_format not in ("png", "svg"):
        raise ParameterError("image_format", "'png' or 'svg'", image_format)
    convention = curves.check_convention(convention)
    qrels = qrels if isinstance(qrels, Qrels) else Qrels.coerce(qrels)
    # run files are read one at a time for the figures (memory: one run's rows)
    run_list = runs if isinstance(runs, RunFiles) else _data._inputs(qrels, runs)[1]
    more = {} if subtopic_qrels is None else {"subtopic_qrels": subtopic_qrels}
    if sampled_qrels is not None:
        more["sampled_qrels"] = sampled_qrels
    results = evaluate(qrels, run_list, measures, **options, **more)
    names = results.run_names
    baselines = (baseline,) if isinstance(baseline, str) else tuple(baseline or names[:1])
    for name in baselines:
        if name not in names:
            raise ParameterError("baseline", "one of the runs " + ", ".join(names), name)
    if len(set(baselines)) != len(baselines):
        raise ParameterError("baseline", "each run once", list(baselines))
    baseline = baselines[0]
    if query is not None and str(query) not in set(qrels.query_ids()):
        raise ParameterError("query", "a query id of the qrels", query)
    table = results.per_query_table()
    rel_level = options.get("rel_level", 1)
    skip = options.get("skip_no_relevant", False)
    interpolation = curves.CONVENTIONS[convention]
    eval_opts = {k: v for k, v in options.items() if k != "aggregate_by"}
    numeric = [m for m in results.measures if m.definition.kind != "str"]
    measure_names = [str(m) for m in numeric]
    # topic order on every per-topic axis: numbers by value (TREC topics), then the rest
    topics = sorted(
        {q for by_run in table.values() for v in by_run.values() for q in v},
        key=lambda q: (0, int(q), q) if q.isascii() and q.isdigit() else (1, 0, q),
    )
    b_index = names.index(baseline)
    if topic_groups is not None:
        from ..core.groups import TopicGroups, read_groups

        if not isinstance(topic_groups, TopicGroups):
            topic_groups = read_groups(topic_groups)
        topic_groups.check_topics(topics)

    bar = Progress(9, "cranfield report") if progress else Progress(1, stream=_Null())
    parts: list[str] = []
    with bar:
        matrices = {m: _matrix(table[m], names, topics) for m in measure_names if m in table}
        numeric_table = {m: table[m] for m in matrices}
        groups = top_groups(numeric_table, tests) if len(names) > 1 else None
        marks = baseline_marks(numeric_table, baselines, tests) if len(names) > 1 else None
        intervals = {m: mean_intervals(matrices[m]) for m in matrices}
        bar.step("leaderboard")

        # ---- overview: leaderboard
        parts.append('<section id="overview"><h2>Leaderboard</h2>')
        against = (
            f"the baseline <b>{_e(baseline)}</b>"
            if len(baselines) == 1
            else "each baseline (numbered: "
            + ", ".join(f"{k} = <b>{_e(b)}</b>" for k, b in enumerate(baselines, 1))
            + "; one correction over all the compared pairs)"
        )
        group_note = (
            f"&#9650; / &#9660; mark the runs significantly above / below {against} "
            f"({_e(tests[0])} test on the queries all runs have, "
            f"Holm correction, &alpha; = 0.05; as in the comparison with the baselines below)"
            if marks is not None
            else "significance marks need SciPy (pip install 'cranfield[stats]')"
            if len(names) > 1
            else "one run: nothing to compare it with"
        )
        parts.append(
            f'<p class="note">Mean over queries; the best value of each measure in bold; '
            f"{group_note}. Hover a value for its 95% confidence interval (t interval); "
            f"click a column header (or press Enter on it) to sort. "
            f"{'Baseline' if len(baselines) == 1 else 'Baselines'}: "
            f"{', '.join(f'<b>{_e(b)}</b>' for b in baselines)}.</p>"
        )
        parts.append(_leaderboard(results, numeric, marks, intervals, baselines))
        parts.append("</section>")

        # ---- per measure
        parts.append('<section id="measures"><h2>Per measure</h2>')
        parts.append(
            '<p class="note needs-script" hidden><label for="measure-select">Measure: </label>'
            '<select id="measure-select">'
            + "".join(f'<option value="{i}">{_e(m)}</option>' for i, m in enumerate(measure_names))
            + "</select> (also used by the detail view below)</p>"
        )
        for i, m in enumerate(measure_names):
            mat = matrices.get(m)
            if mat is None:
                continue
            mean = np.array([float(r.aggregates[numeric[i]]) for r in results.runs])
            low, high = intervals[m]
            order = np.lexsort((np.arange(len(names)), -np.nan_to_num(mean, nan=-np.inf)))
            in_top = [groups is not None and names[k] in groups[m] for k in order]
            parts.append(f'<section class="measure" data-measure="{i}"><h3>{_e(m)}</h3>')
            rows = [
                [names[k], mean[k], low[k], high[k], "yes" if in_top[j] else "no"]
                for j, k in enumerate(order)
            ]
            parts.append(
                _fig(
                    f"fig-means-{i}",
                    svg.interval_rows(
                        f"svg-means-{i}",
                        [names[k] for k in order],
                        mean[order],
                        low[order],
                        high[order],
                        axis_title=f"mean {m} over queries",
                        highlight=in_top,
                        label=f"{m}: mean of each run with its confidence interval",
                    ),
                    f"{_e(m)}: mean over queries of each run, best first, with its 95% "
                    "confidence interval (t interval); in colour the runs not significantly "
                    "different from the best.",
                    _table(
                        f"table-means-{i}",
                        ["run", f"mean {m}", "95% CI low", "95% CI high", "top group"],
                        rows,
                    ),
                )
            )
            with np.errstate(all="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    worst = np.nanmin(mat, axis=0) if len(names) else np.zeros(0)
                    med = nan_medians(mat) if len(names) else np.zeros(0)
                    best = np.nanmax(mat, axis=0) if len(names) else np.zeros(0)
            base = mat[b_index]
            parts.append(
                _fig(
                    f"fig-topics-{i}",
                    svg.topic_summary(
                        f"svg-topics-{i}",
                        topics,
                        worst,
                        med,
                        best,
                        base,
                        measure=m,
                        baseline_name=baseline,
                        label=f"{m} per topic: worst, median and best run, and the baseline",
                    ),
                    f"{_e(m)} per topic (topic ids on the horizontal axis): the range from the "
                    "worst to the best run, the median run, and the baseline "
                    f"<b>{_e(baseline)}</b> (the per-topic summary TREC gives participants).",
                    _table(
                        f"table-topics-{i}",
                        ["topic", "worst", "median", "best", baseline],
                        [[q, worst[j], med[j], best[j], base[j]] for j, q in enumerate(topics)],
                    ),
                )
            )
            parts.append(
                _fig(
                    f"fig-heatmap-{i}",
                    svg.heatmap(
                        f"svg-heatmap-{i}",
                        [names[k] for k in order],
                        topics,
                        mat[order],
                        measure=m,
                        label=f"{m} of every run on every topic",
                    ),
                    f"{_e(m)} of every run (rows, best mean first) on every topic (columns), "
                    "darker is higher; grey where a run has no result for the topic.",
                    _table(
                        f"table-heatmap-{i}",
                        ["run", *topics],
                        [[names[k], *mat[k].tolist()] for k in order],
                    ),
                )
            )
            parts.append("</section>")
        parts.append("</section>")
        bar.step("coverage")

        # ---- what the figures draw of each run, one run at a time
        recall = np.asarray(curves.ELEVEN_POINTS, dtype=float)
        cov, pr, depth, prq = {}, [], {}, {}
        for run in run_list:
            cov |= _data.coverage_data(qrels, [run], depths, **eval_opts)
            pr.append(
                curves.average_interpolated(
                    qrels, run, recall, rel_level=rel_level, skip_no_relevant=skip,
                    convention=convention,
                )["precision"]
            )  # fmt: skip
            one = _data.depth_data(
                qrels, [run], depth_measures, ks=_data.depth_cutoffs(max_depth), **eval_opts
            )
            for m, entry in one.items():
                depth.setdefault(m, {}).update(entry)
            if query is not None:
                prq |= _data.pr_data(qrels, [run], query=str(query), rel_level=rel_level)
            del run

        # ---- coverage
        parts.append('<section id="coverage-section"><h2>Assessment coverage</h2>')
        parts.append(
            '<p class="note">Mean Judged@k: the fraction of each run\'s top k that has a '
            "judgment. With sparse judgments unjudged documents count as not relevant "
            "(Buckley &amp; Voorhees 2004).</p>"
        )
        cov_header = ["run"] + [f"Judged@{int(k)}" for k in depths]
        cov_rows = [[name] + list(map(float, c["judged"])) for name, c in cov.items()]
        full_rows = [[name] + list(map(float, c["complete"])) for name, c in cov.items()]
        shown_depths = cov_header[1 : 1 + len(svg.SERIES)]
        parts.append(
            _fig(
                "fig-coverage",
                svg.marker_rows(
                    "svg-coverage",
                    list(cov),
                    np.array([c["judged"] for c in cov.values()]),
                    shown_depths,
                    axis_title="mean Judged@k (fraction of the top k judged)",
                    label="judged coverage of each run at several depths",
                ),
                "Mean Judged@k of each run (one row per run, one marker per depth k"
                + (
                    f"; the first {len(shown_depths)} depths drawn, all in the tables"
                    if len(shown_depths) < len(depths)
                    else ""
                )
                + "). Below it, the fraction of queries whose top k is fully judged.",
                _table("coverage", cov_header, cov_rows)
                + _table(
                    "coverage-complete", ["run (fully judged queries)"] + cov_header[1:], full_rows
                ),
            )
        )
        parts.append(_qrels_density(qrels, rel_level))
        parts.append("</section>")
        bar.step("precision-recall")

        # ---- detail data
        bar.step("depth")
        bar.step("detail")
        query_data = None
        if query is not None:
            xs, ys = [], []
            for name in names:
                x, y = prq[name]["interp_recall"], prq[name]["interp_precision"]
                # steps-pre vertices: y[j] holds on (x[j-1], x[j]]
                px = np.repeat(x, 2)[1:-1] if len(x) else x
                py = np.repeat(y[1:], 2) if len(y) else y
                xs.append(_rounded(px))
                ys.append(_rounded(py))
            query_data = {"id": str(query), "x": xs, "y": ys}
        payload = {
            "digits": DIGITS,
            "runs": list(names),
            "topics": topics,
            "measures": measure_names,
            "baseline": b_index,
            "scores": [_rounded(matrices[m]) for m in measure_names],
            "means": [_rounded([float(r.aggregates[m]) for r in results.runs]) for m in numeric],
            "recall": _rounded(recall, 2),
            "pr": [_rounded(p) for p in pr],
            "depth": {
                "k": depth[next(iter(depth))]["k"].tolist(),
                "measures": list(depth),
                "values": [[_rounded(depth[dm][n]) for n in names] for dm in depth],
            },
            "query": query_data,
        }
        parts.append(_detail_section(names, baseline, depth, interpolation, query))
        parts.append(
            '<script type="application/json" id="report-data">'
            + _json_for_html(payload)
            + "</script>"
        )
        bar.step("comparison")

        parts.append(
            '<section id="significance"><h2>Comparison with the baseline'
            + ("s" if len(baselines) > 1 else "")
            + "</h2>"
        )
        parts.append('<div id="comparison">')
        parts.append(comparison_html(numeric_table, baselines, tests))
        parts.append("</div></section>")

        if systems:
            parts.append(_seeds_section(results, numeric_table, systems, baselines, tests))
        if topic_groups is not None:
            parts.append(
                _groups_section(
                    results,
                    topic_groups,
                    numeric,
                    numeric_table,
                    matrices,
                    topics,
                    baselines,
                    tests,
                    systems,
                )
            )

        parts.append(_trust_section(matrices))
        bar.step("trust")

        parts.append('<section id="provenance"><h2>Provenance</h2>')
        if command:
            parts.append(f'<pre id="command">{_e(command)}</pre>')
        opts = {k: results.options.get(k) for k in sorted(results.options)}
        parts.append(
            '<p class="note" id="options">Options: '
            + ", ".join(f"{_e(k)}={_e(v)}" for k, v in opts.items())
            + "</p>"
        )
        if provenance is not None:
            if provenance.get("collection"):
                parts.append(
                    f'<p class="note" id="collection">Collection: '
                    f"<b>{_e(provenance['collection'])}</b> (ir_datasets id)</p>"
                )
            rows = [
                [f.get("path", f.get("source", "")), str(f.get("bytes", "")), f.get("sha256", "")]
                for f in provenance["inputs"]
            ]
            parts.append(_table("input-files", ["input", "bytes", "SHA-256"], rows))
        parts.append(_table("versions", ["package", "version"], sorted(versions().items())))
        parts.append("</section>")
        bar.step("done")

    head = page_head(title) + (
        f'<p class="note" id="inputs">{len(names)} run(s): {_e(", ".join(names))}; '
        f"{len(qrels.query_ids())} qrels topics; measures: "
        f"{_e(', '.join(str(m) for m in results.measures))}.</p>"
        '<nav class="note">Sections: <a href="#overview">leaderboard</a> &middot; '
        '<a href="#measures">per measure</a> &middot; <a href="#coverage-section">coverage</a>'
        ' &middot; <a href="#detail">one run in detail</a> &middot; '
        '<a href="#significance">comparison with the baseline</a> &middot; '
        + ('<a href="#seeds">systems over seeds</a> &middot; ' if systems else "")
        + ('<a href="#topic-groups">per topic group</a> &middot; ' if topic_groups else "")
        + '<a href="#trust">how far to trust it</a> &middot; '
        '<a href="#provenance">provenance</a></nav>'
    )
    return head + "\n".join(parts) + f"\n<script>{SCRIPT}</script>\n</body></html>\n"


def _trust_section(matrices: dict) -> str:
    """Discriminative power, swap rates and variance shares of each measure on these
    runs (docs/meta-evaluation.md), on the topics every run has."""
    from ..meta.summary import trust
    from . import svg_plots
    from .chart import Line, Panel, render

    out = ['<section id="trust"><h2>How far the evaluation can be trusted</h2>']
    found = trust(matrices)
    if not found:
        out.append(
            '<p class="note">Not computed: it needs at least two runs and two topics every '
            "run has.</p></section>"
        )
        return "".join(out)
    out.append(
        '<p class="note">On the topics every run has. Discriminative power: the share of '
        "the pairs of runs whose difference is significant at &alpha; = 0.05 under the paired "
        "bootstrap test (Sakai 2006) and the randomised Tukey HSD (Sakai 2012), 1,000 "
        "resamples, seed 0. Swap rate: how often the order of a pair on half the topics "
        "is reversed on the other half (Voorhees &amp; Buckley 2002), 100 splits. "
        "System and topic shares: &eta;&sup2; of the two-way ANOVA. Difference required: "
        "the difference of means from which the bootstrap test finds any pair of these runs "
        "significant at &alpha; (the largest over the pairs; Sakai 2006). "
        "<code>cranfield meta</code> gives them with every option.</p>"
    )
    rows = []
    for m, e in found.items():
        swaps = sum(b["swaps"] for b in e["swap"]["bins"])
        cases = sum(b["cases"] for b in e["swap"]["bins"])
        rows.append(
            [
                m,
                e["topics"],
                e["pairs"],
                e["bootstrap"]["share"],
                e["tukey"]["share"],
                e["swap"]["size"],
                swaps / cases if cases else float("nan"),
                e["system_share"],
                e["topic_share"],
                e["bootstrap"]["difference_required"],
            ]
        )
    out.append(
        _table(
            "table-trust",
            [
                "measure",
                "topics",
                "pairs",
                "bootstrap share",
                "Tukey HSD share",
                "swap set size",
                "swap rate",
                "system share",
                "topic share",
                "difference required",
            ],
            rows,
        )
    )
    out.append(
        _fig(
            "fig-asl",
            svg_plots.asl_svg(found, fig_id="svg-asl", standalone=False),
            "ASL curves (Sakai 2006): the achieved significance level of every pair of runs "
            "under the paired bootstrap test, sorted; the dashed line is &alpha; = 0.05. "
            "A measure whose curve stays low longer tells more pairs apart.",
            _table(
                "table-asl",
                ["measure", "pairs", "significant", "share"],
                [
                    [m, e["pairs"], e["bootstrap"]["significant"], e["bootstrap"]["share"]]
                    for m, e in found.items()
                ],
            ),
        )
    )
    swap = Panel(
        x_title="difference of means on one half",
        y_title="swap rate",
        lines=[
            Line(*svg_plots.swap_series(e["swap"]["bins"]), svg_plots.color(i), m, marker=True)
            for i, (m, e) in enumerate(found.items())
        ],
        y_range=svg_plots.UNIT,
    )
    out.append(
        _fig(
            "fig-swap",
            render(
                [swap],
                height=300,
                fig_id="svg-swap",
                label="swap rate by difference, one per measure",
            ),
            "Swap rate by the size of the difference (Voorhees &amp; Buckley 2002): how "
            "often a difference of that size between two runs on one set of topics is "
            "reversed on another, disjoint set of the same size.",
            _table(
                "table-swap",
                ["measure", "set size", "difference from", "to", "cases", "swaps", "swap rate"],
                [
                    [
                        m,
                        e["swap"]["size"],
                        b["low"],
                        b["high"],
                        b["cases"],
                        b["swaps"],
                        b["swap_rate"],
                    ]
                    for m, e in found.items()
                    for b in e["swap"]["bins"]
                ],
            ),
        )
    )
    out.append("</section>")
    return "".join(out)


def _json_for_html(obj) -> str:
    """Compact JSON safe inside a ``<script>`` element (``<``, ``>``, ``&`` escaped)."""
    import json

    from ..output import json_safe

    # as output.dumps_json (undefined values -> null), without spaces between items
    text = json.dumps(json_safe(obj), separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _detail_section(names, baseline, depth, interpolation, query) -> str:
    """The detail view: a run selector and the figures the script draws for it."""
    options = "".join(f'<option value="{i}">{_e(n)}</option>' for i, n in enumerate(names))
    default = next((i for i, n in enumerate(names) if n != baseline), 0)
    options = options.replace(
        f'<option value="{default}">', f'<option value="{default}" selected>', 1
    )

    def panel(fig_id, table_id, caption):
        return (
            f'<figure id="{fig_id}"><svg id="{fig_id}-svg" class="chart" role="img" '
            f'aria-label="{_e(caption)}" viewBox="0 0 760 300" width="100%" '
            f'xmlns="http://www.w3.org/2000/svg"></svg>'
            f"<figcaption>{_e(caption)}</figcaption>"
            f'<details><summary>Data table</summary><table id="{table_id}"></table></details>'
            "</figure>"
        )

    out = [
        '<section id="detail"><h2>One run in detail: <span id="detail-name"></span></h2>',
        '<p class="note needs-script" hidden><label for="run-select">Run: </label>'
        f'<select id="run-select">{options}</select> compared with the best and the median '
        'run of the measure chosen above (<span class="measure-name"></span>) and the '
        f"baseline <b>{_e(baseline)}</b>.</p>",
        '<noscript><p class="note">The detail view is drawn by a script; its data are in '
        "the tables above.</p></noscript>",
    ]
    out.append(
        panel(
            "fig-detail-pr",
            "table-detail-pr",
            "Mean interpolated precision at the 11 standard recall levels of the selected "
            f"run, the best and the median run and the baseline ({interpolation}).",
        )
    )
    for t, dm in enumerate(depth):
        out.append(
            panel(
                f"fig-detail-depth-{t}",
                f"table-detail-depth-{t}",
                f"Mean {dm}@k for k = 1..{int(depth[dm]['k'][-1])} of the selected run, the "
                "best and the median run and the baseline (every k to 10, then every 5th "
                "to 50, every 10th to 100).",
            )
        )
    out.append(
        panel(
            "fig-detail-delta",
            "table-detail-delta",
            "Per-topic difference of the selected run to the baseline on the chosen measure "
            "(topic ids on the horizontal axis, sorted by difference; blue: better than the "
            "baseline).",
        )
    )
    out.append(
        panel(
            "fig-detail-dist",
            "table-detail-dist",
            "Distribution of the chosen measure over topics: share of the topics in each of "
            "10 equal bins, the selected run against all runs together.",
        )
    )
    if query is not None:
        out.append(
            panel(
                "fig-detail-query",
                "table-detail-query",
                f"Query {query}: interpolated precision-recall step curve of the selected "
                f"run, the best and the median run and the baseline "
                f"({curves.CONVENTIONS['textbook']}).",
            )
        )
    out.append("</section>")
    return "".join(out)


def write_report(path: str | Path, qrels, runs, measures=DEFAULT_MEASURES, **kw) -> Path:
    """Write :func:`build_report` to ``path`` (UTF-8); returns the path."""
    path = Path(path)
    text = build_report(qrels, runs, measures, **kw)
    from ..core.io.atomic import write_text

    write_text(path, text, newline="\n")
    return path


class _Null:
    def write(self, _):  # pragma: no cover - never called: not a TTY
        pass

    def flush(self):  # pragma: no cover
        pass

    def isatty(self) -> bool:
        return False


def nan_medians(mat: np.ndarray) -> np.ndarray:
    """The median of each column of ``mat`` over its values that are not NaN (NaN for a
    column of NaNs): ``numpy.nanmedian(mat, axis=0)`` bit for bit, without the
    ``numpy.ma`` it imports for columns of fewer than 600 values (16 ms of a two-run
    report's start; a report's columns hold one value per run).

    Each column sorted (NaN last); with ``n`` values, the mean of the values at ranks
    ``(n - 1) // 2`` and ``n // 2``, ``(a + b) / 2`` (for odd ``n`` the middle value),
    plus ``0.0``: NumPy's masked median adds the masked cells' zeros, which turns a
    median of ``-0.0`` into ``0.0``. From 600 values on, NumPy's own.
    """
    mat = np.asarray(mat, dtype=np.float64)
    if mat.ndim != 2 or mat.shape[0] >= 600:
        return np.nanmedian(mat, axis=0)
    out = np.full(mat.shape[1], np.nan)
    counts = (~np.isnan(mat)).sum(axis=0)
    cols = np.flatnonzero(counts)
    if len(cols):
        ordered = np.sort(mat[:, cols], axis=0)
        n, at = counts[cols], np.arange(len(cols))
        out[cols] = (ordered[(n - 1) // 2, at] + ordered[n // 2, at]) / 2 + 0.0
    return out
