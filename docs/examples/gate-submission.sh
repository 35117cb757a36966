#!/usr/bin/env bash
# League gate: admit a submitted bot to a league only if it passes the checks.
#
#   docs/examples/gate-submission.sh LEAGUE.yaml NAME "BOT COMMAND" [BASELINE COMMAND]
#
# Runs `arena check` on the bot (with a strength gate against BASELINE when
# given) from the league file's folder, then adds the bot to the league's
# `bots` list.  Nothing is changed when a check fails.  Then run the league
# again with `arena run LEAGUE.yaml`: it keeps every game played and plays
# only the new bot's meetings (never add --restart: it deletes them all).
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 LEAGUE.yaml NAME \"BOT COMMAND\" [\"BASELINE COMMAND\"]" >&2
  exit 2
fi
league=$1 name=$2 command=$3 baseline=${4:-}
dir=$(cd "$(dirname "$league")" && pwd)
# The bots' working directory, as the league file sets it (relative to the file).
cwd=$(python3 -c 'import os, sys, yaml; print(os.path.join(sys.argv[2], yaml.safe_load(open(sys.argv[1])).get("cwd", ".")))' "$league" "$dir")

gate=()
if [ -n "$baseline" ]; then
  gate=(--against "$baseline" --games 20 --min-points 0.55)
fi
arena check "$command" --cwd "$cwd" --json "$dir/$name.check.json" "${gate[@]}"

python3 - "$league" "$name" "$command" <<'PY'
import sys
import yaml

path, name, command = sys.argv[1:]
with open(path, encoding="utf-8") as f:
    league = yaml.safe_load(f)
if any(b.get("name") == name for b in league.get("bots", [])):
    sys.exit(f"{path}: a bot named {name!r} is already in the league")
with open(path, "a", encoding="utf-8") as f:
    f.write(f"  - name: {name}\n    command: {yaml.safe_dump(command, default_style=chr(34)).strip()}\n")
print(f"{name} admitted to {path}")
PY
