// sheep.hpp - the Battle Sheep protocol and rules for a bot: you need not change this file.
//
// It reads every message of protocol version 1 (protocol/PROTOCOL.md) into plain
// structs, lists the legal moves of a position and plays a move on a copy of it.
// MyBot.cpp holds the strategy; sheep::run() below is the conversation with the referee.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sheep {

using Hex = std::pair<int, int>;  // (q, r)

const int LIMIT = 999;  // every hex has -999 <= q, r <= 999
// The six directions, as the protocol names them, and the step each adds to (q, r).
const char *const DIR_NAMES[6] = {"E", "NE", "NW", "W", "SW", "SE"};
const int DQ[6] = {1, 1, 0, -1, -1, 0};
const int DR[6] = {0, -1, -1, 0, 1, 1};
// The hexes a tile covers, as offsets from its anchor, for orientations A, B and C.
const int TILE[3][4][2] = {
    {{0, 0}, {1, 0}, {0, 1}, {1, 1}},
    {{0, 0}, {1, 0}, {1, -1}, {2, -1}},
    {{0, 0}, {1, -1}, {1, 0}, {0, 1}},
};

// The `game` message: what is fixed for one game.
struct Game {
    std::string id;
    char seat = 'a';  // my letter: 'a' plays first
    int players = 2;
    std::uint64_t seed = 0;  // for my own randomness: the same seed replays my moves
    int sheep = 16, tiles = 4, contact = 1, holeborder = 0;
    long long movetime = 0;  // ms per answer, 0 if none
    long long base = 0;      // the clock in ms, 0 if none
    long long increment = 0;
    std::vector<std::string> names;
    bool multigame = false;  // true: after `end`, wait for the next `game`
};

struct Stack {
    int q, r;
    char player;
    int sheep;
};

// "2,-1B": the four hexes of a tile move.
inline std::vector<Hex> tile_hexes(const std::string &move) {
    int q = 0, r = 0;
    char comma = 0;
    std::istringstream in(move.substr(0, move.size() - 1));
    in >> q >> comma >> r;
    int o = move.back() - 'A';
    std::vector<Hex> out;
    for (auto &c : TILE[o]) out.emplace_back(q + c[0], r + c[1]);
    return out;
}

// A board: the pasture, the stacks, whose move it is and the rules that apply.
struct Position {
    std::string phase;  // "tile", "herd" or "move"
    char me = 'a';
    int sheep = 16, contact = 1, holeborder = 0;
    std::set<Hex> pasture;
    std::map<Hex, Stack> stacks;

    bool is_pasture(int q, int r) const { return pasture.count({q, r}) > 0; }

    // A pasture hex with no stack on it.
    bool is_free(int q, int r) const { return is_pasture(q, r) && stacks.count({q, r}) == 0; }

    // Where sheep leaving (q, r) in direction d stop; false if they cannot move.
    bool slide(int q, int r, int d, Hex &end) const {
        if (!is_free(q + DQ[d], r + DR[d])) return false;
        while (is_free(q + DQ[d], r + DR[d])) {
            q += DQ[d];
            r += DR[d];
        }
        end = {q, r};
        return true;
    }

    // How many (stack, direction) pairs of `player` can slide.
    int mobility(char player) const {
        int n = 0;
        for (auto &[hex, s] : stacks) {
            if (s.player != player || s.sheep < 2) continue;
            for (int d = 0; d < 6; d++) n += is_free(s.q + DQ[d], s.r + DR[d]);
        }
        return n;
    }

    // How many hex edges the tile `move` shares with the pasture.
    int tile_contact(const std::string &move) const {
        int n = 0;
        for (auto [q, r] : tile_hexes(move))
            for (int d = 0; d < 6; d++) n += is_pasture(q + DQ[d], r + DR[d]);
        return n;
    }

    // Every legal move of the phase, as the protocol writes it (without the phase word).
    std::vector<std::string> legal_moves() const {
        std::vector<std::string> moves;
        if (phase == "tile") {
            if (pasture.empty()) return {"0,0A", "0,0B", "0,0C"};  // the first tile may go anywhere
            int q0, q1, r0, r1;
            bounds(3, q0, q1, r0, r1);  // every tile that touches lies in the box grown by 3
            for (int q = q0; q <= q1; q++)
                for (int r = r0; r <= r1; r++)
                    for (int o = 0; o < 3; o++)
                        if (tile_fits(q, r, o))
                            moves.push_back(std::to_string(q) + "," + std::to_string(r) + char('A' + o));
        } else if (phase == "herd") {
            std::set<Hex> out = outside();
            for (auto [q, r] : pasture) {
                if (stacks.count({q, r})) continue;
                bool border = false;
                for (int d = 0; d < 6; d++) {
                    Hex n{q + DQ[d], r + DR[d]};
                    if (!pasture.count(n) && (holeborder || out.count(n))) border = true;
                }
                if (border) moves.push_back(std::to_string(q) + "," + std::to_string(r));
            }
        } else {
            for (auto &[hex, s] : stacks) {
                if (s.player != me || s.sheep < 2) continue;
                for (int d = 0; d < 6; d++) {
                    if (!is_free(s.q + DQ[d], s.r + DR[d])) continue;
                    for (int n = 1; n < s.sheep; n++)
                        moves.push_back(std::to_string(s.q) + "," + std::to_string(s.r) + DIR_NAMES[d] +
                                        std::to_string(n));
                }
            }
        }
        return moves;
    }

