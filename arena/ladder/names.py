"""The ladder's names: an author's, a bot's, and the league name of a bot's version.

One home for each rule: a bot's name is 1-:data:`BOT_NAME_MAX` of ``A-Z a-z 0-9 _ . + -``
and never reads as a version's league name ``BOT.vN``, so that no author can take over the
page or the games of another's version.  It imports nothing of the ladder.
"""

from __future__ import annotations

import re

from arena.errors import ConfigError
from arena.protocol import NAME_RE

# A version plays in the league as ``BOT.vN``: a bot's name leaves room for the suffix
# within the protocol's 64 characters (``.v`` and up to six digits).
BOT_NAME_MAX = 56
NAME_CHARS = "A-Z a-z 0-9 _ . + -"
_VERSION_NAME_RE = re.compile(r"(.+)\.v([0-9]+)")


def version_name(bot: str, version: int) -> str:
    """The name version ``version`` of ``bot`` plays under in the league: ``BOT.vN``."""
    return f"{bot}.v{version}"


def version_of(name: str) -> tuple[str, int] | None:
    """The bot and version of a league name ``BOT.vN``, or None for any other name."""
    m = _VERSION_NAME_RE.fullmatch(name)
    return None if m is None else (m.group(1), int(m.group(2)))


def check_author_name(name: str) -> str:
    """``name`` if it is a fit author name (1-64 of A-Z a-z 0-9 _ . + -), else ConfigError."""
    if not NAME_RE.fullmatch(name):
        raise ConfigError(f"name {name!r}: must be 1-64 of {NAME_CHARS}")
    return name


def check_bot_name(name: str) -> str:
    """``name`` if it is a fit bot name (1-56 of A-Z a-z 0-9 _ . + -, not ending like
    ``.v1``), else ConfigError."""
    if not NAME_RE.fullmatch(name) or len(name) > BOT_NAME_MAX:
        raise ConfigError(f"name {name[:80]!r}: must be 1-{BOT_NAME_MAX} of {NAME_CHARS} (the league adds '.vN')")
    split = version_of(name)
    if split is not None:
        raise ConfigError(
            f"name {name!r}: reads as version {split[1]} of bot {split[0]!r} (the league names a "
            f"bot's versions NAME.vN); choose a name that does not end in '.v' and a number"
        )
    return name
