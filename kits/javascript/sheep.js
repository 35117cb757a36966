// sheep.js - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// objects, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.js holds the strategy; run() below is the conversation with the referee.
"use strict";
const readline = require("readline");

// The six directions, as the protocol names them, and the step each adds to (q, r).
const DIRECTIONS = [["E", 1, 0], ["NE", 1, -1], ["NW", 0, -1], ["W", -1, 0], ["SW", -1, 1], ["SE", 0, 1]];
// The hexes a tile covers, as offsets from its anchor, for each orientation.
const TILE_SHAPES = {
  A: [[0, 0], [1, 0], [0, 1], [1, 1]],
  B: [[0, 0], [1, 0], [1, -1], [2, -1]],
  C: [[0, 0], [1, -1], [1, 0], [0, 1]],
};
const LIMIT = 999; // every hex has -999 <= q, r <= 999

const key = (q, r) => q + "," + r; // hexes are kept in Sets and Maps by "q,r"

function parseHex(text) {
  const [q, r] = text.split(",");
  return [Number(q), Number(r)];
}

// The four hexes of a tile move such as "2,-1B".
function tileHexes(move) {
  const [q, r] = parseHex(move.slice(0, -1));
  return TILE_SHAPES[move.slice(-1)].map(([oq, or]) => [q + oq, r + or]);
}

// "3,0NE5" -> { q: 3, r: 0, dq: 1, dr: -1, sheep: 5 }
function parseSheepMove(move) {
  const m = /^(-?\d+),(-?\d+)([A-Z]+)(\d+)$/.exec(move);
  const dir = DIRECTIONS.find((d) => d[0] === m[3]);
  return { q: Number(m[1]), r: Number(m[2]), dq: dir[1], dr: dir[2], sheep: Number(m[4]) };
}

// A board: the pasture, the stacks, whose move it is and the rules that apply.
class Position {
  constructor(phase, me, pasture, stacks, sheep, contact, holeborder) {
    this.phase = phase; // "tile", "herd" or "move"
    this.me = me; // my letter
    this.pasture = pasture; // Set of "q,r"
    this.stacks = stacks; // Map "q,r" -> { q, r, player, sheep }
    this.sheep = sheep;
    this.contact = contact;
    this.holeborder = holeborder;
  }

  // A pasture hex with no stack on it.
  isFree(q, r) {
    return this.pasture.has(key(q, r)) && !this.stacks.has(key(q, r));
  }

  // Where sheep leaving (q, r) that way stop, or null if they cannot move.
  slide(q, r, dq, dr) {
    if (!this.isFree(q + dq, r + dr)) return null;
    while (this.isFree(q + dq, r + dr)) { q += dq; r += dr; }
    return [q, r];
  }

  // How many (stack, direction) pairs of `player` can slide.
  mobility(player) {
    let n = 0;
    for (const s of this.stacks.values()) {
      if (s.player !== player || s.sheep < 2) continue;
      for (const [, dq, dr] of DIRECTIONS) if (this.isFree(s.q + dq, s.r + dr)) n++;
    }
    return n;
  }

  // How many hex edges the tile `move` shares with the pasture.
  tileContact(move) {
    let n = 0;
    for (const [q, r] of tileHexes(move)) {
      for (const [, dq, dr] of DIRECTIONS) if (this.pasture.has(key(q + dq, r + dr))) n++;
    }
    return n;
  }

  // Every legal move of the phase, as the protocol writes it (without the phase word).
  legalMoves() {
    if (this.phase === "tile") return this.legalTiles();
    if (this.phase === "herd") return this.legalHerds();
    const moves = [];
    for (const s of this.stacks.values()) {
      if (s.player !== this.me || s.sheep < 2) continue;
      for (const [name, dq, dr] of DIRECTIONS) {
        if (!this.isFree(s.q + dq, s.r + dr)) continue;
        for (let n = 1; n < s.sheep; n++) moves.push(key(s.q, s.r) + name + n);
      }
    }
    return moves;
  }

