// Sheep.cs - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// objects, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.cs holds the strategy; Sheep.Run() below is the conversation with the referee.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

public static class Sheep
{
    public const int Limit = 999; // every hex has -999 <= q, r <= 999
    // The six directions, as the protocol names them, and the step each adds to (q, r).
    public static readonly string[] DirNames = { "E", "NE", "NW", "W", "SW", "SE" };
    public static readonly int[] DQ = { 1, 1, 0, -1, -1, 0 };
    public static readonly int[] DR = { 0, -1, -1, 0, 1, 1 };
    // The hexes a tile covers, as offsets from its anchor, for orientations A, B and C.
    public static readonly int[][,] Tile = {
        new int[,] { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 } },
        new int[,] { { 0, 0 }, { 1, 0 }, { 1, -1 }, { 2, -1 } },
        new int[,] { { 0, 0 }, { 1, -1 }, { 1, 0 }, { 0, 1 } },
    };

    /// <summary>The `game` message: what is fixed for one game.</summary>
    public sealed class Game
    {
        public string Id = "";
        public char Seat = 'a'; // my letter: 'a' plays first
        public int Players = 2;
        public ulong Seed; // for my own randomness: the same seed replays my moves
        public int Sheep = 16, Tiles = 4, Contact = 1, HoleBorder;
        public long MoveTime; // ms per answer, 0 if none
        public long Base; // the clock in ms, 0 if none
        public long Increment;
        public List<string> Names = new List<string>();
        public bool Multigame; // true: after `end`, wait for the next `game`
    }

    public sealed class Stack
    {
        public int Q, R, Sheep;
        public char Player;
    }

    /// <summary>A board: the pasture, the stacks, whose move it is and the rules that apply.</summary>
    public sealed class Position
    {
        public string Phase = "tile"; // "tile", "herd" or "move"
        public char Me = 'a';
        public int Sheep = 16, Contact = 1, HoleBorder;
        public SortedSet<(int, int)> Pasture = new SortedSet<(int, int)>();
        public SortedDictionary<(int, int), Stack> Stacks = new SortedDictionary<(int, int), Stack>();

        public bool IsPasture(int q, int r) => Pasture.Contains((q, r));

        /// <summary>A pasture hex with no stack on it.</summary>
        public bool IsFree(int q, int r) => IsPasture(q, r) && !Stacks.ContainsKey((q, r));

        /// <summary>Where sheep leaving (q, r) in direction d stop, or null if they cannot move.</summary>
        public (int, int)? Slide(int q, int r, int d)
        {
            if (!IsFree(q + DQ[d], r + DR[d])) return null;
            while (IsFree(q + DQ[d], r + DR[d])) { q += DQ[d]; r += DR[d]; }
            return (q, r);
        }

        /// <summary>How many (stack, direction) pairs of `player` can slide.</summary>
        public int Mobility(char player)
        {
            int n = 0;
            foreach (var s in Stacks.Values)
            {
                if (s.Player != player || s.Sheep < 2) continue;
                for (int d = 0; d < 6; d++) if (IsFree(s.Q + DQ[d], s.R + DR[d])) n++;
            }
            return n;
        }

        /// <summary>How many hex edges the tile `move` shares with the pasture.</summary>
        public int TileContact(string move)
        {
            int n = 0;
            foreach (var h in TileHexes(move))
                for (int d = 0; d < 6; d++) if (IsPasture(h.Item1 + DQ[d], h.Item2 + DR[d])) n++;
            return n;
        }

        /// <summary>Every legal move of the phase, as the protocol writes it (without the phase word).</summary>
        public List<string> LegalMoves()
        {
            var moves = new List<string>();
            if (Phase == "tile")
            {
                if (Pasture.Count == 0) return new List<string> { "0,0A", "0,0B", "0,0C" }; // the first tile may go anywhere
                var (q0, q1, r0, r1) = Bounds(3); // every tile that touches lies in the box grown by 3
                for (int q = q0; q <= q1; q++)
                    for (int r = r0; r <= r1; r++)
                        for (int o = 0; o < 3; o++)
                            if (TileFits(q, r, o)) moves.Add(q + "," + r + (char)('A' + o));
            }
            else if (Phase == "herd")
            {
                var outside = Outside();
                foreach (var h in Pasture)
                {
                    int q = h.Item1, r = h.Item2;
                    if (Stacks.ContainsKey((q, r))) continue;
                    bool border = false;
                    for (int d = 0; d < 6; d++)
                    {
                        var n = (q + DQ[d], r + DR[d]);
                        if (!Pasture.Contains(n) && (HoleBorder == 1 || outside.Contains(n))) border = true;
                    }
                    if (border) moves.Add(q + "," + r);
                }
            }
            else
            {
                foreach (var s in Stacks.Values)
                {
                    if (s.Player != Me || s.Sheep < 2) continue;
                    for (int d = 0; d < 6; d++)
                    {
                        if (!IsFree(s.Q + DQ[d], s.R + DR[d])) continue;
                        for (int n = 1; n < s.Sheep; n++) moves.Add(s.Q + "," + s.R + DirNames[d] + n);
                    }
                }
            }
            return moves;
        }

        static readonly Regex SheepMove = new Regex(@"^(-?\d+),(-?\d+)([A-Z]+)(\d+)$");

        /// <summary>A copy of this position with `move` played by me (the move must be legal).</summary>
        public Position Play(string move)
        {
            var after = new Position { Phase = Phase, Me = Me, Sheep = Sheep, Contact = Contact, HoleBorder = HoleBorder };
            after.Pasture = new SortedSet<(int, int)>(Pasture);
            foreach (var kv in Stacks)
                after.Stacks[kv.Key] = new Stack { Q = kv.Value.Q, R = kv.Value.R, Player = kv.Value.Player, Sheep = kv.Value.Sheep };
            if (Phase == "tile")
            {
                foreach (var h in TileHexes(move)) after.Pasture.Add(h);
            }
            else if (Phase == "herd")
            {
                var (q, r) = ParseHex(move);
                after.Stacks[(q, r)] = new Stack { Q = q, R = r, Player = Me, Sheep = Sheep };
            }
            else
            {
                var m = SheepMove.Match(move);
                if (!m.Success) return after;
                int q = int.Parse(m.Groups[1].Value), r = int.Parse(m.Groups[2].Value), n = int.Parse(m.Groups[4].Value);
                int d = Array.IndexOf(DirNames, m.Groups[3].Value);
                var end = d < 0 ? null : Slide(q, r, d);
                if (end == null) return after;
                after.Stacks[(q, r)].Sheep -= n;
                var (eq, er) = end.Value;
                after.Stacks[(eq, er)] = new Stack { Q = eq, R = er, Player = Me, Sheep = n };
            }
            return after;
        }

        bool TileFits(int q, int r, int o)
        {
            int touching = 0;
            for (int c = 0; c < 4; c++)
            {
                int hq = q + Tile[o][c, 0], hr = r + Tile[o][c, 1];
                if (Math.Abs(hq) > Limit || Math.Abs(hr) > Limit || IsPasture(hq, hr)) return false;
                for (int d = 0; d < 6; d++)
                {
                    if (IsPasture(hq + DQ[d], hr + DR[d])) { touching++; break; }
                }
            }
            return touching >= Contact;
        }

        (int, int, int, int) Bounds(int grow)
        {
            int q0 = int.MaxValue, q1 = int.MinValue, r0 = int.MaxValue, r1 = int.MinValue;
            foreach (var h in Pasture)
            {
                int q = h.Item1, r = h.Item2;
                q0 = Math.Min(q0, q - grow); q1 = Math.Max(q1, q + grow);
                r0 = Math.Min(r0, r - grow); r1 = Math.Max(r1, r + grow);
            }
            return (q0, q1, r0, r1);
        }

        /// <summary>The hexes off the pasture that reach the outside (the others are holes).</summary>
        HashSet<(int, int)> Outside()
        {
            var (q0, q1, r0, r1) = Bounds(1);
            var outside = new HashSet<(int, int)>();
            var todo = new List<(int, int)>();
            for (int q = q0; q <= q1; q++)
                for (int r = r0; r <= r1; r++)
                    if ((q == q0 || q == q1 || r == r0 || r == r1) && !IsPasture(q, r))
                    {
                        outside.Add((q, r));
                        todo.Add((q, r));
                    }
            while (todo.Count > 0)
            {
                var (q, r) = todo[todo.Count - 1];
                todo.RemoveAt(todo.Count - 1);
                for (int d = 0; d < 6; d++)
                {
                    int nq = q + DQ[d], nr = r + DR[d];
                    if (nq < q0 || nq > q1 || nr < r0 || nr > r1 || IsPasture(nq, nr)) continue;
                    if (outside.Add((nq, nr))) todo.Add((nq, nr));
                }
            }
            return outside;
        }
    }

    static (int, int) ParseHex(string text)
    {
        var parts = text.Split(',');
        return (int.Parse(parts[0]), int.Parse(parts[1]));
    }

    /// <summary>The four hexes of a tile move such as "2,-1B".</summary>
    public static List<(int, int)> TileHexes(string move)
    {
        var (q, r) = ParseHex(move.Substring(0, move.Length - 1));
        var shape = Tile[move[move.Length - 1] - 'A'];
        var hexes = new List<(int, int)>();
        for (int c = 0; c < 4; c++) hexes.Add((q + shape[c, 0], r + shape[c, 1]));
        return hexes;
    }

    /// <summary>A `tile`, `herd` or `move` request: it is my turn.</summary>
    public sealed class Turn
    {
        public string Phase = "";
        public long Time; // ms I have for this answer
        public long Ply;
        public List<long> Clocks = new List<long>(); // each seat's clock in ms; -1 for a seat without one
        public List<(char, string)> Since = new List<(char, string)>(); // the others' moves since my last answer
        public List<long> Tiles = new List<long>(); // tiles each seat still holds
        public string Forfeit = ""; // letters of the forfeited seats
        public SortedDictionary<(int, int), int> Daisies = new SortedDictionary<(int, int), int>();
        public Position Position = new Position();
    }

    /// <summary>The `end` notice, in seat order.</summary>
    public sealed class End
    {
        public List<long> Ranks = new List<long>(), Hexes = new List<long>(), Groups = new List<long>(), Daisies = new List<long>();
        public List<string> Faults = new List<string>(); // "-" for none
    }

    /// <summary>SplitMix64: a small random number generator that gives the same numbers in every kit.</summary>
    public sealed class Rng
    {
        ulong state;
        public Rng(ulong seed) { state = seed; }
        public ulong Next()
        {
            unchecked
            {
                ulong z = (state += 0x9E3779B97F4A7C15UL);
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
                return z ^ (z >> 31);
            }
        }
        /// <summary>A number from 0 to n - 1.</summary>
        public int Below(int n) => (int)(Next() % (ulong)n);
    }

    static Dictionary<string, string> Fields(string[] words)
    {
        var f = new Dictionary<string, string>();
        for (int i = 1; i < words.Length; i++)
        {
            int eq = words[i].IndexOf('=');
            if (eq > 0) f[words[i].Substring(0, eq)] = words[i].Substring(eq + 1);
        }
        return f;
    }

    static string Get(Dictionary<string, string> f, string key, string missing) => f.TryGetValue(key, out var v) ? v : missing;

    static List<string> Items(string text) =>
        string.IsNullOrEmpty(text) || text == "-" ? new List<string>() : text.Split(';').ToList();

    static List<long> Numbers(string text) => Items(text).Select(x => x == "-" ? -1L : long.Parse(x)).ToList();

    public static Game ReadGame(string[] words)
    {
        var f = Fields(words);
        return new Game
        {
            Id = Get(f, "id", ""),
            Seat = Get(f, "seat", "a")[0],
            Players = int.Parse(Get(f, "players", "2")),
            Seed = ulong.Parse(Get(f, "seed", "0")),
            Sheep = int.Parse(Get(f, "sheep", "16")),
            Tiles = int.Parse(Get(f, "tiles", "4")),
            Contact = int.Parse(Get(f, "contact", "1")),
            HoleBorder = int.Parse(Get(f, "holeborder", "0")),
            MoveTime = long.Parse(Get(f, "movetime", "0")),
            Base = long.Parse(Get(f, "base", "0")),
            Increment = long.Parse(Get(f, "increment", "0")),
            Names = Get(f, "names", "").Split(',').ToList(),
            Multigame = Get(f, "multigame", "0") == "1",
        };
    }

    public static Turn ReadTurn(Game game, string[] words)
    {
        var f = Fields(words);
        var t = new Turn
        {
            Phase = words[0],
            Time = long.Parse(Get(f, "time", "0")),
            Ply = long.Parse(Get(f, "ply", "0")),
            Clocks = Numbers(Get(f, "clocks", "-")),
            Tiles = Numbers(Get(f, "tiles", "-")),
            Forfeit = Get(f, "forfeit", "-") == "-" ? "" : Get(f, "forfeit", ""),
        };
        foreach (var m in Items(Get(f, "since", "-")))
            if (m.Length > 2) t.Since.Add((m[0], m.Substring(2)));
        foreach (var d in Items(Get(f, "daisies", "-")))
        {
            var p = d.Split(',');
            t.Daisies[(int.Parse(p[0]), int.Parse(p[1]))] = int.Parse(p[2]);
        }
        var pos = t.Position;
        pos.Phase = words[0]; pos.Me = game.Seat; pos.Sheep = game.Sheep; pos.Contact = game.Contact; pos.HoleBorder = game.HoleBorder;
        foreach (var h in Items(Get(f, "board", "-"))) pos.Pasture.Add(ParseHex(h));
        foreach (var s in Items(Get(f, "stacks", "-")))
        {
            var p = s.Split(',');
            int q = int.Parse(p[0]), r = int.Parse(p[1]);
            pos.Stacks[(q, r)] = new Stack { Q = q, R = r, Player = p[2][0], Sheep = int.Parse(p[3]) };
        }
        return t;
    }

    public static End ReadEnd(string[] words)
    {
        var f = Fields(words);
        return new End
        {
            Ranks = Numbers(Get(f, "ranks", "-")),
            Hexes = Numbers(Get(f, "hexes", "-")),
            Groups = Numbers(Get(f, "groups", "-")),
            Daisies = Numbers(Get(f, "daisies", "-")),
            Faults = Items(Get(f, "faults", "-")),
        };
    }

    // Not flushed by itself: Send() flushes each line.
    static readonly StreamWriter Out = new StreamWriter(Console.OpenStandardOutput(), new ASCIIEncoding()) { AutoFlush = false, NewLine = "\n" };

    /// <summary>Write one line and flush it: an answer left in the buffer never arrives.</summary>
    public static void Send(string line)
    {
        Out.Write(line + "\n");
        Out.Flush();
    }

    /// <summary>Debugging output: stderr is kept with the game record, never read as an answer.</summary>
    public static void Log(string text) => Console.Error.WriteLine(text);

    /// <summary>Answer the referee until the last game ends or the input closes.</summary>
    public static void Run(string name, Func<Game, Turn, Rng, string> choose, Action<Game, End> onEnd)
    {
        var input = new StreamReader(Console.OpenStandardInput(), Encoding.ASCII);
        var game = new Game();
        var rng = new Rng(0);
        string line;
        while ((line = input.ReadLine()) != null)
        {
            var words = line.Split(new[] { ' ', '\t', '\r' }, StringSplitOptions.RemoveEmptyEntries);
            if (words.Length == 0) continue;
            switch (words[0])
            {
                case "hello":
                    Send("hello 1 " + name + " multigame"); // may play several games in one process
                    break;
                case "game":
                    game = ReadGame(words);
                    rng = new Rng(game.Seed); // a fresh generator for every game: replays repeat
                    Send("ready");
                    break;
                case "tile":
                case "herd":
                case "move":
                    Send(words[0] + " " + choose(game, ReadTurn(game, words), rng));
                    break;
                case "end":
                    onEnd(game, ReadEnd(words));
                    if (!game.Multigame) return;
                    break;
                default:
                    Log(name + ": ignoring '" + words[0] + "' (a message of a later protocol version?)");
                    break;
            }
        }
    }
}
