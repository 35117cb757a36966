// Sheep.java - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// objects, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.java holds the strategy; Sheep.run() below is the conversation with the referee.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

public final class Sheep {
    private Sheep() {}

    public static final int LIMIT = 999; // every hex has -999 <= q, r <= 999
    // The six directions, as the protocol names them, and the step each adds to (q, r).
    public static final String[] DIR_NAMES = {"E", "NE", "NW", "W", "SW", "SE"};
    public static final int[] DQ = {1, 1, 0, -1, -1, 0};
    public static final int[] DR = {0, -1, -1, 0, 1, 1};
    // The hexes a tile covers, as offsets from its anchor, for orientations A, B and C.
    public static final int[][][] TILE = {
        {{0, 0}, {1, 0}, {0, 1}, {1, 1}},
        {{0, 0}, {1, 0}, {1, -1}, {2, -1}},
        {{0, 0}, {1, -1}, {1, 0}, {0, 1}},
    };

    /** A hex (q, r) as one number, for sets and maps that iterate in a fixed order. */
    public static long hex(int q, int r) { return ((long) (q + 4096) << 16) | (r + 4096); }
    public static int q(long hex) { return (int) (hex >> 16) - 4096; }
    public static int r(long hex) { return (int) (hex & 0xFFFF) - 4096; }

    /** The `game` message: what is fixed for one game. */
    public static final class Game {
        public String id = "";
        public char seat = 'a'; // my letter: 'a' plays first
        public int players = 2;
        public long seed; // for my own randomness (0 to 2^63-1): the same seed replays my moves
        public int sheep = 16, tiles = 4, contact = 1, holeborder;
        public long movetime; // ms per answer, 0 if none
        public long base; // the clock in ms, 0 if none
        public long increment;
        public List<String> names = new ArrayList<>();
        public boolean multigame; // true: after `end`, wait for the next `game`
    }

    public static final class Stack {
        public final int q, r;
        public final char player;
        public int sheep;
        Stack(int q, int r, char player, int sheep) { this.q = q; this.r = r; this.player = player; this.sheep = sheep; }
    }

    /** A board: the pasture, the stacks, whose move it is and the rules that apply. */
    public static final class Position {
        public String phase = "tile"; // "tile", "herd" or "move"
        public char me = 'a';
        public int sheep = 16, contact = 1, holeborder;
        public final TreeSet<Long> pasture = new TreeSet<>();
        public final TreeMap<Long, Stack> stacks = new TreeMap<>();

        public boolean isPasture(int q, int r) { return pasture.contains(hex(q, r)); }

        /** A pasture hex with no stack on it. */
        public boolean isFree(int q, int r) { return isPasture(q, r) && !stacks.containsKey(hex(q, r)); }

        /** Where sheep leaving (q, r) in direction d stop, or null if they cannot move. */
        public Long slide(int q, int r, int d) {
            if (!isFree(q + DQ[d], r + DR[d])) return null;
            while (isFree(q + DQ[d], r + DR[d])) { q += DQ[d]; r += DR[d]; }
            return hex(q, r);
        }

        /** How many (stack, direction) pairs of `player` can slide. */
        public int mobility(char player) {
            int n = 0;
            for (Stack s : stacks.values()) {
                if (s.player != player || s.sheep < 2) continue;
                for (int d = 0; d < 6; d++) if (isFree(s.q + DQ[d], s.r + DR[d])) n++;
            }
            return n;
        }

        /** How many hex edges the tile `move` shares with the pasture. */
        public int tileContact(String move) {
            int n = 0;
            for (long h : tileHexes(move))
                for (int d = 0; d < 6; d++) if (isPasture(q(h) + DQ[d], r(h) + DR[d])) n++;
            return n;
        }

        /** Every legal move of the phase, as the protocol writes it (without the phase word). */
        public List<String> legalMoves() {
            List<String> moves = new ArrayList<>();
            if (phase.equals("tile")) {
                if (pasture.isEmpty()) return List.of("0,0A", "0,0B", "0,0C"); // the first tile may go anywhere
                int[] box = bounds(3); // every tile that touches lies in the box grown by 3
                for (int q = box[0]; q <= box[1]; q++)
                    for (int r = box[2]; r <= box[3]; r++)
                        for (int o = 0; o < 3; o++)
                            if (tileFits(q, r, o)) moves.add(q + "," + r + (char) ('A' + o));
            } else if (phase.equals("herd")) {
                Set<Long> outside = outside();
                for (long h : pasture) {
                    if (stacks.containsKey(h)) continue;
                    boolean border = false;
                    for (int d = 0; d < 6; d++) {
                        long n = hex(q(h) + DQ[d], r(h) + DR[d]);
                        if (!pasture.contains(n) && (holeborder == 1 || outside.contains(n))) border = true;
                    }
                    if (border) moves.add(q(h) + "," + r(h));
                }
            } else {
                for (Stack s : stacks.values()) {
                    if (s.player != me || s.sheep < 2) continue;
                    for (int d = 0; d < 6; d++) {
                        if (!isFree(s.q + DQ[d], s.r + DR[d])) continue;
                        for (int n = 1; n < s.sheep; n++) moves.add(s.q + "," + s.r + DIR_NAMES[d] + n);
                    }
                }
            }
            return moves;
        }

