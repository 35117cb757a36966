/* Battle Sheep Arena ladder pages: the standings follow the games as they finish, and a
 * version's page reloads itself when its check ends.
 *
 * Only an enhancement: every page is complete as the server sends it.  Every text reaches
 * the page through textContent, and each cell's text comes from the server as it shows it
 * (so the redrawn table is the one the server would send). */
(function () {
  "use strict";

  var EVERY_MS = 2000;
  var COLUMNS = ["rank", "bot", "mu", "interval", "rating", "better", "games", "wdl", "points", "faults"];

  function poll(url, onAnswer) {
    var wait = EVERY_MS;
    function tick() {
      if (document.hidden) {
        window.setTimeout(tick, wait);
        return;
      }
      fetch(url, { cache: "no-cache", credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          wait = EVERY_MS;
          if (data) onAnswer(data);
        }, function () {
          wait = Math.min(wait * 2, 60000); // the server is away: ask less often
        })
        .then(function () { window.setTimeout(tick, wait); });
    }
    window.setTimeout(tick, wait);
  }

  function text(id, value) {
    var node = document.getElementById(id);
    if (node) node.textContent = value;
  }

  function standingsRow(row, moved) {
    var shown = row.shown;
    var tr = document.createElement("tr");
    (moved ? COLUMNS.concat(["moved"]) : COLUMNS).forEach(function (key) {
      var td = document.createElement("td");
      if (key === "bot") {
        td.className = "bot";
        var a = document.createElement("a");
        a.setAttribute("href", row.page);
        a.textContent = shown.bot;
        td.appendChild(a);
        if (shown.retired) {
          var mark = document.createElement("small");
          mark.textContent = " " + shown.retired;
          td.appendChild(mark);
        }
      } else {
        if (key === "moved") td.className = "moved";
        else if (key !== "rank") td.className = "num";
        td.textContent = shown[key];
      }
      tr.appendChild(td);
    });
    return tr;
  }

  function liveStandings(table) {
    var signature = table.getAttribute("data-signature") || "";
    poll(table.getAttribute("data-live"), function (data) {
      if (data.signature === signature) return;
      if (!signature) {
        window.location.reload(); // the first standings: the page as the server draws it
        return;
      }
      signature = data.signature;
      table.setAttribute("data-signature", signature);
      var body = table.tBodies[0];
      while (body.firstChild) body.removeChild(body.firstChild);
      var moved = table.hasAttribute("data-moved");
      data.rows.forEach(function (row) { body.appendChild(standingsRow(row, moved)); });
      text("standings-games", String(data.games));
      text("standings-updated", data.updated_text || "");
      text("standings-pairs", data.pairs ? "pairs " + data.pairs : "");
    });
  }

  function followCheck(node) {
    var state = node.getAttribute("data-state");
    poll(node.getAttribute("data-poll"), function (data) {
      if (data.state && data.state !== state) window.location.reload();
    });
  }

  var table = document.querySelector("table[data-live]");
  if (table) liveStandings(table);
  var version = document.querySelector("[data-poll]");
  if (version) followCheck(version);
  document.body.setAttribute("data-live-ready", "1");
})();
