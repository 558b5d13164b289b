/* The director's overview refreshes itself: its body is fetched again every few seconds.
 *
 * If the server cannot be reached, or the director's session has ended, the page says so
 * (and keeps the last state it had, marked with its time) instead of going blank.
 */
(function () {
  "use strict";

  var note = document.getElementById("overview-refresh");
  var body = document.getElementById("overview-body");
  if (!note || !body) { return; }
  var seconds = Number(note.dataset.refreshSeconds) || 20;
  var source = note.dataset.source;
  var usual = note.textContent;

  function say(text, trouble) {
    note.textContent = text;
    note.classList.toggle("bad", Boolean(trouble));
  }

  function refresh() {
    fetch(source, { credentials: "same-origin", cache: "no-store", redirect: "manual" })
      .then(function (response) {
        if (response.type === "opaqueredirect" || response.status === 401 ||
            response.status === 403) {
          say("Signed out: reload the page to sign in again. The figures below are old.", true);
          return;
        }
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text().then(function (html) {
          body.innerHTML = html;
          say(usual, false);
        });
      })
      .catch(function () {
        say("Cannot reach the server: the figures below are from the time shown. " +
            "Trying again every " + seconds + " s.", true);
      });
  }

  setInterval(refresh, seconds * 1000);
})();
