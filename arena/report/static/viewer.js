/* Battle Sheep Arena: the replay viewer, and the report's sortable, filterable games table.
 *
 * The page embeds the games' records (the JSON that `arena replay` reads) in
 * <script id="arena-data">.  The viewer replays each record from its start
 * position: tiles add pasture, a herd makes a stack, a move splits a stack and
 * slides the sheep as far as they go.  Everything a bot wrote reaches the page
 * through textContent only, with its control characters made visible. */
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("arena-data").textContent);
  var LETTERS = "abcd";
  var DIRS = { E: [1, 0], NE: [1, -1], NW: [0, -1], W: [-1, 0], SW: [-1, 1], SE: [0, 1] };
  var TILES = {
    A: [[0, 0], [1, 0], [0, 1], [1, 1]],
    B: [[0, 0], [1, 0], [1, -1], [2, -1]],
    C: [[0, 0], [1, -1], [1, 0], [0, 1]]
  };
  var SVG = "http://www.w3.org/2000/svg";
  var SIZE = 26; // hex radius in SVG units

  /* Control and format characters (escape sequences, NUL, bidi overrides) as \xNN / \uNNNN,
   * as arena.untrusted.printable writes them for the terminal. */
  var HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;
  function visible(text) {
    return String(text).replace(HIDDEN, function (ch) {
      var code = ch.codePointAt(0);
      var hex = code.toString(16);
      if (code < 0x100) return "\\x" + ("0" + hex).slice(-2);
      if (code < 0x10000) return "\\u" + ("000" + hex).slice(-4);
      return "\\U" + ("0000000" + hex).slice(-8);
    });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) node.textContent = visible(text);
    return node;
  }

  function svgEl(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    return node;
  }

  function key(q, r) {
    return q + "," + r;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  /* ---- the record, replayed ------------------------------------------------------ */

  /* The board and stacks of a position in the one-line notation (arena show --help). */
  function parsePosition(text) {
    var fields = text.trim().split(/\s+/);
    var board = fields[0];
    var hexes = new Map();
    var stacks = new Map();
    var q0 = 0;
    var r0 = 0;
    var origin = /^(-?\d+),(-?\d+):/.exec(board);
    if (origin) {
      q0 = parseInt(origin[1], 10);
      r0 = parseInt(origin[2], 10);
      board = board.slice(origin[0].length);
    }
    if (board !== "_") {
      board.split("/").forEach(function (row, i) {
        var q = q0;
        var r = r0 + i;
        var cell = /([_.])(\d*)|([a-d])(\d+)/g;
        var m;
        while ((m = cell.exec(row)) !== null) {
          if (m[1]) {
            var run = m[2] ? parseInt(m[2], 10) : 1;
            if (m[1] === ".") for (var d = 0; d < run; d++) hexes.set(key(q + d, r), 0);
            q += run;
          } else {
            hexes.set(key(q, r), 0);
            stacks.set(key(q, r), [LETTERS.indexOf(m[3]), parseInt(m[4], 10)]);
            q += 1;
          }
        }
      });
    }
    fields.slice(3).forEach(function (f) {
      if (f.indexOf("daisies=") !== 0) return;
      f.slice(8).split(";").forEach(function (part) {
        var m = /^(-?\d+),(-?\d+):(\d+)$/.exec(part);
        if (m) hexes.set(key(+m[1], +m[2]), parseInt(m[3], 10));
      });
    });
    return { hexes: hexes, stacks: stacks };
  }

  /* The position after each ply: frames[0] is the start, frames[k] follows move k. */
  function replay(rec) {
    var start = parsePosition(rec.start_position);
    var frames = [{ hexes: start.hexes, stacks: start.stacks, path: [], laid: [], move: null }];
    var clocks = rec.seats.map(function () {
      return rec.time_control.base_ms === null || rec.time_control.base_ms === undefined
        ? null
        : rec.time_control.base_ms;
    });
    frames[0].clocks = clocks.slice();
    rec.moves.forEach(function (mv, i) {
      var player = mv[0];
      var token = mv[1];
      var prev = frames[frames.length - 1];
      var hexes = new Map(prev.hexes);
      var stacks = new Map(prev.stacks);
      var path = [];
      var laid = [];
      var m = /^(-?\d+),(-?\d+)(?:([ABC])|(NE|NW|SE|SW|E|W)(\d+))?$/.exec(token);
      if (!m) throw new Error("ply " + (i + 1) + ": cannot read move " + JSON.stringify(token));
      var q = parseInt(m[1], 10);
      var r = parseInt(m[2], 10);
      if (m[3]) {
        TILES[m[3]].forEach(function (off) {
          var k = key(q + off[0], r + off[1]);
          if (!hexes.has(k)) hexes.set(k, 0);
          laid.push(k);
        });
      } else if (m[4]) {
        var src = key(q, r);
        var stack = stacks.get(src);
        var count = parseInt(m[5], 10);
        if (!stack || stack[0] !== player || stack[1] <= count) {
          throw new Error("ply " + (i + 1) + ": " + token + " does not fit the position");
        }
        var dir = DIRS[m[4]];
        var x = q;
        var y = r;
        path.push(src);
        while (hexes.has(key(x + dir[0], y + dir[1])) && !stacks.has(key(x + dir[0], y + dir[1]))) {
          x += dir[0];
          y += dir[1];
          path.push(key(x, y));
        }
        if (path.length < 2) throw new Error("ply " + (i + 1) + ": " + token + " is blocked");
        stacks.set(src, [player, stack[1] - count]);
        stacks.set(key(x, y), [player, count]);
      } else {
        stacks.set(key(q, r), [player, rec.params.sheep]);
        path.push(key(q, r));
      }
      if (clocks[player] !== null) {
        clocks[player] = Math.max(0, clocks[player] - mv[2]) + (rec.time_control.increment_ms || 0);
      }
      frames.push({
        hexes: hexes, stacks: stacks, path: path, laid: laid, clocks: clocks.slice(),
        move: { player: player, token: token, ms: mv[2] }
      });
    });
    return frames;
  }

  /* ---- drawing --------------------------------------------------------------------- */

  function centre(k) {
    var p = k.split(",");
    var q = +p[0];
    var r = +p[1];
    return [SIZE * Math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r];
  }

  function corners(c) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 180 * (60 * i - 30);
      pts.push((c[0] + (SIZE - 1) * Math.cos(a)).toFixed(1) + "," + (c[1] + (SIZE - 1) * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  /* Every player's colour (Okabe and Ito's palette) and a shape, so no one needs colour. */
  var SHAPES = ["circle", "square", "triangle", "diamond"];
  function marker(player, c) {
    var x = c[0];
    var y = c[1] - SIZE * 0.45;
    var s = 4;
    var shape = SHAPES[player];
    if (shape === "circle") return svgEl("circle", { cx: x, cy: y, r: s, "class": "mark" });
    if (shape === "square") return svgEl("rect", { x: x - s, y: y - s, width: 2 * s, height: 2 * s, "class": "mark" });
    var pts = shape === "triangle"
      ? [[x, y - s - 1], [x + s + 1, y + s], [x - s - 1, y + s]]
      : [[x, y - s - 1], [x + s + 1, y], [x, y + s + 1], [x - s - 1, y]];
    return svgEl("polygon", { points: pts.map(function (p) { return p.join(","); }).join(" "), "class": "mark" });
  }

  function drawBoard(svg, frames, k) {
    var frame = frames[k];
    var all = frames[frames.length - 1].hexes;
    var xs = [];
    var ys = [];
    all.forEach(function (_d, h) {
      var c = centre(h);
      xs.push(c[0]);
      ys.push(c[1]);
    });
    if (!xs.length) {
      xs = [0];
      ys = [0];
    }
    var pad = SIZE + 4;
    var minX = Math.min.apply(null, xs) - pad;
    var minY = Math.min.apply(null, ys) - pad;
    var w = Math.max.apply(null, xs) - minX + pad;
    var h = Math.max.apply(null, ys) - minY + pad;
    svg.setAttribute("viewBox", [minX.toFixed(1), minY.toFixed(1), w.toFixed(1), h.toFixed(1)].join(" "));
    clear(svg);
    var onPath = new Set(frame.path);
    var laid = new Set(frame.laid);
    frame.hexes.forEach(function (daisies, h) {
      var c = centre(h);
      var cls = "hex" + (laid.has(h) ? " laid" : "") + (onPath.has(h) ? " path" : "");
      svg.appendChild(svgEl("polygon", { points: corners(c), "class": cls, "data-hex": h }));
      if (daisies) {
        var g = svgEl("g", { "class": "daisy", "data-hex": h, "data-daisies": daisies });
        g.appendChild(svgEl("circle", { cx: c[0] + SIZE * 0.45, cy: c[1] + SIZE * 0.42, r: 7 }));
        var t = svgEl("text", { x: c[0] + SIZE * 0.45, y: c[1] + SIZE * 0.42 + 3.5, "text-anchor": "middle" });
        t.textContent = String(daisies);
        g.appendChild(t);
        var title = svgEl("title");
        title.textContent = daisies + " daisies";
        g.appendChild(title);
        svg.appendChild(g);
      }
    });
    if (frame.path.length > 1) {
      var pts = frame.path.map(function (p) { return centre(p).map(function (v) { return v.toFixed(1); }).join(","); });
      svg.appendChild(svgEl("polyline", { points: pts.join(" "), "class": "move-path" }));
    }
    frame.stacks.forEach(function (st, h) {
      var c = centre(h);
      var g = svgEl("g", {
        "class": "stack p" + st[0] + (onPath.has(h) ? " moved" : ""),
        "data-hex": h, "data-player": LETTERS[st[0]], "data-sheep": st[1]
      });
      g.appendChild(svgEl("polygon", { points: corners(c), "class": "stack-hex" }));
      g.appendChild(marker(st[0], c));
      var t = svgEl("text", { x: c[0], y: c[1] + 9, "text-anchor": "middle", "class": "count" });
      t.textContent = LETTERS[st[0]] + st[1];
      g.appendChild(t);
      var title = svgEl("title");
      title.textContent = "player " + LETTERS[st[0]] + ": " + st[1] + " sheep on " + h;
      g.appendChild(title);
      svg.appendChild(g);
    });
  }

  /* ---- the viewer ------------------------------------------------------------------ */

  function seatName(rec, p) {
    return LETTERS[p] + " " + rec.seats[p].name;
  }

  function swatch(p) {
    return el("span", { "class": "seat-tag p" + p }, LETTERS[p]);
  }

  /* What each seat wrote while the move of ply k was being chosen: its info lines and its
   * stderr, stamped with the ply of the request (k - 1); a seat forfeited at ply k also shows
   * what it wrote after.  [seat, info lines, stderr lines, stderr bytes not kept] for each seat
   * that wrote something. */
  function logsAt(rec, k) {
    var out = [];
    rec.seats.forEach(function (seat, p) {
      // Lines after a seat's forfeit show at the forfeit, once.
      var outAt = seat.fault ? seat.fault.ply : rec.moves.length + 1;
      function now(ply) { return (ply === k - 1 && ply < outAt) || (outAt === k && ply >= k); }
      var plies = seat.info_plies || [];
      var infos = plies.length ? (seat.infos || []).filter(function (_t, i) { return now(plies[i]); }) : [];
      var stderr = [];
      var dropped = 0;
      (seat.stderr_turns || []).forEach(function (turn) {
        if (!now(turn.ply)) return;
        stderr = stderr.concat(turn.lines || []);
        dropped += turn.dropped || 0;
      });
      if (infos.length || stderr.length || dropped) out.push([p, infos, stderr, dropped]);
    });
    return out;
  }

  function Viewer(root) {
    this.root = root;
    this.svg = root.querySelector("#v-board");
    this.slider = root.querySelector("#v-slider");
    this.plyInput = root.querySelector("#v-ply");
    this.playButton = root.querySelector("#v-play");
    this.speed = root.querySelector("#v-speed");
    this.timer = null;
    this.rec = null;
    this.frames = [];
    this.ply = 0;
    var self = this;
    root.querySelector("#v-first").addEventListener("click", function () { self.go(0); });
    root.querySelector("#v-back").addEventListener("click", function () { self.go(self.ply - 1); });
    root.querySelector("#v-next").addEventListener("click", function () { self.go(self.ply + 1); });
    root.querySelector("#v-last").addEventListener("click", function () { self.go(self.frames.length - 1); });
    this.playButton.addEventListener("click", function () { self.toggle(); });
    this.slider.addEventListener("input", function () { self.go(parseInt(self.slider.value, 10)); });
    this.plyInput.addEventListener("change", function () { self.go(parseInt(self.plyInput.value, 10) || 0); });
    this.speed.addEventListener("change", function () {
      if (self.timer !== null) {
        self.stop();
        self.toggle();
      }
    });
  }

  Viewer.prototype.open = function (rec, ply) {
    this.stop();
    this.rec = rec;
    var title = this.root.querySelector("#v-title");
    clear(title);
    title.appendChild(document.createTextNode(visible("Game " + rec.game_id + ": ")));
    rec.seats.forEach(function (s, p) {
      if (p) title.appendChild(document.createTextNode(" vs "));
      title.appendChild(swatch(p));
      title.appendChild(document.createTextNode(" " + visible(s.name)));
    });
    try {
      this.frames = replay(rec);
    } catch (e) {
      this.frames = [];
      this.root.querySelector("#v-move").textContent = "This record cannot be replayed: " + e.message;
      return;
    }
    var last = this.frames.length - 1;
    this.slider.max = String(last);
    this.plyInput.max = String(last);
    this.root.querySelector("#v-plies").textContent = String(last);
    this.drawRanking();
    this.drawEnds();
    this.go(ply === undefined ? 0 : ply);
  };

  Viewer.prototype.go = function (k) {
    if (!this.frames.length) return;
    k = Math.max(0, Math.min(this.frames.length - 1, isNaN(k) ? 0 : k));
    this.ply = k;
    this.slider.value = String(k);
    this.plyInput.value = String(k);
    this.root.setAttribute("data-ply", String(k));
    drawBoard(this.svg, this.frames, k);
    this.drawPly();
    if (DATA.kind === "report" && window.history && history.replaceState) {
      history.replaceState(null, "", "#game=" + encodeURIComponent(this.rec.game_id) + "&ply=" + k);
    }
    if (k === this.frames.length - 1) this.stop();
  };

  Viewer.prototype.toggle = function () {
    if (this.timer !== null) {
      this.stop();
      return;
    }
    if (this.ply >= this.frames.length - 1) this.go(0);
    var self = this;
    var every = 1000 / parseFloat(this.speed.value || "2");
    this.timer = window.setInterval(function () { self.go(self.ply + 1); }, every);
    this.playButton.textContent = "pause";
    this.playButton.setAttribute("aria-pressed", "true");
  };

  Viewer.prototype.stop = function () {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
    this.playButton.textContent = "play";
    this.playButton.setAttribute("aria-pressed", "false");
  };

  Viewer.prototype.drawPly = function () {
    var rec = this.rec;
    var k = this.ply;
    var frame = this.frames[k];
    var moveBox = this.root.querySelector("#v-move");
    clear(moveBox);
    if (frame.move) {
      moveBox.appendChild(el("b", {}, "ply " + k + ": "));
      moveBox.appendChild(swatch(frame.move.player));
      moveBox.appendChild(document.createTextNode(
        " " + visible(rec.seats[frame.move.player].name) + " plays "));
      moveBox.appendChild(el("code", { id: "v-token" }, frame.move.token));
      moveBox.appendChild(document.createTextNode(" in " + frame.move.ms.toFixed(1) + " ms"));
    } else {
      moveBox.appendChild(el("b", {}, "The start"));
      moveBox.appendChild(document.createTextNode(
        frame.hexes.size ? ": the pasture is laid, herds are placed next" : ": the bots build the pasture from tiles"));
    }
    rec.seats.forEach(function (seat, p) {
      if (seat.fault && seat.fault.ply === k) {
        var f = el("p", { "class": "fault" });
        f.appendChild(swatch(p));
        f.appendChild(document.createTextNode(" " + visible(seat.name) + " forfeits: " +
          visible(seat.fault.kind) + ": " + visible(seat.fault.detail)));
        moveBox.appendChild(f);
      }
    });
    var table = this.root.querySelector("#v-seats");
    clear(table);
    var head = el("tr");
    ["seat", "hexes", "clock", ""].forEach(function (t) { head.appendChild(el("th", {}, t)); });
    table.appendChild(head);
    rec.seats.forEach(function (seat, p) {
      var hexes = 0;
      frame.stacks.forEach(function (st) { if (st[0] === p) hexes += 1; });
      var row = el("tr", { "data-seat": LETTERS[p] });
      var name = el("td");
      name.appendChild(swatch(p));
      name.appendChild(document.createTextNode(" " + visible(seat.name)));
      row.appendChild(name);
      row.appendChild(el("td", { "class": "num" }, String(hexes)));
      var clock = frame.clocks[p];
      row.appendChild(el("td", { "class": "num" }, clock === null ? "-" : (clock / 1000).toFixed(2) + " s"));
      var out = seat.fault && seat.fault.ply <= k ? "forfeited (" + seat.fault.kind + ")" : "";
      row.appendChild(el("td", { "class": out ? "fault" : "" }, out));
      table.appendChild(row);
    });
    var infos = this.root.querySelector("#v-infos");
    clear(infos);
    var said = logsAt(rec, k);
    if (said.length) {
      infos.appendChild(el("h4", {}, k ? "what the bots wrote while this move was chosen" : "what the bots wrote at the start"));
      said.forEach(function (entry) {
        var box = el("div", { "class": "info", "data-seat": LETTERS[entry[0]] });
        box.appendChild(swatch(entry[0]));
        box.appendChild(document.createTextNode(" " + visible(rec.seats[entry[0]].name)));
        if (entry[1].length) {
          var list = el("ul", { "class": "infos" });
          entry[1].forEach(function (t) { list.appendChild(el("li", {}, t)); });
          box.appendChild(list);
        }
        if (entry[2].length || entry[3]) {
          box.appendChild(el("div", { "class": "log-label" }, "stderr"));
          var pre = el("pre", { "class": "turn-stderr" });
          pre.textContent = entry[2].map(visible).join("\n");
          box.appendChild(pre);
          if (entry[3]) {
            box.appendChild(el("p", { "class": "dropped" },
              entry[3] + " more bytes on stderr this turn, past what a turn keeps"));
          }
        }
        infos.appendChild(box);
      });
    }
  };

  Viewer.prototype.drawRanking = function () {
    var rec = this.rec;
    var table = this.root.querySelector("#v-ranking");
    clear(table);
    var head = el("tr");
    ["rank", "seat", "hexes", "largest group", "daisies", "fault"].forEach(function (t) {
      head.appendChild(el("th", {}, t));
    });
    table.appendChild(head);
    rec.standings.slice().sort(function (a, b) { return a.rank - b.rank || a.player - b.player; })
      .forEach(function (s) {
        var seat = rec.seats[s.player];
        var row = el("tr");
        row.appendChild(el("td", { "class": "num" }, String(s.rank)));
        var name = el("td");
        name.appendChild(swatch(s.player));
        name.appendChild(document.createTextNode(" " + visible(seat.name)));
        row.appendChild(name);
        row.appendChild(el("td", { "class": "num" }, String(s.hexes)));
        row.appendChild(el("td", { "class": "num" }, String(s.largest_group)));
        row.appendChild(el("td", { "class": "num" }, String(s.daisies)));
        row.appendChild(el("td", { "class": "fault" },
          seat.fault ? seat.fault.kind + " at ply " + seat.fault.ply + ": " + seat.fault.detail : ""));
        table.appendChild(row);
      });
  };

  Viewer.prototype.drawEnds = function () {
    var rec = this.rec;
    var box = this.root.querySelector("#v-stderr");
    clear(box);
    rec.seats.forEach(function (seat, p) {
      var d = el("details", { "class": "seat-end", "data-seat": LETTERS[p] });
      var s = el("summary");
      s.appendChild(swatch(p));
      var facts = [seatName(rec, p).slice(2)];
      if (seat.reported_name && seat.reported_name !== seat.name) facts.push("says it is " + seat.reported_name);
      if (seat.exit) facts.push(seat.exit);
      facts.push((seat.stderr_bytes || 0) + " bytes on stderr");
      facts.push((seat.info_count || 0) + " info lines");
      s.appendChild(document.createTextNode(" " + visible(facts.join(", "))));
      d.appendChild(s);
      if (seat.fault) {
        // A forfeited seat's evidence is what its author came for: shown open, the hint first.
        d.open = true;
        if (seat.fault.hint) d.appendChild(el("p", { "class": "hint" }, "hint: " + seat.fault.hint));
      }
      if (seat.stderr_tail) {
        d.appendChild(el("h4", {}, "the end of its stderr"));
        var pre = el("pre", { "class": "stderr" });
        pre.textContent = seat.stderr_tail.split("\n").map(visible).join("\n");
        d.appendChild(pre);
      }
      if (seat.fault && seat.fault.ply === 0 && (seat.stdout_head || []).length) {
        d.appendChild(el("h4", {}, "its first lines on stdout"));
        var head = el("pre", { "class": "stdout" });
        head.textContent = seat.stdout_head.map(visible).join("\n");
        d.appendChild(head);
      }
      if ((seat.infos || []).length && !(seat.info_plies || []).length) {
        d.appendChild(el("h4", {}, "its info lines (this record keeps no ply for them)"));
        var list = el("ul");
        seat.infos.forEach(function (t) { list.appendChild(el("li", {}, t)); });
        d.appendChild(list);
      }
      box.appendChild(d);
    });
  };

  /* ---- the report: games table and navigation ---------------------------------------- */

  function setupSorting(table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.tabIndex = 0;
      th.addEventListener("click", function () {
        var numeric = th.getAttribute("data-type") === "num";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent.trim();
          var y = b.cells[col].textContent.trim();
          var c = numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
          return ascending ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  }

  function setupFilters(table) {
    var bot = document.getElementById("filter-bot");
    var fault = document.getElementById("filter-fault");
    var winner = document.getElementById("filter-winner");
    function words(row, name) {
      var v = row.getAttribute(name);
      return v ? v.split(" ") : [];
    }
    function apply() {
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var faults = words(row, "data-faults");
        var winners = words(row, "data-winners");
        var ok = (!bot.value || words(row, "data-bots").indexOf(bot.value) >= 0) &&
          (!fault.value || (fault.value === "*" ? faults.length > 0
            : fault.value === "-" ? faults.length === 0 : faults.indexOf(fault.value) >= 0)) &&
          (!winner.value || (winner.value === "*" ? winners.length > 1 : winners.indexOf(winner.value) >= 0));
        row.hidden = !ok;
        if (ok) shown += 1;
      });
      document.getElementById("games-shown").textContent = String(shown);
    }
    [bot, fault, winner].forEach(function (s) { s.addEventListener("change", apply); });
    apply();
  }

  function route(viewer) {
    var m = /^#game=([^&]*)(?:&ply=(\d+))?$/.exec(location.hash);
    var rec = null;
    if (m) {
      var id = decodeURIComponent(m[1]);
      rec = DATA.games.filter(function (g) { return g.game_id === id; })[0] || null;
    }
    document.body.classList.toggle("viewing", rec !== null);
    viewer.root.hidden = rec === null;
    if (rec === null) {
      viewer.stop();
      return;
    }
    if (viewer.rec !== rec) {
      viewer.open(rec, m[2] ? parseInt(m[2], 10) : 0);
      window.scrollTo(0, 0);
    } else if (m[2]) {
      viewer.go(parseInt(m[2], 10));
    }
  }

  function onKey(viewer, event) {
    if (viewer.root.hidden || !viewer.frames.length || event.altKey || event.ctrlKey || event.metaKey) return;
    var tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    var moves = {
      ArrowRight: function () { viewer.go(viewer.ply + 1); },
      ArrowLeft: function () { viewer.go(viewer.ply - 1); },
      Home: function () { viewer.go(0); },
      End: function () { viewer.go(viewer.frames.length - 1); },
      " ": function () { viewer.toggle(); }
    };
    var action = moves[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  var viewer = new Viewer(document.getElementById("viewer"));
  document.addEventListener("keydown", function (e) { onKey(viewer, e); });
  if (DATA.kind === "report") {
    var games = document.getElementById("games-table");
    setupSorting(games);
    setupFilters(games);
    window.addEventListener("hashchange", function () { route(viewer); });
    route(viewer);
    if (DATA.running) {
      window.setTimeout(function () { location.reload(); }, DATA.refresh_s * 1000);
    }
  } else if (DATA.games.length) {
    viewer.open(DATA.games[0], 0);
  }
  document.body.setAttribute("data-ready", "1");
})();
