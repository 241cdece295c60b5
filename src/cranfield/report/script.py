"""The inline script of the HTML report: the run/measure selectors, the detail
figures drawn from the embedded JSON data, and the sortable leaderboard.

No library, no network: plain JavaScript (ES2017) writing SVG markup.
"""

SCRIPT = r"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("report-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const W = 760, COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7"];
  const fmt = (v) => (v === null || v === undefined ? "undefined" : v.toFixed(D.digits));
  const esc = (t) => String(t).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  const short = (t, n) => (String(t).length <= n ? String(t) : String(t).slice(0, n - 1) + "\u2026");
  const $ = (id) => document.getElementById(id);

  function svg(el, height, body) {
    el.setAttribute("viewBox", "0 0 " + W + " " + height);
    el.innerHTML = body;
  }
  function ticks(lo, hi) {
    const raw = (hi - lo) / 5, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const out = [];
    for (let t = Math.ceil(lo / step - 1e-9) * step; t <= hi + 1e-9; t += step) out.push(+t.toFixed(10));
    return out;
  }
  function domain(values) {
    const v = values.filter((x) => x !== null && isFinite(x));
    return [Math.min(0, ...v), Math.max(1, ...v)];
  }
  function axes(x0, x1, y0, y1, xd, yd, xTitle, yTitle, xTicks) {
    let s = "";
    const X = (v) => x0 + (v - xd[0]) / (xd[1] - xd[0]) * (x1 - x0);
    const Y = (v) => y1 - (v - yd[0]) / (yd[1] - yd[0]) * (y1 - y0);
    for (const t of ticks(yd[0], yd[1])) {
      s += `<line class="grid" x1="${x0}" x2="${x1}" y1="${Y(t).toFixed(1)}" y2="${Y(t).toFixed(1)}"/>`;
      s += `<text x="${x0 - 6}" y="${(Y(t) + 4).toFixed(1)}" text-anchor="end">${t}</text>`;
    }
    if (xTicks !== false) {
      for (const t of ticks(xd[0], xd[1])) {
        s += `<text x="${X(t).toFixed(1)}" y="${y1 + 14}" text-anchor="middle">${t}</text>`;
      }
    }
    s += `<line class="axis" x1="${x0}" x2="${x1}" y1="${y1}" y2="${y1}"/>`;
    s += `<line class="axis" x1="${x0}" x2="${x0}" y1="${y0}" y2="${y1}"/>`;
    s += `<text class="title" x="${(x0 + x1) / 2}" y="${y1 + (xTicks === false ? 80 : 32)}" text-anchor="middle">${esc(short(xTitle, 80))}</text>`;
    s += `<text class="title" transform="translate(14,${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle"><title>${esc(yTitle)}</title>${esc(short(yTitle, 34))}</text>`;
    return [s, X, Y];
  }
  // series: [{name, x: [], y: [], colour}]
  function lines(el, series, xTitle, yTitle) {
    const x0 = 60, x1 = W - 190, y0 = 10, y1 = 250;
    const xd = domain(series.flatMap((s) => s.x)), yd = domain(series.flatMap((s) => s.y));
    let [s, X, Y] = axes(x0, x1, y0, y1, xd, yd, xTitle, yTitle);
    series.forEach((ser, k) => {
      const pts = ser.x.map((x, i) => [x, ser.y[i]]).filter((p) => p[1] !== null);
      const d = pts.map((p) => X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1)).join(" ");
      s += `<polyline fill="none" stroke="${ser.colour}" stroke-width="${k ? 1.5 : 2.5}" ${k ? 'stroke-dasharray="5 3"' : ""} points="${d}"/>`;
      // legend: the run's role, then its name (shortened; whole in the tooltip)
      const ly = y0 + 10 + 32 * k;
      s += `<line x1="${x1 + 12}" x2="${x1 + 34}" y1="${ly}" y2="${ly}" stroke="${ser.colour}" stroke-width="2.5" ${k ? 'stroke-dasharray="5 3"' : ""}/>`;
      s += `<text x="${x1 + 38}" y="${ly + 4}">${esc(short(ser.role || "", 22))}</text>`;
      s += `<text x="${x1 + 38}" y="${ly + 18}"><title>${esc(ser.run || ser.name)}</title>${esc(short(ser.run || ser.name, 22))}</text>`;
    });
    svg(el, y1 + 42, s);
  }
  function table(el, header, rows) {
    let h = "<thead><tr>" + header.map((c) => "<th>" + esc(c) + "</th>").join("") + "</tr></thead><tbody>";
    for (const r of rows) {
      h += "<tr>" + r.map((c, j) => (typeof c === "number" || c === null
        ? `<td class="num">${fmt(c)}</td>` : (j ? "<td>" : "<th scope=\"row\">") + esc(c) + (j ? "</td>" : "</th>"))).join("") + "</tr>";
    }
    el.innerHTML = h + "</tbody>";
  }
  function order(values) {  // run indices by mean, best first (ties: input order)
    return values.map((v, i) => i).sort((a, b) => ((values[b] ?? -Infinity) - (values[a] ?? -Infinity)) || a - b);
  }
  function references(m) {
    const o = order(D.means[m]);
    return {best: o[0], median: o[Math.floor((o.length - 1) / 2)]};
  }

  function drawDetail() {
    const run = +$("run-select").value, m = +$("measure-select").value;
    const ref = references(m), base = D.baseline, name = D.runs[run];
    const picked = [[run, "selected"], [ref.best, "best"], [ref.median, "median"], [base, "baseline"]];
    const seen = new Set(), shown = [];
    for (const [i, role] of picked) {
      if (!seen.has(i)) { seen.add(i); shown.push([i, role]); }
      else shown.find((p) => p[0] === i)[1] += ", " + role;
    }
    const label = (i, role) => D.runs[i] + " (" + role + ")";
    $("detail-name").textContent = name;
    // precision-recall
    lines($("fig-detail-pr-svg"), shown.map(([i, role], k) => ({name: label(i, role), run: D.runs[i], role, x: D.recall, y: D.pr[i], colour: COLOURS[k]})),
      "recall", "interpolated precision");
    table($("table-detail-pr"), ["recall", ...shown.map(([i, role]) => label(i, role))],
      D.recall.map((r, j) => [r.toFixed(1), ...shown.map(([i]) => D.pr[i][j])]));
    // depth
    D.depth.measures.forEach((dm, t) => {
      lines($("fig-detail-depth-" + t + "-svg"), shown.map(([i, role], k) => ({name: label(i, role), run: D.runs[i], role, x: D.depth.k, y: D.depth.values[t][i], colour: COLOURS[k]})),
        "rank cutoff k (documents)", "mean " + dm + "@k");
      table($("table-detail-depth-" + t), ["k", ...shown.map(([i, role]) => label(i, role))],
        D.depth.k.map((k, j) => [String(k), ...shown.map(([i]) => D.depth.values[t][i][j])]));
    });
    // per-topic differences against the baseline
    const sc = D.scores[m], mname = D.measures[m];
    const diffs = [];
    D.topics.forEach((q, j) => {
      const a = sc[run][j], b = sc[base][j];
      if (a !== null && b !== null) diffs.push([q, +(a - b).toFixed(D.digits), a, b]);
    });
    diffs.sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0));
    {
      const x0 = 60, x1 = W - 20, y0 = 10, y1 = 230, n = Math.max(diffs.length, 1);
      const ds = diffs.map((d) => d[1]);
      let lo = Math.min(0, ...ds), hi = Math.max(0, ...ds);
      if (hi - lo < 1e-9) hi = lo + 0.1;
      const dom = [lo, hi];
      let [s, , Y] = axes(x0, x1, y0, y1, [0, n], dom, "topic", mname + " difference to " + short(D.runs[base], 30), false);
      const cw = (x1 - x0) / n, bw = Math.max(Math.min(cw * 0.8, 14), 1);
      let up = "", down = "";
      diffs.forEach((d, j) => {
        const x = x0 + (j + 0.5) * cw, y = Y(d[1]), z = Y(0);
        const rect = `M${(x - bw / 2).toFixed(1)} ${Math.min(y, z).toFixed(1)}h${bw.toFixed(1)}v${Math.max(Math.abs(z - y), 0.5).toFixed(1)}h-${bw.toFixed(1)}z`;
        if (d[1] >= 0) up += rect; else down += rect;
        if (n <= 120 || j % Math.ceil(n / 120) === 0) {
          s += `<text class="topic" transform="translate(${(x + 3).toFixed(1)},${y1 + 4}) rotate(-90)" text-anchor="end"><title>${esc(d[0])}</title>${esc(short(d[0], 10))}</text>`;
        }
      });
      s += `<path fill="${COLOURS[0]}" d="${up}"/><path fill="${COLOURS[1]}" d="${down}"/>`;
      s += `<line class="axis" x1="${x0}" x2="${x1}" y1="${Y(0).toFixed(1)}" y2="${Y(0).toFixed(1)}"/>`;
      svg($("fig-detail-delta-svg"), y1 + 90, s);
    }
    table($("table-detail-delta"), ["topic", "difference", name, D.runs[base]], diffs);
    // distribution: share of topics per value bin, the run against all runs
    {
      const all = sc.flat().filter((v) => v !== null), mine = sc[run].filter((v) => v !== null);
      const dom = domain(all), bins = 10, width = (dom[1] - dom[0]) / bins;
      const count = (vals) => {
        const c = new Array(bins).fill(0);
        for (const v of vals) c[Math.min(bins - 1, Math.max(0, Math.floor((v - dom[0]) / width)))] += 1;
        return c.map((x) => (vals.length ? x / vals.length : 0));
      };
      const cm = count(mine), ca = count(all);
      const x0 = 60, x1 = W - 190, y0 = 10, y1 = 250;
      let [s, X, Y] = axes(x0, x1, y0, y1, dom, [0, Math.max(...cm, ...ca, 0.1) * 1.05], mname + " per topic", "share of topics");
      const bw = (X(width) - X(0)) / 2 - 1;
      for (let b = 0; b < bins; b++) {
        const xa = X(dom[0] + b * width) + 1;
        s += `<rect x="${xa.toFixed(1)}" y="${Y(ca[b]).toFixed(1)}" width="${bw.toFixed(1)}" height="${(y1 - Y(ca[b])).toFixed(1)}" fill="#bdbdbd"/>`;
        s += `<rect x="${(xa + bw).toFixed(1)}" y="${Y(cm[b]).toFixed(1)}" width="${bw.toFixed(1)}" height="${(y1 - Y(cm[b])).toFixed(1)}" fill="${COLOURS[0]}"/>`;
      }
      s += `<rect x="${x1 + 12}" y="${y0 + 4}" width="12" height="12" fill="${COLOURS[0]}"/><text x="${x1 + 28}" y="${y0 + 14}"><title>${esc(name)}</title>${esc(short(name, 20))}</text>`;
      s += `<rect x="${x1 + 12}" y="${y0 + 22}" width="12" height="12" fill="#bdbdbd"/><text x="${x1 + 28}" y="${y0 + 32}">all runs</text>`;
      svg($("fig-detail-dist-svg"), y1 + 42, s);
      table($("table-detail-dist"), ["bin", name, "all runs"],
        cm.map((c, b) => [(dom[0] + b * width).toFixed(2) + " to " + (dom[0] + (b + 1) * width).toFixed(2), c, ca[b]]));
    }
    // one query's curves
    if (D.query) {
      const q = D.query;
      lines($("fig-detail-query-svg"), shown.map(([i, role], k) => ({name: label(i, role), run: D.runs[i], role, x: q.x[i], y: q.y[i], colour: COLOURS[k]})),
        "recall", "interpolated precision, query " + short(q.id, 20));
      const rows = [];
      shown.forEach(([i, role]) => q.x[i].forEach((x, j) => rows.push([label(i, role), x, q.y[i][j]])));
      table($("table-detail-query"), ["run", "recall", "interpolated precision"], rows);
    }
    document.querySelectorAll(".measure-name").forEach((e) => { e.textContent = mname; });
  }

  function showMeasure() {
    const m = $("measure-select").value;
    document.querySelectorAll("section.measure").forEach((s) => { s.hidden = s.dataset.measure !== m; });
  }

  // fragment #run=NAME&measure=NAME selects a run and a measure (links, tests)
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const run = D.runs.indexOf(params.get("run")), m = D.measures.indexOf(params.get("measure"));
    if (run >= 0) $("run-select").value = String(run);
    if (m >= 0) $("measure-select").value = String(m);
  }

  // sortable leaderboard: a button in each header (keyboard: Tab, Enter/Space)
  function sortable(tableEl) {
    const buttons = tableEl.querySelectorAll("thead button");
    buttons.forEach((btn, j) => btn.addEventListener("click", () => {
      const th = btn.parentElement, desc = th.getAttribute("aria-sort") !== "descending";
      tableEl.querySelectorAll("thead th").forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      const col = +btn.dataset.col, body = tableEl.tBodies[0];
      const key = (tr) => {
        const c = tr.cells[col], v = c.dataset.value;
        return v === undefined ? c.textContent : (v === "nan" ? -Infinity : +v);
      };
      const rows = [...body.rows].map((tr, i) => [key(tr), i, tr]);
      rows.sort((a, b) => {
        const c = typeof a[0] === "number" ? a[0] - b[0] : (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
        return (desc ? -c : c) || a[1] - b[1];
      });
      rows.forEach((r) => body.appendChild(r[2]));
    }));
  }

  fromHash();
  $("run-select").addEventListener("change", drawDetail);
  $("measure-select").addEventListener("change", () => { showMeasure(); drawDetail(); });
  window.addEventListener("hashchange", () => { fromHash(); showMeasure(); drawDetail(); });
  sortable($("summary"));
  document.querySelectorAll(".needs-script").forEach((e) => { e.hidden = false; });
  showMeasure();
  drawDetail();
})();
"""
