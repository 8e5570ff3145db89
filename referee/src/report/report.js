// The report's replay viewer: draws the board of the selected game and ply
// as SVG from the embedded data, the move list, and the clock and
// time-per-move charts. No dependencies; the page works from disk.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("report-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var gi = 0, ply = 0, timer = null;
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function fmt(t) { return (Math.max(t, 0)).toFixed(2); }
  function seatName(g, s) { return (/^\d+$/.test(g.seats[s]) ? "player " + g.seats[s] : g.seats[s]) + " (" + g.agents[s] + ")"; }

  // One piece centred on (x, y) in a cell of side cs, shaped as the game's
  // drawing hints say; `cls` is "piece" on the board, "swatch" in the legend.
  function drawPiece(parent, cls, x, y, cs, owner, label, flagged, drawing, attrs) {
    var a = { "class": cls + " o" + (owner < 0 ? "n" : String(owner)) + (flagged ? " flagged" : "") };
    for (var k in attrs) a[k] = attrs[k];
    var grp = el("g", a, parent);
    if (drawing.piece === "card") {
      el("rect", { x: x - cs * 0.36, y: y - cs * 0.44, width: cs * 0.72, height: cs * 0.88, rx: 4 }, grp);
    } else {
      el("circle", { cx: x, cy: y, r: cs * drawing.radius }, grp);
    }
    if (label !== "") el("text", { x: x, y: y + cs * 0.14, "font-size": cs * 0.42 }, grp, label);
    return grp;
  }

  // `count` parallel lines from (x1, y1) to (x2, y2), along a row or a column.
  function drawLink(parent, x1, y1, x2, y2, count) {
    var horiz = y1 === y2;
    (count === 2 ? [-3, 3] : [0]).forEach(function (o) {
      el("line", { x1: x1 + (horiz ? 0 : o), y1: y1 + (horiz ? o : 0),
        x2: x2 + (horiz ? 0 : o), y2: y2 + (horiz ? o : 0), "class": "bridge" }, parent);
    });
  }

  // The legend: each meaning after small drawings of what shows it, drawn
  // with the board's own shapes and classes.
  function drawLegend(g) {
    var box = $("legend");
    clear(box);
    box.appendChild(document.createTextNode("Legend: "));
    var cs = 22;
    g.legend.forEach(function (item) {
      var span = document.createElement("span");
      span.className = "legend-item";
      item.samples.forEach(function (s) {
        var svg = el("svg", { width: cs, height: cs, viewBox: "0 0 " + cs + " " + cs,
          "class": "legend-key board game-" + g.game }, span);
        if (s.l != null) {
          if (s.v) drawLink(svg, cs / 2, 2, cs / 2, cs - 2, s.l);
          else drawLink(svg, 2, cs / 2, cs - 2, cs / 2, s.l);
          return;
        }
        el("rect", { x: 0, y: 0, width: cs, height: cs, "class": "cell g-" + s.g }, svg);
        if (s.p) drawPiece(svg, "swatch", cs / 2, cs / 2, cs, s.p[0], s.p[1], s.p[2], g.drawing, {});
      });
      span.appendChild(document.createTextNode(" " + item.text));
      box.appendChild(span);
    });
    var last = document.createElement("span");
    last.className = "legend-item";
    last.textContent = "outlined cells: the last move" + (g.drawing.move_line ? " (the line: " + g.drawing.move_line + ")" : "");
    box.appendChild(last);
  }

  function drawBoard(g, P) {
    var svg = $("board");
    clear(svg);
    var size = Math.max(g.rows, g.cols);
    var cs = Math.max(18, Math.min(44, Math.floor(560 / size)));
    var pad = 20;
    var W = pad + g.cols * cs + 4, H = pad + g.rows * cs + 4;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("width", W);
    svg.setAttribute("height", H);
    svg.setAttribute("class", "board game-" + g.game);
    var cx = function (c) { return pad + c * cs + cs / 2; };
    var cy = function (r) { return pad + r * cs + cs / 2; };
    var ground = g.ground.slice();
    P.g.forEach(function (x) { ground[x[0] * g.cols + x[1]] = x[2]; });
    for (var c = 0; c < g.cols; c++) el("text", { x: cx(c), y: 14, "class": "coord" }, svg, String(c));
    for (var r = 0; r < g.rows; r++) {
      el("text", { x: 9, y: cy(r) + 4, "class": "coord" }, svg, String(r));
      for (c = 0; c < g.cols; c++) {
        el("rect", { x: pad + c * cs, y: pad + r * cs, width: cs, height: cs,
          "class": "cell g-" + ground[r * g.cols + c], "data-r": r, "data-c": c }, svg);
      }
    }
    var links = el("g", { "class": "links" }, svg);
    P.l.forEach(function (l) { drawLink(links, cx(l[1]), cy(l[0]), cx(l[3]), cy(l[2]), l[4]); });
    var marks = el("g", { "class": "marks" }, svg);
    P.m.forEach(function (m, i) {
      el("rect", { x: pad + m[1] * cs + 1.5, y: pad + m[0] * cs + 1.5, width: cs - 3, height: cs - 3,
        "class": i === P.m.length - 1 ? "last last-end" : "last" }, marks);
    });
    var pieces = el("g", { "class": "pieces" }, svg);
    P.p.forEach(function (p) {
      drawPiece(pieces, "piece", cx(p[1]), cy(p[0]), cs, p[2], p[3], p[4], g.drawing,
        { "data-r": p[0], "data-c": p[1], "data-owner": p[2], "data-label": p[3] });
    });
    if (g.drawing.move_line && P.m.length > 1) {
      var pts = P.m.map(function (m) { return cx(m[1]) + "," + cy(m[0]); }).join(" ");
      el("polyline", { points: pts, "class": "path" }, svg);
    }
  }

  function chart(svg, series, xmax, ymax, cursor, bars) {
    clear(svg);
    var W = 420, H = 150, L = 44, B = 20, T = 8, R = 8;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    var X = function (x) { return L + (W - L - R) * (xmax > 0 ? x / xmax : 0); };
    var Y = function (y) { return H - B - (H - B - T) * (ymax > 0 ? y / ymax : 0); };
    el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, "class": "axis" }, svg);
    el("line", { x1: L, y1: T, x2: L, y2: H - B, "class": "axis" }, svg);
    el("text", { x: L - 4, y: T + 8, "class": "tick end" }, svg, ymax.toFixed(ymax < 10 ? 2 : 0));
    el("text", { x: L - 4, y: H - B, "class": "tick end" }, svg, "0");
    el("text", { x: W - R, y: H - 6, "class": "tick end" }, svg, "ply " + xmax);
    if (bars) {
      var bw = Math.max(1, (W - L - R) / Math.max(xmax, 1) - 1);
      bars.forEach(function (b) {
        el("rect", { x: X(b[0]) - bw, y: Y(b[1]), width: bw, height: H - B - Y(b[1]), "class": "bar s" + b[2] }, svg);
      });
    }
    series.forEach(function (s, i) {
      if (s.length) el("polyline", { points: s.map(function (p) { return X(p[0]) + "," + Y(p[1]); }).join(" "), "class": "series s" + i }, svg);
    });
    el("line", { x1: X(cursor), y1: T, x2: X(cursor), y2: H - B, "class": "cursor" }, svg);
  }

  function drawCharts(g) {
    var clocks = [[[0, g.time[0]]], [[0, g.time[1]]]];
    var bars = [], maxcpu = 0;
    g.moves.forEach(function (m, i) {
      var s = clocks[m.seat];
      s.push([i, s[s.length - 1][1]]);
      s.push([i + 1, m.left]);
      bars.push([i + 1, m.cpu, m.seat]);
      maxcpu = Math.max(maxcpu, m.cpu);
    });
    var n = g.moves.length;
    [0, 1].forEach(function (s) { var c = clocks[s]; c.push([n, c[c.length - 1][1]]); });
    chart($("clock-chart"), clocks, n, Math.max(g.time[0], g.time[1]), ply);
    chart($("cpu-chart"), [], n, maxcpu || 1, ply, bars);
    // One legend for both charts: the colour of each seat's line and bars.
    var box = $("chart-legend");
    clear(box);
    [0, 1].forEach(function (s) {
      var item = document.createElement("span");
      item.className = "legend-item";
      box.appendChild(item);
      var sw = el("svg", { width: 14, height: 10 }, item);
      el("rect", { x: 0, y: 2, width: 14, height: 6, "class": "bar s" + s }, sw);
      item.appendChild(document.createTextNode(" " + seatName(g, s)));
    });
  }

  // A score the agent reported: a forced result in words ("wins in 7"),
  // as engines report mate; other scores as given.
  function scoreText(v) {
    if (v == null) return "";
    var WIN = 1000000;
    if (Math.abs(v) > WIN - 1000 && Math.abs(v) <= WIN) {
      var plies = WIN - Math.abs(v);
      return (v > 0 ? "wins" : "loses") + " in " + plies;
    }
    return String(v);
  }
  function seatShort(g, s) { return /^\d+$/.test(g.seats[s]) ? "player " + g.seats[s] : g.seats[s]; }

  // A value the agent may not have reported: blank when absent.
  function opt(v) { return v == null ? "" : String(v); }

  function moveList(g) {
    var tb = $("moves-body");
    tb.innerHTML = "";
    g.moves.forEach(function (m, i) {
      var tr = document.createElement("tr");
      tr.id = "mv" + (i + 1);
      tr.className = "s" + m.seat;
      [String(i + 1), seatShort(g, m.seat), m.text, fmt(m.cpu), fmt(m.left), opt(m.depth), scoreText(m.score)].forEach(function (t) {
        var td = document.createElement("td");
        td.textContent = t;
        tr.appendChild(td);
      });
      tr.onclick = function () { go(gi, i + 1); };
      tb.appendChild(tr);
    });
  }

  var shownGame = -1;
  function show() {
    var g = D.games[gi];
    var P = g.plies[ply];
    if (shownGame !== gi) {
      shownGame = gi;
      moveList(g);
      $("game-title").textContent = "Game " + (gi + 1) + " (" + g.key + ", " + g.game + "): " +
        seatName(g, 0) + " vs " + seatName(g, 1);
      $("verdict").textContent = "Result: " + g.verdict;
      $("notes").textContent = g.notes.map(function (n) { return "Note: " + n + "."; }).join("\n");
      drawLegend(g);
      $("ply-range").max = g.moves.length;
      $("game-select").value = String(gi + 1);
      document.querySelectorAll(".game-link").forEach(function (a) {
        a.classList.toggle("current", a.getAttribute("data-game") === String(gi + 1));
      });
    }
    drawBoard(g, P);
    drawCharts(g);
    $("ply-range").value = ply;
    $("ply-input").value = ply;
    $("ply-of").textContent = "of " + g.moves.length;
    var st = $("status");
    st.setAttribute("data-game", gi + 1);
    st.setAttribute("data-ply", ply);
    var m = g.moves[ply - 1];
    var line = ply === 0 ? "Start position; " + seatName(g, D.games[gi].first) + " moves first."
      : "Ply " + ply + ": " + seatName(g, m.seat) + " played " + m.text + (P.n ? " (" + P.n + ")" : "") +
        ", " + fmt(m.cpu) + " s CPU, " + fmt(m.left) + " s left" +
        (m.depth != null ? ", depth " + m.depth : "") + (m.score != null ? ", score " + m.score : "") + ".";
    st.textContent = line;
    $("facts").textContent = P.f.join("\n");
    document.querySelectorAll("#moves-body tr.now").forEach(function (tr) { tr.classList.remove("now"); });
    var row = $("mv" + ply);
    if (row) {
      row.classList.add("now");
      var box = $("moves-box");
      if (row.offsetTop < box.scrollTop || row.offsetTop > box.scrollTop + box.clientHeight - 30) box.scrollTop = row.offsetTop - 60;
    }
    var h = "#g" + (gi + 1) + "/p" + ply;
    if (location.hash !== h) history.replaceState(null, "", h);
  }

  function go(g, p) {
    gi = Math.min(Math.max(g, 0), D.games.length - 1);
    ply = Math.min(Math.max(p, 0), D.games[gi].moves.length);
    show();
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").textContent = "Play"; } }
  function play() {
    if (timer) return stop();
    if (ply >= D.games[gi].moves.length) ply = 0;
    $("play").textContent = "Pause";
    timer = setInterval(function () {
      if (ply >= D.games[gi].moves.length) return stop();
      go(gi, ply + 1);
    }, Number($("speed").value));
  }
  function fromHash() {
    var m = /^#g(\d+)(?:\/p(\d+))?$/.exec(location.hash);
    if (m) {
      go(Number(m[1]) - 1, m[2] === undefined ? 0 : Number(m[2]));
    } else go(0, 0);
  }

  $("first").onclick = function () { stop(); go(gi, 0); };
  $("prev").onclick = function () { stop(); go(gi, ply - 1); };
  $("next").onclick = function () { stop(); go(gi, ply + 1); };
  $("last").onclick = function () { stop(); go(gi, 1e9); };
  $("play").onclick = play;
  var sel = $("game-select");
  D.games.forEach(function (g, i) {
    var o = document.createElement("option");
    o.value = String(i + 1);
    o.textContent = (i + 1) + ": " + g.game + " " + g.agents[0] + " vs " + g.agents[1];
    sel.appendChild(o);
  });
  sel.onchange = function () { stop(); go(Number(this.value) - 1, 0); };
  $("ply-range").oninput = function () { stop(); go(gi, Number(this.value)); };
  $("ply-input").onchange = function () { stop(); go(gi, Number(this.value)); };
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    var k = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[e.key];
    if (k !== undefined) { stop(); go(gi, ply + k); e.preventDefault(); }
    else if (e.key === " ") { play(); e.preventDefault(); }
    else if (e.key === "PageDown") { stop(); go(gi + 1, 0); e.preventDefault(); }
    else if (e.key === "PageUp") { stop(); go(gi - 1, 0); e.preventDefault(); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
