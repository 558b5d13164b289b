/* A verdict for every player (NASPA's special needs practice), as the director set this kiosk
 * (`adjudicator kiosk access NAME --speak --large`, or the Kiosks page), given by the status
 * poll's `access`: each verdict said aloud in the tournament's language with the browser's own
 * speech synthesis, and a large, high-contrast screen.
 *
 * What is said is what the screen shows, word for word: the verdict, what it means and its
 * consequence (or NOT JUDGED alone), never a word of the challenge.
 */
(function (K) {
  "use strict";

  var S = K.state;

  /* The status's `access` ({speak, large}): speak from the next verdict on, and show the large
   * screen (the class on the root element makes kiosk-fit.js fit the page again). */
  function applyAccess(access) {
    var wanted = access || {};
    S.speaks = wanted.speak === true;
    var large = wanted.large === true;
    document.documentElement.classList.toggle("access-large", large);
    K.root.classList.toggle("access-large", large);
  }

  /* The texts of `parts`, as the screen shows them, as one text to say: each ends a sentence. */
  function spokenText(parts) {
    return parts
      .map(function (part) { return String(part || "").trim(); })
      .filter(Boolean)
      .map(function (part) { return /[.!?…:]$/.test(part) ? part : part + "."; })
      .join(" ");
  }

  /* Say `parts` (texts the screen shows) aloud, if this kiosk speaks, in the tournament's
   * language; a browser without speech says nothing (the screen and its live region still do). */
  function sayAloud(parts) {
    var text = spokenText(parts);
    var speech = window.speechSynthesis;
    if (!S.speaks || !text || !speech || typeof window.SpeechSynthesisUtterance !== "function") {
      return;
    }
    try {
      speech.cancel();   // a verdict before it is not said over this one
      var utterance = new window.SpeechSynthesisUtterance(text);
      utterance.lang = (S.status && S.status.tournament.language) || KioskText.language;
      utterance.rate = 0.9;
      speech.speak(utterance);
    } catch (ignored) { /* no voice here: the verdict is on the screen all the same */ }
  }

  K.expose(applyAccess, sayAloud);
})(window.Kiosk);
