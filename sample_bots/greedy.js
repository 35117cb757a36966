#!/usr/bin/env node
// greedy.js - a sample Battle Sheep bot in plain JavaScript (Node.js, no npm).
//
// Run it against another bot:
//   arena play "node sample_bots/greedy.js" "python3 sample_bots/random_bot.py"
//
// The bot speaks protocol version 1 (protocol/PROTOCOL.md) and plays the rules
// of RULES.md. Its strategy is "greedy": it looks one move ahead only.
//   - tile phase: lay the tile that shares the most hex edges with the pasture
//     (a compact pasture);
//   - herd phase: put the herd on the free border hex with the most room to
//     slide (free hexes counted along all six directions);
//   - move phase: play the move after which (my mobility) - (opponents'
//     mobility) is largest, where mobility counts the (stack, direction)
//     pairs that can slide; among equal moves, split the stack near half.
// Ties are broken by a small PRNG seeded from the game's seed, so a replay of
// a game replays the bot's moves too.
//
// The bot is stateless between turns: every request carries the whole board,
// so each turn rebuilds everything from the request's board= and stacks=.
// Debug output goes to stderr (kept with the game record), never to stdout.

"use strict";
const readline = require("readline");

// --- Hex geometry ----------------------------------------------------------
// Axial coordinates (q, r); the six directions in protocol order.
const DIRS = [
  ["E", 1, 0], ["NE", 1, -1], ["NW", 0, -1],
  ["W", -1, 0], ["SW", -1, 1], ["SE", 0, 1],
];
// The hexes a tile covers, as offsets from its anchor, per orientation.
const TILE_SHAPES = {
  A: [[0, 0], [1, 0], [0, 1], [1, 1]],
  B: [[0, 0], [1, 0], [1, -1], [2, -1]],
  C: [[0, 0], [1, -1], [1, 0], [0, 1]],
};
const key = (q, r) => q + "," + r; // hexes are stored in Maps/Sets by "q,r"

// --- The game's fixed settings (from the `game` request) -------------------
const game = { seat: "a", players: 2, seed: "0", contact: 1, holeborder: 0, multigame: false };

