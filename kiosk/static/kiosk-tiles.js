/* Words drawn as tiles, and the row of special tiles a tablet's keyboard may not have.
 *
 * A tile of several letters (Spanish CH, Catalan L·L) is drawn as one tile. The row holds the
 * alphabet's tiles that are not plain A-Z letters (Ą Ę Ł ...; CH LL RR Ñ; L·L NY QU Ç): tapping
 * one types it into the word box, a tile of several letters in brackets ("[RR]") so that it is
 * read as that tile whatever is typed around it. English kiosks have no row.
 */
(function (global) {
  "use strict";

  function isMulti(tile) { return Array.from(tile).length > 1; }

  /* Append `tiles` to `parent` as tile elements. */
  function drawTiles(parent, tiles) {
    tiles.forEach(function (tile) {
      var box = document.createElement("span");
      box.className = isMulti(tile) ? "tile tile-multi" : "tile";
      box.textContent = tile;
      parent.appendChild(box);
    });
  }

  /* "CH I C O": the tiles as a screen reader should say them. */
  function spoken(tiles) {
    return tiles.join(" ");
  }

  /* "4 tiles: C H A T". */
  function counted(tiles) {
    return TN("{n} tile: {tiles}", "{n} tiles: {tiles}", tiles.length, { tiles: spoken(tiles) });
  }

  /* A typed word (a KioskSpell.Chip) in the box: plain letters in English, else its tiles; a
   * button (data-index `index`) when its letters split into tiles in more than one way. */
  function wordElement(word, index, english) {
    var element;
    if (word.canSplitOtherwise()) {
      element = document.createElement("button");
      element.type = "button";
      element.className = "chip-word chip-split";
      element.dataset.index = String(index);
      element.setAttribute("aria-label", T("{word} as {tiles}. Press to split it into tiles " +
        "another way.", { word: word.label(), tiles: counted(word.tiles()) }));
    } else {
      element = document.createElement("span");
      element.className = "chip-word";
    }
    if (english || !word.reading()) {
      element.textContent = word.label();
    } else {
      drawTiles(element, word.tiles());
    }
    if (word.canSplitOtherwise()) {
      var mark = document.createElement("span");
      mark.className = "split-mark";
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = "\u21c4";
      element.appendChild(mark);
    }
    return element;
  }

  /* What tapping a special tile types into the box. */
  function typedFor(tile) {
    return isMulti(tile) ? "[" + tile + "]" : tile;
  }

  /* Fill the row `row` with a button for each special tile; hidden when there are none. */
  function buildRow(row, specialTiles) {
    row.textContent = "";
    (specialTiles || []).forEach(function (tile) {
      var key = document.createElement("button");
      key.type = "button";
      key.className = isMulti(tile) ? "tile-key tile-key-multi" : "tile-key";
      key.dataset.tile = tile;
      key.textContent = tile;
      key.setAttribute("aria-label", T("Type the tile {tile}", { tile: tile }));
      row.appendChild(key);
    });
    row.hidden = !row.childElementCount;
  }

  /* Type `text` into `input` where its caret is, as if typed there. */
  function typeInto(input, text) {
    var length = input.value.length;
    var start = typeof input.selectionStart === "number" ? input.selectionStart : length;
    var end = typeof input.selectionEnd === "number" ? input.selectionEnd : start;
    input.setRangeText(text, start, end, "end");
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  /* Wire the row: a tap types the tile into `input` and leaves the caret (and a tablet's
   * on-screen keyboard) there. `canType()` says whether typing is open now. */
  function wireRow(row, input, canType) {
    // Keep the focus in the box on a mouse or touch press, so the keyboard stays up.
    row.addEventListener("pointerdown", function (event) {
      if (event.target.closest(".tile-key")) { event.preventDefault(); }
    });
    row.addEventListener("click", function (event) {
      var key = event.target.closest(".tile-key");
      if (!key || !canType()) { return; }
      if (document.activeElement !== input) { input.focus(); }
      typeInto(input, typedFor(key.dataset.tile));
    });
  }

  global.KioskTiles = {
    drawTiles: drawTiles,
    spoken: spoken,
    counted: counted,
    wordElement: wordElement,
    typedFor: typedFor,
    buildRow: buildRow,
    wireRow: wireRow,
  };
})(window);
