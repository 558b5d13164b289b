/* The kiosk's words in its tournament's language, from the page's own catalogue.
 *
 * The server sends, with the page, the translations of every message the kiosk's scripts use
 * (`<script type="application/json" id="kiosk-text">`, from the same gettext catalogues as the
 * page: kiosk/kiosk_text.py). T("English text", {field: value}) gives a message in the page's
 * language; TN("one", "many", n, fields) the form for the count n. A message without a
 * translation (an English page) is its English text. Fields are written {name}.
 */
(function (global) {
  "use strict";

  var data = { messages: {}, plurals: {}, plural_index: [] };
  var element = document.getElementById("kiosk-text");
  if (element) {
    try { data = JSON.parse(element.textContent); } catch (ignored) { /* English */ }
  }

  function fill(text, fields) {
    if (!fields) { return text; }
    return text.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(fields, name) ? String(fields[name]) : whole;
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
  global.KioskText = { language: document.documentElement.lang || "en", T: T, TN: TN };
})(window);
