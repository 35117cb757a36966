"""The ladder's web pages, read-only ones: standings, bots, versions, games, a game's replay,
the ladder's settings and health, and the two small JSON answers the pages and monitors poll.

Every page is complete without JavaScript (the standings' table is redrawn by a script only
to follow the games as they finish).  Each handler gathers what it shows in a worker thread
(the stores are SQLite files), then renders it (:mod:`arena.ladder.render`); what it cannot
show is a :class:`~arena.ladder.service.Refused` (404, 400, 503, or a 303 to where it is),
rendered by :mod:`arena.ladder.web`.  Each handler is handed the service; the routes are in
:mod:`arena.ladder.app`, the forms (signing in and out, an upload) in :mod:`arena.ladder.forms`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.errors import StoreError
from arena.game.record import GameRecord
from arena.ladder.chart import history_svg, history_table
from arena.ladder.contest import deadline_text
from arena.ladder.deadline import closed, deadline
from arena.ladder.history import BotHistory, bot_history, moves, yesterday
from arena.ladder.names import version_of
from arena.ladder.render import page, when
from arena.ladder.results import (
    Owners,
    StandingsView,
    bot_page,
    find_games,
    game_record,
    recent_games,
    shown_record,
    shown_row,
)
from arena.ladder.roster import league_name
from arena.ladder.service import Refused, Service, Viewer
from arena.ladder.store import State, Submission
from arena.ladder.web import viewer_of
from arena.league.game_filter import FAULT_CHOICES, GameFilter
from arena.league.game_summary import GameSummary
from arena.league.history import MAX_POINTS
from arena.protocol import NAME_RE
from arena.rules import PLAYER_LETTERS
from arena.untrusted import printable, script_json

GAMES_PER_PAGE = 50
MAX_PAGE = 100_000
BOT_GAMES = 20  # the newest games a bot's page lists (the games page has them all)
GAME_ID_RE = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
SHARED_FIRST = "*"  # the games filter's "won by": a first place shared
# What /api/standings gives of each row of standings.json (besides the text each cell shows).
STANDINGS_KEYS = (
    "rank", "bot", "mu", "sigma", "mu_low", "mu_high", "rating", "better_than_next", "close", "games",
    "wdl", "points", "faults", "retired",
)  # fmt: skip
SUBMIT_POLICY_TEXT = {
    "authors": "every author the organisers added",
    "admins": "the organisers only",
    "nobody": "nobody (closed)",
}


Gather = Callable[[Service, Viewer], dict[str, Any]]


async def _show(service: Service, request: Request, template: str, gather: Gather) -> Response:
    """``template`` with what ``gather`` finds (in a worker thread); what it cannot show is
    refused: nothing there (404), a parameter that is wrong (400), the league's store
    unreadable (503), or a page that is elsewhere (303)."""

    def work() -> tuple[Viewer, dict[str, Any]]:
        viewer = viewer_of(service, request)
        try:
            return viewer, gather(service, viewer)
        except StoreError as e:
            raise Refused(503, str(e)) from None

    viewer, context = await run_in_threadpool(work)
    return page(request, service, viewer, template, 200, **context)


def _bot_name(raw: str, what: str) -> str:
    if not NAME_RE.fullmatch(raw):
        raise Refused(400, f"{what} {raw[:80]!r}: not a bot's name (1-64 of A-Z a-z 0-9 _ . + -)")
    return raw


# -- the standings ----------------------------------------------------------------------------


def _standings_rows(
    view: StandingsView | None, owners: Owners, moved: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    return [
        {
            "shown": {**shown_row(r), **({"moved": moved.get(str(r.get("bot")), "")} if moved is not None else {})},
            "page": owners.page(str(r.get("bot", ""))),
        }
        for r in (view.rows if view else ())
    ]


def _moves(service: Service, view: StandingsView | None) -> dict[str, dict[str, Any]]:
    """Each row's move since 24 h ago (see :func:`arena.ladder.history.moves`), as JSON; none
    while the league's store cannot be read (the standings are shown without them)."""
    try:
        found = moves(service.history, view.rows, dt.datetime.now(dt.UTC)) if view else {}
    except StoreError:
        return {}
    return {name: m.to_json() for name, m in found.items()}


def _games_a_day_ago(service: Service) -> int:
    """How many games had finished 24 h ago (the moves change when it does); -1: unknown."""
    try:
        return service.history.current().games_by(yesterday(dt.datetime.now(dt.UTC)), before=True)
    except StoreError:
        return -1


