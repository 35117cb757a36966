// MyBot.go - my Battle Sheep bot: the strategy. sheep.go speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change score() (or all of choose()).
package main

const name = "my-go-bot"

// score says how good after (move played on before) is for me: higher is better.
func score(before *Position, move string, after *Position, me byte) int {
	if before.Phase == "tile" {
		return before.TileContact(move) // a compact pasture
	}
	// Herds and sheep: the stacks I can still move, minus those of my opponents.
	total := 2 * after.Mobility(me)
	for p := byte('a'); p <= 'd'; p++ {
		if p != me {
			total -= after.Mobility(p)
		}
	}
	return total
}

// choose is the move to answer turn with (without the phase word).
func choose(game Game, turn Turn, rng *Rng) string {
	position := turn.Position
	best, bestScore, ties := "", 0, 0
	for _, move := range position.LegalMoves() {
		s := score(position, move, position.Play(move), game.Seat)
		if ties == 0 || s > bestScore {
			best, bestScore, ties = move, s, 1
		} else if s == bestScore {
			ties++
			if rng.Below(ties) == 0 {
				best = move // each of the equal moves is as likely
			}
		}
	}
	return best
}

// onEnd: the game is over, its result in seat order.
func onEnd(game Game, end End) {
	seat := int(game.Seat - 'a')
	logf("%s: game %s over, my rank %d with %d hexes", name, game.ID, end.Ranks[seat], end.Hexes[seat])
}

func main() {
	run(name, choose, onEnd)
}
