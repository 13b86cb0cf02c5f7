/* The chat's model picker: a pick is saved at once (for this conversation, on the server) and
   said in a status line; opening the picker lists the models again, so a server started since
   the page loaded appears. Without this script the form's "Use" button saves the pick. */
(function () {
  "use strict";
  var form = document.getElementById("model-picker");
  var select = document.getElementById("model-choice");
  if (!form || !select || !window.fetch) return;
  var P = window.MemPlay || {csrfToken: function () { return ""; }};
  var status = document.getElementById("model-status");
  var listedAt = 0;

  form.querySelector(".model-use").hidden = true;

  function say(text) { if (status) status.textContent = text; }

  function showCurrent(name, where) {
    var line = document.getElementById("model-line");
    if (!line) return;
    line.querySelector(".model-name").textContent = name;
    var place = line.querySelector(".model-where");
    if (!place) {
      place = document.createElement("span");
      place.className = "muted model-where";
      line.appendChild(document.createTextNode(" "));
      line.appendChild(place);
    }
    place.textContent = where && name.indexOf(where) < 0 ? "(" + where + ")" : "";
  }

  // Rebuild the options from the server's list; the current pick stays selected.
  function fill(options, current) {
    var groups = [];
    var byName = {};
    options.forEach(function (o) {
      if (!byName[o.group]) {
        byName[o.group] = document.createElement("optgroup");
        byName[o.group].label = o.group;
        groups.push(byName[o.group]);
      }
      var option = new Option(o.name + " — " + o.where, o.value, false, o.value === current);
      byName[o.group].appendChild(option);
    });
    var same = groups.map(function (g) { return g.label + ":" + g.textContent; }).join("|") ===
      Array.prototype.map.call(select.querySelectorAll("optgroup"), function (g) {
        return g.label + ":" + g.textContent; }).join("|");
    if (same) return;  // an open list is left alone when nothing changed
    select.replaceChildren.apply(select, groups);
    select.value = current;
  }

  function refresh() {
    if (Date.now() - listedAt < 3000) return;
    listedAt = Date.now();
    form.setAttribute("aria-busy", "true");
    fetch(form.dataset.modelsUrl + (form.dataset.modelsUrl.indexOf("?") < 0 ? "?" : "&") + "fresh=1",
          {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data && data.ok) fill(data.options, select.value); })
      .catch(function () {})
      .finally(function () { form.removeAttribute("aria-busy"); });
  }

  select.addEventListener("focus", refresh);
  select.addEventListener("pointerdown", refresh);

  select.addEventListener("change", function () {
    var body = new FormData(form);
    fetch(form.dataset.jsonUrl, {method: "POST", body: body, credentials: "same-origin",
                                 headers: {"X-CSRFToken": P.csrfToken(), "Accept": "application/json"}})
      .then(function (r) { return r.json().then(function (data) { return {ok: r.ok, data: data}; }); })
      .then(function (res) {
        if (res.ok && res.data.ok) {
          showCurrent(res.data.name, res.data.where);
          form.dataset.current = res.data.current;
          say("This conversation now uses " + res.data.name + " (" + res.data.where + ").");
        } else {
          say((res.data && res.data.error) || "The model could not be picked.");
          listedAt = 0;
        }
      })
      .catch(function () { say("The model could not be picked: the server did not answer."); });
  });
  form.dataset.ready = "true";
})();
