"""One game: the referee and everything it needs to play a bot.

:mod:`.referee` plays one game over any :class:`~arena.game.referee.BotChannel`;
:mod:`.clock` is the time control and :mod:`.record` the game's record (a value,
with the forfeit kinds and :class:`~arena.game.record.BotFault`).
:mod:`.botproc` starts and talks to a bot's process, :mod:`.bothost` keeps
``multigame`` bots across games, :mod:`.turnlog` keeps a bot's stderr turn by turn
within its bounds, :mod:`.build` runs a bot's build step;
:mod:`.limits` holds a bot's resource limits and environment, :mod:`.proctree`
is the one reader of ``/proc`` (a bot's processes, adopted orphans),
:mod:`.signal_guard` keeps a stop signal from interrupting a process's start,
and :mod:`.sandbox` is how a bot's process is confined.  Nothing here knows about
leagues, stores or the command line.
"""
