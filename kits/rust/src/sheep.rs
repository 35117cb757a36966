//! The Battle Sheep protocol and rules for a bot: you need not change this file.
//!
//! It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
//! structs, lists the legal moves of a position and plays a move on a copy of it.
//! main.rs holds the strategy; `run` below is the conversation with the referee.

// The kit reads every field of every message, whether or not the strategy uses it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, BufRead, Write};

/// Every hex has -999 <= q, r <= 999.
pub const LIMIT: i32 = 999;
/// The six directions, as the protocol names them, and the step each adds to (q, r).
pub const DIRECTIONS: [(&str, i32, i32); 6] =
    [("E", 1, 0), ("NE", 1, -1), ("NW", 0, -1), ("W", -1, 0), ("SW", -1, 1), ("SE", 0, 1)];
/// The hexes a tile covers, as offsets from its anchor, for orientations A, B and C.
pub const TILE_SHAPES: [[(i32, i32); 4]; 3] = [
    [(0, 0), (1, 0), (0, 1), (1, 1)],
    [(0, 0), (1, 0), (1, -1), (2, -1)],
    [(0, 0), (1, -1), (1, 0), (0, 1)],
];

/// A hex (q, r).
pub type Hex = (i32, i32);

/// The `game` message: what is fixed for one game.
#[derive(Clone, Debug)]
pub struct Game {
    pub id: String,
    pub seat: char, // my letter: 'a' plays first
    pub players: usize,
    pub seed: u64, // for my own randomness: the same seed replays my moves
    pub sheep: i32,
    pub tiles: i32,
    pub contact: usize,
    pub holeborder: bool,
    pub movetime: i64, // ms per answer, 0 if none
    pub base: i64,     // the clock in ms, 0 if none
    pub increment: i64,
    pub names: Vec<String>,
    pub multigame: bool, // true: after `end`, wait for the next `game`
}

/// A stack of sheep on one hex.
#[derive(Clone, Debug)]
pub struct Stack {
    pub player: char,
    pub sheep: i32,
}

/// A board: the pasture, the stacks, whose move it is and the rules that apply.
#[derive(Clone, Debug)]
pub struct Position {
    pub phase: String, // "tile", "herd" or "move"
    pub me: char,
    pub sheep: i32,
    pub contact: usize,
    pub holeborder: bool,
    pub pasture: BTreeSet<Hex>,
    pub stacks: BTreeMap<Hex, Stack>,
}

impl Position {
    /// A pasture hex with no stack on it.
    pub fn is_free(&self, h: Hex) -> bool {
        self.pasture.contains(&h) && !self.stacks.contains_key(&h)
    }

    /// Where sheep leaving `from` by (dq, dr) stop, or None if they cannot move.
    pub fn slide(&self, from: Hex, dq: i32, dr: i32) -> Option<Hex> {
        let mut h = from;
        while self.is_free((h.0 + dq, h.1 + dr)) {
            h = (h.0 + dq, h.1 + dr);
        }
        if h == from { None } else { Some(h) }
    }

    /// How many (stack, direction) pairs of `player` can slide.
    pub fn mobility(&self, player: char) -> i32 {
        let mut n = 0;
        for (&(q, r), s) in &self.stacks {
            if s.player != player || s.sheep < 2 {
                continue;
            }
            for &(_, dq, dr) in &DIRECTIONS {
                if self.is_free((q + dq, r + dr)) {
                    n += 1;
                }
            }
        }
        n
    }

    /// How many hex edges the tile `mv` shares with the pasture.
    pub fn tile_contact(&self, mv: &str) -> i32 {
        let mut n = 0;
        for (q, r) in tile_hexes(mv) {
            for &(_, dq, dr) in &DIRECTIONS {
                if self.pasture.contains(&(q + dq, r + dr)) {
                    n += 1;
                }
            }
        }
        n
    }

    /// Every legal move of the phase, as the protocol writes it (without the phase word).
    pub fn legal_moves(&self) -> Vec<String> {
        let mut moves = Vec::new();
        match self.phase.as_str() {
            "tile" => {
                if self.pasture.is_empty() {
                    return vec!["0,0A".into(), "0,0B".into(), "0,0C".into()]; // the first tile may go anywhere
                }
                let (q0, q1, r0, r1) = self.bounds(3); // every tile that touches lies in the box grown by 3
                for q in q0..=q1 {
                    for r in r0..=r1 {
                        for o in 0..3 {
                            if self.tile_fits(q, r, o) {
                                moves.push(format!("{},{}{}", q, r, (b'A' + o as u8) as char));
                            }
                        }
                    }
                }
            }
            "herd" => {
                let outside = self.outside();
                for &(q, r) in &self.pasture {
                    if self.stacks.contains_key(&(q, r)) {
                        continue;
                    }
                    let border = DIRECTIONS.iter().any(|&(_, dq, dr)| {
                        let n = (q + dq, r + dr);
                        !self.pasture.contains(&n) && (self.holeborder || outside.contains(&n))
                    });
                    if border {
                        moves.push(format!("{},{}", q, r));
                    }
                }
            }
            _ => {
                for (&(q, r), s) in &self.stacks {
                    if s.player != self.me || s.sheep < 2 {
                        continue;
                    }
                    for &(name, dq, dr) in &DIRECTIONS {
                        if self.is_free((q + dq, r + dr)) {
                            for n in 1..s.sheep {
                                moves.push(format!("{},{}{}{}", q, r, name, n));
                            }
                        }
                    }
                }
            }
        }
        moves
    }

