"""Tournament files: YAML in, validated values out.

Every error names the file, the line and the key, and nothing starts until
the whole file is valid.  Relative paths are relative to the YAML file.
The keys are documented in ``tournaments/README.md``.

The modules:

- ``model``: the frozen values a valid file becomes (:class:`TournamentConfig`,
  :class:`BotConfig`, :class:`ExecutorConfig`, :class:`ContinuousConfig`) and the
  constants they are judged by;
- ``yamlfile``: YAML as plain data, every value with its line;
- ``reader``: :class:`~arena.league.config.reader.Reader`, typed access to one
  mapping whose every error says ``file:line: key``;
- ``sections``: one reader per section that is not about bots (rules, board,
  time control, limits, rating, executor, continuous settings);
- ``bots``: the ``bots`` list, and :func:`find_program`;
- ``parse``: :func:`load_config` and :func:`parse_config`, the driver that reads
  the sections in order.
"""

from __future__ import annotations

from arena.league.config.bots import find_program
from arena.league.config.model import (
    BOT_PLACEMENTS,
    CONTINUOUS_KEYS,
    DEFAULT_BUILD_TIMEOUT_MS,
    DEFAULT_CONFIDENCE,
    DEFAULT_INDIFFERENCE,
    DEFAULT_MAX_GAMES,
    DEFAULT_SEAT_ORDERS,
    EXECUTORS,
    FORMATS,
    LEGACY_DEFAULT_SEAT_ORDERS,
    RUN_ONLY_KEYS,
    SEAT_ORDERS,
    UNTIL_STABLE,
    BotConfig,
    BotPlacement,
    ContinuousConfig,
    ExecutorConfig,
    ExecutorKind,
    Format,
    SeatOrder,
    TlsFiles,
    TournamentConfig,
    continuous_problem,
    continuous_settings_problem,
)
from arena.league.config.parse import load_config, parse_config
from arena.league.config.sections import scheduler_problem
from arena.league.results_folder import SYSTEM_FOLDER_EXCEPTIONS, SYSTEM_FOLDERS, system_folder_of

__all__ = [
    "BOT_PLACEMENTS",
    "CONTINUOUS_KEYS",
    "DEFAULT_BUILD_TIMEOUT_MS",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_INDIFFERENCE",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_SEAT_ORDERS",
    "EXECUTORS",
    "FORMATS",
    "LEGACY_DEFAULT_SEAT_ORDERS",
    "RUN_ONLY_KEYS",
    "SEAT_ORDERS",
    "SYSTEM_FOLDERS",
    "SYSTEM_FOLDER_EXCEPTIONS",
    "UNTIL_STABLE",
    "BotConfig",
    "BotPlacement",
    "ContinuousConfig",
    "ExecutorConfig",
    "ExecutorKind",
    "Format",
    "SeatOrder",
    "TlsFiles",
    "TournamentConfig",
    "continuous_problem",
    "continuous_settings_problem",
    "find_program",
    "load_config",
    "parse_config",
    "scheduler_problem",
    "system_folder_of",
]
