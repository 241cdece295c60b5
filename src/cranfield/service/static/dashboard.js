// The coordinator's dashboard: the judgment count and the agreement are refreshed
// every 15 seconds from the JSON API, so they follow the assessors' work live.
(function () {
  "use strict";
  var script = document.currentScript;
  var campaign = script && script.getAttribute("data-campaign");
  var count = document.getElementById("live-judgments");
  if (!campaign || !count) { return; }
  function format(v) {
    if (v === null || v === undefined) return "–";
    var n = Number(v);
    return Number.isInteger(n) ? String(n) : n.toFixed(4);  // counts stay counts
  }
  function refresh() {
    fetch("/api/campaigns/" + encodeURIComponent(campaign) + "/dashboard", { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) {
        if (!d) { return; }
        count.textContent = String(d.judgments);
        if (d.agreement) {
          Object.keys(d.agreement).forEach(function (k) {
            var cell = document.querySelector('[data-stat="' + k + '"]');
            if (cell) { cell.textContent = format(d.agreement[k]); }
          });
        }
      })
      .catch(function () {});
  }
  window.setInterval(refresh, 15000);
}());
