/* The kiosk page: type the challenged words, judge them once, show the one verdict.
 *
 * This file: typing (words become chips), judging, and the page's wiring and start. The state
 * and helpers it shares are in kiosk-core.js; the status poll, the game fields, the screens
 * and the receipts in kiosk-status.js, kiosk-game.js, kiosk-screens.js and kiosk-receipts.js,
 * loaded before it. No framework, no build step. The page never learns which word was bad:
 * the API gives one verdict for the whole challenge, and a verdict is shown only from a 201
 * response.
 */
(function (K) {
  "use strict";

  var Words = window.KioskWords;   // kiosk-words.js: what can be judged
  var Spell = window.KioskSpell;   // kiosk-spell.js: typed words and how they read as tiles
  var Tiles = window.KioskTiles;   // kiosk-tiles.js: tiles drawn, the row of special tiles
  var MAX_WORDS = Words.MAX_WORDS;
  var MIN_LETTERS = Words.MIN_LETTERS;

  var $ = K.$;
  var S = K.state;
  var root = K.root;
  var input = K.input;
  var chipList = $("chips");
  var hint = $("word-hint");
  var judgeButton = $("judge-button");
  var reader = new Spell.Reader(K.fetchWithTimeout);
  var hintTimer = null;

  /* ---------- typing: words become chips ---------- */

  /* Read the words typed so far afresh (the alphabet changed): back into the box, then taken. */
  function retypeWords() {
    if (S.words.length && !S.judging) {
      var typed = S.words.map(function (chip) { return chip.typed; }).join(" ");
      S.words = [];
      input.value = typed + " " + input.value;
      takeWords(input.value);
    }
    renderChips();
    showProblem();
  }

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

  /* The first problem with the words still in the box, numbered after the chips; else the
   * first problem the server found in a word already taken. */
  function boxProblem() {
    var split = Words.pieces(input.value);
    var pending = split.rest ? split.complete.concat([split.rest]) : split.complete;
    for (var i = 0; i < pending.length; i++) {
      var text = Words.problem(pending[i], S.words.length + i + 1);
      if (text) { return text; }
    }
    var troubled = S.words.find(function (chip) { return chip.problem; });
    return troubled ? troubled.problem + " " + T("Tap its × to remove it.") : "";
  }

  function renderChips() {
    chipList.textContent = "";
    S.words.forEach(function (word, index) {
      var chip = document.createElement("li");
      chip.className = "chip" + (word.problem ? " chip-problem" : "") +
        (word.isRead() ? "" : " chip-unread");
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "chip-remove";
      remove.setAttribute("aria-label", T("Remove {word}", { word: word.label() }));
      remove.dataset.index = String(index);
      remove.textContent = "×";
      chip.appendChild(Tiles.wordElement(word, index, S.english));
      chip.appendChild(remove);
      chipList.appendChild(chip);
    });
    var count = S.words.length;
    showCount();
    input.placeholder = count ? "" : T("Type a word");
    root.classList.toggle("has-words", count > 0);
    $("split-help").hidden = !S.words.some(function (w) { return w.canSplitOtherwise(); });
  }

  /* "3 of 8 words": the chips and the word still being typed in the box, as the players see
   * them (QI ZA typed is two words before the space that makes ZA a chip). */
  function showCount() {
    var split = Words.pieces(input.value);
    var count = S.words.length + split.complete.length + (split.rest ? 1 : 0);
    var text = T("{count} of {most} words", { count: count, most: MAX_WORDS });
    if ($("word-count").textContent !== text) { $("word-count").textContent = text; }
  }

  /* The players chose another way to split word `index` into tiles. */
  function splitOtherwise(index) {
    var word = S.words[index];
    if (!word) { return; }
    word.splitOtherwise();
    renderChips();
    var button = chipList.querySelector('.chip-split[data-index="' + index + '"]');
    if (button) { button.focus(); }
    showHint(T("{word} as {tiles}.", { word: word.label(), tiles: Tiles.counted(word.tiles()) }));
    K.touched();
  }

  var READ_AGAIN_MS = 5000;   // words not read while the server was out of reach: asked again
  var readAgain = null;

  /* Ask the server how the words not yet read split into tiles; redraw when it answers. */
  function readWords() {
    // nothing to read: no redraw, so a passing hint (such as the game fields') stays up
    if (S.words.every(function (w) { return w.isRead(); })) { return Promise.resolve(); }
    return reader.read(S.words).then(
      function () {
        clearTimeout(readAgain);
        renderChips();
        showProblem();
      },
      function (failure) {
        var code = K.failureCode(failure);
        if (code === 429 && failure.body) {
          showHint(String(failure.body.shown_error || failure.body.error || ""));
        } else if (code === 401) {
          K.refreshStatus();   // no longer paired: the status shows the pairing page
        } else if (code === "network" || code === "timeout") {
          $("offline-alert").hidden = false;
          clearTimeout(readAgain);   // asked again in a while (the status poll may be held)
          readAgain = setTimeout(function () {
            if (!S.judging) { K.refreshStatus(); }   // the alert goes once the server answers
          }, READ_AGAIN_MS);
        }
        throw failure;
      }
    );
  }

  /* The words changed: problems are numbered afresh, and new words are read. */
  function wordsChanged() {
    reader.forgetProblems(S.words);
    renderChips();
    showProblem();
    readWords().catch(function () {});
  }

  /* Turn the complete words at the start of `text` into chips, in order, up to the first one
   * that cannot be judged as typed; that one and everything after it stay in the box. */
  function takeWords(text) {
    var split = Words.pieces(text);
    var taken = 0;
    var consumed = 0;
    for (var i = 0; i < split.complete.length; i++) {
      var word = split.complete[i];
      if (Words.problem(word, S.words.length + 1)) { break; }
      S.words.push(new Spell.Chip(word));
      taken += 1;
      consumed = text.indexOf(word, consumed) + word.length;
    }
    if (taken) {
      var rest = text.slice(consumed).replace(/^[\s,]+/, "");
      input.value = i === split.complete.length ? split.rest : rest;
      renderChips();
      readWords().catch(function () {});
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
    K.touched();
    takeWords(input.value);
    showProblem();
    showCount();
  }

  function removeWord(index) {
    S.words.splice(index, 1);
    wordsChanged();
    input.focus();
    K.touched();
  }

  function onKeyDown(event) {
    K.touched();
    if (S.judging) { event.preventDefault(); return; }
    if (event.isComposing) { return; }
    var key = event.key;
    if (key === "Enter") {
      event.preventDefault();
      if (input.value.trim()) { commitInput(); } else { judge(); }
    } else if (key === "Tab" && !event.shiftKey && (input.value || S.words.length)) {
      event.preventDefault();
      judge();
    } else if (key === "Backspace" && !input.value && S.words.length) {
      event.preventDefault();
      S.words.pop();
      wordsChanged();
    }
  }

  /* ---------- judging ---------- */

  function judge(again) {   // again: once more, after reading the words in a new alphabet
    if (S.judging || root.dataset.state !== "idle") { return; }
    if (input.value && !commitInput()) {   // never judge a word changed to make it fit
      input.focus();
      return;
    }
    if (!S.words.length) {
      showHint(T("Type the challenged words first."));
      input.focus();
      return;
    }
    if (!S.status) {   // the kiosk's status has not come yet (its first ask failed): ask now
      setJudging(true);
      K.refreshStatus().then(function (reached) {
        setJudging(false);
        if (S.status) {   // its alphabet now known: the words typed are read with it, then judged
          retypeWords();
          judge();
          return;
        }
        K.showNotJudged(reached ? "unavailable" : "network", null);
      });
      return;
    }
    if (!S.words.every(function (w) { return w.isRead(); })) {
      setJudging(true);   // the server reads the last words, then they are judged
      readWords().then(
        function () { setJudging(false); judge(again); },
        function (failure) {
          setJudging(false);
          K.showNotJudged(K.failureCode(failure), failure && failure.body);
        }
      );
      return;
    }
    if (S.words.some(function (w) { return w.problem; })) {
      showProblem();
      input.focus();
      return;
    }
    var short = S.words.findIndex(function (w) { return w.tiles().length < MIN_LETTERS; });
    if (short >= 0) {
      var fields = { position: short + 1, least: MIN_LETTERS };
      showHint((S.english
        ? T("Word {position} has 1 letter: a word has at least {least} letters.", fields)
        : T("Word {position} has 1 tile: a word has at least {least} tiles.", fields)) +
        " " + T("Tap its × to remove it."));
      input.focus();
      return;
    }
    var game = K.challengeGame();   // TSH's game at this table, else the typed fields
    if (game === null) { return; }
    var sent = S.words.slice();
    var readIn = alphabetName();   // the alphabet the words were read in: the server checks it
    var answered = false;   // the server's answer came: a failure after it is this page's own
    setJudging(true);
    Promise.resolve()   // a fault in making the request is the page's, shown as such (below)
      .then(function () {
        var challenge = Object.assign(
          { words: sent.map(function (w) { return w.written(); }) }, game, K.finalPlay());
        var body = Object.assign({ attempt: attemptFor(challenge) }, challenge);
        if (readIn) { body.alphabet = readIn; }
        return K.fetchWithTimeout("/api/v1/adjudications", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(body),
        });
      })
      .then(function (response) {
        return response.json().then(
          function (body) { return { status: response.status, body: body }; },
          function () { return { status: response.status, body: null }; }
        );
      })
      .then(function (answer) {
        answered = true;
        setJudging(false);
        if (answer.status === 201 && isVerdict(answer.body, sent)) {
          keepAttempt(null);   // judged: the next challenge is a new one
          S.words = [];
          input.value = "";
          if (S.needsGame || S.asksChallenger) {
            K.rememberGame();
            K.gameInput("challenger").value = "";
          }
          K.clearFinalPlay();
          K.resetChallenger();
          renderChips();
          K.showVerdict(answer.body);
          K.refreshStatus();
        } else if (answer.status === 409) {   // a conflict: judged again, it is a new challenge
          keepAttempt(null);
          if (readIn && !again) {
            judgeInNewTiles(readIn, answer);   // perhaps the tournament's alphabet changed
          } else {
            K.showNotJudged(answer.status, answer.body);
          }
        } else {
          failedAttempt();   // maybe recorded: the same challenge, the same key
          K.showNotJudged(answer.status, answer.body);
        }
      })
      .catch(function (error) {
        setJudging(false);
        failedAttempt();   // its answer lost: maybe recorded
        if ((answered || !error || !error.requestFailed) && window.console) {
          console.error(error);   // a fault of the page's own: for whoever looks into it
        }
        K.showNotJudged(answered ? "unshown" : K.failureCode(error), null);
      });
  }

  /* The name of the alphabet the kiosk reads words in, as its status last said. */
  function alphabetName() {
    var lexicon = S.status && S.status.lexicon;
    return lexicon && lexicon.alphabet ? lexicon.alphabet.name : "";
  }

  /* A 409 to words read in `readIn`: if the status now brings another alphabet (the director
   * changed the tournament's lexicon), the words are read in it and judged once more; any
   * other conflict is shown as it is. Nothing was recorded either way. */
  function judgeInNewTiles(readIn, answer) {
    setJudging(true);
    K.refreshStatus().then(function () {
      setJudging(false);
      if (alphabetName() && alphabetName() !== readIn) {
        retypeWords();
        judge(true);
      } else {
        K.showNotJudged(answer.status, answer.body);
      }
    });
  }

  /* The challenge's attempt key. The same challenge sent again within RETRY_MS of its failed
   * try (its answer lost: the hall gives back the verdict it recorded, never records it
   * twice) keeps its key; any other challenge, or the same words judged again later (a play
   * made again on a later turn), gets a new one. */
  var RETRY_MS = 3 * 60 * 1000;
  // A failed try is kept in this tab's session storage too, so that a page reloaded after
  // NOT JUDGED still sends the same challenge with its key. Only a digest of the challenge
  // is kept there, not the words themselves (they are cleared from the screen after a while).
  var ATTEMPT_STORE = "adjudicator-attempt";

  function attemptFor(challenge) {
    var asked = digest(JSON.stringify(challenge));
    var kept = S.attempt;
    if (!kept || kept.asked !== asked || !(Date.now() - kept.failed < RETRY_MS)) {
      var bytes = window.crypto.getRandomValues(new Uint8Array(16));
      var key = Array.prototype.map.call(bytes, function (b) {
        return (b + 256).toString(16).slice(1);
      }).join("");
      S.attempt = { asked: asked, key: key, failed: null };
    }
    return S.attempt.key;
  }

  /* The try just sent failed, or its answer was lost: it may have been recorded. */
  function failedAttempt() {
    if (S.attempt) {
      S.attempt.failed = Date.now();
      keepAttempt(S.attempt);
    }
  }

  /* `attempt` (null: none) is this page's, and the tab's if a reload should keep it. */
  function keepAttempt(attempt) {
    S.attempt = attempt;
    try {
      if (attempt && attempt.failed) {
        window.sessionStorage.setItem(ATTEMPT_STORE, JSON.stringify(attempt));
      } else {
        window.sessionStorage.removeItem(ATTEMPT_STORE);
      }
    } catch (e) { /* no storage (a private window): kept by this page only */ }
  }

  /* The failed try this tab kept, if any (anything else there is dropped). */
  function keptAttempt() {
    try {
      var kept = JSON.parse(window.sessionStorage.getItem(ATTEMPT_STORE) || "null");
      if (kept && typeof kept.asked === "string" && typeof kept.failed === "number" &&
          typeof kept.key === "string" && /^[0-9a-f]{32}$/.test(kept.key)) {
        return kept;
      }
      window.sessionStorage.removeItem(ATTEMPT_STORE);
    } catch (e) { /* no storage, or not JSON */ }
    return null;
  }

  /* A short digest of `text` (cyrb53): tells one challenge from another, its text not kept. */
  function digest(text) {
    var h1 = 0xdeadbeef;
    var h2 = 0x41c6ce57;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  }

  /* A verdict is shown only if the answer is a whole adjudication of exactly these words. */
  function isVerdict(body, sent) {
    return Boolean(body) && Object.prototype.hasOwnProperty.call(K.VERDICTS, body.verdict) &&
      body.id !== undefined && body.id !== null && Array.isArray(body.words) &&
      body.words.length === sent.length &&
      body.words.every(function (w, i) { return w === sent[i].word(); });
  }

  function setJudging(on) {
    S.judging = on;
    judgeButton.disabled = on;
    judgeButton.textContent = on ? T("JUDGING…") : T("JUDGE");
    input.readOnly = on;
    K.GAME_FIELDS.forEach(function (name) {
      var box = K.gameInput(name);
      box.readOnly = on || Boolean(box.dataset.kioskTable);   // a seated kiosk's table stays
    });
    root.classList.toggle("is-judging", on);
  }

  K.expose(retypeWords, showHint, showProblem, renderChips, readWords);

  /* ---------- wiring ---------- */

  $("challenge-form").addEventListener("submit", function (event) {
    event.preventDefault();
    judge();
  });
  input.addEventListener("input", onInput);
  input.addEventListener("keydown", onKeyDown);
  chipList.addEventListener("click", function (event) {
    var button = event.target.closest(".chip-remove");
    if (button && !S.judging) { removeWord(Number(button.dataset.index)); }
    var split = event.target.closest(".chip-split");
    if (split && !S.judging) { splitOtherwise(Number(split.dataset.index)); }
  });
  $("word-box").addEventListener("click", function (event) {
    if (!event.target.closest("button")) { input.focus(); }
  });
  Tiles.wireRow($("tile-row"), input, function () {
    return !S.judging && root.dataset.state === "idle";
  });
  K.wireGame();
  K.wireTable();
  K.wireScreens();
  K.wireReceipts();

  K.restoreGame();
  S.attempt = keptAttempt();
  renderChips();
  K.showScreen("idle");
  window.KioskFit.keepFitted(root);
  K.refreshStatus();
  K.startPolling();
  input.focus();
})(window.Kiosk);
