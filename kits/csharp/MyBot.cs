// MyBot.cs - my Battle Sheep bot: the strategy. Sheep.cs speaks the protocol and knows the rules.
//
// The strategy looks one move ahead: it plays each legal move on a copy of the
// position, scores the result, and answers the best (ties drawn from the game's
// seed, so a replay replays my moves). Change Score() (or all of Choose()).
public static class MyBot
{
    const string Name = "my-csharp-bot";

    /// <summary>How good `after` (`move` played on `before`) is for me: higher is better.</summary>
    static int Score(Sheep.Position before, string move, Sheep.Position after, char me)
    {
        if (before.Phase == "tile") return before.TileContact(move); // a compact pasture
        // Herds and sheep: the stacks I can still move, minus those of my opponents.
        int total = 2 * after.Mobility(me);
        for (char p = 'a'; p <= 'd'; p++) if (p != me) total -= after.Mobility(p);
        return total;
    }

    /// <summary>The move to answer `turn` with (without the phase word).</summary>
    static string Choose(Sheep.Game game, Sheep.Turn turn, Sheep.Rng rng)
    {
        var position = turn.Position;
        string best = "";
        int bestScore = 0, ties = 0;
        foreach (var move in position.LegalMoves())
        {
            int s = Score(position, move, position.Play(move), game.Seat);
            if (ties == 0 || s > bestScore)
            {
                best = move;
                bestScore = s;
                ties = 1;
            }
            else if (s == bestScore && rng.Below(++ties) == 0)
            {
                best = move; // each of the equal moves is as likely
            }
        }
        return best;
    }

    /// <summary>The game is over: its result, in seat order.</summary>
    static void OnEnd(Sheep.Game game, Sheep.End end)
    {
        int seat = game.Seat - 'a';
        Sheep.Log(Name + ": game " + game.Id + " over, my rank " + end.Ranks[seat] + " with " + end.Hexes[seat] + " hexes");
    }

    public static void Main()
    {
        Sheep.Run(Name, Choose, OnEnd);
    }
}