  legalTiles() {
    if (this.pasture.size === 0) return ["0,0A", "0,0B", "0,0C"]; // the first tile may go anywhere
    const moves = new Set(); // in a fixed order, without repeats
    for (const h of sortedHexes(this.pasture)) {
      const [q, r] = parseHex(h);
      for (const [, dq, dr] of DIRECTIONS) {
        const hq = q + dq, hr = r + dr; // a hex next to the pasture: some legal tile covers it
        if (this.pasture.has(key(hq, hr))) continue;
        for (const o of Object.keys(TILE_SHAPES)) {
          for (const [oq, or] of TILE_SHAPES[o]) {
            const move = key(hq - oq, hr - or) + o;
            if (!moves.has(move) && this.tileFits(move)) moves.add(move);
          }
        }
      }
    }
    return [...moves];
  }

  tileFits(move) {
    const hexes = tileHexes(move);
    let touching = 0;
    for (const [q, r] of hexes) {
      if (this.pasture.has(key(q, r)) || Math.abs(q) > LIMIT || Math.abs(r) > LIMIT) return false;
      if (DIRECTIONS.some(([, dq, dr]) => this.pasture.has(key(q + dq, r + dr)))) touching++;
    }
    return touching >= this.contact;
  }

  legalHerds() {
    const outside = this.outside();
    const moves = [];
    for (const h of sortedHexes(this.pasture)) {
      if (this.stacks.has(h)) continue;
      const [q, r] = parseHex(h);
      const border = DIRECTIONS.some(([, dq, dr]) => {
        const n = key(q + dq, r + dr);
        return !this.pasture.has(n) && (this.holeborder === 1 || outside.has(n));
      });
      if (border) moves.push(h);
    }
    return moves;
  }

  // The hexes off the pasture that reach the outside (the others are holes).
  outside() {
    let q0 = Infinity, q1 = -Infinity, r0 = Infinity, r1 = -Infinity;
    for (const h of this.pasture) {
      const [q, r] = parseHex(h);
      q0 = Math.min(q0, q - 1); q1 = Math.max(q1, q + 1);
      r0 = Math.min(r0, r - 1); r1 = Math.max(r1, r + 1);
    }
    const outside = new Set();
    const todo = [];
    for (let q = q0; q <= q1; q++) {
      for (let r = r0; r <= r1; r++) {
        if ((q === q0 || q === q1 || r === r0 || r === r1) && !this.pasture.has(key(q, r))) {
          outside.add(key(q, r));
          todo.push([q, r]);
        }
      }
    }
    while (todo.length > 0) {
      const [q, r] = todo.pop();
      for (const [, dq, dr] of DIRECTIONS) {
        const nq = q + dq, nr = r + dr, n = key(nq, nr);
        if (nq >= q0 && nq <= q1 && nr >= r0 && nr <= r1 && !this.pasture.has(n) && !outside.has(n)) {
          outside.add(n);
          todo.push([nq, nr]);
        }
      }
    }
    return outside;
  }

  // A copy of this position with `move` played by me (the move must be legal).
  play(move) {
    const pasture = new Set(this.pasture);
    const stacks = new Map();
    for (const [h, s] of this.stacks) stacks.set(h, { ...s });
    if (this.phase === "tile") {
      for (const [q, r] of tileHexes(move)) pasture.add(key(q, r));
    } else if (this.phase === "herd") {
      const [q, r] = parseHex(move);
      stacks.set(key(q, r), { q, r, player: this.me, sheep: this.sheep });
    } else {
      const m = parseSheepMove(move);
      const [eq, er] = this.slide(m.q, m.r, m.dq, m.dr);
      stacks.get(key(m.q, m.r)).sheep -= m.sheep;
      stacks.set(key(eq, er), { q: eq, r: er, player: this.me, sheep: m.sheep });
    }
    return new Position(this.phase, this.me, pasture, stacks, this.sheep, this.contact, this.holeborder);
  }
}

function sortedHexes(set) {
  return [...set].map(parseHex).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([q, r]) => key(q, r));
}

// SplitMix64: a small random number generator that gives the same numbers in every kit.
class Rng {
  constructor(seed) { this.state = BigInt.asUintN(64, BigInt(seed)); }
  next() {
    this.state = BigInt.asUintN(64, this.state + 0x9e3779b97f4a7c15n);
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }
  // A number from 0 to n - 1.
  below(n) { return Number(this.next() % BigInt(n)); }
}

