"""The end of the game: hexes, then largest group, then daisies, then shared ranks."""

from __future__ import annotations

from arena.rules import parse_move, parse_position


def ranks(text: str) -> list[int]:
    return parse_position(text).ranking()


def test_more_hexes_wins_whatever_the_stack_heights_and_groups() -> None:
    # a: three single sheep on (0,0) (2,0) (4,0), no two touching (largest group 1).
    # b: two tall stacks side by side on (0,1) (1,1) (largest group 2).
    state = parse_position("a1.a1.a1/b9b9 over - players=2")
    a, b = state.standings()
    assert (a.hexes, a.largest_group) == (3, 1)
    assert (b.hexes, b.largest_group) == (2, 2)
    assert state.ranking() == [1, 2]


def test_tie_on_hexes_broken_by_largest_group() -> None:
    # Two hexes each; a's touch (group 2), b's do not (group 1).
    assert ranks("a1a1.b1.b1 over - players=2") == [1, 2]
    # The same with the seats swapped: the rule, not the seat, decides.
    assert ranks("b1b1.a1.a1 over - players=2") == [2, 1]


def test_largest_group_is_component_size_not_longest_path() -> None:
    # a: a "Y" of four hexes, the centre (1,1) with (2,1), (1,0) and (0,2)
    # around it, no two of those touching: one group of 4, but no path
    # through it is longer than 3 hexes.  b: three in a row (0,3) (1,3) (2,3)
    # plus a lone (4,3): largest group 3.  Longest path would tie them.
    state = parse_position(".a1.3/.a1a1.2/a1.4/b1b1b1.b1 over - players=2")
    a, b = state.standings()
    assert (a.hexes, a.largest_group) == (4, 4)
    assert (b.hexes, b.largest_group) == (4, 3)
    assert state.ranking() == [1, 2]


def test_tie_on_hexes_and_group_broken_by_daisies() -> None:
    # One hex each; b's hex (2,0) shows 3 daisies, a's (0,0) shows 1.
    state = parse_position("a1.b1 over - players=2 daisies=0,0:1;2,0:3")
    a, b = state.standings()
    assert (a.daisies, b.daisies) == (1, 3)
    assert state.ranking() == [2, 1]
    # Daisies on hexes nobody holds count for nobody.
    assert ranks("a1.b1 over - players=2 daisies=1,0:5") == [1, 1]


def test_daisies_do_not_beat_hexes_or_groups() -> None:
    assert ranks("a1a1.b1 over - players=2 daisies=3,0:9") == [1, 2]
    assert ranks("a1a1.b1.b1 over - players=2 daisies=3,0:9;5,0:9") == [1, 2]


def test_full_tie_shares_the_rank() -> None:
    assert ranks("a1.b1 over - players=2") == [1, 1]
    assert ranks("a1.b1 over - players=2 daisies=0,0:2;2,0:2") == [1, 1]


def test_shared_rank_skips_the_next_one() -> None:
    # a and b: two touching hexes each; c: one.  1, 1, 3.
    assert ranks("a1a1.b1b1.c1 over - players=3") == [1, 1, 3]
    # Four players: 1, 2, 2, 4.
    assert ranks("a1a1a1.b1b1.c1c1.d1 over - players=4") == [1, 2, 2, 4]
    # Last place shared: 1, 2, 2.
    assert ranks("a1a1.b1.c1 over - players=3") == [1, 2, 2]


def test_forfeited_player_ranks_below_every_other_even_with_more_hexes() -> None:
    state = parse_position("a1a1a1.b1 over - players=2 forfeit=a")
    a, b = state.standings()
    assert a.forfeited and not b.forfeited
    assert a.hexes > b.hexes
    assert state.ranking() == [2, 1]


def test_forfeited_players_rank_among_themselves_by_the_usual_rules() -> None:
    # c is the only one not forfeited: first with one hex.  a (3 hexes) then b (2).
    assert ranks("a1a1a1.b1b1.c1 over - players=3 forfeit=ab") == [2, 3, 1]
    # Two forfeited players with equal figures share a rank.
    assert ranks("a1.b1.c1.d1 over - players=4 forfeit=bd") == [1, 3, 1, 3]


def test_forfeit_during_play_ranks_last() -> None:
    state = parse_position("a4.../b2... moves a players=2")
    state.apply(parse_move("0,0E1"))
    state.forfeit(0)  # a forfeits with 2 hexes to b's 1
    assert state.to_move == 1
    while not state.is_over:
        state.apply(state.legal_moves()[0])
    assert state.hexcount == [2, 2]
    assert state.ranking() == [2, 1]


def test_ranking_of_a_played_out_game() -> None:
    # a4 and b3 at the two ends of a 5-hex strip.  a moves 0,0E1 and walls b
    # in; then a fills the strip: 4 hexes to 1.
    state = parse_position("a4...b3 moves a players=2")
    for token in ("0,0E1", "0,0E1", "0,0E1"):
        state.apply(parse_move(token))
    assert state.is_over
    standings = state.standings()
    assert [s.hexes for s in standings] == [4, 1]
    assert [s.rank for s in standings] == [1, 2]
    assert [s.player for s in standings] == [0, 1]


def test_standings_count_hexes_not_sheep() -> None:
    state = parse_position("a15.b1b1 over - players=2").copy()
    assert [s.hexes for s in state.standings()] == [1, 2]
    assert state.ranking() == [2, 1]
