// sheep.go - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// structs, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.go holds the strategy; run() below is the conversation with the referee.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Limit bounds every hex: -999 <= q, r <= 999.
const Limit = 999

// The six directions, as the protocol names them, and the step each adds to (q, r).
var dirNames = [6]string{"E", "NE", "NW", "W", "SW", "SE"}
var dq = [6]int{1, 1, 0, -1, -1, 0}
var dr = [6]int{0, -1, -1, 0, 1, 1}

// The hexes a tile covers, as offsets from its anchor, for orientations A, B and C.
var tileShapes = [3][4][2]int{
	{{0, 0}, {1, 0}, {0, 1}, {1, 1}},
	{{0, 0}, {1, 0}, {1, -1}, {2, -1}},
	{{0, 0}, {1, -1}, {1, 0}, {0, 1}},
}

// Hex is a hex in axial coordinates.
type Hex struct{ Q, R int }

// Game is the `game` message: what is fixed for one game.
type Game struct {
	ID         string
	Seat       byte // my letter: 'a' plays first
	Players    int
	Seed       uint64 // for my own randomness: the same seed replays my moves
	Sheep      int
	Tiles      int
	Contact    int
	HoleBorder int
	MoveTime   int64 // ms per answer, 0 if none
	Base       int64 // the clock in ms, 0 if none
	Increment  int64
	Names      []string
	Multigame  bool // true: after `end`, wait for the next `game`
}

// Stack is a stack of sheep on one hex.
type Stack struct {
	Hex
	Player byte
	Sheep  int
}

// Position is a board: the pasture, the stacks, whose move it is and the rules that apply.
type Position struct {
	Phase      string // "tile", "herd" or "move"
	Me         byte
	Sheep      int
	Contact    int
	HoleBorder int
	Pasture    map[Hex]bool
	Stacks     map[Hex]*Stack
}

// IsFree says whether (q, r) is a pasture hex with no stack on it.
func (p *Position) IsFree(q, r int) bool {
	h := Hex{q, r}
	return p.Pasture[h] && p.Stacks[h] == nil
}

// Slide says where sheep leaving (q, r) in direction d stop; false if they cannot move.
func (p *Position) Slide(q, r, d int) (Hex, bool) {
	if !p.IsFree(q+dq[d], r+dr[d]) {
		return Hex{}, false
	}
	for p.IsFree(q+dq[d], r+dr[d]) {
		q, r = q+dq[d], r+dr[d]
	}
	return Hex{q, r}, true
}

// Mobility counts the (stack, direction) pairs of player that can slide.
func (p *Position) Mobility(player byte) int {
	n := 0
	for _, s := range p.Stacks {
		if s.Player != player || s.Sheep < 2 {
			continue
		}
		for d := 0; d < 6; d++ {
			if p.IsFree(s.Q+dq[d], s.R+dr[d]) {
				n++
			}
		}
	}
	return n
}

// TileContact counts the hex edges the tile move shares with the pasture.
func (p *Position) TileContact(move string) int {
	n := 0
	for _, h := range tileHexes(move) {
		for d := 0; d < 6; d++ {
			if p.Pasture[Hex{h.Q + dq[d], h.R + dr[d]}] {
				n++
			}
		}
	}
	return n
}

// sortedHexes lists hexes in a fixed order (a Go map's order changes from run to run).
func sortedHexes[V any](m map[Hex]V) []Hex {
	out := make([]Hex, 0, len(m))
	for h := range m {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Q < out[j].Q || (out[i].Q == out[j].Q && out[i].R < out[j].R) })
	return out
}

// LegalMoves lists every legal move of the phase, as the protocol writes it (without the phase word).
func (p *Position) LegalMoves() []string {
	var moves []string
	switch p.Phase {
	case "tile":
		if len(p.Pasture) == 0 {
			return []string{"0,0A", "0,0B", "0,0C"} // the first tile may go anywhere
		}
		q0, q1, r0, r1 := p.bounds(3) // every tile that touches lies in the box grown by 3
		for q := q0; q <= q1; q++ {
			for r := r0; r <= r1; r++ {
				for o := 0; o < 3; o++ {
					if p.tileFits(q, r, o) {
						moves = append(moves, fmt.Sprintf("%d,%d%c", q, r, 'A'+o))
					}
				}
			}
		}
	case "herd":
		outside := p.outside()
		for _, h := range sortedHexes(p.Pasture) {
			if p.Stacks[h] != nil {
				continue
			}
			for d := 0; d < 6; d++ {
				n := Hex{h.Q + dq[d], h.R + dr[d]}
				if !p.Pasture[n] && (p.HoleBorder == 1 || outside[n]) {
					moves = append(moves, fmt.Sprintf("%d,%d", h.Q, h.R))
					break
				}
			}
		}
	default:
		for _, h := range sortedHexes(p.Stacks) {
			s := p.Stacks[h]
			if s.Player != p.Me || s.Sheep < 2 {
				continue
			}
			for d := 0; d < 6; d++ {
				if !p.IsFree(s.Q+dq[d], s.R+dr[d]) {
					continue
				}
				for n := 1; n < s.Sheep; n++ {
					moves = append(moves, fmt.Sprintf("%d,%d%s%d", s.Q, s.R, dirNames[d], n))
				}
			}
		}
	}
	return moves
}