    // A copy of this position with `move` played by me (the move must be legal).
    Position play(const std::string &move) const {
        Position after = *this;
        if (phase == "tile") {
            for (auto h : tile_hexes(move)) after.pasture.insert(h);
        } else if (phase == "herd") {
            int q = 0, r = 0;
            char comma = 0;
            std::istringstream(move) >> q >> comma >> r;
            after.stacks[{q, r}] = Stack{q, r, me, sheep};
        } else {
            std::size_t i = move.find_first_of("ENSW");
            std::size_t j = move.find_first_of("0123456789", i);
            int q = 0, r = 0;
            char comma = 0;
            std::istringstream(move.substr(0, i)) >> q >> comma >> r;
            std::string dir = move.substr(i, j - i);
            int n = std::atoi(move.c_str() + j);
            for (int d = 0; d < 6; d++) {
                Hex end;
                if (dir != DIR_NAMES[d] || !slide(q, r, d, end)) continue;
                after.stacks[{q, r}].sheep -= n;
                after.stacks[end] = Stack{end.first, end.second, me, n};
            }
        }
        return after;
    }

   private:
    bool tile_fits(int q, int r, int o) const {
        int touching = 0;
        for (auto &c : TILE[o]) {
            int hq = q + c[0], hr = r + c[1];
            if (hq < -LIMIT || hq > LIMIT || hr < -LIMIT || hr > LIMIT || is_pasture(hq, hr)) return false;
            for (int d = 0; d < 6; d++) {
                if (is_pasture(hq + DQ[d], hr + DR[d])) {
                    touching++;
                    break;
                }
            }
        }
        return touching >= contact;
    }

    void bounds(int grow, int &q0, int &q1, int &r0, int &r1) const {
        q0 = r0 = 1 << 20;
        q1 = r1 = -(1 << 20);
        for (auto [q, r] : pasture) {
            q0 = std::min(q0, q - grow);
            q1 = std::max(q1, q + grow);
            r0 = std::min(r0, r - grow);
            r1 = std::max(r1, r + grow);
        }
    }

    // The hexes off the pasture that reach the outside (the others are holes).
    std::set<Hex> outside() const {
        int q0, q1, r0, r1;
        bounds(1, q0, q1, r0, r1);
        std::set<Hex> out;
        std::vector<Hex> todo;
        for (int q = q0; q <= q1; q++)
            for (int r = r0; r <= r1; r++)
                if ((q == q0 || q == q1 || r == r0 || r == r1) && !is_pasture(q, r)) {
                    out.insert({q, r});
                    todo.push_back({q, r});
                }
        while (!todo.empty()) {
            auto [q, r] = todo.back();
            todo.pop_back();
            for (int d = 0; d < 6; d++) {
                Hex n{q + DQ[d], r + DR[d]};
                if (n.first < q0 || n.first > q1 || n.second < r0 || n.second > r1) continue;
                if (is_pasture(n.first, n.second) || out.count(n)) continue;
                out.insert(n);
                todo.push_back(n);
            }
        }
        return out;
    }
};

// A `tile`, `herd` or `move` request: it is my turn.
struct Turn {
    std::string phase;
    long long time = 0;  // ms I have for this answer
    long long ply = 0;
    std::vector<long long> clocks;  // each seat's clock in ms; -1 for a seat without one
    std::vector<std::pair<char, std::string>> since;  // the others' moves since my last answer
    std::vector<long long> tiles;  // tiles each seat still holds
    std::string forfeit;           // letters of the forfeited seats
    std::map<Hex, int> daisies;
    Position position;
};

// The `end` notice, in seat order.
struct End {
    std::vector<long long> ranks, hexes, groups, daisies;
    std::vector<std::string> faults;  // "-" for none
};

// SplitMix64: a small random number generator that gives the same numbers in every kit.
struct Rng {
    std::uint64_t state = 0;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // A number from 0 to n - 1.
    int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

inline std::vector<std::string> split(const std::string &text, char sep) {
    std::vector<std::string> out;
    if (text.empty() || text == "-") return out;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, sep)) out.push_back(item);
    return out;
}

inline std::vector<long long> numbers(const std::string &text) {
    std::vector<long long> out;
    for (auto &x : split(text, ';')) out.push_back(x == "-" ? -1 : std::atoll(x.c_str()));
    return out;
}

// The key=value words of a message (the first word, its kind, left out).
inline std::map<std::string, std::string> fields(const std::vector<std::string> &words) {
    std::map<std::string, std::string> f;
    for (std::size_t i = 1; i < words.size(); i++) {
        std::size_t eq = words[i].find('=');
        if (eq != std::string::npos && eq > 0) f[words[i].substr(0, eq)] = words[i].substr(eq + 1);
    }
    return f;
}

