// MyBot.js - my Battle Sheep bot: the strategy. sheep.js speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change score() (or all of choose()).
"use strict";
const { log, run } = require("./sheep");

const NAME = "my-js-bot";

// How good `after` (`move` played on `before`) is for me: higher is better.
function score(before, move, after, me) {
  if (before.phase === "tile") return before.tileContact(move); // a compact pasture
  // Herds and sheep: the stacks I can still move, minus those of my opponents.
  const others = new Set([...after.stacks.values()].map((s) => s.player).filter((p) => p !== me));
  let total = 2 * after.mobility(me);
  for (const p of others) total -= after.mobility(p);
  return total;
}

// The move to answer `turn` with (without the phase word).
function choose(game, turn, rng) {
  const position = turn.position;
  let best = "", bestScore = 0, ties = 0;
  for (const move of position.legalMoves()) {
    const s = score(position, move, position.play(move), game.seat);
    if (best === "" || s > bestScore) {
      best = move; bestScore = s; ties = 1;
    } else if (s === bestScore) {
      ties++;
      if (rng.below(ties) === 0) best = move; // each of the equal moves is as likely
    }
  }
  return best;
}

// The game is over: its result, in seat order.
function onEnd(game, end) {
  const seat = game.seat.charCodeAt(0) - 97;
  log(NAME + ": game " + game.id + " over, my rank " + end.ranks[seat] + " with " + end.hexes[seat] + " hexes");
}

run(NAME, choose, onEnd);
