/* The chat: streamed answers (SSE over fetch) with a phase line and seconds elapsed, Stop
   (button or Escape: the fetch is aborted and the server told), Regenerate, Edit, Copy, Load
   earlier, an unstored chat's own turns kept in this page only, one screen-reader announcement
   per answer. Without fetch streaming the htmx (or plain) POST stays in charge. */
(function () {
  "use strict";
  var P = window.MemPlay || {csrfToken: function () { return ""; }, markScrollBoxes: function () {},
    copyText: function () { return Promise.reject(new Error("no app.js")); }};
  var state = {busy: false, controller: null, turn: null, timer: null, live: null, recent: []};

  function $(id) { return document.getElementById(id); }

  function announce(text) {
    var status = $("answer-status");
    if (status) status.textContent = text;
  }

  function scrollMessages() {
    var box = $("messages");
    if (box) box.scrollTop = box.scrollHeight;
  }

  function articles(box) { return box.querySelectorAll("article.exchange:not(.streaming)"); }

  // Regenerate and Edit belong to the last stored exchange only.
  function refreshLast(box) {
    var all = articles(box);
    all.forEach(function (item, n) {
      if (n < all.length - 1) item.querySelectorAll(".last-only").forEach(function (c) { c.remove(); });
    });
  }

  // Server-rendered HTML (escaped text, nh3-cleaned Markdown); out-of-band parts (the gauges)
  // replace the element with the same id. Returns the fragment's nodes, in order.
  function fragment(html) {
    var holder = document.createElement("div");
    holder.innerHTML = html;
    holder.querySelectorAll("[hx-swap-oob]").forEach(function (part) {
      var target = $(part.id);
      part.removeAttribute("hx-swap-oob");
      if (target) target.replaceWith(part); else part.remove();
    });
    return Array.prototype.slice.call(holder.childNodes);
  }

  function place(box, html, before) {
    var hint = $("empty-hint");
    if (hint) hint.remove();
    var nodes = fragment(html);
    nodes.forEach(function (node) {
      if (before) box.insertBefore(node, before); else box.appendChild(node);
    });
    if (window.htmx) window.htmx.process(box);
    P.markScrollBoxes(box);
    return nodes.filter(function (n) { return n.nodeType === 1 && n.matches("article.exchange:not(.streaming)"); });
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

  function liveBubble(text) {
    var live = document.createElement("article");
    live.className = "exchange streaming";
    live.setAttribute("aria-busy", "true");
    live.innerHTML = '<div class="bubble user"><div class="who">You</div><div class="text"></div></div>' +
      '<div class="bubble assistant"><div class="who">Assistant</div>' +
      '<p class="turn-status"><span class="dot"></span> <span class="phase">sending</span>… <span class="secs">0 s</span></p>' +
      '<p class="replaced-note" hidden></p><div class="text"></div></div>';
    live.querySelector(".user .text").textContent = text; // never parsed as HTML
    return live;
  }

  function setPhase(live, phase) {
    var el = live.querySelector(".turn-status .phase");
    if (el) el.textContent = phase;
  }

  function finish(form, textarea) {
    state.busy = false;
    state.controller = null;
    state.turn = null;
    clearInterval(state.timer);
    delete form.dataset.busy;
    form.querySelector("button[type=submit]").removeAttribute("aria-disabled");
    var stop = $("stop");
    var hadFocus = document.activeElement === stop;
    stop.hidden = true;
    var active = document.activeElement;
    if (hadFocus || !active || active === document.body || form.contains(active)) textarea.focus();
  }

  function stopTurn(form) {
    if (!state.busy || !state.live) return;
    var live = state.live;
    if (state.turn) {
      var body = new FormData();
      body.set("turn", state.turn);
      fetch(form.dataset.stopUrl, {method: "POST", body: body, credentials: "same-origin",
        keepalive: true, headers: {"X-CSRFToken": P.csrfToken()}}).catch(function () {});
    }
    if (state.controller) state.controller.abort();
    live.classList.add("stopped");
    live.removeAttribute("aria-busy");
    var status = live.querySelector(".turn-status");
    if (status) status.outerHTML = '<p class="stopped-note"><strong>Stopped</strong> — not stored.</p>';
    announce("Stopped; the answer is not stored.");
  }

  function clearEdit(form) {
    form.querySelector("input[name=replaces]").value = "";
    var banner = $("editing");
    if (banner) banner.hidden = true;
  }

  function send(form, textarea, text, replaces) {
    if (state.busy) return;
    state.busy = true;
    form.dataset.busy = "1";
    var box = $("messages");
    var mode = form.querySelector("input[name=mode]").value;
    var live = liveBubble(text);
    state.live = live;
    var hint = $("empty-hint");
    if (hint) hint.remove();
    // A redone exchange stays (hidden) until its replacement is stored: Stop or an error
    // bring it back, as the server kept it.
    var old = replaces ? $("exchange-" + replaces) : null;
    if (old) { old.hidden = true; old.after(live); } else box.appendChild(live);
    scrollMessages();
    var out = live.querySelector(".assistant .text");
    var started = Date.now();
    state.timer = setInterval(function () {
      var secs = live.querySelector(".turn-status .secs");
      if (secs) secs.textContent = Math.round((Date.now() - started) / 1000) + " s";
    }, 1000);
    // Not `disabled`: a disabled button that has focus drops it to <body>.
    form.querySelector("button[type=submit]").setAttribute("aria-disabled", "true");
    $("stop").hidden = false;
    // Keep focus in the message box, so the next message can be written while this streams.
    var active = document.activeElement;
    if (!active || active === document.body || form.contains(active)) textarea.focus();
    textarea.value = "";
    var body = new FormData(form);
    body.set("message", text);
    body.set("replaces", replaces || "");
    if (mode !== "normal") body.set("recent", JSON.stringify(state.recent));
    clearEdit(form);
    state.controller = new AbortController();
    fetch(form.dataset.streamUrl, {
      method: "POST", body: body, credentials: "same-origin", signal: state.controller.signal,
      headers: {"X-CSRFToken": P.csrfToken(), "Accept": "text/event-stream"}
    }).then(function (response) {
      if (!response.ok || !response.body) {
        return response.text().then(function (html) { live.remove(); place(box, html); textarea.value = text; });
      }
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function onEvent(name, data) {
        if (name === "start") { state.turn = data.turn; setPhase(live, "waiting"); }
        else if (name === "phase") setPhase(live, data.phase);
        else if (name === "token") { setPhase(live, "writing"); out.textContent += data.text; scrollMessages(); }
        else if (name === "replace") {
          out.textContent = "";
          var note = live.querySelector(".replaced-note");
          note.textContent = "replaced: " + data.reason;
          note.hidden = false;
        } else if (name === "done") {
          var items = place(box, data.html, live);
          live.remove();
          if (old) old.remove();
          if (data.recent) state.recent.push(data.recent);
          refreshLast(box);
          scrollMessages();
          var md = items.length && items[0].querySelector(".assistant .md");
          if (md) announce("Assistant: " + md.textContent.trim());
        } else if (name === "stopped") { if (!live.classList.contains("stopped")) stopTurn(form); }
        else if (name === "error") {
          place(box, data.html, live);
          live.remove();
          if (!textarea.value) textarea.value = text;
        }
      }
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) return;
          buffer = parseEvents(buffer + decoder.decode(step.value, {stream: true}), onEvent);
          return pump();
        });
      }
      return pump();
    }).catch(function (err) {
      if (live.classList.contains("stopped")) return; // our own abort: the bubble says so
      live.remove();
      var div = document.createElement("div");
      div.className = "alert alert-error";
      div.setAttribute("role", "alert");
      div.textContent = "Connection failed: " + err;
      box.appendChild(div);
      if (!textarea.value) textarea.value = text;
    }).finally(function () {
      if (old && old.isConnected) old.hidden = false;
      if (state.live === live) state.live = null;
      finish(form, textarea);
    });
  }

  function onCopy(button) {
    var bubble = button.closest(".bubble.assistant");
    P.copyText(bubble.getAttribute("data-markdown") || "").then(function () {
      button.textContent = "Copied";
      announce("Copied the answer.");
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    }, function () { button.textContent = "Copy failed"; });
  }

  function loadEarlier(link) {
    var box = link.closest(".messages");
    fetch(link.dataset.fragment, {credentials: "same-origin"}).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (html) {
      var first = link.nextElementSibling;
      var height = box.scrollHeight;
      link.remove();
      var items = place(box, html, first);
      box.scrollTop += box.scrollHeight - height; // stay where the reader was
      var next = box.querySelector("a.load-earlier");
      (next || items[0] || box).focus();
    }).catch(function () { window.location = link.href; });
  }

  function watchModel(note) {
    var poll = setInterval(function () {
      fetch(note.dataset.statusUrl, {credentials: "same-origin"}).then(function (r) { return r.json(); })
        .then(function (s) {
          if (s.state === "loading") return;
          clearInterval(poll);
          note.textContent = s.state === "ready" ? "The local model is loaded." : "The local model could not be loaded in the background; the first answer will try again.";
          setTimeout(function () { note.remove(); }, 4000);
        }).catch(function () { clearInterval(poll); });
    }, 2000);
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("button, a.load-earlier");
    if (!target) return;
    var form = $("chat-form");
    var textarea = form && form.querySelector("textarea");
    if (target.matches("button.copy")) onCopy(target);
    else if (target.matches("a.load-earlier") && target.dataset.fragment) { event.preventDefault(); loadEarlier(target); }
    else if (!form) return;
    else if (target.id === "stop") stopTurn(form);
    else if (target.matches("button.regenerate")) {
      var item = target.closest("article.exchange");
      send(form, textarea, target.dataset.user, item.dataset.exchangeId);
    } else if (target.matches("button.edit")) {
      var exchange = target.closest("article.exchange");
      textarea.value = target.dataset.user;
      form.querySelector("input[name=replaces]").value = exchange.dataset.exchangeId;
      $("editing").hidden = false;
      textarea.focus();
    } else if (target.id === "cancel-edit") { clearEdit(form); textarea.value = ""; textarea.focus(); }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var note = $("model-loading");
    if (note) watchModel(note);
    var form = $("chat-form");
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
    document.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      if (state.busy) { event.preventDefault(); stopTurn(form); }
      else if (!$("editing").hidden) { clearEdit(form); textarea.value = ""; }
    });
    var canStream = !!(window.fetch && window.ReadableStream && window.TextDecoder && window.AbortController);
    if (canStream && form.dataset.streamUrl) {
      // Streaming replaces the htmx POST; without it the htmx (or plain) POST stays in charge.
      form.removeAttribute("hx-post");
      if (window.htmx) window.htmx.process(form);
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var text = textarea.value;
        if (text.trim()) send(form, textarea, text, form.querySelector("input[name=replaces]").value);
      }, true);
    } else {
      form.addEventListener("htmx:afterRequest", function (event) {
        form.reset();
        textarea.focus();
        var all = articles($("messages"));
        var md = event.detail.successful && all.length && all[all.length - 1].querySelector(".assistant .md");
        if (md) announce("Assistant: " + md.textContent.trim());
      });
    }
    // Says the keys are wired (Enter sends); a test waits on it after a page change.
    form.dataset.ready = "true";
  });
})();
