"""One league: from a tournament file to standings.

:mod:`.config` reads the tournament file into validated values;
:mod:`.schedule` turns them into games (deterministic from the seed);
:mod:`.changes` tells what a grown or edited league keeps, and :mod:`.resume`
applies it when a results folder is reopened; :mod:`.continuous`
chooses the next games of a league that plays where the order is least settled,
and :mod:`.neighbours` holds how its pair tests leave each two neighbours of the standings;
:mod:`.scheduler` gives a run its next games whatever the format;
:mod:`.private_copies` and :mod:`.builds` ready the bots (here or on a Dask worker);
:mod:`.executor` plays games on local worker processes; :mod:`.results_folder`
and :mod:`.store` keep the results (SQLite), :mod:`.stored` reads back the tournament
file a store keeps, :mod:`.sqlite_read` reads a store
without writing, :mod:`.game_summary` is a finished game's summary row;
:mod:`.tally`, :mod:`.rating` and :mod:`.table` turn games into standings, and
:mod:`.standings` renders them.
"""
