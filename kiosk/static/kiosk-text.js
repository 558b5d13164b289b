/* The kiosk's words in its tournament's language, from the page's own catalogue.
 *
 * The server sends, with the page, the translations of every message the kiosk's scripts use
 * (`<script type="application/json" id="kiosk-text">`, from the same gettext catalogues as the
 * page: kiosk/kiosk_text.py). T("English text", {field: value}) gives a message in the page's
 * language; TN("one", "many", n, fields) the form for the count n. A message without a
 * translation (an English page) is its English text. Fields are written {name}; a field that
 * is a number is written as the language writes numbers (KioskText.number).
 */
(function (global) {
  "use strict";

  var data = { messages: {}, plurals: {}, plural_index: [], number: null };
  var element = document.getElementById("kiosk-text");
  if (element) {
    try { data = JSON.parse(element.textContent); } catch (ignored) { /* English */ }
  }

  /* A whole number as the page's language writes it (Babel's group separator and group
   * sizes, sent with the page): "279 496" in Polish, "279.496" in Spanish. */
  function number(n) {
    if (n === undefined || n === null) { return ""; }
    if (typeof n !== "number" || !isFinite(n)) { return String(n); }
    if (Math.floor(n) !== n) { return String(n); }   // the kiosk counts: no fractions to show
    var format = data.number || { group: ",", grouping: [3, 3], minus: "-" };
    var digits = String(Math.abs(n));
    var size = format.grouping[0] || 3;
    var groups = [];
    while (digits.length > size) {
      groups.unshift(digits.slice(-size));
      digits = digits.slice(0, -size);
      size = format.grouping[1] || size;
    }
    groups.unshift(digits);
    return (n < 0 ? format.minus : "") + groups.join(format.group);
  }

  function fill(text, fields) {
    if (!fields) { return text; }
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      if (!Object.prototype.hasOwnProperty.call(fields, name)) { return whole; }
      return typeof fields[name] === "number" ? number(fields[name]) : String(fields[name]);
    });
  }

  function T(text, fields) {
    var said = data.messages[text];
    return fill(typeof said === "string" && said ? said : text, fields);
  }

  function TN(one, many, n, fields) {
    var forms = data.plurals[one];
    var index = data.plural_index[Math.min(Math.max(n, 0), data.plural_index.length - 1)];
    var text = forms && typeof index === "number" && forms[index] ? forms[index]
      : (n === 1 ? one : many);
    return fill(text, Object.assign({ n: n }, fields || {}));
  }

  global.T = T;
  global.TN = TN;
  global.KioskText = {
    language: document.documentElement.lang || "en", T: T, TN: TN, number: number,
  };
})(window);
