/* What the kiosk can judge: the letters allowed, and a plain message for anything else.
 *
 * The kiosk never changes a word to make it judgeable: a word with a character that is not a
 * letter of the alphabet (a "?" for a blank, a hyphen, a digit, an accented letter), or one too
 * long, is refused as typed, with a message naming the word and the character, as the API does.
 * The allowed letters are A-Z (either case) until setLetters() gives the lexicon's alphabet.
 */
(function (global) {
  "use strict";

  var MIN_LETTERS = 2;
  var MAX_LETTERS = 15;
  var MAX_WORDS = 8;
  var SEPARATORS = /[\s,]+/g;
  var NAMES = {
    "?": "a question mark",
    "-": "a hyphen",
    "\u2010": "a hyphen",
    "\u2013": "a dash",
    "\u2014": "a dash",
    "'": "an apostrophe",
    "\u2019": "an apostrophe",
    "\u2018": "a quotation mark",
    '"': "a quotation mark",
    "\u201c": "a quotation mark",
    "\u201d": "a quotation mark",
    ".": "a full stop",
    "*": "an asterisk",
    "_": "an underscore",
    "/": "a slash",
    "\\": "a backslash",
    "!": "an exclamation mark",
    ";": "a semicolon",
    ":": "a colon",
    "(": "a bracket",
    ")": "a bracket",
    "[": "a bracket",
    "]": "a bracket",
    "&": "an ampersand",
    "+": "a plus sign",
    "#": "a hash sign",
    "@": "an at sign",
  };
  var INVISIBLE = /[\p{C}\p{Z}]/u;
  var LETTER = /\p{L}/u;
  var DIGIT = /\p{Nd}/u;

  var allowed = null;
  var lettersName = "";

  /* The letters the lexicon's alphabet allows, upper case; each is allowed in either case. */
  function setLetters(letters, name) {
    allowed = new Set();
    letters.forEach(function (letter) {
      allowed.add(letter);
      allowed.add(letter.toLowerCase());
    });
    lettersName = name;
  }

  function codePoint(ch) {
    var hex = ch.codePointAt(0).toString(16).toUpperCase();
    return "U+" + "0000".slice(hex.length) + hex;
  }

  /* Name a refused character so a player can find it in the box. */
  function describe(ch) {
    if (INVISIBLE.test(ch)) { return "an invisible character (" + codePoint(ch) + ")"; }
    if (NAMES[ch]) { return NAMES[ch] + " \u201c" + ch + "\u201d"; }
    if (DIGIT.test(ch)) { return "the digit \u201c" + ch + "\u201d"; }
    if (LETTER.test(ch)) {
      return "the letter \u201c" + ch + "\u201d (" + codePoint(ch) + "), which is not one of " +
        lettersName;
    }
    return "the character \u201c" + ch + "\u201d (" + codePoint(ch) + ")";
  }

  /* Why word number `position` cannot be judged as typed, or "" when it can. */
  function problem(word, position) {
    var chars = Array.from(word);
    for (var i = 0; i < chars.length; i++) {
      if (!allowed.has(chars[i])) {
        return "Word " + position + " (\u201c" + word + "\u201d) has " + describe(chars[i]) +
          " at position " + (i + 1) + ": use " + lettersName + " only. Type a blank as the " +
          "letter it stands for. Nothing is judged until it is fixed.";
      }
    }
    if (chars.length > MAX_LETTERS) {
      return "Word " + position + " (\u201c" + word + "\u201d) has " + chars.length +
        " letters: no word on a 15 x 15 board has more than " + MAX_LETTERS + ".";
    }
    if (position > MAX_WORDS) {
      return "Word " + position + " (\u201c" + word + "\u201d) is one too many: a play forms " +
        "at most " + MAX_WORDS + " words. Remove a word.";
    }
    return "";
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

  setLetters("ABCDEFGHIJKLMNOPQRSTUVWXYZ".split(""), "the letters A to Z");

  global.KioskWords = {
    MIN_LETTERS: MIN_LETTERS,
    MAX_LETTERS: MAX_LETTERS,
    MAX_WORDS: MAX_WORDS,
    setLetters: setLetters,
    problem: problem,
    pieces: pieces,
  };
})(window);
