"""``rec eval``'s HTML report: the measures, the notes and the popularity-bias plot.

One self-contained page in the style of ``cranfield report`` (inline SVG, no
matplotlib, nothing fetched; the bytes depend only on the inputs). The plot is each
evaluated user's mean recommended item popularity against their profile's, the share
of training users who have each item (Abdollahpouri, Burke & Mobasher 2019, "The
unfairness of popularity bias in recommendation"): points above the diagonal are
users pushed towards more popular items than they consume.
"""

from __future__ import annotations

import html

import numpy as np

#: the most users drawn in the plot (beyond, an evenly spaced subset of them)
MAX_POINTS = 4000


def html_report(
    run: str,
    values: dict[str, float],
    notes: list[str],
    popularity: dict | None = None,
    k: int = 10,
) -> str:
    """The page for run ``run``: ``values`` (measure -> value, as
    ``RecEvaluation.table()``), ``notes``, and the plot of ``popularity``
    (:func:`cranfield.rec.evaluate.popularity_bias` at cutoff ``k``; None: no training
    interactions, no plot)."""
    from ..report.html import figure_html, page_head, table_html, versions
    from ..report.svg import scatter

    e = html.escape
    parts = [page_head(f"Recommendations: {run}")]
    parts.append(
        '<section id="measures"><h2>Measures</h2>'
        + table_html("rec-measures", ["run", *values], [[run, *values.values()]])
        + "</section>"
    )
    if notes:
        items = "".join(f"<li>{e(n)}</li>" for n in notes)
        parts.append(f'<section id="notes"><h2>Notes</h2><ul class="note">{items}</ul></section>')
    parts.append('<section id="popularity-bias"><h2>Popularity bias</h2>')
    if popularity is None:
        parts.append(
            '<p class="note">No plot: the profiles need the training interactions '
            "(--split or --train).</p>"
        )
    else:
        x, y = np.asarray(popularity["profile"]), np.asarray(popularity["recommended"])
        users = np.asarray(popularity["users"], dtype=object)
        total, above = len(x), int(np.count_nonzero(y > x))
        if total > MAX_POINTS:  # the plot and its table show an evenly spaced subset
            keep = np.linspace(0, total - 1, MAX_POINTS).round().astype(np.int64)
            x, y, users = x[keep], y[keep], users[keep]
        svg = scatter(
            "popularity-bias-plot",
            x,
            y,
            x_title="profile popularity (mean share of users, training items)",
            y_title=f"recommended popularity (top {k})",
            diagonal=True,
            max_points=MAX_POINTS,
            label="recommended against profile popularity of each user",
        )
        caption = (
            f"Each user's mean recommended popularity (top {k}) against their profile's; "
            f"{above} of {total} users lie above the diagonal (recommended more popular "
            "than what they consume)."
        )
        if total > MAX_POINTS:
            caption += f" {MAX_POINTS} of the {total} users are drawn, evenly spaced."
        rows = [[str(u), float(a), float(b)] for u, a, b in zip(users, x, y, strict=True)]
        data = table_html("popularity-bias-data", ["user", "profile", "recommended"], rows)
        parts.append(figure_html("popularity-bias", svg, caption, data))
    parts.append("</section>")
    parts.append(
        '<section id="provenance"><h2>Provenance</h2>'
        + table_html("versions", ["package", "version"], sorted(versions().items()))
        + "</section>"
    )
    return "\n".join(parts) + "\n</body></html>\n"
