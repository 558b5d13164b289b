/* The kiosk page: type the challenged words, judge them once, show the one verdict.
 *
 * No framework, no build step. The page never learns which word was bad: the API gives one
 * verdict for the whole challenge, and a verdict is shown only from a 201 response.
 */
(function () {
  "use strict";

  var Words = window.KioskWords;   // kiosk-words.js: what can be judged
  var MAX_WORDS = Words.MAX_WORDS;
  var MIN_LETTERS = Words.MIN_LETTERS;
  var POLL_MS = 5000;
  var LOCKOUT_MS = 1500;
  var VERDICTS = {
    ACCEPTABLE: { word: "ACCEPTABLE", gloss: "the play stands", icon: "icon-acceptable" },
    UNACCEPTABLE: {
      word: "UNACCEPTABLE",
      gloss: "the play comes off and scores zero",
      icon: "icon-unacceptable",
    },
    REFER: {
      word: "REFER",
      gloss: "call a word judge; a dictionary check is needed",
      icon: "icon-refer",
    },
  };

  var $ = function (id) { return document.getElementById(id); };
  var root = $("kiosk");
  var input = $("word-input");
  var chipList = $("chips");
  var hint = $("word-hint");
  var judgeButton = $("judge-button");

  var words = [];           // committed words, upper case
  var status = null;        // the last GET /api/v1/kiosk answer
  var verdictSeconds = 10;
  var clearSeconds = 30;
  var requestTimeoutMs = 8000;  // until the status says otherwise (request_timeout_seconds)
  var judging = false;
  var lockedUntil = 0;
  var returnTimer = null;
  var clearTimer = null;
  var countdownTimer = null;
  var hintTimer = null;
  var pollTimer = null;
  var printing = false;
  var needsGame = false;    // the rule counts earlier challenges: round, table, challenger needed
  var GAME_KEY = "adjudicator.game." + root.dataset.kiosk;  // round and table, kept on this screen

  /* ---------- the status bar: tournament, lexicon, rule ---------- */

  function fetchWithTimeout(url, options) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, requestTimeoutMs);
    options = options || {};
    options.signal = controller.signal;
    options.credentials = "same-origin";
    options.cache = "no-store";
    return fetch(url, options).finally(function () { clearTimeout(timer); });
  }

  /* The status poll; with the newest receipt this kiosk holds, as a witness of the journal. */
  function refreshStatus() {
    var options = { headers: { Accept: "application/json" } };
    var witness = newestReceipt();
    if (witness) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify({ witness: witness });
    }
    return fetchWithTimeout("/api/v1/kiosk", options)
      .then(function (response) {
        $("offline-alert").hidden = true;
        if (response.status === 401) {
          // Revoked or re-paired elsewhere: show the pairing page, unless a verdict is up.
          if (root.dataset.state === "idle" && !judging) { window.location.reload(); }
          return null;
        }
        return response.json().then(function (body) {
          if (response.ok && body && body.ok) {
            showStatus(body);
          } else {
            showServiceAlert(body && typeof body.error === "string" ? body.error :
                             "The server cannot judge just now: call the director.");
          }
        });
      })
      .catch(function () { $("offline-alert").hidden = false; });
  }

  function showStatus(body) {
    status = body;
    var lexicon = body.lexicon || {};
    setText("tournament-title", body.tournament.title);
    setText("lexicon-name", lexicon.name);
    setText("lexicon-description", lexicon.description ? "(" + lexicon.description + ")" : "");
    setText("lexicon-words", formatCount(lexicon.words));
    setText("lexicon-fingerprint", lexicon.short_fingerprint);
    setText("rule-title", body.rule.title);
    $("rule-title").title = body.rule.name;
    $("lexicon-alert").hidden = lexicon.available !== false;
    var journal = body.journal || {};
    showServiceAlert(journal.ok === false ? journal.message : "");
    if (body.verdict_seconds >= 1) { verdictSeconds = body.verdict_seconds; }
    if (body.clear_seconds >= 1) { clearSeconds = body.clear_seconds; }
    if (body.request_timeout_seconds >= 1) {
      requestTimeoutMs = body.request_timeout_seconds * 1000;
    }
    showGameDetails(Boolean(body.rule.needs_game));
  }

  /* ---------- the game (round, table, challenger), for the rules that count challenges ---------- */

  function showGameDetails(needed) {
    var appearing = needed && !needsGame;
    needsGame = needed;
    $("game-details").hidden = !needed;
    if (appearing && root.dataset.state === "idle" && !words.length && !input.value) {
      focusFirstEmpty();
    }
  }

  function gameInput(name) { return $("game-" + name); }

  /* Round and table are remembered between challenges on this screen (a tablet stays at one
   * table for a round); the challenger is asked each time. */
  function restoreGame() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(GAME_KEY) || "{}");
      gameInput("round").value = saved.round || "";
      gameInput("table").value = saved.table || "";
    } catch (ignored) { /* no storage: the fields start empty */ }
  }

  function rememberGame() {
    try {
      window.localStorage.setItem(GAME_KEY, JSON.stringify({
        round: gameInput("round").value.trim(), table: gameInput("table").value.trim(),
      }));
    } catch (ignored) { /* no storage: nothing remembered */ }
  }

  /* The game fields to send, or null (and a hint) if one is missing. */
  function gameDetails() {
    if (!needsGame) { return {}; }
    var details = {};
    var missing = ["round", "table", "challenger"].filter(function (name) {
      details[name] = gameInput(name).value.trim();
      return !details[name];
    });
    if (missing.length) {
      showHint("Give the " + missing.join(", ") + " first: this rule counts each player's " +
               "unsuccessful challenges in a game.");
      gameInput(missing[0]).focus();
      return null;
    }
    return details;
  }

  /* On the verdict screen: the game and challenger the journal recorded it for. */
  function showVerdictGame(entry) {
    var shown = Boolean(entry.round && entry.table && entry.challenger);
    $("verdict-game-row").hidden = !shown;
    setText("verdict-game", shown
      ? "Round " + entry.round + " · table " + entry.table + " · challenger " + entry.challenger
      : "");
  }

  function onGameKeyDown(event) {
    touched();
    if (event.key !== "Enter") { return; }
    event.preventDefault();   // Enter moves on to the next box; JUDGE judges
    var order = ["round", "table", "challenger"];
    var next = order.indexOf(event.target.id.replace("game-", "")) + 1;
    (next < order.length ? gameInput(order[next]) : input).focus();
  }

  /* What stops judging that is not the lexicon: the journal, or the server refusing. */
  function showServiceAlert(text) {
    setText("service-alert-text", text);
    $("service-alert").hidden = !text;
  }

  function startPolling() {
    clearInterval(pollTimer);
    pollTimer = setInterval(refreshStatus, POLL_MS);
  }

  /* ---------- typing: words become chips ---------- */

  /* A passing hint (it fades after 4 s); a problem with the typed text stays until fixed. */
  function showHint(text) {
    hint.textContent = text;
    hint.classList.toggle("hint-on", Boolean(text));
    clearTimeout(hintTimer);
    if (text) { hintTimer = setTimeout(showProblem, 4000); }
  }

  /* Say what in the box cannot be judged, or clear the message when nothing is wrong. */
  function showProblem() {
    clearTimeout(hintTimer);
    var text = boxProblem();
    hint.textContent = text;
    hint.classList.toggle("hint-on", Boolean(text));
    if (text) {
      input.setAttribute("aria-invalid", "true");
    } else {
      input.removeAttribute("aria-invalid");
    }
    return text;
  }

  /* The first problem with the words still in the box, numbered after the chips. */
  function boxProblem() {
    var split = Words.pieces(input.value);
    var pending = split.rest ? split.complete.concat([split.rest]) : split.complete;
    for (var i = 0; i < pending.length; i++) {
      var text = Words.problem(pending[i], words.length + i + 1);
      if (text) { return text; }
    }
    return "";
  }

  function renderChips() {
    chipList.textContent = "";
    words.forEach(function (word, index) {
      var chip = document.createElement("li");
      chip.className = "chip";
      var label = document.createElement("span");
      label.className = "chip-word";
      label.textContent = word;
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "chip-remove";
      remove.setAttribute("aria-label", "Remove " + word);
      remove.dataset.index = String(index);
      remove.textContent = "×";
      chip.appendChild(label);
      chip.appendChild(remove);
      chipList.appendChild(chip);
    });
    var count = words.length;
    $("word-count").textContent = count + " of " + MAX_WORDS + " words";
    input.placeholder = count ? "" : "Type a word";
    root.classList.toggle("has-words", count > 0);
  }

  /* Turn the complete words at the start of `text` into chips, in order, up to the first one
   * that cannot be judged as typed; that one and everything after it stay in the box. */
  function takeWords(text) {
    var split = Words.pieces(text);
    var taken = 0;
    var consumed = 0;
    for (var i = 0; i < split.complete.length; i++) {
      var word = split.complete[i];
      if (Words.problem(word, words.length + 1)) { break; }
      words.push(word.toUpperCase());
      taken += 1;
      consumed = text.indexOf(word, consumed) + word.length;
    }
    if (taken) {
      var rest = text.slice(consumed).replace(/^[\s,]+/, "");
      input.value = i === split.complete.length ? split.rest : rest;
      renderChips();
    }
    return taken;
  }

  /* Commit everything in the box; false (with the problem shown) if any of it cannot be judged. */
  function commitInput() {
    takeWords(input.value + " ");
    input.value = input.value.replace(/^[\s,]+|[\s,]+$/g, "");
    return !showProblem();
  }

  function onInput() {
    touched();
    takeWords(input.value);
    showProblem();
  }

  function removeWord(index) {
    words.splice(index, 1);
    renderChips();
    showProblem();
    input.focus();
    touched();
  }

  function onKeyDown(event) {
    touched();
    if (judging) { event.preventDefault(); return; }
    if (event.isComposing) { return; }
    var key = event.key;
    if (key === "Enter") {
      event.preventDefault();
      if (input.value.trim()) { commitInput(); } else { judge(); }
    } else if (key === "Tab" && !event.shiftKey && (input.value || words.length)) {
      event.preventDefault();
      judge();
    } else if (key === "Backspace" && !input.value && words.length) {
      event.preventDefault();
      words.pop();
      renderChips();
      showProblem();
    }
  }

  /* ---------- judging ---------- */

  function judge() {
    if (judging || root.dataset.state !== "idle") { return; }
    if (input.value && !commitInput()) {   // never judge a word changed to make it fit
      input.focus();
      return;
    }
    if (!words.length) {
      showHint("Type the challenged words first.");
      input.focus();
      return;
    }
    var short = words.findIndex(function (w) { return w.length < MIN_LETTERS; });
    if (short >= 0) {
      showHint("Word " + (short + 1) + " has 1 letter: a word has at least " + MIN_LETTERS +
               " letters. Tap its × to remove it.");
      input.focus();
      return;
    }
    var game = gameDetails();
    if (game === null) { return; }
    var sent = words.slice();
    setJudging(true);
    fetchWithTimeout("/api/v1/adjudications", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(Object.assign({ words: sent }, game)),
    })
      .then(function (response) {
        return response.json().then(
          function (body) { return { status: response.status, body: body }; },
          function () { return { status: response.status, body: null }; }
        );
      })
      .then(function (answer) {
        setJudging(false);
        if (answer.status === 201 && isVerdict(answer.body, sent)) {
          words = [];
          input.value = "";
          if (needsGame) {
            rememberGame();
            gameInput("challenger").value = "";
          }
          renderChips();
          showVerdict(answer.body);
          refreshStatus();
        } else {
          showNotJudged(answer.status, answer.body);
        }
      })
      .catch(function (error) {
        setJudging(false);
        showNotJudged(error && error.name === "AbortError" ? "timeout" : "network", null);
      });
  }

  /* A verdict is shown only if the answer is a whole adjudication of exactly these words. */
  function isVerdict(body, sent) {
    return Boolean(body) && Object.prototype.hasOwnProperty.call(VERDICTS, body.verdict) &&
      body.id !== undefined && body.id !== null && Array.isArray(body.words) &&
      body.words.length === sent.length &&
      body.words.every(function (w, i) { return w === sent[i]; });
  }

  function setJudging(on) {
    judging = on;
    judgeButton.disabled = on;
    judgeButton.textContent = on ? "JUDGING…" : "JUDGE";
    input.readOnly = on;
    ["round", "table", "challenger"].forEach(function (name) { gameInput(name).readOnly = on; });
    root.classList.toggle("is-judging", on);
  }

  /* ---------- screens ---------- */

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
    var shown = VERDICTS[entry.verdict];
    Object.keys(VERDICTS).forEach(function (name) {
      // an SVG element has no .hidden property: set the attribute itself
      $(VERDICTS[name].icon).toggleAttribute("hidden", name !== entry.verdict);
    });
    $("verdict-screen").className = "screen verdict-screen verdict-" + entry.verdict.toLowerCase();
    setText("verdict-word", shown.word);
    setText("verdict-gloss", shown.gloss);
    setText("verdict-consequence", entry.consequence);
    var list = $("verdict-words");
    list.textContent = "";
    entry.words.forEach(function (word) {
      var item = document.createElement("li");
      item.textContent = word;
      list.appendChild(item);
    });
    setText("verdict-id", "#" + entry.id);
    var time = $("verdict-time");
    time.dateTime = entry.recorded_at;
    time.textContent = formatTime(entry.recorded_at);
    var title = status && status.tournament.slug === entry.tournament
      ? status.tournament.title : entry.tournament;
    setText("verdict-tournament", title);
    var lexicon = entry.lexicon || {};
    setText("verdict-lexicon", lexicon.name + " · " + formatCount(lexicon.words) + " words · " +
            String(lexicon.fingerprint || "").slice(0, 12));
    var rule = status && status.rule.name === entry.rule ? status.rule.title : entry.rule;
    setText("verdict-rule", rule);
    setText("verdict-receipt", entry.receipt ? receiptCode(entry.receipt) : "");
    keepReceipt(entry.receipt);
    loadReceiptQr(entry.receipt);
    showVerdictGame(entry);
    showScreen("verdict");
    announce(shown.word + ": " + shown.gloss + ". " + entry.consequence);
    $("verdict-title").focus();
    startReturnTimer(verdictSeconds);
  }

  function showNotJudged(code, body) {
    var message = body && typeof body.error === "string" ? body.error : "";
    var advice;
    if (code === 400) {
      advice = needsGame
        ? "Fix the words, round, table or challenger and press JUDGE again. Your words are kept."
        : "Fix the words and press JUDGE again. Your words are kept.";
    } else if (code === 429) {
      advice = "Too many challenges from this kiosk just now: wait a moment, then press JUDGE again.";
    } else if (code === 401) {
      message = "This screen is no longer paired as a kiosk.";
      advice = "Call the director to pair it again.";
    } else if (code === "timeout") {
      message = "The server did not answer in time.";
      advice = "Go back to the words and press JUDGE again. If it happens again, call the director.";
    } else if (code === "network") {
      message = "Cannot reach the adjudication server.";
      advice = "Go back to the words and press JUDGE again. If it happens again, call the director.";
    } else {
      message = message || "The server could not give a verdict.";
      advice = "Go back to the words and try again. If it happens again, call the director.";
    }
    setText("error-message", message || "The words could not be judged.");
    setText("error-advice", advice);
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    showScreen("error");
    announce("NOT JUDGED. " + $("error-message").textContent + " " + advice);
    $("error-title").focus();
    touched();   // the kept words are still cleared after clear_seconds
    refreshStatus();   // show at once if the server is unreachable or the lexicon unavailable
  }

  function startReturnTimer(seconds) {
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    var endsAt = Date.now() + seconds * 1000;
    var tick = function () {
      var left = Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
      var text = "Back to the start in " + left + " s, or press any key.";
      if ($("verdict-countdown").textContent !== text) { setText("verdict-countdown", text); }
    };
    tick();
    countdownTimer = setInterval(tick, 250);
    returnTimer = setTimeout(backToIdle, seconds * 1000);
  }

  function backToIdle() {
    clearTimeout(returnTimer);
    clearInterval(countdownTimer);
    if (printing) { return; }
    showScreen("idle");
    announce("");
    renderChips();
    focusFirstEmpty();
  }

  /* The word box, or first the game field still to fill under a rule that counts challenges. */
  function focusFirstEmpty() {
    var empty = needsGame && ["round", "table", "challenger"].map(gameInput).find(function (box) {
      return !box.value.trim();
    });
    (empty || input).focus();
  }

  function dismiss() {
    if (root.dataset.state === "idle" || Date.now() < lockedUntil) { return false; }
    backToIdle();
    return true;
  }

  /* Typed words are cleared after clear_seconds without typing. */
  function touched() {
    clearTimeout(clearTimer);
    clearTimer = setTimeout(clearEverything, clearSeconds * 1000);
  }

  function clearEverything() {
    if (judging) { touched(); return; }
    words = [];
    input.value = "";
    gameInput("challenger").value = "";
    showProblem();
    if (root.dataset.state === "error") { backToIdle(); }
    renderChips();
  }

  /* ---------- receipts: this kiosk keeps what it was shown, as a witness ---------- */

  var RECEIPTS_KEY = "adjudicator.receipts." + root.dataset.kiosk;
  var MAX_RECEIPTS = 500;
  var LONG_PRESS_MS = 2000;
  var pressTimer = null;

  function storedReceipts() {
    try {
      var list = JSON.parse(window.localStorage.getItem(RECEIPTS_KEY) || "[]");
      return Array.isArray(list) ? list : [];
    } catch (error) {
      return [];
    }
  }

  function keepReceipt(receipt) {
    if (!receipt || typeof receipt !== "object") { return; }
    var list = storedReceipts().filter(function (kept) {
      return kept.id !== receipt.id || kept.journal !== receipt.journal;
    });
    list.push(receipt);
    if (list.length > MAX_RECEIPTS) { list = list.slice(list.length - MAX_RECEIPTS); }
    try {
      window.localStorage.setItem(RECEIPTS_KEY, JSON.stringify(list));
    } catch (error) { /* storage full or off: the verdict was recorded all the same */ }
  }

  function newestReceipt() {
    var list = storedReceipts();
    return list.length ? list[list.length - 1] : null;
  }

  /* The code on the screen: the first 8 hex digits of the journal row's hash. */
  function receiptCode(receipt) {
    var head = String(receipt.row_hash || "").slice(0, 8).toUpperCase();
    return head.slice(0, 4) + "-" + head.slice(4);
  }

  /* The whole receipt as a QR code for the docket (print only), drawn by the server. */
  function loadReceiptQr(receipt) {
    var image = $("receipt-qr");
    image.hidden = true;
    image.removeAttribute("src");
    if (!receipt) { return; }
    fetchWithTimeout("/api/v1/kiosk/receipt-qr", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "image/svg+xml" },
      body: JSON.stringify(receipt),
    })
      .then(function (response) { return response.ok ? response.blob() : null; })
      .then(function (blob) {
        if (!blob) { return; }
        var reader = new FileReader();
        reader.onload = function () {
          image.src = reader.result;
          image.hidden = false;
        };
        reader.readAsDataURL(blob);
      })
      .catch(function () { /* no QR on the docket; the code is still printed */ });
  }

  function showReceiptsPanel() {
    if (root.dataset.state !== "idle") { return; }
    setText("receipts-count", storedReceipts().length);
    $("receipts-panel").hidden = false;
    $("receipts-download").focus();
  }

  /* The receipts, one JSON object a line: the file `adjudicator journal audit` reads. */
  function downloadReceipts() {
    var lines = storedReceipts().map(function (receipt) { return JSON.stringify(receipt) + "\n"; });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob(lines, { type: "application/x-ndjson" }));
    link.download = "receipts-" + root.dataset.kiosk + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
  }

  /* ---------- helpers ---------- */

  function announce(text) {
    var live = $("live");
    live.textContent = "";
    if (text) { setTimeout(function () { live.textContent = text; }, 50); }
  }

  function setText(id, text) {
    $(id).textContent = text === undefined || text === null ? "" : String(text);
  }

  function formatCount(n) {
    return typeof n === "number" ? n.toLocaleString("en-GB") : "";
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function formatTime(iso) {
    var date = new Date(iso);
    if (isNaN(date.getTime())) { return String(iso); }
    return date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) + " " +
      pad(date.getHours()) + ":" + pad(date.getMinutes()) + ":" + pad(date.getSeconds());
  }

  /* ---------- wiring ---------- */

  $("challenge-form").addEventListener("submit", function (event) {
    event.preventDefault();
    judge();
  });
  input.addEventListener("input", onInput);
  input.addEventListener("keydown", onKeyDown);
  chipList.addEventListener("click", function (event) {
    var button = event.target.closest(".chip-remove");
    if (button && !judging) { removeWord(Number(button.dataset.index)); }
  });
  $("word-box").addEventListener("click", function (event) {
    if (!event.target.closest(".chip-remove")) { input.focus(); }
  });
  $("game-details").addEventListener("keydown", onGameKeyDown);
  $("game-details").addEventListener("input", touched);
  $("verdict-done").addEventListener("click", dismiss);
  $("error-back").addEventListener("click", dismiss);
  $("print-button").addEventListener("click", function () { window.print(); });
  window.addEventListener("beforeprint", function () { printing = true; });
  window.addEventListener("afterprint", function () {
    printing = false;
    if (root.dataset.state === "verdict") { startReturnTimer(verdictSeconds); }
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

  $("status").addEventListener("pointerdown", function () {
    clearTimeout(pressTimer);
    pressTimer = setTimeout(showReceiptsPanel, LONG_PRESS_MS);
  });
  ["pointerup", "pointerleave", "pointercancel"].forEach(function (name) {
    $("status").addEventListener(name, function () { clearTimeout(pressTimer); });
  });
  $("receipts-download").addEventListener("click", downloadReceipts);
  $("receipts-close").addEventListener("click", function () {
    $("receipts-panel").hidden = true;
    input.focus();
  });

  restoreGame();
  renderChips();
  showScreen("idle");
  window.KioskFit.keepFitted(root);
  refreshStatus();
  startPolling();
  input.focus();
})();
