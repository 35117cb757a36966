// sheep.ts - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// objects, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.ts holds the strategy; run() below is the conversation with the referee.

// The few Node.js names the kit uses (Debian's TypeScript comes without @types/node).
declare function require(name: string): any;
declare const process: {
  stdin: unknown;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
  exit(code: number): never;
};
const readline = require("readline");

// The six directions, as the protocol names them, and the step each adds to (q, r).
export const DIRECTIONS: [string, number, number][] = [
  ["E", 1, 0], ["NE", 1, -1], ["NW", 0, -1], ["W", -1, 0], ["SW", -1, 1], ["SE", 0, 1],
];
// The hexes a tile covers, as offsets from its anchor, for each orientation.
export const TILE_SHAPES: { [o: string]: [number, number][] } = {
  A: [[0, 0], [1, 0], [0, 1], [1, 1]],
  B: [[0, 0], [1, 0], [1, -1], [2, -1]],
  C: [[0, 0], [1, -1], [1, 0], [0, 1]],
};
export const LIMIT = 999; // every hex has -999 <= q, r <= 999

export type Hex = [number, number];
export const key = (q: number, r: number): string => q + "," + r; // hexes are kept in Sets and Maps by "q,r"

export function parseHex(text: string): Hex {
  const [q, r] = text.split(",");
  return [Number(q), Number(r)];
}

// The four hexes of a tile move such as "2,-1B".
export function tileHexes(move: string): Hex[] {
  const [q, r] = parseHex(move.slice(0, -1));
  return TILE_SHAPES[move.slice(-1)].map(([oq, or]): Hex => [q + oq, r + or]);
}

// The `game` message: what is fixed for one game.
export interface Game {
  id: string;
  seat: string; // my letter: "a" plays first
  players: number;
  seed: bigint; // for my own randomness: the same seed replays my moves
  sheep: number;
  tiles: number;
  contact: number;
  holeborder: number;
  movetime: number; // ms per answer, 0 if none
  base: number; // the clock in ms, 0 if none
  increment: number;
  names: string[];
  multigame: boolean; // true: after `end`, wait for the next `game`
}

export interface Stack { q: number; r: number; player: string; sheep: number; }

// A board: the pasture, the stacks, whose move it is and the rules that apply.
export class Position {
  constructor(
    public phase: string, // "tile", "herd" or "move"
    public me: string,
    public pasture: Set<string>, // "q,r" of every pasture hex
    public stacks: Map<string, Stack>, // "q,r" -> its stack
    public sheep: number,
    public contact: number,
    public holeborder: number,
  ) {}

  // A pasture hex with no stack on it.
  isFree(q: number, r: number): boolean {
    return this.pasture.has(key(q, r)) && !this.stacks.has(key(q, r));
  }

  // Where sheep leaving (q, r) that way stop, or null if they cannot move.
  slide(q: number, r: number, dq: number, dr: number): Hex | null {
    if (!this.isFree(q + dq, r + dr)) return null;
    while (this.isFree(q + dq, r + dr)) { q += dq; r += dr; }
    return [q, r];
  }

  // How many (stack, direction) pairs of `player` can slide.
  mobility(player: string): number {
    let n = 0;
    for (const s of this.stacks.values()) {
      if (s.player !== player || s.sheep < 2) continue;
      for (const [, dq, dr] of DIRECTIONS) if (this.isFree(s.q + dq, s.r + dr)) n++;
    }
    return n;
  }

  // How many hex edges the tile `move` shares with the pasture.
  tileContact(move: string): number {
    let n = 0;
    for (const [q, r] of tileHexes(move)) {
      for (const [, dq, dr] of DIRECTIONS) if (this.pasture.has(key(q + dq, r + dr))) n++;
    }
    return n;
  }

  // Every legal move of the phase, as the protocol writes it (without the phase word).
  legalMoves(): string[] {
    if (this.phase === "tile") return this.legalTiles();
    if (this.phase === "herd") return this.legalHerds();
    const moves: string[] = [];
    for (const s of this.stacks.values()) {
      if (s.player !== this.me || s.sheep < 2) continue;
      for (const [name, dq, dr] of DIRECTIONS) {
        if (!this.isFree(s.q + dq, s.r + dr)) continue;
        for (let n = 1; n < s.sheep; n++) moves.push(key(s.q, s.r) + name + n);
      }
    }
    return moves;
  }