def _standings(service: Service, viewer: Viewer) -> dict[str, Any]:
    view = service.standings.read()
    moved = {name: m["text"] for name, m in _moves(service, view).items()}
    return {"view": view, "rows": _standings_rows(view, service.owners(), moved)}


async def standings_page(service: Service, request: Request) -> Response:
    """``/``: the standings as the league last wrote them, redrawn live by the page's script."""
    return await _show(service, request, "standings.html.j2", _standings)


async def standings_json(service: Service, request: Request) -> Response:
    """``/api/standings``: the standings' rows (figures, and the text each cell shows); 304
    when the ``If-None-Match`` names the file as it is."""
    view, owners = await run_in_threadpool(lambda: (service.standings.read(), service.owners()))
    # The moves since yesterday change with the standings, and as games pass 24 h of age.
    then = await run_in_threadpool(_games_a_day_ago, service)
    etag = f'"{view.signature}-{then}"' if view else '"none"'
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    found = await run_in_threadpool(_moves, service, view)
    keys = STANDINGS_KEYS
    moved = {name: m["text"] for name, m in found.items()}
    rows = [
        {**{k: r.get(k) for k in keys}, "move": found.get(str(r.get("bot"))), **shown}
        for r, shown in zip(view.rows if view else (), _standings_rows(view, owners, moved), strict=True)
    ]
    return JSONResponse(
        {
            "name": service.ladder.league.name,
            "signature": view.signature if view else "",
            "updated": view.updated if view else None,
            "updated_text": when(view.updated) if view else "",
            "games": view.games if view else 0,
            "players": view.players if view else service.ladder.league.players,
            "pairs": view.pairs if view else "",
            "rows": rows,
        },
        headers={"ETag": etag, "Cache-Control": "no-cache"},
    )


# -- bots and their versions ------------------------------------------------------------------


def _bots(service: Service, viewer: Viewer) -> dict[str, Any]:
    view = service.standings.read()
    owners = service.owners()
    ranks: dict[str, str] = {}
    for r in view.rows if view else ():
        ranks.setdefault(owners.bot_of(str(r.get("bot"))), str(r.get("rank")))
    submitted = [
        {"bot": bot, "author": author, "version": version, "state": state.value, "updated": updated}
        for bot, author, version, state, updated in service.store.latest_versions()
    ]
    return {"house": sorted(service.house), "submitted": submitted, "ranks": ranks}


async def bots_page(service: Service, request: Request) -> Response:
    """``/bots``: every bot, the house's and the authors'."""
    return await _show(service, request, "bots.html.j2", _bots)


def _author(name: str) -> Gather:
    def gather(service: Service, viewer: Viewer) -> dict[str, Any]:
        author = service.store.author_named(name) if NAME_RE.fullmatch(name) else None
        if author is None:
            raise Refused(404, f"no author {name[:80]!r} on this ladder")
        own = viewer.may_see(author.name)
        members = [m for m in service.store.members_of(author.name) if own or not m.revoked]
        return {
            "team": author,
            "members": [{"name": m.name, "revoked": m.revoked} for m in members],
            "own": own,
            "bots": [
                {"bot": bot, "version": version, "state": state.value, "updated": updated}
                for bot, owner, version, state, updated in service.store.latest_versions()
                if owner == author.name
            ],
        }

    return gather


async def author_page(service: Service, request: Request) -> Response:
    """``/authors/{name}``: a team (an author), its members' names (never their tokens) and
    its bots; its own members and the organisers also see who is revoked."""
    return await _show(service, request, "author.html.j2", _author(request.path_params["name"]))


LOG_ROWS = 500  # the newest actions the log page shows (GET /api/log has them all)


def _log(service: Service, viewer: Viewer) -> dict[str, Any]:
    if viewer.author is None or not viewer.author.admin:
        raise Refused(403, "the action log is for the organisers: sign in with an admin's token")
    actions = service.store.actions()
    return {"actions": list(reversed(actions[-LOG_ROWS:])), "total": len(actions), "shown": min(len(actions), LOG_ROWS)}


async def log_page(service: Service, request: Request) -> Response:
    """``/log``: organisers only: the newest actions, each with the team and member who did it."""
    return await _show(service, request, "log.html.j2", _log)


