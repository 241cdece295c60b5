// The judging page: one key per label, p/n (or the arrow keys) for previous/next, u and
// b toggle "unsure" and "broken document", s sets the pair aside ("come back later").
// A label is saved through the JSON API with the session's CSRF token and an
// Idempotency-Key (a retry of the same choice is recorded once); without JavaScript the
// label buttons post the same form.
(function () {
  "use strict";
  var judge = document.getElementById("judge");
  var form = document.getElementById("labels");
  if (!judge || !form) { return; }
  var campaign = judge.getAttribute("data-campaign");
  var pair = judge.getAttribute("data-pair");
  var nonce = judge.getAttribute("data-nonce");
  var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  var started = Date.now();
  var busy = false;
  var base = "/c/" + encodeURIComponent(campaign) + "/judge";

  // the notes are part of the request: a changed comment or flag is another request
  function notesKey() {
    var text = document.getElementById("comment").value;
    var hash = 0;
    for (var i = 0; i < text.length; i++) { hash = (hash * 31 + text.charCodeAt(i)) | 0; }
    return (document.getElementById("flag-unsure").checked ? "u" : "") +
      (document.getElementById("flag-broken").checked ? "b" : "") + (hash >>> 0).toString(36);
  }

  function save(button) {
    if (busy) { return; }
    busy = true;
    button.classList.add("saving");
    var label = parseInt(button.value, 10);
    fetch("/api/campaigns/" + encodeURIComponent(campaign) + "/judgments/" + pair, {
      method: "PUT",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "X-CSRF-Token": csrf,
        "Idempotency-Key": pair + "-" + label + "-" + nonce + "-" + notesKey()
      },
      body: JSON.stringify({
        label: label,
        seconds: (Date.now() - started) / 1000,
        comment: document.getElementById("comment").value,
        unsure: document.getElementById("flag-unsure").checked,
        broken: document.getElementById("flag-broken").checked
      })
    }).then(function (response) {
      if (response.status === 200 || response.status === 201) {
        window.location.assign(base);
      } else {
        return response.json().then(function (body) { throw new Error(body.error || response.status); });
      }
    }).catch(function (err) {
      busy = false;
      button.classList.remove("saving");
      window.alert("Not saved: " + err.message);
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var button = event.submitter || document.activeElement;
    if (button && button.name === "label") { save(button); }
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey) { return; }
    var tag = (event.target && event.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") { return; }
    var key = event.key;
    var button = form.querySelector('button[data-key="' + (key.length === 1 ? key : "") + '"]');
    if (button) { event.preventDefault(); save(button); return; }
    if (key === "u" || key === "b") {
      event.preventDefault();
      var box = document.getElementById(key === "u" ? "flag-unsure" : "flag-broken");
      box.checked = !box.checked;
      return;
    }
    if (key === "s" && document.getElementById("skip")) {
      event.preventDefault();
      document.getElementById("skip").submit();
      return;
    }
    var link = null;
    if (key === "p" || key === "ArrowLeft") { link = document.getElementById("previous"); }
    if (key === "n" || key === "ArrowRight") { link = document.getElementById("next"); }
    if (link) { event.preventDefault(); window.location.assign(link.getAttribute("href")); }
  });
}());