  private legalTiles(): string[] {
    if (this.pasture.size === 0) return ["0,0A", "0,0B", "0,0C"]; // the first tile may go anywhere
    const [q0, q1, r0, r1] = this.bounds(3); // every tile that touches lies in the box grown by 3
    const moves: string[] = [];
    for (let q = q0; q <= q1; q++) {
      for (let r = r0; r <= r1; r++) {
        for (const o of Object.keys(TILE_SHAPES)) if (this.tileFits(q, r, o)) moves.push(key(q, r) + o);
      }
    }
    return moves;
  }

  private tileFits(q: number, r: number, o: string): boolean {
    let touching = 0;
    for (const [oq, or] of TILE_SHAPES[o]) {
      const hq = q + oq, hr = r + or;
      if (this.pasture.has(key(hq, hr)) || Math.abs(hq) > LIMIT || Math.abs(hr) > LIMIT) return false;
      if (DIRECTIONS.some(([, dq, dr]) => this.pasture.has(key(hq + dq, hr + dr)))) touching++;
    }
    return touching >= this.contact;
  }

  private legalHerds(): string[] {
    const outside = this.outside();
    const moves: string[] = [];
    const [q0, q1, r0, r1] = this.bounds(0);
    for (let q = q0; q <= q1; q++) {
      for (let r = r0; r <= r1; r++) {
        const h = key(q, r);
        if (!this.pasture.has(h) || this.stacks.has(h)) continue;
        const border = DIRECTIONS.some(([, dq, dr]) => {
          const n = key(q + dq, r + dr);
          return !this.pasture.has(n) && (this.holeborder === 1 || outside.has(n));
        });
        if (border) moves.push(h);
      }
    }
    return moves;
  }

  private bounds(grow: number): [number, number, number, number] {
    let q0 = Infinity, q1 = -Infinity, r0 = Infinity, r1 = -Infinity;
    for (const h of this.pasture) {
      const [q, r] = parseHex(h);
      q0 = Math.min(q0, q - grow); q1 = Math.max(q1, q + grow);
      r0 = Math.min(r0, r - grow); r1 = Math.max(r1, r + grow);
    }
    return [q0, q1, r0, r1];
  }

  // The hexes off the pasture that reach the outside (the others are holes).
  private outside(): Set<string> {
    const [q0, q1, r0, r1] = this.bounds(1);
    const outside = new Set<string>();
    const todo: Hex[] = [];
    for (let q = q0; q <= q1; q++) {
      for (let r = r0; r <= r1; r++) {
        if ((q === q0 || q === q1 || r === r0 || r === r1) && !this.pasture.has(key(q, r))) {
          outside.add(key(q, r));
          todo.push([q, r]);
        }
      }
    }
    while (todo.length > 0) {
      const [q, r] = todo.pop() as Hex;
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
  play(move: string): Position {
    const pasture = new Set(this.pasture);
    const stacks = new Map<string, Stack>();
    for (const [h, s] of this.stacks) stacks.set(h, { ...s });
    if (this.phase === "tile") {
      for (const [q, r] of tileHexes(move)) pasture.add(key(q, r));
    } else if (this.phase === "herd") {
      const [q, r] = parseHex(move);
      stacks.set(key(q, r), { q, r, player: this.me, sheep: this.sheep });
    } else {
      const m = /^(-?\d+),(-?\d+)([A-Z]+)(\d+)$/.exec(move);
      const dir = m && DIRECTIONS.find((d) => d[0] === m[3]);
      const end = m && dir && this.slide(Number(m[1]), Number(m[2]), dir[1], dir[2]);
      if (m && end) {
        (stacks.get(key(Number(m[1]), Number(m[2]))) as Stack).sheep -= Number(m[4]);
        stacks.set(key(end[0], end[1]), { q: end[0], r: end[1], player: this.me, sheep: Number(m[4]) });
      }
    }
    return new Position(this.phase, this.me, pasture, stacks, this.sheep, this.contact, this.holeborder);
  }
}

// A `tile`, `herd` or `move` request: it is my turn.
export interface Turn {
  phase: string;
  time: number; // ms I have for this answer
  ply: number;
  clocks: number[]; // each seat's clock in ms; -1 for a seat without one
  since: { player: string; move: string }[]; // the others' moves since my last answer
  tiles: number[]; // tiles each seat still holds
  forfeit: string; // letters of the forfeited seats
  daisies: Map<string, number>;
  position: Position;
}

// The `end` notice, in seat order.
export interface End {
  ranks: number[];
  hexes: number[];
  groups: number[];
  daisies: number[];
  faults: string[]; // "-" for none
}

// SplitMix64: a small random number generator that gives the same numbers in every kit.
export class Rng {
  private state: bigint;
  constructor(seed: bigint) { this.state = BigInt.asUintN(64, seed); }
  next(): bigint {
    this.state = BigInt.asUintN(64, this.state + BigInt("0x9e3779b97f4a7c15"));
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> BigInt(30))) * BigInt("0xbf58476d1ce4e5b9"));
    z = BigInt.asUintN(64, (z ^ (z >> BigInt(27))) * BigInt("0x94d049bb133111eb"));
    return z ^ (z >> BigInt(31));
  }
  // A number from 0 to n - 1.
  below(n: number): number { return Number(this.next() % BigInt(n)); }
}

