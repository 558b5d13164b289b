/* The pairing page: a pairing link carries its code after '#', which browsers never send to
 * the server (so no log holds it). Put the code in the form, then drop it from the address bar.
 */
(function () {
  "use strict";
  var code = decodeURIComponent(window.location.hash.replace(/^#/, "")).trim();
  var input = document.getElementById("code");
  if (code && input && !input.value) {
    input.value = code;
  }
  if (window.location.hash && window.history && window.history.replaceState) {
    window.history.replaceState(null, "", window.location.pathname);
  }
})();
