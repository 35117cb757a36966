/* MyBot.c - my Battle Sheep bot: the strategy. sheep.h speaks the protocol and knows the rules.
 *
 * The strategy looks one move ahead: it plays each legal move on a copy of the
 * position, scores the result, and answers the best (ties drawn from the game's
 * seed, so a replay replays my moves). Change score() (or all of choose()).
 */
#include "sheep.h"

#define NAME "my-c-bot"

/* How good `after` (`move` played on `before`) is for me: higher is better. */
static int score(const ShPosition *before, const char *move, const ShPosition *after, char me) {
    if (strcmp(before->phase, "tile") == 0) return sh_tile_contact(before, move); /* a compact pasture */
    /* Herds and sheep: the stacks I can still move, minus those of my opponents. */
    int total = 2 * sh_mobility(after, me);
    for (char p = 'a'; p < 'a' + SH_MAX_PLAYERS; p++)
        if (p != me) total -= sh_mobility(after, p);
    return total;
}

/* The move to answer `turn` with (without the phase word), into `move`. */
static void choose(const ShGame *game, const ShTurn *turn, ShRng *rng, char *move) {
    static ShMoves moves;
    static ShPosition after;
    int best_score = 0, ties = 0;
    sh_legal_moves(&turn->position, &moves);
    for (int i = 0; i < moves.n; i++) {
        sh_play(&turn->position, moves.move[i], &after);
        int s = score(&turn->position, moves.move[i], &after, game->seat);
        if (ties == 0 || s > best_score) {
            best_score = s;
            ties = 1;
            strcpy(move, moves.move[i]);
        } else if (s == best_score && sh_rng_below(rng, ++ties) == 0) {
            strcpy(move, moves.move[i]); /* each of the equal moves is as likely */
        }
    }
}

/* The game is over: its result, in seat order. */
static void on_end(const ShGame *game, const ShEnd *end) {
    int seat = game->seat - 'a';
    fprintf(stderr, "%s: game %s over, my rank %d with %d hexes\n", NAME, game->id, end->ranks[seat], end->hexes[seat]);
}

int main(void) {
    return sh_run(NAME, choose, on_end);
}
