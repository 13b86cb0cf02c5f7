/* MemoryOS Playground: CSRF for htmx, Enter-to-send, streamed answers (SSE over fetch),
   one screen-reader announcement per answer, keyboard-reachable scrolling tables. */
(function () {
  "use strict";
  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  document.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["X-CSRFToken"] = csrfToken();
  });

  // Screen readers hear each finished answer once, from #answer-status: the streamed tokens
  // go into a plain element (no aria-live), so they are not read piece by piece.
  function announce(exchange) {
    var status = document.getElementById("answer-status");
    var md = exchange && exchange.querySelector(".assistant .md");
    if (!status || !md) return;
    status.textContent = "Assistant: " + md.textContent.trim();
  }

  function lastExchange(box) {
    var all = box.querySelectorAll("article.exchange:not(.streaming)");
    return all.length ? all[all.length - 1] : null;
  }

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

  function scrollMessages() {
    var box = document.getElementById("messages");
    if (box) box.scrollTop = box.scrollHeight;
  }

  function appendHTML(box, html) {
    var hint = document.getElementById("empty-hint");
    if (hint) hint.remove();
    var holder = document.createElement("div");
    holder.innerHTML = html; // server-rendered fragment: escaped text and nh3-cleaned Markdown
    // Out-of-band parts (the short-term gauge) replace the element with the same id.
    holder.querySelectorAll("[hx-swap-oob]").forEach(function (part) {
      var target = document.getElementById(part.id);
      part.removeAttribute("hx-swap-oob");
      if (target) target.replaceWith(part); else part.remove();
    });
    while (holder.firstChild) box.appendChild(holder.firstChild);
    if (window.htmx) window.htmx.process(box);
    markScrollBoxes(box);
    scrollMessages();
  }

  function parseEvents(buffer, onEvent) {
    var parts = buffer.split("\n\n");
    var rest = parts.pop();
    parts.forEach(function (chunk) {
      var name = "message", data = "";
      chunk.split("\n").forEach(function (line) {
        if (line.indexOf("event: ") === 0) name = line.slice(7);
        else if (line.indexOf("data: ") === 0) data += line.slice(6);
      });
      if (data) onEvent(name, JSON.parse(data));
    });
    return rest;
  }

  function streamChat(form, textarea) {
    if (form.dataset.busy) return;
    form.dataset.busy = "1";
    var box = document.getElementById("messages");
    var pending = document.getElementById("pending");
    var button = form.querySelector("button[type=submit]");
    var text = textarea.value;
    var live = document.createElement("article");
    live.className = "exchange streaming";
    var user = document.createElement("div");
    user.className = "bubble user";
    user.innerHTML = '<div class="who">You</div><div class="text"></div>';
    user.querySelector(".text").textContent = text; // never parsed as HTML
    var answer = document.createElement("div");
    answer.className = "bubble assistant";
    answer.innerHTML = '<div class="who">Assistant</div><div class="text"></div>';
    live.appendChild(user);
    live.appendChild(answer);
    var hint = document.getElementById("empty-hint");
    if (hint) hint.remove();
    box.appendChild(live);
    scrollMessages();
    var out = answer.querySelector(".text");
    live.setAttribute("aria-busy", "true");
    // Not `disabled`: a disabled button that has focus drops it to <body>. Keep focus in the
    // message box so the next message can be written while this answer streams.
    button.setAttribute("aria-disabled", "true");
    if (document.activeElement === button || document.activeElement === document.body) {
      textarea.focus();
    }
    pending.classList.add("htmx-request");
    textarea.value = "";
    var body = new FormData(form);
    body.set("message", text);
    fetch(form.dataset.streamUrl, {
      method: "POST", body: body, credentials: "same-origin",
      headers: {"X-CSRFToken": csrfToken(), "Accept": "text/event-stream"}
    }).then(function (response) {
      if (!response.ok || !response.body) {
        return response.text().then(function (html) { live.remove(); appendHTML(box, html); });
      }
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) return;
          buffer = parseEvents(buffer + decoder.decode(step.value, {stream: true}), function (name, data) {
            if (name === "token") { out.textContent += data.text; scrollMessages(); }
            else if (name === "done") {
              live.remove(); appendHTML(box, data.html); announce(lastExchange(box));
            }
            else if (name === "error") { live.remove(); appendHTML(box, data.html); if (!textarea.value) textarea.value = text; }
          });
          return pump();
        });
      }
      return pump();
    }).catch(function (err) {
      live.remove();
      var div = document.createElement("div");
      div.className = "alert alert-error";
      div.setAttribute("role", "alert");
      div.textContent = "Connection failed: " + err;
      box.appendChild(div);
      if (!textarea.value) textarea.value = text;
    }).finally(function () {
      delete form.dataset.busy;
      button.removeAttribute("aria-disabled");
      pending.classList.remove("htmx-request");
      // Back to the message box, unless the reader moved elsewhere (a link, the page).
      var active = document.activeElement;
      if (!active || active === document.body || form.contains(active)) textarea.focus();
    });
  }

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

  document.addEventListener("DOMContentLoaded", function () {
    markScrollBoxes();
    var form = document.getElementById("chat-form");
    if (!form) return;
    var textarea = form.querySelector("textarea");
    scrollMessages();
    // The chat page starts in the message box (autofocus, and here for browsers that skip it).
    if (!location.hash && (!document.activeElement || document.activeElement === document.body)) {
      textarea.focus({preventScroll: true});
    }
    textarea.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        if (textarea.value.trim()) form.requestSubmit();
      }
    });
    var canStream = !!(window.fetch && window.ReadableStream && window.TextDecoder);
    if (canStream && form.dataset.streamUrl) {
      // Streaming replaces the htmx POST; without it the htmx (or plain) POST stays in charge.
      form.removeAttribute("hx-post");
      if (window.htmx) window.htmx.process(form);
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        if (textarea.value.trim()) streamChat(form, textarea);
      }, true);
    } else {
      form.addEventListener("htmx:afterRequest", function (event) {
        form.reset();
        textarea.focus();
        if (event.detail.successful) announce(lastExchange(document.getElementById("messages")));
      });
    }
  });
})();
