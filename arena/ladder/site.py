"""What the pages of one ladder share: its service, the signing key, the standings reader,
and who is looking (:class:`Viewer`).

Made on the first page asked for and kept on the application, beside the API's
:class:`~arena.ladder.app.Service`, so that the API's application needs nothing of it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.requests import Request

from arena.ladder.results import Owners, StandingsReader
from arena.ladder.session import SESSION_COOKIE, session_author
from arena.ladder.settings import Ladder
from arena.ladder.store import Author, LadderStore

if TYPE_CHECKING:
    from arena.ladder.app import Service

_MAKING = threading.Lock()


@dataclass(frozen=True)
class Viewer:
    """Who asked for a page: a signed-in author (maybe an organiser), or nobody."""

    author: Author | None

    def may_see(self, owner: str | None) -> bool:
        """Whether this viewer may read the private parts (stderr, info lines, build logs,
        the check's evidence) of a bot of ``owner`` (None: a house bot, the organisers')."""
        a = self.author
        return a is not None and (a.admin or (owner is not None and owner == a.name))


class Site:
    """One ladder's pages."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.ladder: Ladder = service.ladder
        self.store: LadderStore = service.store
        self.secret = self.store.session_secret()
        self.standings = StandingsReader(self.ladder.folder)
        self.house = frozenset(b.name for b in self.ladder.league.bots)

    def owners(self) -> Owners:
        """Who owns each bot the league plays, as the store says now."""
        return Owners(self.store.bot_owners(), self.house)

    def viewer(self, request: Request) -> Viewer:
        """Who sent ``request``: the author its session cookie names, if signed by this ladder,
        not expired, and of an author still in good standing (reads the store: call it in a
        worker thread)."""
        name = session_author(self.secret, request.cookies.get(SESSION_COOKIE), time.time())
        author = None if name is None else self.store.author_named(name)
        return Viewer(None if author is None or author.banned else author)


def site_of(request: Request) -> Site:
    """The pages' state of the application that got ``request`` (made on first use)."""
    state = request.app.state
    site: Site | None = getattr(state, "pages", None)
    if site is None:
        with _MAKING:
            site = getattr(state, "pages", None)
            if site is None:
                site = state.pages = Site(state.service)
    return site