// --- A small seeded PRNG (mulberry32) for deterministic tie-breaks --------
function hashString(s) { // FNV-1a: turns any text (e.g. a 64-bit seed) into 32 bits
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
function makeRng(seedText) {
  let a = hashString(seedText);
  return function next() { // a float in [0, 1)
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// --- Reading a request -------------------------------------------------------
// "move time=950 board=0,0;1,0 stacks=0,0,a,1" -> { board: "0,0;1,0", ... }
function parseFields(tokens) {
  const fields = {};
  for (const tok of tokens) {
    const eq = tok.indexOf("=");
    if (eq > 0) fields[tok.slice(0, eq)] = tok.slice(eq + 1);
  }
  return fields;
}
// A `;`-separated list, where "-" (or a missing key) means an empty list.
const splitList = (text) => (!text || text === "-" ? [] : text.split(";"));

// The position as the bot sees it, rebuilt from one request.
function readPosition(fields) {
  const pasture = new Set(); // "q,r" of every pasture hex
  for (const h of splitList(fields.board)) pasture.add(h);
  const stacks = new Map(); // "q,r" -> { q, r, player, sheep }
  for (const s of splitList(fields.stacks)) {
    const [q, r, player, sheep] = s.split(",");
    stacks.set(key(+q, +r), { q: +q, r: +r, player, sheep: +sheep });
  }
  const forfeit = !fields.forfeit || fields.forfeit === "-" ? "" : fields.forfeit;
  return { pasture, stacks, forfeit };
}

// --- Rules helpers -----------------------------------------------------------
const isFree = (pos, q, r) => pos.pasture.has(key(q, r)) && !pos.stacks.has(key(q, r));

// Where sheep leaving (q, r) in direction (dq, dr) stop: the last free hex
// before the pasture's edge, a hole or any stack. null if blocked at once.
function slideEnd(pos, q, r, dq, dr) {
  let steps = 0;
  while (isFree(pos, q + dq, r + dr)) { q += dq; r += dr; steps++; }
  return steps > 0 ? [q, r, steps] : null;
}

// Mobility of each player: how many (stack, direction) pairs can slide,
// as an object { a: 7, b: 4, ... } (a player with no stack is left out).
function mobility(pos) {
  const mob = {};
  for (const s of pos.stacks.values()) {
    if (!(s.player in mob)) mob[s.player] = 0;
    if (s.sheep < 2) continue; // a stack of one sheep never moves again
    for (const [, dq, dr] of DIRS) if (isFree(pos, s.q + dq, s.r + dr)) mob[s.player]++;
  }
  return mob;
}

// --- Phase 1: tiles ----------------------------------------------------------
function chooseTile(pos, rng) {
  if (pos.pasture.size === 0) return { move: "0,0A", note: "first tile" };
  // Every legal tile covers a non-pasture hex next to the pasture, so try
  // each such hex as each of the 4 cells of each orientation.
  const tried = new Set();
  let best = null;
  for (const h of pos.pasture) {
    const [pq, pr] = h.split(",").map(Number);
    for (const [, dq, dr] of DIRS) {
      const eq = pq + dq, er = pr + dr;
      if (pos.pasture.has(key(eq, er))) continue;
      for (const o of Object.keys(TILE_SHAPES)) {
        for (const [oq, or] of TILE_SHAPES[o]) {
          const aq = eq - oq, ar = er - or; // the anchor that puts cell (oq,or) on (eq,er)
          const name = key(aq, ar) + o;
          if (tried.has(name)) continue;
          tried.add(name);
          const score = scoreTile(pos.pasture, aq, ar, o);
          if (score < 0) continue; // illegal
          const cand = { move: name, score, tie: rng() };
          if (!best || cand.score > best.score || (cand.score === best.score && cand.tie > best.tie)) best = cand;
        }
      }
    }
  }
  return { move: best.move, note: "shares " + best.score + " edges" };
}

// Hex edges a tile shares with the pasture, or -1 if the rules forbid it
// (overlap, or fewer than `contact` of its hexes touching the pasture).
function scoreTile(pasture, aq, ar, o) {
  const cells = TILE_SHAPES[o].map(([oq, or]) => [aq + oq, ar + or]);
  let edges = 0, touching = 0;
  for (const [q, r] of cells) {
    if (pasture.has(key(q, r))) return -1; // overlap
    let n = 0;
    for (const [, dq, dr] of DIRS) if (pasture.has(key(q + dq, r + dr))) n++;
    edges += n;
    if (n > 0) touching++;
  }
  return touching >= game.contact ? edges : -1;
}

// --- Phase 2: herds ----------------------------------------------------------
// The non-pasture cells connected to the outside: flood fill over the
// non-pasture cells of the pasture's bounding box grown by one, starting from
// the box's rim. Non-pasture cells the fill does not reach are holes.
function outsideCells(pasture) {
  let qmin = Infinity, qmax = -Infinity, rmin = Infinity, rmax = -Infinity;
  for (const h of pasture) {
    const [q, r] = h.split(",").map(Number);
    qmin = Math.min(qmin, q - 1); qmax = Math.max(qmax, q + 1);
    rmin = Math.min(rmin, r - 1); rmax = Math.max(rmax, r + 1);
  }
  const inBox = (q, r) => q >= qmin && q <= qmax && r >= rmin && r <= rmax;
  const outside = new Set();
  const todo = [];
  for (let q = qmin; q <= qmax; q++) {
    for (let r = rmin; r <= rmax; r++) {
      const rim = q === qmin || q === qmax || r === rmin || r === rmax;
      if (rim && !pasture.has(key(q, r))) { outside.add(key(q, r)); todo.push([q, r]); }
    }
  }
  while (todo.length > 0) {
    const [q, r] = todo.pop();
    for (const [, dq, dr] of DIRS) {
      const nq = q + dq, nr = r + dr, k = key(nq, nr);
      if (inBox(nq, nr) && !pasture.has(k) && !outside.has(k)) { outside.add(k); todo.push([nq, nr]); }
    }
  }
  return outside;
}

function chooseHerd(pos, rng) {
  const outside = outsideCells(pos.pasture);
  let best = null;
  for (const h of pos.pasture) {
    if (pos.stacks.has(h)) continue;
    const [q, r] = h.split(",").map(Number);
    // On the border: a neighbour off the pasture that is outside (or, with
    // holeborder=1, any neighbour off the pasture, holes included). Cells
    // beyond the grown box are outside too, but a pasture hex's neighbours
    // are always inside it.
    const border = DIRS.some(([, dq, dr]) => {
      const k = key(q + dq, r + dr);
      return !pos.pasture.has(k) && (game.holeborder === 1 || outside.has(k));
    });
    if (!border) continue;
    let room = 0; // free hexes along the six rays
    for (const [, dq, dr] of DIRS) {
      const end = slideEnd(pos, q, r, dq, dr);
      if (end) room += end[2];
    }
    const cand = { move: h, score: room, tie: rng() };
    if (!best || cand.score > best.score || (cand.score === best.score && cand.tie > best.tie)) best = cand;
  }
  return { move: best.move, note: "slide room " + best.score };
}

// --- Phase 3: moving sheep -------------------------------------------------
// Score of the position: my mobility minus the sum of my active opponents'
// (forfeited seats never move again, so they do not count).
function evaluate(pos) {
  const mob = mobility(pos);
  let score = 0;
  for (const player of Object.keys(mob)) {
    if (player === game.seat) score += mob[player];
    else if (!pos.forfeit.includes(player)) score -= mob[player];
  }
  return score;
}

function chooseMove(pos, rng) {
  let best = null;
  for (const s of pos.stacks.values()) {
    if (s.player !== game.seat || s.sheep < 2) continue;
    for (const [dir, dq, dr] of DIRS) {
      const end = slideEnd(pos, s.q, s.r, dq, dr);
      if (!end) continue;
      const [tq, tr] = end;
      const target = key(tq, tr);
      const size = s.sheep;
      for (let k = 1; k < size; k++) {
        // Play the move on the position, evaluate it, and take it back.
        s.sheep = size - k;
        pos.stacks.set(target, { q: tq, r: tr, player: game.seat, sheep: k });
        const score = evaluate(pos);
        pos.stacks.delete(target);
        s.sheep = size;
        const cand = {
          move: key(s.q, s.r) + dir + k,
          score,
          balance: -Math.abs(2 * k - size), // 0 for an even split: preferred
          tie: rng(),
        };
        if (!best || better(cand, best)) best = cand;
      }
    }
  }
  return { move: best.move, note: "mobility difference " + best.score };
}

// Compare two candidate moves: score first, then balance, then the PRNG.
function better(a, b) {
  if (a.score !== b.score) return a.score > b.score;
  if (a.balance !== b.balance) return a.balance > b.balance;
  return a.tie > b.tie;
}

// --- The conversation --------------------------------------------------------
const send = (line) => process.stdout.write(line + "\n");

function handle(line) {
  const tokens = line.trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length === 0) return;
  const kind = tokens[0];
  const fields = parseFields(tokens.slice(1));

  if (kind === "hello") {
    send("hello 1 greedy-js multigame"); // we can play several games in one process
  } else if (kind === "game") {
    if (fields.seat) game.seat = fields.seat;
    if (fields.players) game.players = +fields.players;
    if (fields.seed) game.seed = fields.seed;
    if (fields.contact) game.contact = +fields.contact;
    if (fields.holeborder) game.holeborder = +fields.holeborder;
    game.multigame = fields.multigame === "1"; // the referee keeps us for another game
    send("ready");
  } else if (kind === "tile" || kind === "herd" || kind === "move") {
    const started = Date.now();
    const pos = readPosition(fields);
    // Seeded from the game's seed, our seat and the ply: the same request
    // always gets the same answer, without keeping state between turns.
    const rng = makeRng(game.seed + "/" + game.seat + "/" + (fields.ply || "0"));
    const choose = { tile: chooseTile, herd: chooseHerd, move: chooseMove }[kind];
    const pick = choose(pos, rng);
    send("info " + kind + " " + pick.move + ": " + pick.note + " (" + (Date.now() - started) + " ms)");
    send(kind + " " + pick.move);
  } else if (kind === "end") {
    if (!game.multigame) process.exit(0); // the game is over
    // else wait for the next "game" (or the end of our input)
  } else {
    process.stderr.write("greedy.js: ignoring unknown message: " + line + "\n");
  }
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", handle);
input.on("close", () => process.exit(0)); // the referee closed our input
