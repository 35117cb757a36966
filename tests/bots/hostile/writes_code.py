#!/usr/bin/env python3
"""Attack: plant code in the arena (its package, its Python's site-packages) and in
its own folder.

Argument: ``TOKEN``, part of every name it creates.  At startup it tries to create
a file, a folder and a symlink in each place, and to open existing files for
writing or change their times and modes; it never changes an existing file's
contents (every "write" either creates a new file or writes nothing), so a hole
shows without damage.  It reports each try's outcome, then plays randomly.
"""

import os
import sys
import sysconfig
from pathlib import Path

from _common import outcome, play, report

TOKEN = sys.argv[1]


def tries_on_folder(folder: str, suffix: str) -> dict[str, str]:
    base = os.path.join(folder, f"bsa_hacked_{TOKEN}")

    def create() -> None:
        with open(base + suffix, "x") as f:
            f.write("raise SystemExit('hacked')\n")

    return {
        "create": outcome(create),
        "mkdir": outcome(lambda: os.mkdir(base + "_dir")),
        "symlink": outcome(lambda: os.symlink("/tmp", base + "_link")),
    }


def tries_on_file(path: str) -> dict[str, str]:
    st = os.stat(path)
    return {
        "open_rw": outcome(lambda: open(path, "r+b").close()),
        "open_append": outcome(lambda: open(path, "ab").close()),
        "utime": outcome(lambda: os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))),
        "chmod": outcome(lambda: os.chmod(path, st.st_mode & 0o7777)),
    }


def attack() -> None:
    import arena  # after _common, which puts the arena checkout on the path

    package = os.path.dirname(arena.__file__)
    site = sysconfig.get_paths()["purelib"]
    here = os.getcwd()
    report(
        attack="code",
        places={"arena": package, "site": site, "cwd": here},
        arena=tries_on_folder(package, ".py"),
        site=tries_on_folder(site, ".pth"),
        cwd=tries_on_folder(here, ".py"),
        arena_file=tries_on_file(os.path.join(package, "__init__.py")),
        own_file=tries_on_file(str(Path(__file__).resolve())),
    )


if __name__ == "__main__":
    play("writes-code", attack)
