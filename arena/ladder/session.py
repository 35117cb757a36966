"""Signing in on the pages: a session kept by the ladder, and the token every form carries.

An author signs in once with their token; the answer is a cookie holding a fresh random
session token, of which the ladder keeps only the SHA-256 (``ladder.sqlite``, with its
author and the time it began).  The author's token itself is never in a cookie.  A session
ends when its author signs out (the ladder forgets it: a copy of the cookie no longer signs
in), after :data:`SESSION_S`, or when the author is banned; a cookie the ladder does not
know is no session: the request is simply not signed in.  Every sign-in begins a new
session and ends the one the browser held, so a session cookie set by someone else
(another site of the same domain, "cookie tossing") never becomes the author's.

Served over TLS (here or at the reverse proxy), both cookies are named with the
``__Host-`` prefix: a browser takes such a cookie only from this very host, over HTTPS, for
the whole site, so no sibling site (another subdomain) can set one.  Plain names are not
read then.

Forms are protected from cross-site posts by a hidden field holding an HMAC, under the
ladder's own key, of what the browser holds: its session token when it is signed in, else
a random form cookie that only this site's pages can read.  Another site can make a browser
post to the ladder, and even set the form cookie, but cannot read the session it is bound to
nor make the HMAC.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SESSION_COOKIE = "arena_session"
CSRF_COOKIE = "arena_csrf"
HOST_PREFIX = "__Host-"  # the cookie names over TLS (see the module's text)
CSRF_FIELD = "csrf"
SESSION_S = 7 * 24 * 3600  # a session lasts a week; then the author signs in again
MAX_COOKIE_CHARS = 256  # ours are 32 to 64 characters: anything longer is not ours
SESSION_TOKEN_BYTES = 32


def cookie_name(name: str, tls: bool) -> str:
    """The name cookie ``name`` has on a request that came over TLS (``tls``) or not."""
    return HOST_PREFIX + name if tls else name


def new_session_token() -> str:
    """A fresh session token (the ladder keeps only its hash)."""
    return secrets.token_urlsafe(SESSION_TOKEN_BYTES)


def session_hash(token: str) -> str:
    """The SHA-256 of a session token, as the ladder keeps it."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def new_csrf_cookie() -> str:
    """A fresh random value for the form cookie."""
    return secrets.token_urlsafe(24)


def csrf_token(secret: bytes, bound_to: str) -> str:
    """The hidden field of the forms of a browser holding ``bound_to``: its session token when
    it is signed in, else its form cookie."""
    return hmac.new(secret, b"csrf\x00" + bound_to.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()


def csrf_ok(secret: bytes, bound_to: str | None, sent: str | None) -> bool:
    """Whether a form's field ``sent`` is the token of what the browser holds (``bound_to``)."""
    if not bound_to or not sent or len(bound_to) > MAX_COOKIE_CHARS or len(sent) > MAX_COOKIE_CHARS:
        return False
    return hmac.compare_digest(sent.encode("utf-8", "surrogateescape"), csrf_token(secret, bound_to).encode())
