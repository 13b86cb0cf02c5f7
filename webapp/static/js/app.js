/* MemoryOS Playground: CSRF for htmx, keyboard-reachable scrolling tables and code blocks,
   the phone nav, Copy buttons of fields shown once, times in the reader's zone. The chat's own script is chat.js. */
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


  // Copy buttons of a field or block shown once (the MCP token page): hidden without this
  // script, since they could do nothing; the result is said in the page's status line.
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      area.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }

  window.MemPlay = {csrfToken: csrfToken, markScrollBoxes: markScrollBoxes, copyText: copyText};

  function onCopyField(button) {
    var source = document.getElementById(button.dataset.copy);
    var status = document.querySelector(".copy-status");
    var label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    if (!source) return;
    copyText("value" in source ? source.value : source.textContent).then(function () {
      button.textContent = "Copied";
      if (status) status.textContent = button.dataset.done || "Copied.";
      setTimeout(function () { button.textContent = label; }, 2000);
    }, function () {
      button.textContent = label;
      if (status) status.textContent = "Copy failed: select the text and copy it by hand.";
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button.copy-field");
    if (button) onCopyField(button);
  });

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
  // Times come from the server in UTC, labelled so; shown here in the reader's own zone, named
  // (the UTC reading stays as the tooltip), so no reader has to convert.
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function zoneName(date) {
    try {
      var parts = new Intl.DateTimeFormat(undefined, {timeZoneName: "short"}).formatToParts(date);
      for (var i = 0; i < parts.length; i++) if (parts[i].type === "timeZoneName") return parts[i].value;
    } catch (e) { /* an old browser: the offset below */ }
    var off = -date.getTimezoneOffset();
    return "UTC" + (off >= 0 ? "+" : "-") + pad(Math.floor(Math.abs(off) / 60)) + ":" + pad(Math.abs(off) % 60);
  }
  function localTimes(root) {
    (root || document).querySelectorAll("time[datetime]:not([data-local])").forEach(function (el) {
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date.getTime())) return;
      el.title = el.textContent;
      el.textContent = date.getFullYear() + "-" + pad(date.getMonth() + 1) + "-" + pad(date.getDate()) +
        " " + pad(date.getHours()) + ":" + pad(date.getMinutes()) + " " + zoneName(date);
      el.setAttribute("data-local", "");
    });
  }
  window.MemPlay.localTimes = localTimes;

  document.addEventListener("htmx:afterSettle", function (event) {
    markScrollBoxes(event.target);
    localTimes();  // the whole page: an outerHTML swap's new element is not always the target
  });

  document.addEventListener("DOMContentLoaded", function () {
    markScrollBoxes();
    localTimes();
    document.querySelectorAll("button.copy-field[hidden]").forEach(function (b) { b.hidden = false; });
  });
})();