// "time=950 board=0,0;1,0" -> { time: "950", board: "0,0;1,0" }
function fields(words) {
  const f = {};
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq > 0) f[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return f;
}
const items = (text) => (!text || text === "-" ? [] : text.split(";"));
const numbers = (text) => items(text).map((x) => (x === "-" ? -1 : Number(x)));

// The `game` message: what is fixed for one game.
function readGame(words) {
  const f = fields(words);
  return {
    id: f.id || "",
    seat: f.seat || "a", // my letter: a plays first
    players: Number(f.players || 2),
    seed: f.seed || "0", // for my own randomness (a 64-bit number: kept as text)
    sheep: Number(f.sheep || 16),
    tiles: Number(f.tiles || 4),
    contact: Number(f.contact || 1),
    holeborder: Number(f.holeborder || 0),
    movetime: Number(f.movetime || 0), // ms per answer, 0 if none
    base: Number(f.base || 0), // the clock in ms, 0 if none
    increment: Number(f.increment || 0),
    names: (f.names || "").split(","),
    multigame: f.multigame === "1", // true: after `end`, wait for the next `game`
  };
}

// A `tile`, `herd` or `move` request: it is my turn.
function readTurn(game, words) {
  const f = fields(words.slice(1));
  const pasture = new Set(items(f.board));
  const stacks = new Map();
  for (const s of items(f.stacks)) {
    const [q, r, player, sheep] = s.split(",");
    stacks.set(key(Number(q), Number(r)), { q: Number(q), r: Number(r), player, sheep: Number(sheep) });
  }
  const daisies = new Map();
  for (const d of items(f.daisies)) {
    const [q, r, n] = d.split(",");
    daisies.set(key(Number(q), Number(r)), Number(n));
  }
  return {
    phase: words[0],
    time: Number(f.time || 0), // ms I have for this answer
    ply: Number(f.ply || 0),
    clocks: numbers(f.clocks), // each seat's clock in ms; -1 for a seat without a clock
    since: items(f.since).map((m) => ({ player: m.split(":")[0], move: m.split(":")[1] })),
    tiles: numbers(f.tiles), // tiles each seat still holds
    forfeit: !f.forfeit || f.forfeit === "-" ? "" : f.forfeit, // letters of the forfeited seats
    daisies,
    position: new Position(words[0], game.seat, pasture, stacks, game.sheep, game.contact, game.holeborder),
  };
}

// The `end` notice, in seat order.
function readEnd(words) {
  const f = fields(words);
  return {
    ranks: numbers(f.ranks), hexes: numbers(f.hexes), groups: numbers(f.groups),
    daisies: numbers(f.daisies), faults: items(f.faults), // "-" for none
  };
}

// Write one line: process.stdout.write sends it at once (no flush to forget).
const send = (line) => process.stdout.write(line + "\n");
// Debugging output: stderr is kept with the game record, never read as an answer.
const log = (text) => process.stderr.write(text + "\n");

// Answer the referee until the last game ends or the input closes.
function run(name, choose, onEnd) {
  let game = readGame([]);
  let rng = new Rng(0);
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on("line", (line) => {
    const words = line.trim().split(/\s+/).filter((w) => w.length > 0);
    if (words.length === 0) return;
    const kind = words[0];
    if (kind === "hello") {
      send("hello 1 " + name + " multigame"); // may play several games in one process
    } else if (kind === "game") {
      game = readGame(words.slice(1));
      rng = new Rng(game.seed); // a fresh generator for every game: replays repeat
      send("ready");
    } else if (kind === "tile" || kind === "herd" || kind === "move") {
      send(kind + " " + choose(game, readTurn(game, words), rng));
    } else if (kind === "end") {
      onEnd(game, readEnd(words.slice(1)));
      if (!game.multigame) process.exit(0);
    } else {
      log(name + ": ignoring '" + kind + "' (a message of a later protocol version?)");
    }
  });
  input.on("close", () => process.exit(0)); // the referee closed my input
}

module.exports = { DIRECTIONS, TILE_SHAPES, Position, Rng, key, parseHex, tileHexes, log, run };
