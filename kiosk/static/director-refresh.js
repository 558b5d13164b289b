/* A director's page that refreshes itself (the overview, the hall map): the element the note
 * names (data-refresh-target) is fetched again from data-source every few seconds. With an
 * ETag (data-version, then each answer's), the server answers 304 while nothing changed and
 * the part stays as it is.
 *
 * If the server cannot be reached, or the director's session has ended, the note says so (in
 * the page's language: data-unreachable, data-signed-out) and the last state stays, marked with
 * its time, instead of going blank.
 */
(function () {
  "use strict";

  var note = document.querySelector("[data-refresh-target]");
  var part = note && document.getElementById(note.dataset.refreshTarget);
  if (!part) { return; }
  var seconds = Number(note.dataset.refreshSeconds) || 20;
  var source = note.dataset.source;
  var version = note.dataset.version || "";
  var usual = note.textContent;
  var signedOut = note.dataset.signedOut ||
    "Signed out: reload the page to sign in again. The figures below are old.";
  var unreachable = note.dataset.unreachable ||
    "Cannot reach the server: the figures below are from the time shown. " +
    "Trying again every " + seconds + " s.";

  function say(text, trouble) {
    note.textContent = text;
    note.classList.toggle("bad", Boolean(trouble));
  }

  function refresh() {
    var headers = version ? { "If-None-Match": '"' + version + '"' } : {};
    fetch(source, { credentials: "same-origin", cache: "no-store", redirect: "manual",
                    headers: headers })
      .then(function (response) {
        if (response.type === "opaqueredirect" || response.status === 401 ||
            response.status === 403) {
          say(signedOut, true);
          return;
        }
        if (response.status === 304) {   // nothing new: the part stays as it is
          say(usual, false);
          return;
        }
        if (!response.ok) { throw new Error(String(response.status)); }
        return response.text().then(function (html) {
          version = (response.headers.get("ETag") || "").replace(/^W\//, "").replace(/"/g, "");
          part.innerHTML = html;
          say(usual, false);
        });
      })
      .catch(function () { say(unreachable, true); });
  }

  setInterval(refresh, seconds * 1000);
})();
