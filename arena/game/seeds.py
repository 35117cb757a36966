"""Private seeds: each seat's ``seed=`` comes from the game's seed, its seat and a secret.

Were every seat sent the game's seed, a bot could rebuild its opponent's random
generator (the bot kit seeds it from the seed and the seat) and know its moves
before they are made.  So the arena draws a secret (per run for a league, per game
otherwise), derives a secret per game from it, and sends each seat a seed that is a
keyed hash of that game secret, the game's seed and the seat: no bot can compute
another's.  The game secret is kept in the game's record, so a replay can give each
bot the seed it had.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from pathlib import Path

SECRET_BYTES = 16
SEED_BITS = 63


def new_secret() -> str:
    """A fresh secret (hex), drawn from the operating system's generator."""
    return secrets.token_hex(SECRET_BYTES)


def is_secret(value: str) -> bool:
    """Whether ``value`` is a secret as the arena draws them: lower-case hex of SECRET_BYTES."""
    return len(value) == 2 * SECRET_BYTES and all(c in "0123456789abcdef" for c in value)


def game_secret(run_secret: str, game_id: str) -> str:
    """One game's secret, from its run's: a game's record reveals no other game's seeds."""
    key = bytes.fromhex(run_secret)
    return hashlib.blake2b(game_id.encode(), key=key, digest_size=SECRET_BYTES, person=b"bsa-game").hexdigest()


def seat_seed(secret: str, seed: int, seat: int) -> int:
    """The seed sent to ``seat`` of a game with ``seed`` and game secret ``secret``."""
    digest = hashlib.blake2b(
        f"{seed}:{seat}".encode(), key=bytes.fromhex(secret), digest_size=8, person=b"bsa-seat"
    ).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


SECRET_FILE = ".seed-secret"


def run_secret(folder: Path) -> str:
    """The secret of the league whose results are in ``folder``: drawn at its first run and kept
    there (readable by the arena's user only; bots never see the results folder), so that a
    resumed or grown league gives every game the seat seeds it would have had uninterrupted."""
    path = folder / SECRET_FILE
    try:
        kept = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        kept = ""
    if is_secret(kept):
        return kept
    secret = new_secret()
    tmp = folder / f"{SECRET_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(secret + "\n")
    os.replace(tmp, path)
    return secret
