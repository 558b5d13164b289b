/* The kiosk's three screens: idle (typing), the verdict, and NOT JUDGED; the timers that bring
 * the idle screen back (after verdict_seconds, or a key) and clear typed words (after
 * clear_seconds without typing); and the moment after a verdict when nothing dismisses it.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var S = K.state;
  var root = K.root;
  var setText = K.setText;
  var VERDICTS = K.VERDICTS;
  var Words = window.KioskWords;   // kiosk-words.js: what can be judged
  var Tiles = window.KioskTiles;   // kiosk-tiles.js: tiles drawn, the row of special tiles
  var LOCKOUT_MS = 1500;
  var lockedUntil = 0;
  var returnTimer = null;
  var clearTimer = null;
  var countdownTimer = null;

  function showScreen(name) {
    root.dataset.state = name;
    $("idle-screen").hidden = name !== "idle";
    $("verdict-screen").hidden = name !== "verdict";
    $("error-screen").hidden = name !== "error";
    lockedUntil = name === "idle" ? 0 : Date.now() + LOCKOUT_MS;
    setLocked(name !== "idle");
    if (name !== "idle") {
      setTimeout(function () { setLocked(false); }, LOCKOUT_MS);
    }
  }

  /* For a moment after a verdict, a stray key or tap cannot dismiss it. */
  function setLocked(on) {
    root.classList.toggle("locked", on);
    $("verdict-done").disabled = on;
    $("error-back").disabled = on;
  }

  function showVerdict(entry) {
    var shown = entry.shown || VERDICTS[entry.verdict];  // said by the server in our language
    var consequence = entry.shown ? entry.shown.consequence : entry.consequence;
    var english = S.english;
    Object.keys(VERDICTS).forEach(function (name) {
      // an SVG element has no .hidden property: set the attribute itself
      $(VERDICTS[name].icon).toggleAttribute("hidden", name !== entry.verdict);
    });
    $("verdict-screen").className = "screen verdict-screen verdict-" + entry.verdict.toLowerCase();
    setText("verdict-word", shown.word);
    setText("verdict-gloss", shown.gloss);
    setText("verdict-consequence", consequence);
    $("verdict-consequence").hidden = !consequence;
    var list = $("verdict-words");
    list.textContent = "";
    list.classList.toggle("verdict-tiles", !english);
    entry.words.forEach(function (word) {
      var item = document.createElement("li");
      if (english) {
        item.textContent = word;
      } else {
        Tiles.drawTiles(item, Words.canonicalTiles(String(word)));
      }
      list.appendChild(item);
    });
    setText("verdict-id", "#" + entry.id);
    var time = $("verdict-time");
    time.dateTime = entry.recorded_at;
    time.textContent = K.formatTime(entry.recorded_at);
    var status = S.status;
    var title = status && status.tournament.slug === entry.tournament
      ? status.tournament.title : entry.tournament;
    setText("verdict-tournament", title);
    var lexicon = entry.lexicon || {};
    setText("verdict-lexicon", lexicon.name + " · " +
            TN("{n} word", "{n} words", lexicon.words || 0, { n: K.formatCount(lexicon.words) }) +
            " · " + String(lexicon.fingerprint || "").slice(0, 12));
    var rule = status && status.rule.name === entry.rule
      ? status.rule.shown_title || status.rule.title : entry.rule;
    setText("verdict-rule", rule);
    setText("verdict-receipt", entry.receipt ? K.receiptCode(entry.receipt) : "");
    K.keepReceipt(entry.receipt);
    K.loadReceiptQr(entry.receipt);
    K.showVerdictGame(entry);
    showScreen("verdict");
    K.announce(shown.word + ": " + shown.gloss + ". " + consequence);
    K.sayAloud([shown.word, shown.gloss, consequence]);   // as shown: never the words judged
    $("verdict-title").focus();
    startReturnTimer(S.verdictSeconds);
  }

  function showNotJudged(code, body) {
    var message = "";
    if (body && typeof body.shown_error === "string") {
      message = body.shown_error;   // an input error, said in the page's language
    } else if (body && typeof body.error === "string") {
      message = body.error;
    }
    var again = T("Go back to the words and press JUDGE again. If it happens again, call the " +
                  "director.");
    var advice;
    if (code === 400) {
      advice = S.needsGame
        ? T("Fix the words, round, table or challenger and press JUDGE again. Your words are " +
            "kept.")
        : T("Fix the words and press JUDGE again. Your words are kept.");
    } else if (code === 429) {
      advice = T("Too many challenges from this kiosk just now: wait a moment, then press " +
                 "JUDGE again.");
    } else if (code === 401) {
      message = T("This screen is no longer paired as a kiosk.");
      advice = T("Call the director to pair it again.");
    } else if (code === "timeout") {
      message = T("The server did not answer in time.");
      advice = again;
    } else if (code === "unshown") {   // the server answered; this page failed to show it
      message = T("This screen could not show the server's answer.");
      advice = T("Call the director: the journal says whether these words were judged.");
    } else if (code === "network") {
      message = T("Cannot reach the adjudication server.");
      advice = again;
    } else if (code === "page") {   // this page failed before the server judged anything
      message = T("This screen failed before the words were judged.");
      advice = T("Nothing was judged. Reload this page and type the words again; if it " +
                 "happens again, call the director.");
    } else {
      message = message || T("The server could not give a verdict.");
      advice = T("Go back to the words and try again. If it happens again, call the director.");
    }
    setText("error-message", message || T("The words could not be judged."));
    setText("error-advice", advice);
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    showScreen("error");
    K.announce(T("NOT JUDGED") + ". " + $("error-message").textContent + " " + advice);
    K.sayAloud([T("NOT JUDGED")]);   // the title alone: a refusal may quote a typed word
    $("error-title").focus();
    touched();   // the kept words are still cleared after clear_seconds
    K.refreshStatus();   // show at once if the server is unreachable or the lexicon unavailable
  }

  function startReturnTimer(seconds) {
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    var endsAt = Date.now() + seconds * 1000;
    var tick = function () {
      var left = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
      var text = T("Back to the start in {seconds} s, or press any key.", { seconds: left });
      if ($("verdict-countdown").textContent !== text) { setText("verdict-countdown", text); }
    };
    tick();
    countdownTimer = setInterval(tick, 250);
    returnTimer = setTimeout(backToIdle, seconds * 1000);
  }

  function backToIdle() {
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    if (S.printing) { return; }
    showScreen("idle");
    K.announce("");
    K.renderChips();
    focusFirstEmpty();
  }

  /* The word box, or first the game field still to fill under a rule that counts challenges. */
  function focusFirstEmpty() {
    var empty = S.needsGame && !S.tableGame && K.GAME_FIELDS.map(K.gameInput).find(function (box) {
      return !box.value.trim();
    });
    (empty || K.input).focus();
  }

  function dismiss() {
    if (root.dataset.state === "idle" || Date.now() < lockedUntil) { return false; }
    backToIdle();
    return true;
  }

  /* Typed words are cleared after clear_seconds without typing. */
  function touched() {
    clearTimeout(clearTimer);
    clearTimer = setTimeout(clearEverything, S.clearSeconds * 1000);
  }

  function clearEverything() {
    if (S.judging) { touched(); return; }
    S.words = [];
    K.input.value = "";
    K.gameInput("challenger").value = "";
    K.resetChallenger();
    K.showProblem();
    if (root.dataset.state === "error") { backToIdle(); }
    K.renderChips();
  }

  /* The verdict and error screens' buttons, printing the docket, and any key to go back. */
  function wireScreens() {
    $("verdict-done").addEventListener("click", dismiss);
    $("error-back").addEventListener("click", dismiss);
    $("print-button").addEventListener("click", function () { window.print(); });
    window.addEventListener("beforeprint", function () { S.printing = true; });
    window.addEventListener("afterprint", function () {
      S.printing = false;
      if (root.dataset.state === "verdict") { startReturnTimer(S.verdictSeconds); }
    });
    document.addEventListener("keydown", function (event) {
      if (root.dataset.state === "idle") { return; }
      if (event.target.closest && event.target.closest("button")) {
        if (event.key === "Enter" || event.key === " ") { return; }   // let the button act
      }
      if (event.key === "Tab" || event.key === "Shift") { return; }
      event.preventDefault();
      dismiss();
    });
  }

  K.expose(showScreen, showVerdict, showNotJudged, focusFirstEmpty, touched, wireScreens);
})(window.Kiosk);
