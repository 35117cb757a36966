"""Scrimmages, the use case: who may ask for which games, and who may see what of them.

An author asks for N games (at most ``ladder.scrimmage.max_games``, and ``per_day`` games in
24 hours, ``at_once`` requests unfinished at a time; organisers have no quota) between one of
their versions that built (passed, or failed its check after building, retired or not) and
an opponent: a house bot playing in the ladder, a version playing in the ladder, or another
of their own versions that built.  Scrimmages close with submissions, at the deadline (and
once the final is asked for): they are practice for the ladder, and the machines then go to
the final.  Each refusal is a :class:`~arena.ladder.service.Refused` naming why.

Who sees what: the asker and the organisers follow a scrimmage and open its games; in a
game the asker reads their own bot's logs (stderr, info lines) and never another author's
(an organiser reads all); the other bot's author opens the public replay only (no bot's
logs), and only when ``ladder.scrimmage.show_opponent_replays`` is true; anyone else is told
there is no such scrimmage.  :mod:`arena.ladder.scrimmage_pages` serves it as a page, a form
and the API; ``arena scrimmage`` is its console.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Any

from arena.errors import LadderError
from arena.game.record import GameRecord
from arena.ladder.deadline import closed
from arena.ladder.names import version_name, version_of
from arena.ladder.results import shown_record
from arena.ladder.roster import roster
from arena.ladder.scrimmage_store import Scrimmage, ScrimmageGame
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.store import Author, State, Submission

MAX_NAME_CHARS = 200  # of a name as sent, before it is looked up (it is quoted in refusals)


@dataclass(frozen=True)
class Asked:
    """What an author asks for, as sent."""

    version: str
    opponent: str
    games: object  # a whole number, or text of one (a form's field)


def built(sub: Submission) -> bool:
    """Whether ``sub`` built: it passed, or its check failed after the build (a report)."""
    return sub.state is State.PASSED or (sub.state is State.FAILED and sub.report is not None)


def _version(service: Service, name: str) -> Submission | None:
    split = version_of(name)
    return None if split is None else service.store.version(*split)


def _games(asked: object, most: int) -> int:
    if isinstance(asked, bool) or not isinstance(asked, (int, str)):
        raise Refused(400, f"games: a whole number from 1 to {most} expected, got {asked!r:.80}")
    text = str(asked).strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise Refused(400, f"games: a whole number from 1 to {most} expected, got {text[:80]!r}")
    n = int(text)
    if n < 1:
        raise Refused(400, "games: ask for at least 1 game")
    if n > most:
        raise Refused(400, f"games: {n} is more than this ladder allows in one scrimmage (scrimmage.max_games: {most})")
    return n


def _mine(service: Service, author: Author, name: str) -> Submission:
    sub = _version(service, name)
    if sub is None:
        raise Refused(400, f"version {name[:MAX_NAME_CHARS]!r}: no such version (name it BOT.vN, e.g. greedy.v2)")
    if sub.author != author.name:
        raise Refused(403, f"version {name!r} is not yours: a scrimmage is asked for with one of your own versions")
    if not built(sub):
        raise Refused(400, f"version {name!r} cannot play: it {_why_not(sub)}")
    return sub


def _why_not(sub: Submission) -> str:
    if sub.state.pending:
        return f"waits for its check (state {sub.state.value}); ask again once it has its verdict"
    if sub.state is State.REFUSED:
        return "was refused when unpacked, never built"
    return "did not build"


def _opponent(service: Service, author: Author, name: str, mine: Submission) -> tuple[str, int | None, str | None]:
    """The opponent ``name``: its name, its submission (None: a house bot) and its author."""
    house = {b.name for b in service.ladder.league.bots if not b.retired}
    if name in house:
        return name, None, None
    sub = _version(service, name)
    if sub is None:
        raise Refused(
            400, f"opponent {name[:MAX_NAME_CHARS]!r}: no such bot (a house bot, or a version named BOT.vN)"
        )
    if sub.id == mine.id:
        raise Refused(400, f"opponent {name!r} is the version you chose: choose another bot or version")
    active = {e.sub.id for e in roster(service.store) if e.active}
    if sub.id in active:
        return name, sub.id, sub.author
    if sub.author == author.name and built(sub):
        return name, sub.id, sub.author
    if sub.author == author.name:
        raise Refused(400, f"opponent {name!r} cannot play: it {_why_not(sub)}")
    raise Refused(400, f"opponent {name!r} does not play in the ladder now: choose a bot that does, or one of your versions")


def _quota(service: Service, author: Author, games: int) -> Any:
    s = service.ladder.settings.scrimmage

    def check(asked_today: int, unfinished: int) -> None:
        if author.admin:
            return
        if unfinished >= s.at_once:
            raise Refused(
                429,
                f"{unfinished} scrimmage(s) of yours are not finished yet (scrimmage.at_once: {s.at_once}): "
                "ask for the next when it is done",
                {"Retry-After": "60"},
            )
        if asked_today + games > s.per_day:
            raise Refused(
                429,
                f"quota: you asked for {asked_today} scrimmage games in the last 24 hours; {games} more would pass "
                f"this ladder's {s.per_day} (scrimmage.per_day)",
                {"Retry-After": "3600"},
            )

    return check


def ask(service: Service, author: Author, asked: Asked) -> Scrimmage:
    """Take ``author``'s request (reads and writes the stores: call it in a worker thread)."""
    shut = closed(service.ladder, service.store, dt.datetime.now(dt.UTC))
    if shut is not None:
        raise Refused(403, shut.replace("submissions are closed", "scrimmages are closed", 1))
    league = service.ladder.league
    if league.board_value is not None and league.players != 2:
        raise Refused(409, f"this ladder plays a board file for {league.players} players; scrimmages are two-player games")
    games = _games(asked.games, service.ladder.settings.scrimmage.max_games)
    mine = _mine(service, author, str(asked.version).strip())
    other = _opponent(service, author, str(asked.opponent).strip(), mine)
    rid = service.scrimmages.add(
        author.name, (version_name(mine.bot, mine.version), mine.id), other, games, time.time(), _quota(service, author, games)
    )
    service.store.log(author.name, "scrimmage", f"scrimmage {rid}", f"{games} games: {asked.version} vs {other[0]}")
    service.scrimmage_loop.changed()
    found = service.scrimmages.get(rid)
    assert found is not None
    return found