function fields(words: string[]): { [key: string]: string } {
  const f: { [key: string]: string } = {};
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq > 0) f[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return f;
}
const items = (text: string | undefined): string[] => (!text || text === "-" ? [] : text.split(";"));
const numbers = (text: string | undefined): number[] => items(text).map((x) => (x === "-" ? -1 : Number(x)));

export function readGame(words: string[]): Game {
  const f = fields(words);
  return {
    id: f.id || "",
    seat: f.seat || "a",
    players: Number(f.players || 2),
    seed: BigInt(f.seed || "0"),
    sheep: Number(f.sheep || 16),
    tiles: Number(f.tiles || 4),
    contact: Number(f.contact || 1),
    holeborder: Number(f.holeborder || 0),
    movetime: Number(f.movetime || 0),
    base: Number(f.base || 0),
    increment: Number(f.increment || 0),
    names: (f.names || "").split(","),
    multigame: f.multigame === "1",
  };
}

export function readTurn(game: Game, words: string[]): Turn {
  const f = fields(words.slice(1));
  const stacks = new Map<string, Stack>();
  for (const s of items(f.stacks)) {
    const [q, r, player, sheep] = s.split(",");
    stacks.set(key(Number(q), Number(r)), { q: Number(q), r: Number(r), player, sheep: Number(sheep) });
  }
  const daisies = new Map<string, number>();
  for (const d of items(f.daisies)) {
    const [q, r, n] = d.split(",");
    daisies.set(key(Number(q), Number(r)), Number(n));
  }
  return {
    phase: words[0],
    time: Number(f.time || 0),
    ply: Number(f.ply || 0),
    clocks: numbers(f.clocks),
    since: items(f.since).map((m) => ({ player: m.split(":")[0], move: m.split(":")[1] })),
    tiles: numbers(f.tiles),
    forfeit: !f.forfeit || f.forfeit === "-" ? "" : f.forfeit,
    daisies,
    position: new Position(words[0], game.seat, new Set(items(f.board)), stacks, game.sheep, game.contact, game.holeborder),
  };
}

export function readEnd(words: string[]): End {
  const f = fields(words);
  return {
    ranks: numbers(f.ranks), hexes: numbers(f.hexes), groups: numbers(f.groups),
    daisies: numbers(f.daisies), faults: items(f.faults),
  };
}

// Write one line: process.stdout.write sends it at once (no flush to forget).
export const send = (line: string): void => { process.stdout.write(line + "\n"); };
// Debugging output: stderr is kept with the game record, never read as an answer.
export const log = (text: string): void => { process.stderr.write(text + "\n"); };

// Answer the referee until the last game ends or the input closes.
export function run(
  name: string,
  choose: (game: Game, turn: Turn, rng: Rng) => string,
  onEnd: (game: Game, end: End) => void,
): void {
  let game = readGame([]);
  let rng = new Rng(BigInt(0));
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on("line", (line: string) => {
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
