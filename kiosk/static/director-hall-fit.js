/* The hall map as large as the screen allows (a projector across the room): the number of
 * columns and the tiles' size (--tile-columns, --tile-font, --tile-height on #hall-map,
 * director.css) that show every table on the screen at the largest size, the tiles as tall as
 * the screen leaves room for, worked out again when the window changes
 * and when the tiles are refreshed (director-refresh.js). 40 tables fill a 1920x1080 screen;
 * where even the smallest tiles cannot all fit, the page scrolls.
 */
(function () {
  "use strict";

  var map = document.getElementById("hall-map");
  if (!map) { return; }
  var TILE_EMS = 7.2;   // a tile's height, in its own font size (director.css)
  var TILE_EXTRA = 2;   // its top and bottom border, in pixels
  var WIDTH_EMS = 9;    // the narrowest a tile reads well at ("● 2 challenges ⚑", two names)
  var SMALLEST = 11;    // px: below this the page scrolls instead
  var LARGEST = 40;     // px: a few tables are large enough at this

  /* The largest font size for `columns` columns of the lists `counts`, in `width` x `height`
   * pixels, with `gap` pixels between tiles. */
  function sizeFor(columns, counts, width, height, gap) {
    var grid = rowsOf(columns, counts, gap);
    var across = (width - (columns - 1) * gap) / columns / WIDTH_EMS;
    var down = (height - grid.gaps - grid.rows * TILE_EXTRA) / (grid.rows * TILE_EMS);
    return Math.min(across, down);
  }

  function pageHeight() {
    return document.body.getBoundingClientRect().height;
  }

  function rowsOf(columns, counts, gap) {
    var rows = 0;
    var gaps = 0;
    counts.forEach(function (count) {
      var here = Math.ceil(count / columns);
      rows += here;
      gaps += Math.max(0, here - 1) * gap;
    });
    return { rows: rows, gaps: gaps };
  }

  /* Size the tiles for `columns` columns in `room` pixels of height: the largest font that
   * fits, and tiles as tall as the room allows (at most 10em: a few tables stay tiles). */
  function apply(columns, counts, width, room, gap) {
    var size = sizeFor(columns, counts, width, room, gap);
    var font = Math.max(SMALLEST, Math.min(LARGEST, Math.floor(size)));
    var grid = rowsOf(columns, counts, gap);
    var tallest = Math.floor((room - grid.gaps) / grid.rows);
    var height = Math.max(TILE_EMS * font + TILE_EXTRA, Math.min(tallest, 10 * font));
    map.style.setProperty("--tile-columns", String(columns));
    map.style.setProperty("--tile-font", font + "px");
    map.style.setProperty("--tile-height", Math.floor(height) + "px");
    map.dataset.columns = String(columns);
  }

  function fit() {
    var lists = Array.prototype.slice.call(map.querySelectorAll(".tiles"));
    var counts = lists.map(function (list) { return list.children.length; });
    var most = Math.max.apply(null, counts.concat([0]));
    if (!most) {
      delete map.dataset.columns;
      return;
    }
    var tilesHeight = lists.reduce(function (sum, list) {
      return sum + list.getBoundingClientRect().height;
    }, 0);
    var room = window.innerHeight - (pageHeight() - tilesHeight) - 2;
    var width = lists[0].clientWidth;
    var gap = parseFloat(window.getComputedStyle(lists[0]).rowGap) || 0;
    var best = { columns: 1, size: 0 };
    for (var columns = 1; columns <= most; columns++) {
      if ((width - (columns - 1) * gap) / columns < SMALLEST * WIDTH_EMS) { break; }  // too narrow
      var size = sizeFor(columns, counts, width, room, gap);
      if (size > best.size) { best = { columns: columns, size: size }; }
    }
    apply(best.columns, counts, width, room, gap);
    // what the sums cannot foresee (a heading that wraps anew): less room until the page fits
    for (var step = 0; step < 60 && pageHeight() > window.innerHeight; step++) {
      room -= 6;
      apply(best.columns, counts, width, room, gap);
    }
  }

  var queued = false;
  function refit() {
    if (queued) { return; }
    queued = true;
    window.requestAnimationFrame(function () {
      queued = false;
      fit();
    });
  }

  new MutationObserver(refit).observe(map, { childList: true });
  window.addEventListener("resize", refit);
  fit();
})();
