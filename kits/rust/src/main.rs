//! My Battle Sheep bot: the strategy. sheep.rs speaks the protocol and knows the rules.
//!
//! The strategy looks one move ahead: it plays each legal move on a copy of the
//! position, scores the result, and answers the best (ties drawn from the game's
//! seed, so a replay replays my moves). Change `score` (or all of `choose`).

mod sheep;

use sheep::{End, Game, Position, Rng, Turn};

const NAME: &str = "my-rust-bot";

/// How good `after` (`mv` played on `before`) is for me: higher is better.
fn score(before: &Position, mv: &str, after: &Position, me: char) -> i32 {
    if before.phase == "tile" {
        return before.tile_contact(mv); // a compact pasture
    }
    // Herds and sheep: the stacks I can still move, minus those of my opponents.
    let others: i32 = ['a', 'b', 'c', 'd'].iter().filter(|&&p| p != me).map(|&p| after.mobility(p)).sum();
    2 * after.mobility(me) - others
}

/// The move to answer `turn` with (without the phase word).
fn choose(game: &Game, turn: &Turn, rng: &mut Rng) -> String {
    let position = &turn.position;
    let (mut best, mut best_score, mut ties) = (String::new(), 0, 0);
    for mv in position.legal_moves() {
        let s = score(position, &mv, &position.play(&mv), game.seat);
        if ties == 0 || s > best_score {
            best = mv;
            best_score = s;
            ties = 1;
        } else if s == best_score {
            ties += 1;
            if rng.below(ties) == 0 {
                best = mv; // each of the equal moves is as likely
            }
        }
    }
    best
}

/// The game is over: its result, in seat order.
fn on_end(game: &Game, end: &End) {
    let seat = (game.seat as u8 - b'a') as usize;
    let rank = end.ranks.get(seat).copied().unwrap_or(0);
    let hexes = end.hexes.get(seat).copied().unwrap_or(0);
    sheep::log(&format!("{}: game {} over, my rank {} with {} hexes", NAME, game.id, rank, hexes));
}

fn main() {
    sheep::run(NAME, choose, on_end);
}
