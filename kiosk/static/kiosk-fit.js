/* Fit the kiosk to its screen: nothing on it may need scrolling.
 *
 * The style sheet sizes everything from the viewport; what it cannot know is the content (eight
 * long words, a banner, extra rows). After any change to the page, the layout steps down through
 * denser levels (data-fit 0 to 4, see kiosk.css) until the page no longer overflows the screen.
 */
(function (global) {
  "use strict";

  var LEVELS = 5;

  function overflows() {
    var page = document.documentElement;
    return page.scrollHeight > window.innerHeight || page.scrollWidth > window.innerWidth;
  }

  /* The largest level-0-first layout of `root` that fits; returns the level used. */
  function fit(root) {
    for (var level = 0; level < LEVELS; level++) {
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