        /** A copy of this position with `move` played by me (the move must be legal). */
        public Position play(String move) {
            Position after = new Position();
            after.phase = phase; after.me = me; after.sheep = sheep; after.contact = contact; after.holeborder = holeborder;
            after.pasture.addAll(pasture);
            for (Stack s : stacks.values()) after.stacks.put(hex(s.q, s.r), new Stack(s.q, s.r, s.player, s.sheep));
            if (phase.equals("tile")) {
                after.pasture.addAll(tileHexes(move));
            } else if (phase.equals("herd")) {
                String[] qr = move.split(",");
                int q = Integer.parseInt(qr[0]), r = Integer.parseInt(qr[1]);
                after.stacks.put(hex(q, r), new Stack(q, r, me, sheep));
            } else {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("(-?\\d+),(-?\\d+)([A-Z]+)(\\d+)").matcher(move);
                if (!m.matches()) return after;
                int q = Integer.parseInt(m.group(1)), r = Integer.parseInt(m.group(2)), n = Integer.parseInt(m.group(4));
                int d = List.of(DIR_NAMES).indexOf(m.group(3));
                Long end = d < 0 ? null : slide(q, r, d);
                if (end == null) return after;
                after.stacks.get(hex(q, r)).sheep -= n;
                after.stacks.put(end, new Stack(q(end), r(end), me, n));
            }
            return after;
        }

        private boolean tileFits(int q, int r, int o) {
            int touching = 0;
            for (int[] c : TILE[o]) {
                int hq = q + c[0], hr = r + c[1];
                if (Math.abs(hq) > LIMIT || Math.abs(hr) > LIMIT || isPasture(hq, hr)) return false;
                for (int d = 0; d < 6; d++) {
                    if (isPasture(hq + DQ[d], hr + DR[d])) { touching++; break; }
                }
            }
            return touching >= contact;
        }

        private int[] bounds(int grow) {
            int[] box = {Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE};
            for (long h : pasture) {
                box[0] = Math.min(box[0], q(h) - grow); box[1] = Math.max(box[1], q(h) + grow);
                box[2] = Math.min(box[2], r(h) - grow); box[3] = Math.max(box[3], r(h) + grow);
            }
            return box;
        }

        /** The hexes off the pasture that reach the outside (the others are holes). */
        private Set<Long> outside() {
            int[] box = bounds(1);
            Set<Long> out = new HashSet<>();
            List<Long> todo = new ArrayList<>();
            for (int q = box[0]; q <= box[1]; q++)
                for (int r = box[2]; r <= box[3]; r++)
                    if ((q == box[0] || q == box[1] || r == box[2] || r == box[3]) && !isPasture(q, r)) {
                        out.add(hex(q, r));
                        todo.add(hex(q, r));
                    }
            while (!todo.isEmpty()) {
                long h = todo.remove(todo.size() - 1);
                for (int d = 0; d < 6; d++) {
                    int nq = q(h) + DQ[d], nr = r(h) + DR[d];
                    if (nq < box[0] || nq > box[1] || nr < box[2] || nr > box[3]) continue;
                    if (isPasture(nq, nr) || !out.add(hex(nq, nr))) continue;
                    todo.add(hex(nq, nr));
                }
            }
            return out;
        }
    }

    /** The four hexes of a tile move such as "2,-1B". */
    public static List<Long> tileHexes(String move) {
        String[] qr = move.substring(0, move.length() - 1).split(",");
        int q = Integer.parseInt(qr[0]), r = Integer.parseInt(qr[1]);
        List<Long> out = new ArrayList<>();
        for (int[] c : TILE[move.charAt(move.length() - 1) - 'A']) out.add(hex(q + c[0], r + c[1]));
        return out;
    }

    /** A `tile`, `herd` or `move` request: it is my turn. */
    public static final class Turn {
        public String phase;
        public long time; // ms I have for this answer
        public long ply;
        public List<Long> clocks = new ArrayList<>(); // each seat's clock in ms; -1 for a seat without one
        public List<String[]> since = new ArrayList<>(); // the others' moves since my last answer: {player, move}
        public List<Long> tiles = new ArrayList<>(); // tiles each seat still holds
        public String forfeit = ""; // letters of the forfeited seats
        public Map<Long, Integer> daisies = new LinkedHashMap<>();
        public Position position = new Position();
    }

    /** The `end` notice, in seat order. */
    public static final class End {
        public List<Long> ranks, hexes, groups, daisies;
        public List<String> faults; // "-" for none
    }

    /** SplitMix64: a small random number generator that gives the same numbers in every kit. */
    public static final class Rng {
        private long state;
        public Rng(long seed) { state = seed; }
        public long next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
        /** A number from 0 to n - 1. */
        public int below(int n) { return (int) Long.remainderUnsigned(next(), n); }
    }

