/* MemoryOS Playground: CSRF for htmx, keyboard-reachable scrolling tables and code blocks,
   the phone nav. The chat's own script is chat.js. */
(function () {
  "use strict";
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRFToken"] = csrfToken();
  });

  // A table (or code block) wider than its box scrolls inside it; a keyboard must be able to
  // reach and scroll that box, so it becomes a named tab stop while (and only while) it overflows.
  function markScrollBoxes(root) {
    (root || document).querySelectorAll(".table-wrap, .md pre").forEach(function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        var label = wrap.dataset.label || (wrap.matches("pre") ? "Code" : "Table");
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", label + " (scrolls sideways)");
      } else {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }

  window.MemPlay = {csrfToken: csrfToken, markScrollBoxes: markScrollBoxes};

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { markScrollBoxes(); }, 150);
  });
  // The phone nav is one row that scrolls sideways: bring a link focused by keyboard into view.
  document.addEventListener("focusin", function (event) {
    var target = event.target;
    if (target.closest && target.closest(".topbar nav")) {
      target.scrollIntoView({block: "nearest", inline: "nearest"});
    }
  });
  document.addEventListener("htmx:afterSettle", function (event) { markScrollBoxes(event.target); });

  document.addEventListener("DOMContentLoaded", function () { markScrollBoxes(); });
})();
