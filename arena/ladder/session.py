"""Signing in on the pages: a signed session cookie, and the token every form carries.

An author signs in once with their token; the answer is a cookie naming them, signed with
HMAC-SHA256 under the ladder's own key (:meth:`LadderStore.session_secret`, drawn once and
kept in ``ladder.sqlite``), with the time it was made.  The token itself is never kept in
the cookie.  A cookie that is not signed with that key, that is older than
:data:`SESSION_S`, or that names an author now banned or unknown is no session: the
request is simply not signed in.

Forms are protected from cross-site posts by a second cookie, a random value only this
site's pages can read, and a hidden field holding its HMAC under the same key (a signed
double-submit token): another site can make a browser post to the ladder, but cannot read
the cookie nor make its HMAC.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
CSRF_FIELD = "csrf"
SESSION_S = 7 * 24 * 3600  # a session lasts a week; then the author signs in again
CLOCK_SKEW_S = 60
MAX_COOKIE_CHARS = 256  # names are at most 64 characters: anything longer is not ours


def _mac(secret: bytes, *parts: str) -> str:
    # NUL between the parts: no name or time can hold one, so no two part lists sign alike.
    return hmac.new(secret, "\x00".join(parts).encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def session_cookie(secret: bytes, author: str, now: float) -> str:
    """The cookie of a session of ``author`` that starts at ``now``."""
    issued = str(int(now))
    return f"{author}:{issued}:{_mac(secret, 'session', author, issued)}"


def session_author(secret: bytes, cookie: str | None, now: float) -> str | None:
    """The author a session cookie names, if ``secret`` signed it and it has not expired."""
    if not cookie or len(cookie) > MAX_COOKIE_CHARS:
        return None
    parts = cookie.split(":")
    if len(parts) != 3:
        return None
    author, issued, mac = parts
    if not (issued.isascii() and issued.isdigit() and len(issued) <= 12):
        return None
    if not hmac.compare_digest(
        mac.encode("utf-8", "surrogateescape"), _mac(secret, "session", author, issued).encode()
    ):
        return None
    age = now - int(issued)
    return author if -CLOCK_SKEW_S <= age <= SESSION_S else None


def new_csrf_cookie() -> str:
    """A fresh random value for the form cookie."""
    return secrets.token_urlsafe(24)


def csrf_token(secret: bytes, cookie: str) -> str:
    """The hidden field the forms of a browser holding form cookie ``cookie`` carry."""
    return _mac(secret, "csrf", cookie)


def csrf_ok(secret: bytes, cookie: str | None, sent: str | None) -> bool:
    """Whether a form's field ``sent`` is the token of the form cookie it came with."""
    if not cookie or not sent or len(cookie) > MAX_COOKIE_CHARS or len(sent) > MAX_COOKIE_CHARS:
        return False
    return hmac.compare_digest(sent.encode("utf-8", "surrogateescape"), csrf_token(secret, cookie).encode())