def _crosstable(view: StandingsView | None, names: list[str], owners: Owners) -> list[dict[str, Any]]:
    """The crosstable rows of ``names``: against each opponent, games, points, W-D-L."""
    rows = []
    for name in names:
        cells = (view.crosstable.get(name) if view else None) or {}
        for opponent, cell in sorted(cells.items()):
            if isinstance(cell, dict):
                rows.append(
                    {
                        "bot": name,
                        "opponent": opponent,
                        "page": owners.page(opponent),
                        "games": cell.get("games", 0),
                        "points": cell.get("points", 0),
                        "wdl": "-".join(str(n) for n in cell.get("wdl") or []),
                        "pentanomial": " ".join(str(n) for n in cell.get("pentanomial") or []),
                    }
                )
    return rows


def _game_rows(games: list[GameSummary], owners: Owners) -> list[dict[str, Any]]:
    """The games as a table shows them: seats with their pages, places, hexes and faults."""
    rows = []
    for g in games:
        seats = [
            {
                "letter": PLAYER_LETTERS[i],
                "bot": s.name,
                "page": owners.page(s.name),
                "rank": s.rank,
                "hexes": s.hexes,
            }
            for i, s in enumerate(g.seats)
        ]
        rows.append(
            {
                "id": g.game_id,
                "seats": seats,
                "result": sorted(seats, key=lambda s: (s["rank"], s["letter"])),
                "moves": g.moves,
                "faults": [
                    f"{PLAYER_LETTERS[p]} {g.seats[p].name}: {f.kind.value}: {f.detail}" for p, f in g.faults
                ],
            }
        )
    return rows


def _bot(bot: str) -> Gather:
    def gather(service: Service, viewer: Viewer) -> dict[str, Any]:
        if not NAME_RE.fullmatch(bot):
            raise Refused(404, f"no bot {bot[:80]!r} on this ladder")
        versions = service.store.versions_of(bot)
        view = service.standings.read()
        owners = service.owners()
        names = [league_name(v) for v in versions] if versions and bot not in service.house else [bot]
        split = version_of(bot)
        if not versions and bot not in service.house and split and service.store.version(*split):
            raise Refused(303, "moved", {"Location": f"{bot_page(split[0])}/v{split[1]}"})  # a version's league name: its page
        rows = [r for r in (view.rows if view else ()) if r.get("bot") in names]
        if not versions and bot not in service.house and not rows:
            raise Refused(404, f"no bot {bot!r} on this ladder")
        games, total = find_games(service.ladder.folder, GameFilter(bots=tuple(names)), 0, BOT_GAMES)
        retired_through, banned = service.store.bot_flags().get(bot, (0, False))
        passed = [
            v for v in versions if v.state == State.PASSED and v.version > retired_through and not banned
        ]
        league = service.league.status
        return {
            # A version that passed but has no row yet: why (its first game, or a league that
            # cannot play), rather than "passed" above "Not in the standings".
            "newest_passed": league_name(passed[-1]) if passed and bot not in service.house else None,
            "league_stopped": league.detail if league.state in ("failed", "paused") else None,
            "bot": bot,
            "house": bot in service.house,
            "retired_through": retired_through,
            "banned": banned,
            "author": versions[0].author if versions and bot not in service.house else None,
            "versions": [_version_row(v, rows, _shown(service, viewer, v, v.reason or "")) for v in reversed(versions)],
            "rows": [{"shown": shown_row(r), "page": bot_page(bot)} for r in rows],
            "crosstable": _crosstable(view, names, owners),
            "games": _game_rows(games, owners),
            "total_games": total,
            "games_link": "/games?" + urlencode({"bot": bot}),
            **_history(service, bot),
        }

    return gather


def _history(service: Service, bot: str) -> dict[str, Any]:
    """The bot page's chart of its rating over games, and the table of the same points."""
    history = bot_history(service.history, service.store, bot, bot in service.house)
    marks = [v for v in history.versions if v.version is not None]
    return {"chart": history_svg(history), "history": history_table(history), "marks": marks, "max_points": MAX_POINTS}


def _bot_history(service: Service, bot: str) -> BotHistory:
    if not NAME_RE.fullmatch(bot) or (bot not in service.house and not service.store.versions_of(bot)):
        raise Refused(404, f"no bot {bot[:80]!r} on this ladder")
    try:
        return bot_history(service.history, service.store, bot, bot in service.house)
    except StoreError as e:
        raise Refused(503, str(e)) from None


async def history_json(service: Service, request: Request) -> Response:
    """``/api/bots/{bot}/history``: the bot's rating after each of its games (thinned past
    :data:`~arena.league.history.MAX_POINTS`), and where each version joined and retired."""
    history = await run_in_threadpool(_bot_history, service, request.path_params["bot"])
    return JSONResponse(history.to_json(), headers={"Cache-Control": "no-cache"})


