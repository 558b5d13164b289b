/* What the kiosk can judge: the characters the alphabet reads, and a plain message for the rest.
 *
 * The kiosk never changes a word to make it judgeable: a word with a character the tournament
 * lexicon's alphabet does not read (a "?" for a blank, a hyphen, a digit, a letter the tiles do
 * not have), or one too long, is refused as typed, with a message naming the word and the
 * character, as the API does. The characters read, each with its upper case, come from the
 * server (`lexicon.alphabet.reads` in GET /api/v1/kiosk); until setAlphabet() gives them, A-Z.
 * In an alphabet where each character is one tile, a word's tiles are its characters in upper
 * case; otherwise the server reads the tiles (POST /api/v1/spell, see kiosk-spell.js).
 */
(function (global) {
  "use strict";

  var MIN_LETTERS = 2;
  var MAX_LETTERS = 15;
  var MAX_WORDS = 8;
  var SEPARATORS = /[\s,]+/g;
  var NAMES = {
    "?": T("a question mark"),
    "-": T("a hyphen"),
    "\u2010": T("a hyphen"),
    "\u2013": T("a dash"),
    "\u2014": T("a dash"),
    "'": T("an apostrophe"),
    "\u2019": T("an apostrophe"),
    "\u2018": T("a quotation mark"),
    '"': T("a quotation mark"),
    "\u201c": T("a quotation mark"),
    "\u201d": T("a quotation mark"),
    ".": T("a full stop"),
    "*": T("an asterisk"),
    "_": T("an underscore"),
    "/": T("a slash"),
    "\\": T("a backslash"),
    "!": T("an exclamation mark"),
    ";": T("a semicolon"),
    ":": T("a colon"),
    "(": T("a bracket"),
    ")": T("a bracket"),
    "[": T("a bracket"),
    "]": T("a bracket"),
    "&": T("an ampersand"),
    "+": T("a plus sign"),
    "#": T("a hash sign"),
    "@": T("an at sign"),
  };
  var INVISIBLE = /[\p{C}\p{Z}]/u;
  var LETTER = /\p{L}/u;
  var DIGIT = /\p{Nd}/u;

  var AZ = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");
  var reads = null;           // character -> its upper case, for every character the alphabet reads
  var letterByLetter = true;  // each character read is one tile (no multi-letter tiles, no folds)
  var lettersName = "";       // "the letters A to Z", "the spanish tiles"
  var useOnly = "";           // what the refusal asks for

  /* The tournament lexicon's alphabet, as GET /api/v1/kiosk gives it (lexicon.alphabet). */
  function setAlphabet(alphabet) {
    reads = new Map(Object.entries(alphabet.reads || {}));
    letterByLetter = alphabet.letter_by_letter !== false;
    if (isEnglish(alphabet)) {
      lettersName = T("the letters A to Z");
      useOnly = T("use the letters A to Z only.");
    } else {
      lettersName = T("the {name} tiles", { name: shownName(alphabet) });
      useOnly = T("use the {name} tiles only: {tiles}.",
        { name: shownName(alphabet), tiles: tileList(alphabet) });
    }
  }

  /* The alphabet's name as the kiosk's language says it ("català"), from the status. */
  function shownName(alphabet) {
    return alphabet.shown_title || alphabet.title || alphabet.name;
  }

  /* The tiles, said shortly: "A to Z without K and W, and CH LL Ñ RR". */
  function tileList(alphabet) {
    var missing = AZ.filter(function (letter) { return alphabet.tiles.indexOf(letter) < 0; });
    if (missing.length > 8) { return alphabet.tiles.join(" "); }
    var text = T("A to Z");
    if (missing.length) {
      var letters = missing[0];
      if (missing.length > 1) {
        letters = T("{first} and {last}",
          { first: missing.slice(0, -1).join(", "), last: missing[missing.length - 1] });
      }
      text = T("A to Z without {letters}", { letters: letters });
    }
    return alphabet.special_tiles.length
      ? T("{letters}, and {tiles}", { letters: text, tiles: alphabet.special_tiles.join(" ") })
      : text;
  }

  function isEnglish(alphabet) {
    return alphabet.name === "english" && alphabet.special_tiles.length === 0;
  }

  /* A word as the alphabet reads characters: Unicode NFC, as the server reads it. */
  function nfc(word) {
    return word.normalize("NFC");
  }

  function codePoint(ch) {
    var hex = ch.codePointAt(0).toString(16).toUpperCase();
    return "U+" + "0000".slice(hex.length) + hex;
  }

  /* Name a refused character so a player can find it in the box. */
  function describe(ch) {
    if (INVISIBLE.test(ch)) { return T("an invisible character ({code})", { code: codePoint(ch) }); }
    if (NAMES[ch]) { return T("{name} “{char}”", { name: NAMES[ch], char: ch }); }
    if (DIGIT.test(ch)) { return T("the digit “{char}”", { char: ch }); }
    if (LETTER.test(ch)) {
      return T("the letter “{char}” ({code}), which is not one of {letters}",
        { char: ch, code: codePoint(ch), letters: lettersName });
    }
    return T("the character “{char}” ({code})", { char: ch, code: codePoint(ch) });
  }

  function readable(ch) {
    return reads.has(ch) || (!letterByLetter && (ch === "[" || ch === "]"));
  }

  /* Why word number `position` cannot be judged as typed, or "" when it can (as far as the
   * characters go: where tiles have several letters, the server reads the rest). */
  function problem(word, position) {
    var chars = Array.from(nfc(word));
    for (var i = 0; i < chars.length; i++) {
      if (!readable(chars[i])) {
        return T("Word {position} (“{word}”) has {what} at position {index}: {use} " +
          "Type a blank as the letter it stands for. Nothing is judged until it is fixed.",
          { position: position, word: word, what: describe(chars[i]), index: i + 1,
            use: useOnly });
      }
    }
    if (letterByLetter && chars.length > MAX_LETTERS) {
      return T("Word {position} (“{word}”) has {count} letters: no word on a 15 x 15 board " +
        "has more than {most}.",
        { position: position, word: word, count: chars.length, most: MAX_LETTERS });
    }
    if (position > MAX_WORDS) {
      return T("Word {position} (“{word}”) is one too many: a play forms at most {most} " +
        "words. Remove a word.", { position: position, word: word, most: MAX_WORDS });
    }
    return "";
  }

  /* The tiles of a word with no problem, where each character is one tile; else null (the
   * server reads them). */
  function tilesOf(word) {
    if (!letterByLetter) { return null; }
    return Array.from(nfc(word)).map(function (ch) { return reads.get(ch); });
  }

  /* The tiles of a canonical spelling ("[CH]ICO"): a bracketed tile, else one character each. */
  function canonicalTiles(canonical) {
    var tiles = [];
    var chars = Array.from(canonical);
    for (var i = 0; i < chars.length; i++) {
      if (chars[i] === "[") {
        var end = chars.indexOf("]", i);
        if (end < 0) { end = chars.length; }
        tiles.push(chars.slice(i + 1, end).join(""));
        i = end;
      } else {
        tiles.push(chars[i]);
      }
    }
    return tiles;
  }

  /* Split `text` into its complete words (each followed by a separator) and the rest. */
  function pieces(text) {
    var complete = [];
    var start = 0;
    var match;
    SEPARATORS.lastIndex = 0;
    while ((match = SEPARATORS.exec(text)) !== null) {
      if (match.index > start) { complete.push(text.slice(start, match.index)); }
      start = SEPARATORS.lastIndex;
    }
    return { complete: complete, rest: text.slice(start) };
  }

  var english = {};
  AZ.forEach(function (letter) {
    english[letter] = letter;
    english[letter.toLowerCase()] = letter;
  });
  setAlphabet({ name: "english", tiles: AZ, special_tiles: [], reads: english,
                letter_by_letter: true });

  global.KioskWords = {
    MIN_LETTERS: MIN_LETTERS,
    MAX_LETTERS: MAX_LETTERS,
    MAX_WORDS: MAX_WORDS,
    setAlphabet: setAlphabet,
    isEnglish: isEnglish,
    shownName: shownName,
    problem: problem,
    tilesOf: tilesOf,
    canonicalTiles: canonicalTiles,
    pieces: pieces,
  };
})(window);