# -- who sees what ----------------------------------------------------------------------------


def follower(viewer: Viewer, s: Scrimmage) -> bool:
    """Whether ``viewer`` follows ``s``: its asker, or an organiser."""
    a = viewer.author
    return a is not None and (a.admin or a.name == s.author)


def scrimmage_for(service: Service, viewer: Viewer, raw: str) -> Scrimmage:
    """Scrimmage ``raw`` (its id as sent) if ``viewer`` may follow it; else 404, the same
    answer as for one that does not exist (no one learns who asked for what)."""
    s = service.scrimmages.get(int(raw)) if raw.isascii() and raw.isdigit() and len(raw) < 12 else None
    if s is None or not follower(viewer, s):
        raise Refused(404, f"no scrimmage {raw[:40]!r} of yours")
    return s


def owner_of(s: Scrimmage, name: str) -> str | None:
    """Who owns the bot ``name`` of ``s`` (None: a house bot, the organisers')."""
    return s.author if name == s.mine else s.other_author


def shown_game(service: Service, viewer: Viewer, rid: str, n: str) -> tuple[Scrimmage, ScrimmageGame, GameRecord]:
    """Game ``n`` of scrimmage ``rid`` as ``viewer`` may see it: the asker their own bot's
    logs, an organiser all, the other bot's author (when the ladder allows) no bot's; 404 for
    anyone else, and for a game not over."""
    s = service.scrimmages.get(int(rid)) if rid.isascii() and rid.isdigit() and len(rid) < 12 else None
    a = viewer.author
    opponent = (
        s is not None
        and a is not None
        and s.other_author == a.name
        and service.ladder.settings.scrimmage.show_opponent_replays
    )
    if s is None or not (follower(viewer, s) or opponent):
        raise Refused(404, f"no scrimmage {rid[:40]!r} of yours")
    game = next((g for g in s.games if str(g.n) == n), None)
    text = None if game is None else service.scrimmages.record(s.id, game.n)
    if game is None or text is None:
        raise Refused(404, f"scrimmage {s.id} has no finished game {n[:40]!r}")
    try:
        record = GameRecord.from_json(text)
    except (LadderError, ValueError) as e:
        raise Refused(503, f"scrimmage {s.id} game {game.n}: its record cannot be read: {e}") from None
    if follower(viewer, s):
        shown = shown_record(record, lambda name: viewer.may_see(owner_of(s, name)))
    else:
        shown = shown_record(record, lambda name: False)
    return s, game, shown


def to_json(s: Scrimmage, viewer: Viewer) -> dict[str, Any]:
    """What the API answers of ``s`` (to its asker or an organiser)."""
    mine, other = s.score()
    return {
        "id": s.id,
        "author": s.author,
        "version": s.mine,
        "opponent": s.other,
        "games": len(s.games),
        "done": s.done,
        "state": s.state,
        "score": {"version": mine, "opponent": other},
        "asked": s.asked,
        "status_url": f"/api/scrimmages/{s.id}",
        "page": f"/scrimmages/{s.id}",
        "results": [
            {
                "game": g.n,
                "seats": list(g.seats),
                "points": None if g.points is None else list(g.points),
                # The arena's own failure: its first line, its traceback for the organisers.
                "failure": g.failure if g.failure is None or viewer.may_see(None) else g.failure.splitlines()[0],
                "replay": f"/scrimmages/{s.id}/games/{g.n}" if g.points is not None else None,
            }
            for g in s.games
        ],
    }