    /// A copy of this position with `mv` played by me (the move must be legal).
    pub fn play(&self, mv: &str) -> Position {
        let mut after = self.clone();
        match self.phase.as_str() {
            "tile" => after.pasture.extend(tile_hexes(mv)),
            "herd" => {
                after.stacks.insert(parse_hex(mv), Stack { player: self.me, sheep: self.sheep });
            }
            _ => {
                let i = mv.find(|c: char| c.is_ascii_uppercase()).unwrap_or(mv.len());
                let j = mv[i..].find(|c: char| c.is_ascii_digit()).map_or(mv.len(), |j| i + j);
                let from = parse_hex(&mv[..i]);
                let n: i32 = mv[j..].parse().unwrap_or(0);
                if let Some(&(_, dq, dr)) = DIRECTIONS.iter().find(|d| d.0 == &mv[i..j]) {
                    if let Some(end) = self.slide(from, dq, dr) {
                        if let Some(s) = after.stacks.get_mut(&from) {
                            s.sheep -= n;
                        }
                        after.stacks.insert(end, Stack { player: self.me, sheep: n });
                    }
                }
            }
        }
        after
    }

    fn tile_fits(&self, q: i32, r: i32, o: usize) -> bool {
        let mut touching = 0;
        for &(oq, or) in &TILE_SHAPES[o] {
            let (hq, hr) = (q + oq, r + or);
            if hq.abs() > LIMIT || hr.abs() > LIMIT || self.pasture.contains(&(hq, hr)) {
                return false;
            }
            if DIRECTIONS.iter().any(|&(_, dq, dr)| self.pasture.contains(&(hq + dq, hr + dr))) {
                touching += 1;
            }
        }
        touching >= self.contact
    }

