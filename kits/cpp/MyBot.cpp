// MyBot.cpp - my Battle Sheep bot: the strategy. sheep.hpp speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change score() (or all of choose()).
#include "sheep.hpp"

const std::string NAME = "my-cpp-bot";

// How good `after` (`move` played on `before`) is for me: higher is better.
int score(const sheep::Position &before, const std::string &move, const sheep::Position &after, char me) {
    if (before.phase == "tile") return before.tile_contact(move);  // a compact pasture
    // Herds and sheep: the stacks I can still move, minus those of my opponents.
    int total = 2 * after.mobility(me);
    for (char p = 'a'; p <= 'd'; p++)
        if (p != me) total -= after.mobility(p);
    return total;
}

// The move to answer `turn` with (without the phase word).
std::string choose(const sheep::Game &game, const sheep::Turn &turn, sheep::Rng &rng) {
    const sheep::Position &position = turn.position;
    std::string best;
    int best_score = 0, ties = 0;
    for (const std::string &move : position.legal_moves()) {
        int s = score(position, move, position.play(move), game.seat);
        if (ties == 0 || s > best_score) {
            best = move;
            best_score = s;
            ties = 1;
        } else if (s == best_score && rng.below(++ties) == 0) {
            best = move;  // each of the equal moves is as likely
        }
    }
    return best;
}

// The game is over: its result, in seat order.
void on_end(const sheep::Game &game, const sheep::End &end) {
    int seat = game.seat - 'a';
    sheep::log(NAME + ": game " + game.id + " over, my rank " + std::to_string(end.ranks[seat]) + " with " +
               std::to_string(end.hexes[seat]) + " hexes");
}

int main() {
    return sheep::run(NAME, choose, on_end);
}
