/* Fit the kiosk to its screen: nothing on it may need scrolling.
 *
 * The style sheet sizes everything from the viewport; what it cannot know is the content (eight
 * long words, a banner, extra rows). After any change to the page, the layout steps down through
 * denser levels (data-fit 0 to 5, see kiosk.css) until the page no longer overflows the screen.
 * A big screen (a 1080p hall screen) starts from two roomier levels (-2 and -1), whose larger
 * text reads from two metres, when the page fits with them.
 */
(function (global) {
  "use strict";

  var LEVELS = 6;
  var ROOMY = 2;   // levels -2 and -1: larger text where the screen has the room

  function overflows() {
    var page = document.documentElement;
    return page.scrollHeight > window.innerHeight || page.scrollWidth > window.innerWidth;
  }

  /* The roomiest layout of `root` that fits; returns the level used. */
  function fit(root) {
    for (var level = -ROOMY; level < LEVELS; level++) {
      root.dataset.fit = String(level);
      if (!overflows()) { return level; }
    }
    return LEVELS - 1;
  }

  /* Refit `root` once per frame whenever its content, its visibility or the window changes. */
  function keepFitted(root) {
    var queued = false;
    var refit = function () {
      if (queued) { return; }
      queued = true;
      window.requestAnimationFrame(function () {
        queued = false;
        fit(root);
      });
    };
    new MutationObserver(refit).observe(root, {
      childList: true,
      subtree: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["hidden", "class"],
    });
    window.addEventListener("resize", refit);
    fit(root);
    return refit;
  }

  global.KioskFit = { fit: fit, keepFitted: keepFitted };
})(window);
