"""``GET /kits/LANG.tar.gz``: a starter kit to download, the same files ``arena new LANG`` writes."""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.kitfiles import KITS, kit_archive


@functools.lru_cache(maxsize=len(KITS))
def _archive(language: str) -> bytes:
    return kit_archive(language)


async def kit_download(request: Request) -> Response:
    """The kit of the path's language as ``my-bot/...`` in a .tar.gz; 404 for another name."""
    language = request.path_params["language"]
    if language not in KITS:
        return JSONResponse({"error": f"no kit {language[:64]!r}: the kits are {', '.join(KITS)}"}, status_code=404)
    return Response(
        _archive(language),
        media_type="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{language}-bot.tar.gz"'},
    )