var sheepMove = regexp.MustCompile(`^(-?\d+),(-?\d+)([A-Z]+)(\d+)$`)

// Play returns a copy of this position with move played by me (the move must be legal).
func (p *Position) Play(move string) *Position {
	after := *p
	after.Pasture = make(map[Hex]bool, len(p.Pasture)+4)
	for h := range p.Pasture {
		after.Pasture[h] = true
	}
	after.Stacks = make(map[Hex]*Stack, len(p.Stacks)+1)
	for h, s := range p.Stacks {
		c := *s
		after.Stacks[h] = &c
	}
	switch p.Phase {
	case "tile":
		for _, h := range tileHexes(move) {
			after.Pasture[h] = true
		}
	case "herd":
		h := parseHex(move)
		after.Stacks[h] = &Stack{h, p.Me, p.Sheep}
	default:
		m := sheepMove.FindStringSubmatch(move)
		if m == nil {
			return &after
		}
		q, _ := strconv.Atoi(m[1])
		r, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[4])
		for d := 0; d < 6; d++ {
			if end, ok := p.Slide(q, r, d); ok && dirNames[d] == m[3] {
				after.Stacks[Hex{q, r}].Sheep -= n
				after.Stacks[end] = &Stack{end, p.Me, n}
			}
		}
	}
	return &after
}

func (p *Position) tileFits(q, r, o int) bool {
	touching := 0
	for _, c := range tileShapes[o] {
		hq, hr := q+c[0], r+c[1]
		if hq < -Limit || hq > Limit || hr < -Limit || hr > Limit || p.Pasture[Hex{hq, hr}] {
			return false
		}
		for d := 0; d < 6; d++ {
			if p.Pasture[Hex{hq + dq[d], hr + dr[d]}] {
				touching++
				break
			}
		}
	}
	return touching >= p.Contact
}

func (p *Position) bounds(grow int) (q0, q1, r0, r1 int) {
	q0, r0, q1, r1 = 1<<20, 1<<20, -(1 << 20), -(1 << 20)
	for h := range p.Pasture {
		q0, q1 = min(q0, h.Q-grow), max(q1, h.Q+grow)
		r0, r1 = min(r0, h.R-grow), max(r1, h.R+grow)
	}
	return
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// outside lists the hexes off the pasture that reach the outside (the others are holes).
func (p *Position) outside() map[Hex]bool {
	q0, q1, r0, r1 := p.bounds(1)
	out := map[Hex]bool{}
	var todo []Hex
	for q := q0; q <= q1; q++ {
		for r := r0; r <= r1; r++ {
			if (q == q0 || q == q1 || r == r0 || r == r1) && !p.Pasture[Hex{q, r}] {
				out[Hex{q, r}] = true
				todo = append(todo, Hex{q, r})
			}
		}
	}
	for len(todo) > 0 {
		h := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for d := 0; d < 6; d++ {
			n := Hex{h.Q + dq[d], h.R + dr[d]}
			if n.Q < q0 || n.Q > q1 || n.R < r0 || n.R > r1 || p.Pasture[n] || out[n] {
				continue
			}
			out[n] = true
			todo = append(todo, n)
		}
	}
	return out
}

func parseHex(text string) Hex {
	parts := strings.SplitN(text, ",", 2)
	q, _ := strconv.Atoi(parts[0])
	r := 0
	if len(parts) > 1 {
		r, _ = strconv.Atoi(parts[1])
	}
	return Hex{q, r}
}

// tileHexes lists the four hexes of a tile move such as "2,-1B".
func tileHexes(move string) []Hex {
	a := parseHex(move[:len(move)-1])
	var out []Hex
	for _, c := range tileShapes[move[len(move)-1]-'A'] {
		out = append(out, Hex{a.Q + c[0], a.R + c[1]})
	}
	return out
}

// Move is one move of another player, as `since` lists it.
type Move struct {
	Player byte
	Move   string
}

// Turn is a `tile`, `herd` or `move` request: it is my turn.
type Turn struct {
	Phase    string
	Time     int64 // ms I have for this answer
	Ply      int64
	Clocks   []int64 // each seat's clock in ms; -1 for a seat without one
	Since    []Move  // the others' moves since my last answer
	Tiles    []int64 // tiles each seat still holds
	Forfeit  string  // letters of the forfeited seats
	Daisies  map[Hex]int
	Position *Position
}

// End is the `end` notice, in seat order.
type End struct {
	Ranks, Hexes, Groups, Daisies []int64
	Faults                        []string // "-" for none
}

// Rng is SplitMix64: a small random number generator that gives the same numbers in every kit.
type Rng struct{ state uint64 }

// Next is the next 64-bit number.
func (g *Rng) Next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Below is a number from 0 to n - 1.
func (g *Rng) Below(n int) int { return int(g.Next() % uint64(n)) }

func fields(words []string) map[string]string {
	f := map[string]string{}
	for _, w := range words[1:] {
		if eq := strings.IndexByte(w, '='); eq > 0 {
			f[w[:eq]] = w[eq+1:]
		}
	}
	return f
}

func items(text string) []string {
	if text == "" || text == "-" {
		return nil
	}
	return strings.Split(text, ";")
}

func numbers(text string) []int64 {
	var out []int64
	for _, x := range items(text) {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			n = -1 // "-": a seat without a clock
		}
		out = append(out, n)
	}
	return out
}