    private static List<String> items(String text) {
        List<String> out = new ArrayList<>();
        if (text == null || text.isEmpty() || text.equals("-")) return out;
        for (String s : text.split(";")) out.add(s);
        return out;
    }

    private static List<Long> numbers(String text) {
        List<Long> out = new ArrayList<>();
        for (String s : items(text)) out.add(s.equals("-") ? -1L : Long.parseLong(s));
        return out;
    }

    private static Map<String, String> fields(String[] words) {
        Map<String, String> f = new HashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) f.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        return f;
    }

    public static Game readGame(String[] words) {
        Map<String, String> f = fields(words);
        Game g = new Game();
        g.id = f.getOrDefault("id", "");
        g.seat = f.getOrDefault("seat", "a").charAt(0);
        g.players = Integer.parseInt(f.getOrDefault("players", "2"));
        g.seed = Long.parseLong(f.getOrDefault("seed", "0"));
        g.sheep = Integer.parseInt(f.getOrDefault("sheep", "16"));
        g.tiles = Integer.parseInt(f.getOrDefault("tiles", "4"));
        g.contact = Integer.parseInt(f.getOrDefault("contact", "1"));
        g.holeborder = Integer.parseInt(f.getOrDefault("holeborder", "0"));
        g.movetime = Long.parseLong(f.getOrDefault("movetime", "0"));
        g.base = Long.parseLong(f.getOrDefault("base", "0"));
        g.increment = Long.parseLong(f.getOrDefault("increment", "0"));
        g.names = List.of(f.getOrDefault("names", "").split(","));
        g.multigame = "1".equals(f.get("multigame"));
        return g;
    }

    public static Turn readTurn(Game game, String[] words) {
        Map<String, String> f = fields(words);
        Turn t = new Turn();
        t.phase = words[0];
        t.time = Long.parseLong(f.getOrDefault("time", "0"));
        t.ply = Long.parseLong(f.getOrDefault("ply", "0"));
        t.clocks = numbers(f.get("clocks"));
        for (String m : items(f.get("since"))) t.since.add(m.split(":", 2));
        t.tiles = numbers(f.get("tiles"));
        t.forfeit = f.getOrDefault("forfeit", "-").equals("-") ? "" : f.get("forfeit");
        for (String d : items(f.get("daisies"))) {
            String[] p = d.split(",");
            t.daisies.put(hex(Integer.parseInt(p[0]), Integer.parseInt(p[1])), Integer.parseInt(p[2]));
        }
        Position p = t.position;
        p.phase = words[0]; p.me = game.seat; p.sheep = game.sheep; p.contact = game.contact; p.holeborder = game.holeborder;
        for (String h : items(f.get("board"))) {
            String[] qr = h.split(",");
            p.pasture.add(hex(Integer.parseInt(qr[0]), Integer.parseInt(qr[1])));
        }
        for (String s : items(f.get("stacks"))) {
            String[] x = s.split(",");
            int q = Integer.parseInt(x[0]), r = Integer.parseInt(x[1]);
            p.stacks.put(hex(q, r), new Stack(q, r, x[2].charAt(0), Integer.parseInt(x[3])));
        }
        return t;
    }

    public static End readEnd(String[] words) {
        Map<String, String> f = fields(words);
        End e = new End();
        e.ranks = numbers(f.get("ranks"));
        e.hexes = numbers(f.get("hexes"));
        e.groups = numbers(f.get("groups"));
        e.daisies = numbers(f.get("daisies"));
        e.faults = items(f.get("faults"));
        return e;
    }

    // Not autoflushed: send() flushes each line itself.
    private static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.US_ASCII);

    /** Write one line and flush it: an answer left in the buffer never arrives. */
    public static void send(String line) {
        OUT.print(line + "\n");
        OUT.flush();
    }

    /** Debugging output: stderr is kept with the game record, never read as an answer. */
    public static void log(String text) { System.err.println(text); }

    public interface Choose { String choose(Game game, Turn turn, Rng rng); }
    public interface OnEnd { void onEnd(Game game, End end); }

    /** Answer the referee until the last game ends or the input closes. */
    public static void run(String name, Choose choose, OnEnd onEnd) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        Game game = new Game();
        Rng rng = new Rng(0);
        for (String line; (line = in.readLine()) != null;) {
            String[] words = line.trim().split("\\s+");
            String kind = words[0];
            if (kind.isEmpty()) continue;
            switch (kind) {
                case "hello" -> send("hello 1 " + name + " multigame"); // may play several games in one process
                case "game" -> {
                    game = readGame(words);
                    rng = new Rng(game.seed); // a fresh generator for every game: replays repeat
                    send("ready");
                }
                case "tile", "herd", "move" -> send(kind + " " + choose.choose(game, readTurn(game, words), rng));
                case "end" -> {
                    onEnd.onEnd(game, readEnd(words));
                    if (!game.multigame) return;
                }
                default -> log(name + ": ignoring '" + kind + "' (a message of a later protocol version?)");
            }
        }
    }
}