def _shown(service: Service, viewer: Viewer, sub: Submission, text: str) -> str:
    """``text`` of version ``sub`` (its reason, a check's line) as ``viewer`` may read it: its
    command and the server's folders only for its author (and the organisers)."""
    if viewer.may_see(sub.author):
        return text
    ladder = service.ladder
    return sub.withheld(text, (ladder.version_folder(sub.id), ladder.versions_folder, ladder.folder))


def _version_row(sub: Submission, rows: list[dict[str, Any]], reason: str) -> dict[str, Any]:
    """A version's line; ``reason`` as the viewer may read it (see :func:`_shown`)."""
    name = league_name(sub)
    playing = [r for r in rows if r.get("bot") == name]
    return {
        "version": sub.version,
        "state": sub.state.value,
        "pending": sub.state.pending,
        "reason": reason,
        "received": sub.received,
        "updated": sub.updated,
        "league_name": name,
        "in_standings": bool(playing),
        "retired": bool(playing and playing[0].get("retired")),
        "page": f"{bot_page(sub.bot)}/v{sub.version}",
    }


async def bot_page_handler(service: Service, request: Request) -> Response:
    """``/bots/{bot}``: its versions, its standings and crosstable rows, its newest games."""
    return await _show(service, request, "bot.html.j2", _bot(request.path_params["bot"]))


def _version(bot: str, number: str) -> Gather:
    def gather(service: Service, viewer: Viewer) -> dict[str, Any]:
        sub = (
            service.store.version(bot, int(number))
            if NAME_RE.fullmatch(bot) and number.isascii() and number.isdigit() and len(number) < 10
            else None
        )
        if sub is None:
            raise Refused(404, f"no version {number[:20]!r} of bot {bot[:80]!r} on this ladder")
        view = service.standings.read()
        rows = [r for r in (view.rows if view else ()) if r.get("bot") == league_name(sub)]
        report = sub.report if isinstance(sub.report, dict) else None
        return {
            "sub": sub,
            "row": _version_row(sub, rows, _shown(service, viewer, sub, sub.reason or "")),
            "standing": [{"shown": shown_row(r), "page": bot_page(sub.bot)} for r in rows],
            "checks": [
                {**c, "detail": _shown(service, viewer, sub, str(c.get("detail", "")))}
                for c in (report or {}).get("checks", [])
                if isinstance(c, dict)
            ],
            "verdict": report,
            "mine": viewer.may_see(sub.author),
            "failure": (report or {}).get("first_failure") if viewer.may_see(sub.author) else None,
            "poll": f"/api/submissions/{sub.id}" if sub.state.pending else None,
        }

    return gather


async def version_page(service: Service, request: Request) -> Response:
    """``/bots/{bot}/v{n}``: one version's state and its check's report; for its author (and
    the organisers) also its command, build log and the evidence of its first failure."""
    return await _show(
        service, request, "version.html.j2", _version(request.path_params["bot"], request.path_params["n"])
    )


# -- games ------------------------------------------------------------------------------------


def _names_of(service: Service, bot: str) -> tuple[str, ...]:
    """The league names a filter's bot stands for: each version of a submitted bot, else itself."""
    if bot in service.house:
        return (bot,)
    versions = service.store.versions_of(bot)
    return tuple(league_name(v) for v in versions) or (bot,)


