"""The ladder service: ``arena serve``, where authors submit bots and a league places them.

A ladder file is a tournament file with a ``ladder:`` section.  The modules:

- ``settings``: the ``ladder:`` section as frozen values (:class:`LadderSettings`) and
  :func:`load_ladder`, which reads the whole file with the tournament file's own reader;
- ``names``: the rules of an author's and a bot's name, and a version's league name ``BOT.vN``;
- ``store``: ``ladder.sqlite`` in the league's results folder: authors (only a hash of each
  token), submissions and their states, the action log;
- ``unpack``: an uploaded archive (tar, tar.gz, zip) into a fresh folder under hard limits,
  refused by rule and file name;
- ``folders``: the name of every file and folder the ladder writes, in one place;
- ``queue``: the fair order of the submissions waiting, and the worker that unpacks, builds
  and checks them, each in a process of its own (``job``), handed a typed job and giving back
  a typed result (``jobfiles``);
- ``league``, ``roster``, ``league_job``: the league that keeps playing the versions passed,
  made from the ladder file and the roster in ``ladder.sqlite``;
- ``relocate``: the versions an older arena unpacked inside the results folder, moved
  beside it at start (no sandbox is given a path inside the folder of the stores and key);
- ``contest``: the ladder file's ``deadline`` and ``final`` keys as values; ``deadline``: when
  submissions close (the file's deadline, the organiser's, the final); ``final``: the final
  tournament of each author's last passing version, its file and the loop that plays it;
- ``history``: a bot's rating over the league's games with its versions' marks, and each
  bot's move since yesterday (the numbers from :mod:`arena.league.history`); ``chart``: that
  history drawn as inline SVG;
- ``client``: what ``arena submit`` does over HTTP.

The web service, from the bottom up (a contract in ``pyproject.toml`` keeps the order and
forbids any circle among the ladder's modules):

- ``service``: the ladder's state that every handler is handed (:class:`Service`: the store,
  the queue, the league, the signing key, who is looking, the uploads being received) and
  its one refusal, :class:`Refused` (status, message, headers);
- ``render``: the Jinja2 templates and the headers every page has; ``session``: the signed
  session cookie and the forms' CSRF tokens; ``results``: what the pages read of the
  league's results, private logs blanked;
- ``web``: a handler handed the service, who sent a request, and a refusal rendered once
  (JSON under ``/api/``, a page elsewhere);
- ``upload``: an upload's multipart form read as it arrives, its archive straight to disk;
- ``intake``: a new version, from an upload to a numbered version waiting for its check,
  for both doors below (what can be refused before the body is read is refused then);
- the doors: ``api`` (JSON), ``pages`` (the read-only pages), ``forms`` (signing in and
  out, the upload form); above them ``final_pages``: ``/final``, ``/api/final`` and
  ``/api/deadline``;
- ``app``: the one routing table, and the application's startup and shutdown;
- ``serving``: how ``arena serve`` holds its connections (a deadline for each request's
  headers, keep-alive, connections at once).
"""

from __future__ import annotations