    fn bounds(&self, grow: i32) -> (i32, i32, i32, i32) {
        let (mut q0, mut q1, mut r0, mut r1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
        for &(q, r) in &self.pasture {
            q0 = q0.min(q - grow);
            q1 = q1.max(q + grow);
            r0 = r0.min(r - grow);
            r1 = r1.max(r + grow);
        }
        (q0, q1, r0, r1)
    }

    /// The hexes off the pasture that reach the outside (the others are holes).
    fn outside(&self) -> BTreeSet<Hex> {
        let (q0, q1, r0, r1) = self.bounds(1);
        let mut out = BTreeSet::new();
        let mut todo = Vec::new();
        for q in q0..=q1 {
            for r in r0..=r1 {
                if (q == q0 || q == q1 || r == r0 || r == r1) && !self.pasture.contains(&(q, r)) {
                    out.insert((q, r));
                    todo.push((q, r));
                }
            }
        }
        while let Some((q, r)) = todo.pop() {
            for &(_, dq, dr) in &DIRECTIONS {
                let n = (q + dq, r + dr);
                if n.0 < q0 || n.0 > q1 || n.1 < r0 || n.1 > r1 || self.pasture.contains(&n) {
                    continue;
                }
                if out.insert(n) {
                    todo.push(n);
                }
            }
        }
        out
    }
}

fn parse_hex(text: &str) -> Hex {
    let mut parts = text.splitn(2, ',');
    let q = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    let r = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
    (q, r)
}

/// The four hexes of a tile move such as "2,-1B".
pub fn tile_hexes(mv: &str) -> Vec<Hex> {
    let (q, r) = parse_hex(&mv[..mv.len() - 1]);
    let o = (mv.as_bytes()[mv.len() - 1] - b'A') as usize;
    TILE_SHAPES[o.min(2)].iter().map(|&(oq, or)| (q + oq, r + or)).collect()
}

/// A `tile`, `herd` or `move` request: it is my turn.
#[derive(Clone, Debug)]
pub struct Turn {
    pub phase: String,
    pub time: i64, // ms I have for this answer
    pub ply: i64,
    pub clocks: Vec<i64>,             // each seat's clock in ms; -1 for a seat without one
    pub since: Vec<(char, String)>,   // the others' moves since my last answer
    pub tiles: Vec<i64>,              // tiles each seat still holds
    pub forfeit: String,              // letters of the forfeited seats
    pub daisies: BTreeMap<Hex, i64>,
    pub position: Position,
}

/// The `end` notice, in seat order.
#[derive(Clone, Debug)]
pub struct End {
    pub ranks: Vec<i64>,
    pub hexes: Vec<i64>,
    pub groups: Vec<i64>,
    pub daisies: Vec<i64>,
    pub faults: Vec<String>, // "-" for none
}

/// SplitMix64: a small random number generator that gives the same numbers in every kit.
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number from 0 to n - 1.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn fields(words: &[&str]) -> HashMap<String, String> {
    words[1..]
        .iter()
        .filter_map(|w| w.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

fn items(text: Option<&String>) -> Vec<String> {
    match text {
        Some(t) if !t.is_empty() && t != "-" => t.split(';').map(String::from).collect(),
        _ => Vec::new(),
    }
}

fn numbers(text: Option<&String>) -> Vec<i64> {
    items(text).iter().map(|x| x.parse().unwrap_or(-1)).collect()
}

fn number<T: std::str::FromStr>(f: &HashMap<String, String>, key: &str, missing: T) -> T {
    f.get(key).and_then(|v| v.parse().ok()).unwrap_or(missing)
}

fn read_game(words: &[&str]) -> Game {
    let f = fields(words);
    Game {
        id: f.get("id").cloned().unwrap_or_default(),
        seat: f.get("seat").and_then(|s| s.chars().next()).unwrap_or('a'),
        players: number(&f, "players", 2),
        seed: number(&f, "seed", 0),
        sheep: number(&f, "sheep", 16),
        tiles: number(&f, "tiles", 4),
        contact: number(&f, "contact", 1),
        holeborder: f.get("holeborder").map_or(false, |v| v == "1"),
        movetime: number(&f, "movetime", 0),
        base: number(&f, "base", 0),
        increment: number(&f, "increment", 0),
        names: f.get("names").map_or(Vec::new(), |n| n.split(',').map(String::from).collect()),
        multigame: f.get("multigame").map_or(false, |v| v == "1"),
    }
}

fn read_turn(game: &Game, words: &[&str]) -> Turn {
    let f = fields(words);
    let mut position = Position {
        phase: words[0].to_string(),
        me: game.seat,
        sheep: game.sheep,
        contact: game.contact,
        holeborder: game.holeborder,
        pasture: items(f.get("board")).iter().map(|h| parse_hex(h)).collect(),
        stacks: BTreeMap::new(),
    };
    for s in items(f.get("stacks")) {
        let parts: Vec<&str> = s.split(',').collect();
        if parts.len() == 4 {
            let h = (parts[0].parse().unwrap_or(0), parts[1].parse().unwrap_or(0));
            let player = parts[2].chars().next().unwrap_or('?');
            position.stacks.insert(h, Stack { player, sheep: parts[3].parse().unwrap_or(0) });
        }
    }
    let mut daisies = BTreeMap::new();
    for d in items(f.get("daisies")) {
        let parts: Vec<&str> = d.split(',').collect();
        if parts.len() == 3 {
            let h = (parts[0].parse().unwrap_or(0), parts[1].parse().unwrap_or(0));
            daisies.insert(h, parts[2].parse().unwrap_or(0));
        }
    }
    Turn {
        phase: words[0].to_string(),
        time: number(&f, "time", 0),
        ply: number(&f, "ply", 0),
        clocks: numbers(f.get("clocks")),
        since: items(f.get("since"))
            .iter()
            .filter_map(|m| m.split_once(':').map(|(p, mv)| (p.chars().next().unwrap_or('?'), mv.to_string())))
            .collect(),
        tiles: numbers(f.get("tiles")),
        forfeit: f.get("forfeit").filter(|v| v.as_str() != "-").cloned().unwrap_or_default(),
        daisies,
        position,
    }
}

fn read_end(words: &[&str]) -> End {
    let f = fields(words);
    End {
        ranks: numbers(f.get("ranks")),
        hexes: numbers(f.get("hexes")),
        groups: numbers(f.get("groups")),
        daisies: numbers(f.get("daisies")),
        faults: items(f.get("faults")),
    }
}

/// Write one line and flush it: an answer left in the buffer never arrives.
pub fn send(line: &str) {
    let mut out = io::stdout().lock();
    // The referee gone (a broken pipe): nothing left to answer.
    let _ = writeln!(out, "{}", line).and_then(|_| out.flush());
}

/// Debugging output: stderr is kept with the game record, never read as an answer.
pub fn log(text: &str) {
    eprintln!("{}", text);
}

/// Answer the referee until the last game ends or the input closes.
pub fn run(name: &str, choose: fn(&Game, &Turn, &mut Rng) -> String, on_end: fn(&Game, &End)) {
    let mut game = read_game(&["game"]);
    let mut rng = Rng::new(0);
    for line in io::stdin().lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => return,
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let kind = match words.first() {
            Some(&kind) => kind,
            None => continue,
        };
        match kind {
            "hello" => send(&format!("hello 1 {} multigame", name)), // may play several games in one process
            "game" => {
                game = read_game(&words);
                rng = Rng::new(game.seed); // a fresh generator for every game: replays repeat
                send("ready");
            }
            "tile" | "herd" | "move" => {
                let turn = read_turn(&game, &words);
                send(&format!("{} {}", kind, choose(&game, &turn, &mut rng)));
            }
            "end" => {
                on_end(&game, &read_end(&words));
                if !game.multigame {
                    return;
                }
            }
            _ => log(&format!("{}: ignoring '{}' (a message of a later protocol version?)", name, kind)),
        }
    }
}
