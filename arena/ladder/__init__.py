"""The ladder service: ``arena serve``, where authors submit bots and a league places them.

A ladder file is a tournament file with a ``ladder:`` section.  The modules:

- ``settings``: the ``ladder:`` section as frozen values (:class:`LadderSettings`) and
  :func:`load_ladder`, which reads the whole file with the tournament file's own reader;
- ``names``: the rules of an author's and a bot's name, and a version's league name ``BOT.vN``;
- ``store``: ``ladder.sqlite`` in the league's results folder: authors (only a hash of each
  token), submissions and their states, the action log;
- ``unpack``: an uploaded archive (tar, tar.gz, zip) into a fresh folder under hard limits,
  refused by rule and file name;
- ``queue``: the fair order of the submissions waiting, and the worker that unpacks, builds
  and checks them with ``arena check``'s own functions;
- ``app``: the Starlette application of the HTTP API;
- ``client``: what ``arena submit`` does over HTTP;
- the web pages: ``pages`` (the read-only pages and their routes), ``forms`` (signing in
  and out, the upload form, on the API's own path), ``session`` (the signed session cookie
  and the forms' CSRF tokens), ``site`` (what the pages share, and who is looking),
  ``results`` (what they read of the league's results, private logs blanked),
  ``render`` (the Jinja2 templates and the headers every page has).
"""

from __future__ import annotations
