/* The kiosk page's core: the state its other files share, and the small helpers they all use.
 *
 * The page is plain files loaded in order, no build step: kiosk-words, kiosk-spell, kiosk-tiles
 * and kiosk-fit (what can be judged, how it reads and is drawn, fitting the screen); then this
 * file; then kiosk-access, kiosk-receipts, kiosk-status, kiosk-game and kiosk-screens, which
 * add their functions to window.Kiosk; last kiosk.js (typing, judging, wiring), which starts the page.
 * The page never learns which word was bad: the API gives one verdict for the whole
 * challenge, and a verdict is shown only from a 201 response.
 */
(function (global) {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };

  var state = {
    words: [],              // committed words: KioskSpell.Chip, in order
    status: null,           // the last GET /api/v1/kiosk answer
    english: true,          // A-Z: words shown as plain letters, no row of special tiles
    judging: false,
    printing: false,
    needsGame: false,       // the rule counts earlier challenges: round, table, challenger needed
    asksChallenger: false,  // a free challenge may be used: the same fields, to fill in or not
    asksFinalPlay: false,   // the rulebook frees the final play's challenge (school rule 12)
    verdictSeconds: 10,
    clearSeconds: 30,
    requestTimeoutMs: 8000, // until the status says otherwise (request_timeout_seconds)
    speaks: false,          // each verdict said aloud (the status's access.speak)
    attempt: null,          // the challenge sent and its attempt key, until it is judged
  };

  // What a verdict is called when an answer does not say it (`shown`, in the page's language).
  var VERDICTS = {
    ACCEPTABLE: { word: T("ACCEPTABLE"), gloss: T("the play stands"), icon: "icon-acceptable" },
    UNACCEPTABLE: {
      word: T("UNACCEPTABLE"),
      gloss: T("the play comes off the board"),
      icon: "icon-unacceptable",
    },
    REFER: { word: T("REFER"), gloss: T("call a word judge"), icon: "icon-refer" },
  };

  /* fetch, given up after request_timeout_seconds (or `timeoutMs`: a poll the server holds). */
  function fetchWithTimeout(url, options, timeoutMs) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, timeoutMs || state.requestTimeoutMs);
    options = options || {};
    options.signal = controller.signal;
    options.credentials = "same-origin";
    // Answers say the verdict and errors in the page's language (kiosk/i18n.py).
    options.headers = Object.assign({ "Accept-Language": KioskText.language }, options.headers);
    options.cache = "no-store";
    return fetch(url, options)
      .catch(function (error) {   // the request itself failed: marked, so no fault of the page's
        var failure = error !== null && typeof error === "object" ? error : new Error(String(error));
        failure.requestFailed = true;   // own is ever called "out of reach" (AbortError kept)
        throw failure;
      })
      .finally(function () { clearTimeout(timer); });
  }

  /* What went wrong: the answer's HTTP status, "timeout" or "network" for a request that
   * failed, or "page" for a fault of this page's own (nothing sent, or its answer not read). */
  function failureCode(failure) {
    if (failure && typeof failure.status === "number") { return failure.status; }
    if (!failure || !failure.requestFailed) { return "page"; }
    return failure.name === "AbortError" ? "timeout" : "network";
  }

  function announce(text) {
    var live = $("live");
    live.textContent = "";
    if (text) { setTimeout(function () { live.textContent = text; }, 50); }
  }

  function setText(id, text) {
    $(id).textContent = text === undefined || text === null ? "" : String(text);
  }

  /* A count as the kiosk's language writes numbers (Babel's way, as the server's pages). */
  function formatCount(n) {
    return typeof n === "number" ? KioskText.number(n) : "";
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function formatTime(iso) {
    var date = new Date(iso);
    if (isNaN(date.getTime())) { return String(iso); }
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + " " +
      pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds());
  }

  // Each later file adds its functions by their own names: K.expose(showScreen, showVerdict).
  function expose() {
    for (var i = 0; i < arguments.length; i++) { global.Kiosk[arguments[i].name] = arguments[i]; }
  }

  global.Kiosk = {
    $: $,
    expose: expose,
    root: $("kiosk"),
    input: $("word-input"),
    state: state,
    VERDICTS: VERDICTS,
    GAME_FIELDS: ["round", "table", "challenger"],
    fetchWithTimeout: fetchWithTimeout,
    failureCode: failureCode,
    announce: announce,
    setText: setText,
    formatCount: formatCount,
    formatTime: formatTime,
  };
})(window);
