// MyBot.java - my Battle Sheep bot: the strategy. Sheep.java speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change score() (or all of choose()).

import java.io.IOException;

public final class MyBot {
    static final String NAME = "my-java-bot";

    /** How good `after` (`move` played on `before`) is for me: higher is better. */
    static int score(Sheep.Position before, String move, Sheep.Position after, char me) {
        if (before.phase.equals("tile")) return before.tileContact(move); // a compact pasture
        // Herds and sheep: the stacks I can still move, minus those of my opponents.
        int total = 2 * after.mobility(me);
        for (char p = 'a'; p <= 'd'; p++) if (p != me) total -= after.mobility(p);
        return total;
    }

    /** The move to answer `turn` with (without the phase word). */
    static String choose(Sheep.Game game, Sheep.Turn turn, Sheep.Rng rng) {
        Sheep.Position position = turn.position;
        String best = "";
        int bestScore = 0, ties = 0;
        for (String move : position.legalMoves()) {
            int s = score(position, move, position.play(move), game.seat);
            if (ties == 0 || s > bestScore) {
                best = move;
                bestScore = s;
                ties = 1;
            } else if (s == bestScore && rng.below(++ties) == 0) {
                best = move; // each of the equal moves is as likely
            }
        }
        return best;
    }

    /** The game is over: its result, in seat order. */
    static void onEnd(Sheep.Game game, Sheep.End end) {
        int seat = game.seat - 'a';
        Sheep.log(NAME + ": game " + game.id + " over, my rank " + end.ranks.get(seat) + " with " + end.hexes.get(seat) + " hexes");
    }

    public static void main(String[] args) throws IOException {
        Sheep.run(NAME, MyBot::choose, MyBot::onEnd);
    }
}
