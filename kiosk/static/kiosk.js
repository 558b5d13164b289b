/* The kiosk page: type the challenged words, judge them once, show the one verdict.
 *
 * No framework, no build step. The page never learns which word was bad: the API gives one
 * verdict for the whole challenge, and a verdict is shown only from a 201 response.
 */
(function () {
  "use strict";

  var MAX_WORDS = 8;
  var MAX_LETTERS = 15;
  var MIN_LETTERS = 2;
  var POLL_MS = 5000;
  var LOCKOUT_MS = 1500;
  var VERDICTS = {
    ACCEPTABLE: { title: "ACCEPTABLE: the play stands", icon: "icon-acceptable" },
    UNACCEPTABLE: {
      title: "UNACCEPTABLE: the play comes off and scores zero",
      icon: "icon-unacceptable",
    },
    REFER: { title: "REFER: call a word judge; a dictionary check is needed", icon: "icon-refer" },
  };
  var SEPARATOR = /[\s,]+/;
  var NOT_LETTER = /[^A-Za-z]/g;

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

  function refreshStatus() {
    return fetchWithTimeout("/api/v1/kiosk", { headers: { Accept: "application/json" } })
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
            $("lexicon-alert").hidden = false;
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
    if (body.verdict_seconds >= 1) { verdictSeconds = body.verdict_seconds; }
    if (body.clear_seconds >= 1) { clearSeconds = body.clear_seconds; }
    if (body.request_timeout_seconds >= 1) {
      requestTimeoutMs = body.request_timeout_seconds * 1000;
    }
  }

  function startPolling() {
    clearInterval(pollTimer);
    pollTimer = setInterval(refreshStatus, POLL_MS);
  }

  /* ---------- typing: words become chips ---------- */

  function showHint(text) {
    hint.textContent = text;
    hint.classList.toggle("hint-on", Boolean(text));
    clearTimeout(hintTimer);
    if (text) { hintTimer = setTimeout(function () { showHint(""); }, 4000); }
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

  /* Keep only letters (upper case) and at most 15 of them; say what was refused. */
  function cleanPiece(piece) {
    var letters = piece.replace(NOT_LETTER, "");
    var refused = letters.length !== piece.length;
    letters = letters.toUpperCase();
    if (letters.length > MAX_LETTERS) {
      showHint("At most " + MAX_LETTERS + " letters in a word: no word on the board is longer.");
      return letters.slice(0, MAX_LETTERS);
    }
    if (refused) { showHint("Letters A-Z only: type a blank as the letter it stands for."); }
    return letters;
  }

  function addWord(word) {
    if (!word) { return true; }
    if (words.length >= MAX_WORDS) {
      showHint("At most " + MAX_WORDS + " words: one play forms no more.");
      return false;
    }
    words.push(word);
    return true;
  }

  /* Commit what is in the box as a word; false if it could not be added. */
  function commitInput() {
    var word = cleanPiece(input.value);
    input.value = "";
    if (!addWord(word)) { renderChips(); return false; }
    renderChips();
    return true;
  }

  function onInput() {
    touched();
    var value = input.value;
    var pieces = value.split(SEPARATOR);
    var rest = pieces.pop();   // the word still being typed
    var full = false;
    pieces.forEach(function (piece) {
      if (!addWord(cleanPiece(piece))) { full = true; }
    });
    rest = cleanPiece(rest);
    if (words.length >= MAX_WORDS && rest) {
      showHint("At most " + MAX_WORDS + " words: one play forms no more.");
      rest = "";
      full = true;
    }
    if (full) { input.value = ""; }
    if (input.value !== rest) { input.value = rest; }
    if (pieces.length) { renderChips(); }
  }

  function removeWord(index) {
    words.splice(index, 1);
    renderChips();
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
      if (input.value) { commitInput(); } else { judge(); }
    } else if (key === "Tab" && !event.shiftKey && (input.value || words.length)) {
      event.preventDefault();
      judge();
    } else if (key === "Backspace" && !input.value && words.length) {
      event.preventDefault();
      words.pop();
      renderChips();
    } else if (key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      if (key === " " || key === ",") {
        event.preventDefault();
        commitInput();
      } else if (/[^A-Za-z]/.test(key)) {
        event.preventDefault();
        showHint("Letters A-Z only: type a blank as the letter it stands for.");
      } else if (words.length >= MAX_WORDS) {
        event.preventDefault();
        showHint("At most " + MAX_WORDS + " words: one play forms no more.");
      } else if (input.value.length >= MAX_LETTERS &&
                 input.selectionStart === input.selectionEnd) {
        event.preventDefault();
        showHint("At most " + MAX_LETTERS + " letters in a word: no word on the board is longer.");
      }
    }
  }

  /* ---------- judging ---------- */

  function judge() {
    if (judging || root.dataset.state !== "idle") { return; }
    if (input.value && !commitInput()) { return; }
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
    var sent = words.slice();
    setJudging(true);
    fetchWithTimeout("/api/v1/adjudications", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ words: sent }),
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
    root.classList.toggle("is-judging", on);
  }

  /* ---------- screens ---------- */

  function showScreen(name) {
    root.dataset.state = name;
    $("idle-screen").hidden = name !== "idle";
    $("verdict-screen").hidden = name !== "verdict";
    $("error-screen").hidden = name !== "error";
    lockedUntil = name === "idle" ? 0 : Date.now() + LOCKOUT_MS;
    root.classList.toggle("locked", name !== "idle");
    if (name !== "idle") {
      setTimeout(function () { root.classList.remove("locked"); }, LOCKOUT_MS);
    }
  }

  function showVerdict(entry) {
    var shown = VERDICTS[entry.verdict];
    Object.keys(VERDICTS).forEach(function (name) {
      // an SVG element has no .hidden property: set the attribute itself
      $(VERDICTS[name].icon).toggleAttribute("hidden", name !== entry.verdict);
    });
    $("verdict-screen").className = "screen verdict-screen verdict-" + entry.verdict.toLowerCase();
    setText("verdict-title", shown.title);
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
    showScreen("verdict");
    announce(shown.title + ". " + entry.consequence);
    $("verdict-title").focus();
    startReturnTimer(verdictSeconds);
  }

  function showNotJudged(code, body) {
    var message = body && typeof body.error === "string" ? body.error : "";
    var advice;
    if (code === 400) {
      advice = "Fix the words and press JUDGE again. Your words are kept.";
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
      setText("verdict-countdown", "Back to the start in " + left + " s, or press any key.");
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
    input.focus();
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
    showHint("");
    if (root.dataset.state === "error") { backToIdle(); }
    renderChips();
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

  renderChips();
  showScreen("idle");
  refreshStatus();
  startPolling();
  input.focus();
})();
