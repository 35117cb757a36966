// MyBot.ts - my Battle Sheep bot: the strategy. sheep.ts speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change score() (or all of choose()).
import { End, Game, Position, Rng, Turn, log, run } from "./sheep";

const NAME = "my-ts-bot";

// How good `after` (`move` played on `before`) is for me: higher is better.
function score(before: Position, move: string, after: Position, me: string): number {
  if (before.phase === "tile") return before.tileContact(move); // a compact pasture
  // Herds and sheep: the stacks I can still move, minus those of my opponents.
  let total = 2 * after.mobility(me);
  for (const p of ["a", "b", "c", "d"]) if (p !== me) total -= after.mobility(p);
  return total;
}

// The move to answer `turn` with (without the phase word).
function choose(game: Game, turn: Turn, rng: Rng): string {
  const position = turn.position;
  let best = "", bestScore = 0, ties = 0;
  for (const move of position.legalMoves()) {
    const s = score(position, move, position.play(move), game.seat);
    if (ties === 0 || s > bestScore) {
      best = move; bestScore = s; ties = 1;
    } else if (s === bestScore) {
      ties++;
      if (rng.below(ties) === 0) best = move; // each of the equal moves is as likely
    }
  }
  return best;
}

// The game is over: its result, in seat order.
function onEnd(game: Game, end: End): void {
  const seat = game.seat.charCodeAt(0) - 97;
  log(NAME + ": game " + game.id + " over, my rank " + end.ranks[seat] + " with " + end.hexes[seat] + " hexes");
}

run(NAME, choose, onEnd);
