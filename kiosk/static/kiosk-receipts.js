/* The kiosk's receipts: this kiosk keeps what it was shown, as a witness of the journal.
 *
 * Each verdict's signed receipt is kept on this screen (the newest 500); the status poll sends
 * the newest one; the docket prints its code and a QR code of the whole receipt; a long press
 * on the status bar offers them all as the file `adjudicator journal audit` reads.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var root = K.root;
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

  /* Keep a receipt. The same receipt again replaces itself; a receipt whose number this
   * kiosk already holds with other content (the journal rolled back, its numbers issued
   * again) is kept beside it, never in its place: both are the evidence, and the one kept
   * before is reported to the server at once, as a witness. */
  function keepReceipt(receipt) {
    if (!receipt || typeof receipt !== "object") { return; }
    var conflicts = [];
    var list = storedReceipts().filter(function (kept) {
      var same = kept.id === receipt.id && kept.journal === receipt.journal;
      if (same && kept.row_hash !== receipt.row_hash) { conflicts.push(kept); }
      return !same || kept.row_hash !== receipt.row_hash;
    });
    list.push(receipt);
    if (list.length > MAX_RECEIPTS) { list = list.slice(list.length - MAX_RECEIPTS); }
    try {
      window.localStorage.setItem(RECEIPTS_KEY, JSON.stringify(list));
    } catch (error) { /* storage full or off: the verdict was recorded all the same */ }
    conflicts.forEach(reportConflict);
  }

  /* A number came back with other content: send the receipt kept before as a witness now
   * (the director's overview raises the alarm), without waiting for the next poll. */
  function reportConflict(older) {
    K.fetchWithTimeout("/api/v1/kiosk", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ witness: older }),
    }).catch(function () { /* the receipt stays kept; the download holds both */ });
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
    K.fetchWithTimeout("/api/v1/kiosk/receipt-qr", {
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
    K.setText("receipts-count", K.formatCount(storedReceipts().length));
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

  /* The long press on the status bar, and the panel's buttons. */
  function wireReceipts() {
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
      K.input.focus();
    });
  }

  K.expose(keepReceipt, newestReceipt, receiptCode, loadReceiptQr, wireReceipts);
})(window.Kiosk);
