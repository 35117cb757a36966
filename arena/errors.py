"""The arena's one exception family.

Every error the arena raises on purpose derives from :class:`ArenaError`.
Only the command line turns these into exit codes; everything else lets them
propagate with a message that names the offending value and where it came
from.

This module is a leaf: it imports nothing, so the pure rules engine may use it.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Root of every error the arena raises on purpose."""


class RulesError(ArenaError, ValueError):
    """A value the rules engine cannot accept (bad parameters, bad board)."""


class NotationError(RulesError):
    """Text in the position, move or board notation that cannot be read.

    ``where`` locates the problem (``"line 3, column 5"`` or ``"column 12"``).
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class IllegalMoveError(RulesError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, move: str, reason: str, position: str | None = None) -> None:
        self.move = move
        self.reason = reason
        self.position = position
        text = f"illegal move {move!r}: {reason}"
        if position is not None:
            text += f" (position {position!r})"
        super().__init__(text)


class ConfigError(ArenaError):
    """A tournament file, board file or command-line option that is wrong."""


class RecordError(ArenaError):
    """A game record that cannot be read: not JSON, a field missing or of the wrong type."""


class ProtocolError(ArenaError):
    """A line from a bot that does not follow the protocol."""


class BotError(ArenaError):
    """A bot process could not be started or driven."""


class ClusterError(ArenaError):
    """A Dask cluster that cannot play the games: unreachable, no fit worker, a lost scheduler."""


class StoreError(ArenaError):
    """The results store is missing, locked, or not ours."""


class EmptyStoreError(StoreError):
    """The store's file holds nothing yet: being created by a run that just started, or
    left empty.  A reader beside a starting run takes it as "no games yet"."""


class ResultsWriteError(StoreError):
    """Results could not be written (a full disk, an I/O error): the run must stop.

    Every game saved before the failed write is kept; running again resumes.
    """


class ResultsFolderError(ArenaError):
    """``output`` is not a folder this tournament may own."""


class ResultsFolderBusy(ResultsFolderError):
    """Another ``arena run`` holds the results folder."""


class LadderError(ArenaError):
    """The ladder service refuses a request: a ladder store that is not ours, an unknown author."""


class ArchiveRefused(LadderError):
    """A submitted archive breaks one of the ladder's unpacking rules (named in the message)."""

    def __init__(self, rule: str, member: str, detail: str) -> None:
        self.rule = rule
        self.member = member
        # The entry's name is the archive's to choose: a line, not a page, in the message.
        shown = repr(member) if len(member) <= 200 else repr(member[:200]) + "..."
        super().__init__(f"archive refused: {rule}: {shown}: {detail}")
