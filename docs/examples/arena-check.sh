#!/usr/bin/env bash
# Check a Battle Sheep bot with the arena, in any CI or on your machine.
#
#   ARENA_SOURCE=path/to/arena-checkout docs/examples/arena-check.sh "./my-bot" [arena check options]
#
# Installs the arena into .arena-venv when no `arena` command is on PATH
# (ARENA_SOURCE: a checkout of the arena, or anything pip accepts), runs
# `arena check` with JUnit and JSON reports, and exits with its code:
# 0 fit to play, 1 a check failed, 2 a usage or configuration error.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BOT_COMMAND [arena check options]" >&2
  exit 2
fi
if ! command -v arena >/dev/null 2>&1; then
  : "${ARENA_SOURCE:?no arena command found: set ARENA_SOURCE to an arena checkout (or a pip requirement)}"
  python3 -m venv .arena-venv
  # shellcheck disable=SC1091
  . .arena-venv/bin/activate
  pip install --quiet "$ARENA_SOURCE"
fi
bot=$1
shift
exec arena check "$bot" --seed "${ARENA_SEED:-1}" --junit arena-check.xml --json arena-check.json "$@"