inline std::string get(const std::map<std::string, std::string> &f, const std::string &key, const std::string &missing) {
    auto it = f.find(key);
    return it == f.end() ? missing : it->second;
}

inline Game read_game(const std::vector<std::string> &words) {
    auto f = fields(words);
    Game g;
    g.id = get(f, "id", "");
    g.seat = get(f, "seat", "a")[0];
    g.players = std::atoi(get(f, "players", "2").c_str());
    g.seed = std::strtoull(get(f, "seed", "0").c_str(), nullptr, 10);
    g.sheep = std::atoi(get(f, "sheep", "16").c_str());
    g.tiles = std::atoi(get(f, "tiles", "4").c_str());
    g.contact = std::atoi(get(f, "contact", "1").c_str());
    g.holeborder = std::atoi(get(f, "holeborder", "0").c_str());
    g.movetime = std::atoll(get(f, "movetime", "0").c_str());
    g.base = std::atoll(get(f, "base", "0").c_str());
    g.increment = std::atoll(get(f, "increment", "0").c_str());
    g.names = split(get(f, "names", ""), ',');
    g.multigame = get(f, "multigame", "0") == "1";
    return g;
}

inline Turn read_turn(const Game &game, const std::vector<std::string> &words) {
    auto f = fields(words);
    Turn t;
    t.phase = words[0];
    t.time = std::atoll(get(f, "time", "0").c_str());
    t.ply = std::atoll(get(f, "ply", "0").c_str());
    t.clocks = numbers(get(f, "clocks", "-"));
    for (auto &m : split(get(f, "since", "-"), ';'))
        if (m.size() > 2) t.since.emplace_back(m[0], m.substr(2));
    t.tiles = numbers(get(f, "tiles", "-"));
    t.forfeit = get(f, "forfeit", "-") == "-" ? "" : get(f, "forfeit", "");
    for (auto &d : split(get(f, "daisies", "-"), ';')) {
        auto parts = split(d, ',');
        if (parts.size() == 3) t.daisies[{std::atoi(parts[0].c_str()), std::atoi(parts[1].c_str())}] = std::atoi(parts[2].c_str());
    }
    Position &p = t.position;
    p.phase = words[0];
    p.me = game.seat;
    p.sheep = game.sheep;
    p.contact = game.contact;
    p.holeborder = game.holeborder;
    for (auto &h : split(get(f, "board", "-"), ';')) {
        auto parts = split(h, ',');
        if (parts.size() == 2) p.pasture.insert({std::atoi(parts[0].c_str()), std::atoi(parts[1].c_str())});
    }
    for (auto &s : split(get(f, "stacks", "-"), ';')) {
        auto parts = split(s, ',');
        if (parts.size() != 4) continue;
        int q = std::atoi(parts[0].c_str()), r = std::atoi(parts[1].c_str());
        p.stacks[{q, r}] = Stack{q, r, parts[2][0], std::atoi(parts[3].c_str())};
    }
    return t;
}

inline End read_end(const std::vector<std::string> &words) {
    auto f = fields(words);
    End e;
    e.ranks = numbers(get(f, "ranks", "-"));
    e.hexes = numbers(get(f, "hexes", "-"));
    e.groups = numbers(get(f, "groups", "-"));
    e.daisies = numbers(get(f, "daisies", "-"));
    e.faults = split(get(f, "faults", "-"), ';');
    return e;
}

// Write one line and flush it: std::endl flushes; an answer left in the buffer never arrives.
inline void send(const std::string &line) { std::cout << line << std::endl; }

// Debugging output: stderr is kept with the game record, never read as an answer.
inline void log(const std::string &text) { std::cerr << text << std::endl; }

using Choose = std::function<std::string(const Game &, const Turn &, Rng &)>;
using OnEnd = std::function<void(const Game &, const End &)>;

// Answer the referee until the last game ends or the input closes.
inline int run(const std::string &name, Choose choose, OnEnd on_end) {
    Game game;
    Rng rng;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::vector<std::string> words;
        std::istringstream in(line);
        for (std::string w; in >> w;) words.push_back(w);
        if (words.empty()) continue;
        const std::string &kind = words[0];
        if (kind == "hello") {
            send("hello 1 " + name + " multigame");  // may play several games in one process
        } else if (kind == "game") {
            game = read_game(words);
            rng.state = game.seed;  // a fresh generator for every game: replays repeat
            send("ready");
        } else if (kind == "tile" || kind == "herd" || kind == "move") {
            send(kind + " " + choose(game, read_turn(game, words), rng));
        } else if (kind == "end") {
            on_end(game, read_end(words));
            if (!game.multigame) return 0;
        } else {
            log(name + ": ignoring '" + kind + "' (a message of a later protocol version?)");
        }
    }
    return 0;
}

}  // namespace sheep
