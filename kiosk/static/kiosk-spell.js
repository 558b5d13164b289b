/* The typed words as tiles: each word on its way to JUDGE, and how the server reads it.
 *
 * Where every character is one tile (English, Polish) a word's tiles are known as it is typed.
 * Where tiles have several letters (Spanish CH, Catalan L·L) or accents are read as plain letters,
 * the server reads the words (POST /api/v1/spell): the matching rules live in one place, the
 * library, and the kiosk shows exactly the tiles the adjudication will read. The server also
 * gives the other ways a word's letters split into tiles ([CH]ICO or [C][H]ICO), and the typing
 * that reads as each; the players choose one before JUDGE. Reading a word never consults the
 * lexicon, so it says nothing about whether the word is valid.
 */
(function (global) {
  "use strict";

  var Words = global.KioskWords;

  /* A word typed into the kiosk. `typed` is as typed; once read, `readings` are the ways its
   * letters split into tiles ({tiles, word, written}) and `current` the one the players chose. */
  function Chip(typed) {
    this.typed = typed;
    this.readings = null;
    this.current = 0;
    this.problem = "";
    var tiles = Words.tilesOf(typed);
    if (tiles) {
      var word = tiles.join("");
      this.readings = [{ tiles: tiles, word: word, written: word }];
    }
  }

  Chip.prototype.isRead = function () { return Boolean(this.readings) || Boolean(this.problem); };
  Chip.prototype.reading = function () { return this.readings && this.readings[this.current]; };
  /* The canonical spelling the adjudication will return ("[CH]ICO"). */
  Chip.prototype.word = function () { return this.reading() ? this.reading().word : ""; };
  /* What is sent to be judged: typing that reads as exactly the chosen tiles. */
  Chip.prototype.written = function () { return this.reading().written; };
  Chip.prototype.tiles = function () { return this.reading() ? this.reading().tiles : []; };
  /* The word as the players see it, in plain text: its tiles, or as typed until it is read. */
  Chip.prototype.label = function () {
    return this.reading() ? this.tiles().join("") : this.typed.toUpperCase();
  };
  Chip.prototype.canSplitOtherwise = function () {
    return Boolean(this.readings) && this.readings.length > 1;
  };
  /* The next way to split the letters into tiles, round and round. */
  Chip.prototype.splitOtherwise = function () {
    if (this.canSplitOtherwise()) {
      this.current = (this.current + 1) % this.readings.length;
    }
  };

  /* Take the server's reading of a chip; the players' choice of split is kept if it still
   * reads the same letters. */
  Chip.prototype.take = function (answer) {
    if (!answer || typeof answer !== "object") { return; }
    if (typeof answer.problem === "string" && answer.problem) {
      // said in the page's language when the server can (the English problem otherwise)
      this.problem = typeof answer.shown_problem === "string" && answer.shown_problem
        ? answer.shown_problem : answer.problem;
      this.readings = null;
      this.current = 0;
      return;
    }
    if (!Array.isArray(answer.readings) || !answer.readings.length) { return; }
    var chosen = this.reading() ? this.reading().word : null;
    var keep = answer.readings.findIndex(function (r) { return r.word === chosen; });
    this.readings = answer.readings;
    this.problem = "";
    this.current = keep >= 0 ? keep
      : Math.min(Math.max(0, Number(answer.current) || 0), answer.readings.length - 1);
  };

  /* Reads chips through the server. `request(url, options)` is the page's fetch with timeout. */
  function Reader(request) {
    this.request = request;
    this.pending = null;   // {key, promise}: the request under way
  }

  /* Read every chip not yet read (all chips are sent, so "Word N" numbers them as shown).
   * Resolves when done; rejects with {status, body} or the fetch error. */
  Reader.prototype.read = function (chips) {
    if (chips.every(function (chip) { return chip.isRead(); })) { return Promise.resolve(); }
    var key = chips.map(function (chip) { return chip.typed; }).join("\n");
    if (this.pending && this.pending.key === key) { return this.pending.promise; }
    var sent = chips.slice();
    var self = this;
    var promise = this.request("/api/v1/spell", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ words: sent.map(function (chip) { return chip.typed; }) }),
    })
      .then(function (response) {
        return response.json().then(
          function (body) { return { status: response.status, body: body }; },
          function () { return { status: response.status, body: null }; }
        );
      })
      .then(function (answer) {
        var body = answer.body;
        if (answer.status !== 200 || !body || !Array.isArray(body.words) ||
            body.words.length !== sent.length) {
          throw answer;
        }
        sent.forEach(function (chip, index) { chip.take(body.words[index]); });
        if (!sent.every(function (chip) { return chip.isRead(); })) {
          throw { status: 500, body: null };   // an answer that is not a reading of each word
        }
      })
      .finally(function () {
        if (self.pending && self.pending.promise === promise) { self.pending = null; }
      });
    this.pending = { key: key, promise: promise };
    return promise;
  };

  /* The chips' problems need numbering afresh after a chip before them goes: read them again. */
  Reader.prototype.forgetProblems = function (chips) {
    chips.forEach(function (chip) {
      if (chip.problem) { chip.problem = ""; }
    });
  };

  global.KioskSpell = { Chip: Chip, Reader: Reader };
})(window);