def _games(params: dict[str, str]) -> Gather:
    def gather(service: Service, viewer: Viewer) -> dict[str, Any]:
        bot = params.get("bot", "")
        won_by = params.get("won_by", "")
        fault = params.get("fault", "")
        raw_page = params.get("page", "1") or "1"
        if fault and fault not in FAULT_CHOICES:
            raise Refused(400, f"fault {fault[:80]!r}: one of {', '.join(FAULT_CHOICES)}")
        if not (raw_page.isascii() and raw_page.isdigit() and 1 <= int(raw_page) <= MAX_PAGE):
            raise Refused(400, f"page {raw_page[:20]!r}: a whole number from 1 to {MAX_PAGE}")
        number = int(raw_page)
        wanted = GameFilter(
            bots=_names_of(service, _bot_name(bot, "bot")) if bot else (),
            won_by=_names_of(service, _bot_name(won_by, "won_by")) if won_by and won_by != SHARED_FIRST else (),
            shared_first=won_by == SHARED_FIRST,
            fault=fault or None,
        )
        games, total = find_games(service.ladder.folder, wanted, (number - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE)
        kept = {k: v for k, v in (("bot", bot), ("won_by", won_by), ("fault", fault)) if v}
        pages = max(1, -(-total // GAMES_PER_PAGE))
        return {
            "games": _game_rows(games, service.owners()),
            "total": total,
            "first": (number - 1) * GAMES_PER_PAGE + 1,
            "filters": {"bot": bot, "won_by": won_by, "fault": fault},
            "bots": sorted({*service.house, *service.store.bot_owners()}),
            "faults": FAULT_CHOICES,
            "number": number,
            "pages": pages,
            "newer": "/games?" + urlencode({**kept, "page": number - 1}) if number > 1 else None,
            "older": "/games?" + urlencode({**kept, "page": number + 1}) if number < pages else None,
        }

    return gather


async def games_page(service: Service, request: Request) -> Response:
    """``/games``: the finished games, newest first, by bot, winner and fault, a page at a time."""
    params = {k: request.query_params.get(k, "") for k in ("bot", "won_by", "fault", "page")}
    return await _show(service, request, "games.html.j2", _games(params))


def _game(game_id: str) -> Gather:
    def gather(service: Service, viewer: Viewer) -> dict[str, Any]:
        record = game_record(service.ladder.folder, game_id) if GAME_ID_RE.fullmatch(game_id) else None
        if record is None:
            raise Refused(404, f"no finished game {game_id[:80]!r} on this ladder")
        owners = service.owners()
        shown = shown_record(record, lambda name: viewer.may_see(owners.owner(name)))
        return {
            "record": shown,
            "seats": _seat_rows(shown, owners, viewer),
            "moves": [(i + 1, PLAYER_LETTERS[m.player], m.move, m.ms) for i, m in enumerate(shown.moves)],
            # Safe inside <script> as it is (script_json escapes < > &): not HTML-escaped again.
            "data_json": Markup(
                script_json({"kind": "replay", "running": False, "refresh_s": 0, "games": [shown.to_dict()]})
            ),
            "report": None,  # the viewer's template: not the report's (shown, not hidden)
        }

    return gather


def _seat_rows(record: GameRecord, owners: Owners, viewer: Viewer) -> list[dict[str, Any]]:
    places = {s.player: s for s in record.standings}
    return [
        {
            "letter": PLAYER_LETTERS[i],
            "bot": s.name,
            "page": owners.page(s.name),
            "rank": places[i].rank,
            "hexes": places[i].hexes,
            "fault": None
            if s.fault is None
            else f"{s.fault.kind.value} at ply {s.fault.ply}: {s.fault.detail}",
            "exit": s.exit or "",
            "mine": viewer.may_see(owners.owner(s.name)),
            "stderr": s.stderr_tail,
            "infos": s.infos,
        }
        for i, s in enumerate(record.seats)
    ]


async def game_page(service: Service, request: Request) -> Response:
    """``/games/{id}``: one game, its seats and moves as tables, and its replay in the viewer."""
    return await _show(service, request, "game.html.j2", _game(request.path_params["game_id"]))


# -- the ladder itself ------------------------------------------------------------------------


def health(service: Service) -> dict[str, Any]:
    """What a monitor (and the ladder's page) wants to know: the league's pace, the queue."""
    since = (dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    states = service.store.state_counts()
    league = service.ladder.league
    status = service.league.status
    final = service.final.status
    answer: dict[str, Any] = {
        "ok": True,
        "league": {"state": status.state, "detail": printable(status.detail), "since": status.since},
        "final": {"state": final.state, "detail": printable(final.detail), "since": final.since},
        "paused": service.store.paused(),
        "waiting": sum(n for s, n in states.items() if s.pending),
        "checking": states.get(State.CHECKING, 0),
        "versions": {s.value: states.get(s, 0) for s in State},
        "concurrency": league.concurrency,
        "executor": league.executor.kind.value,
        "check_concurrency": service.ladder.settings.check.concurrency,
        "scrimmages": _scrimmages_health(service),
    }
    try:
        games, last_hour, last = recent_games(service.ladder.folder, since)
    except StoreError as e:
        return {**answer, "ok": False, "error": f"the league's results cannot be read: {printable(str(e))}"}
    answer |= {"games": games, "games_last_hour": last_hour, "last_game_at": last}
    if status.state == "failed":  # no version that passes its check plays until it is fixed
        answer |= {"ok": False, "error": f"the league cannot play: {printable(status.detail)}"}
    elif final.state == "failed":  # its child process ended badly (tried again a minute later)
        answer |= {"ok": False, "error": f"the final tournament failed: {printable(final.detail)}"}
    return answer


def _scrimmage_limits(service: Service) -> str:
    sc = service.ladder.settings.scrimmage
    shown = "the other bot's author sees the public replays" if sc.show_opponent_replays else "only the asker sees them"
    return (
        f"{sc.max_games} games a scrimmage, {sc.per_day} games a day, {sc.at_once} unfinished at a time "
        f"(organisers: no quota); unrated; {shown}"
    )


def _scrimmages_health(service: Service) -> dict[str, Any]:
    """What the scrimmages' loop is doing, and how many games wait (they never make the ladder unhealthy)."""
    status = service.scrimmage_loop.status
    return {"state": status.state, "detail": printable(status.detail), "since": status.since, "waiting": service.scrimmages.unplayed()}


async def health_json(service: Service, request: Request) -> Response:
    """``/api/health``: ``ok`` and the figures of :func:`health`; 503 when the league's results
    cannot be read or the league cannot play."""
    answer = await run_in_threadpool(health, service)
    return JSONResponse(
        answer, status_code=200 if answer["ok"] else 503, headers={"Cache-Control": "no-store"}
    )


def _ladder(service: Service, viewer: Viewer) -> dict[str, Any]:
    league, settings = service.ladder.league, service.ladder.settings
    tc = league.time_control
    p = league.params
    rows: list[tuple[str, str]] = [
        ("players per game", str(league.players)),
        ("format", league.format.value),
        ("board", league.board if league.board in ("random", "build") else "a board file"),
        ("time control", f"{tc.describe()}; startup {tc.startup_ms} ms, margin {tc.margin_ms} ms"),
        ("rules", f"{p.sheep} sheep and {p.tiles} tiles per player, contact {p.contact}"),
        ("games at once", f"{league.concurrency} ({league.executor.kind.value} executor)"),
        ("house bots", ", ".join(sorted(service.house))),
    ]
    if league.format.value == "continuous":
        c = league.continuous
        stops = f"every neighbour pair settled at {c.confidence:.0%} (tied: within {c.indifference:g} Elo)"
        rows.append(("stops when", f"{stops}, or {c.max_games} games after the last version joined"))
        rows.append(
            (
                "wrong orders",
                f"the chance that this ladder ever shows a pair ordered the wrong way round (or tied though "
                f"{c.indifference:g} Elo or more apart), over its whole life and every version, is at most "
                f"{1 - c.confidence:.0%}: each new version's pairs are tested at a share of the error the "
                "versions before it left; a pair not yet settled says nothing",
            )
        )
    gate = settings.check
    check = [
        ("conformance games", str(gate.conformance_games)),
        ("stop at the first fault", "yes" if gate.fail_fast else "no"),
        ("check games at once", str(gate.concurrency)),
        ("time for the build and the check", f"{gate.timeout_ms / 60_000:g} min"),
    ]
    if gate.against:
        games = f"{gate.games} games, at least {gate.min_points:g} points a game"
        check.append(("strength: against", f"{len(gate.against)} opponent(s), {games}"))
    if gate.sprt is not None:
        s = gate.sprt
        check.append(
            ("strength: SPRT", f"elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g}")
        )
    q, a = settings.quotas, settings.archive
    mb = 1024 * 1024
    per_author = (
        f"{q.versions_per_hour} an hour, {q.versions_per_day} a day, {q.bytes_per_day // mb} MB a day"
    )
    archive = f"at most {a.max_bytes // mb} MB, unpacking to {a.unpacked_bytes // mb} MB"
    shut = closed(service.ladder, service.store, dt.datetime.now(dt.UTC))
    until = deadline(service.ladder, service.store)
    limits = [
        ("who may submit", SUBMIT_POLICY_TEXT[settings.submit.value]),
        ("submissions", shut or (f"open until {deadline_text(until)}" if until else "open (no deadline)")),
        ("versions per author", f"{per_author} (organisers: no quota)"),
        (
            "an archive",
            f"{archive}, {a.files} entries, {a.depth} folders deep, compressed {a.ratio}:1 at most",
        ),
        ("scrimmages per author", _scrimmage_limits(service)),
    ]
    return {"league": rows, "check": check, "limits": limits, "health": health(service)}


async def ladder_page(service: Service, request: Request) -> Response:
    """``/ladder``: the league's settings, the check a version must pass, the quotas, and health."""
    return await _show(service, request, "ladder.html.j2", _ladder)