func number(f map[string]string, key string, missing int64) int64 {
	if v, ok := f[key]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return missing
}

func readGame(words []string) Game {
	f := fields(words)
	g := Game{ID: f["id"], Seat: 'a', Names: strings.Split(f["names"], ","), Multigame: f["multigame"] == "1"}
	if s := f["seat"]; s != "" {
		g.Seat = s[0]
	}
	g.Seed, _ = strconv.ParseUint(f["seed"], 10, 64)
	g.Players = int(number(f, "players", 2))
	g.Sheep = int(number(f, "sheep", 16))
	g.Tiles = int(number(f, "tiles", 4))
	g.Contact = int(number(f, "contact", 1))
	g.HoleBorder = int(number(f, "holeborder", 0))
	g.MoveTime = number(f, "movetime", 0)
	g.Base = number(f, "base", 0)
	g.Increment = number(f, "increment", 0)
	return g
}

func readTurn(game Game, words []string) Turn {
	f := fields(words)
	t := Turn{Phase: words[0], Time: number(f, "time", 0), Ply: number(f, "ply", 0), Daisies: map[Hex]int{}}
	t.Clocks = numbers(f["clocks"])
	for _, m := range items(f["since"]) {
		if len(m) > 2 {
			t.Since = append(t.Since, Move{m[0], m[2:]})
		}
	}
	t.Tiles = numbers(f["tiles"])
	if f["forfeit"] != "-" {
		t.Forfeit = f["forfeit"]
	}
	for _, d := range items(f["daisies"]) {
		parts := strings.Split(d, ",")
		if len(parts) == 3 {
			n, _ := strconv.Atoi(parts[2])
			t.Daisies[parseHex(parts[0]+","+parts[1])] = n
		}
	}
	p := &Position{Phase: words[0], Me: game.Seat, Sheep: game.Sheep, Contact: game.Contact,
		HoleBorder: game.HoleBorder, Pasture: map[Hex]bool{}, Stacks: map[Hex]*Stack{}}
	for _, h := range items(f["board"]) {
		p.Pasture[parseHex(h)] = true
	}
	for _, s := range items(f["stacks"]) {
		parts := strings.Split(s, ",")
		if len(parts) == 4 && parts[2] != "" {
			h := parseHex(parts[0] + "," + parts[1])
			n, _ := strconv.Atoi(parts[3])
			p.Stacks[h] = &Stack{h, parts[2][0], n}
		}
	}
	t.Position = p
	return t
}

func readEnd(words []string) End {
	f := fields(words)
	return End{numbers(f["ranks"]), numbers(f["hexes"]), numbers(f["groups"]), numbers(f["daisies"]), items(f["faults"])}
}

var out = bufio.NewWriter(os.Stdout)

// send writes one line and flushes it (bufio.Writer.Flush): an answer left in the buffer never arrives.
func send(line string) {
	out.WriteString(line + "\n")
	out.Flush()
}

// logf writes debugging output: stderr is kept with the game record, never read as an answer.
func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

// run answers the referee until the last game ends or the input closes.
func run(name string, choose func(Game, Turn, *Rng) string, onEnd func(Game, End)) {
	in := bufio.NewReader(os.Stdin)
	game := Game{Seat: 'a'}
	rng := &Rng{}
	for {
		line, err := in.ReadString('\n') // a line of any length
		words := strings.Fields(line)
		if len(words) > 0 {
			switch kind := words[0]; kind {
			case "hello":
				send("hello 1 " + name + " multigame") // may play several games in one process
			case "game":
				game = readGame(words)
				rng = &Rng{game.Seed} // a fresh generator for every game: replays repeat
				send("ready")
			case "tile", "herd", "move":
				send(kind + " " + choose(game, readTurn(game, words), rng))
			case "end":
				onEnd(game, readEnd(words))
				if !game.Multigame {
					return
				}
			default:
				logf("%s: ignoring '%s' (a message of a later protocol version?)", name, kind)
			}
		}
		if err != nil {
			return // the referee closed my input
		}
	}
}
