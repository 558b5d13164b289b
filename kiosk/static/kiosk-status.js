/* The kiosk's status bar and its poll: tournament, lexicon, rule and alphabet, the alerts
 * (server out of reach, lexicon unavailable, journal or server refusing), and the settings
 * the server gives (verdict_seconds, clear_seconds, request_timeout_seconds).
 *
 * The poll asks with the ETag of the status shown: the server answers 304 while nothing has
 * changed, holding the question open up to WAIT_SECONDS until something does (then the new
 * status comes at once), and the next poll follows. A server that answers at once is asked
 * every POLL_MS. Every status request carries the newest receipt this kiosk holds, as a
 * witness of the journal (a poll in its X-Kiosk-Witness header, which the server keeps
 * checking while it holds the poll; a request at once, after a verdict, in a POST's body).
 * The status also says which version of the table's game the server has (`table_game`):
 * kiosk-table.js asks for the game when that is not the one shown.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var S = K.state;
  var setText = K.setText;
  var Words = window.KioskWords;   // kiosk-words.js: what can be judged
  var Tiles = window.KioskTiles;   // kiosk-tiles.js: tiles drawn, the row of special tiles
  var POLL_MS = 5000;       // between polls the server answers at once, or after a failure
  var WAIT_SECONDS = 25;    // the longest the server holds a poll open (kiosk/kiosk_poll.py):
                            // it ends each between 15 and 25 s, so polls never come in step
  var alphabetKey = "";     // the alphabet the words are read in (as the status gave it)
  var pollTimer = null;
  var shownTag = "";        // the ETag of the status shown

  /* A status request now, not held: with the newest receipt as a witness, if there is one. */
  function refreshStatus() {
    var options = { headers: { Accept: "application/json" } };
    var witness = K.newestReceipt();
    if (witness) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify({ witness: witness });
    }
    return K.fetchWithTimeout("/api/v1/kiosk", options).then(answered).catch(unreachable);
  }

  /* The poll: held by the server until the status changes or WAIT_SECONDS pass. */
  function askChanged() {
    var options = { headers: { Accept: "application/json" } };
    if (shownTag) { options.headers["If-None-Match"] = shownTag; }
    var witness = K.newestReceipt();
    if (witness) { options.headers["X-Kiosk-Witness"] = base64url(JSON.stringify(witness)); }
    return K.fetchWithTimeout("/api/v1/kiosk?wait=" + WAIT_SECONDS, options,
                              WAIT_SECONDS * 1000 + S.requestTimeoutMs)
      .then(answered).catch(unreachable);
  }

  /* Text as base64url (RFC 4648 section 5, no padding): a header carries ASCII only. */
  function base64url(text) {
    var bytes = new TextEncoder().encode(text);
    var binary = "";
    bytes.forEach(function (byte) { binary += String.fromCharCode(byte); });
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function answered(response) {
    $("offline-alert").hidden = true;
    if (response.status === 304) {   // nothing changed: the status shown stands
      K.checkTable();
      return true;
    }
    if (response.status === 401) {
      // Revoked or re-paired elsewhere: show the pairing page, unless a verdict is up.
      if (K.root.dataset.state === "idle" && !S.judging) { window.location.reload(); }
      return true;
    }
    return response.json().then(function (body) {
      if (response.ok && body && body.ok) {
        shownTag = response.headers.get("ETag") || "";
        showStatus(body);
      } else {
        showServiceAlert(body && typeof body.shown_error === "string" ? body.shown_error :
                         body && typeof body.error === "string" ? body.error :
                         T("The server cannot judge just now: call the director."));
      }
      return true;
    });
  }

  /* The status request failed (the server out of reach: the offline alert), or this page did
   * while showing the server's answer: said as the page's own fault, never "out of reach". */
  function unreachable(failure) {
    if (K.failureCode(failure) === "page") {
      if (window.console) { console.error(failure); }
      $("offline-alert").hidden = true;
      showServiceAlert(T("This screen could not show the server's answer."));
      return true;
    }
    $("offline-alert").hidden = false;
    return false;
  }

  function poll() {
    clearTimeout(pollTimer);
    var started = Date.now();
    askChanged()
      .then(function (reached) {
        var wait = reached ? Math.max(0, POLL_MS - (Date.now() - started)) : POLL_MS;
        pollTimer = setTimeout(poll, wait);
      });
  }

  function showStatus(body) {
    S.status = body;
    var lexicon = body.lexicon || {};
    setText("tournament-title", body.tournament.title);
    setText("lexicon-name", lexicon.name);
    // in the kiosk's language, or nothing (the name alone) where it has no translation
    var description = typeof lexicon.shown_description === "string"
      ? lexicon.shown_description : lexicon.description;
    setText("lexicon-description", description ? "(" + description + ")" : "");
    $("lexicon-description").title = description || "";   // cut short on small screens
    setText("lexicon-words", K.formatCount(lexicon.words));
    setText("lexicon-words-unit", TN("word", "words", lexicon.words || 0));
    setText("lexicon-fingerprint", lexicon.short_fingerprint);
    setText("rule-title", body.rule.shown_title || body.rule.title);
    $("rule-title").title = body.rule.name;
    setText("kiosk-table-number", body.table || "");   // its own table, TSH or not
    $("kiosk-table").hidden = !body.table;
    $("lexicon-alert").hidden = lexicon.available !== false;
    var journal = body.journal || {};
    var closed = body.closed;   // the director closed the event: nothing more is judged
    showServiceAlert(closed ? closed.shown_message || closed.message :
                     journal.ok === false ? journal.shown_message || journal.message : "");
    showAlphabet(lexicon.alphabet);
    K.applyAccess(body.access);   // spoken verdicts, a large screen: as the director set it
    if (!S.words.every(function (w) { return w.isRead(); }) && !S.judging) {
      K.readWords().catch(function () {});   // words typed while the server was out of reach
    }
    if (body.verdict_seconds >= 1) { S.verdictSeconds = body.verdict_seconds; }
    if (body.clear_seconds >= 1) { S.clearSeconds = body.clear_seconds; }
    if (body.request_timeout_seconds >= 1) {
      S.requestTimeoutMs = body.request_timeout_seconds * 1000;
    }
    K.showGameDetails(Boolean(body.rule.needs_game), Boolean(body.asks_challenger));
    K.showFinalPlay(Boolean(body.rule.asks_final_play));
    K.checkTable();
    var language = body.tournament.language;
    if (language && language !== KioskText.language && K.root.dataset.state === "idle" &&
        !S.judging && !S.words.length) {
      window.location.reload();   // the director changed the tournament's language
    }
  }

  /* What stops judging that is not the lexicon: the journal, or the server refusing. */
  function showServiceAlert(text) {
    setText("service-alert-text", text);
    $("service-alert").hidden = !text;
  }

  /* The lexicon's alphabet: what the box reads, its special tiles, its name on the status bar. */
  function showAlphabet(alphabet) {
    if (!alphabet || typeof alphabet.reads !== "object" || !Array.isArray(alphabet.tiles)) {
      return;
    }
    var key = JSON.stringify(alphabet);
    if (key === alphabetKey) { return; }
    alphabetKey = key;
    Words.setAlphabet(alphabet);
    S.english = Words.isEnglish(alphabet);
    setText("alphabet-name", Words.shownName(alphabet));   // in the kiosk's language
    $("lexicon-alphabet").hidden = S.english;
    [K.input, $("chips"), $("verdict-words")].forEach(function (element) {
      if (alphabet.language) {   // upper case and speech in the alphabet's language
        element.lang = alphabet.language;
      } else {
        element.removeAttribute("lang");
      }
    });
    Tiles.buildRow($("tile-row"), S.english ? [] : alphabet.special_tiles);
    $("tile-help").hidden = $("tile-row").hidden;
    // French: no special tiles, but accents typed are read as the plain tiles, shown as tiles.
    $("fold-help").hidden = S.english || !$("tile-row").hidden ||
      !Object.keys(alphabet.fold || {}).length;
    K.retypeWords();
  }

  function startPolling() {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, POLL_MS);
  }

  K.expose(refreshStatus, startPolling);
})(window.Kiosk);
