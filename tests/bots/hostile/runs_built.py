#!/usr/bin/env python3
"""The bot whose build is ``builds_hostile.py``: reports what its build did and what it
made (``suid_prog``'s mode and owner, as the bot sees them), then plays randomly."""

import json
import os
import stat

from _common import play, read, report


def attack() -> None:
    text = read("build_report.json")
    try:
        st = os.stat("suid_prog")
        made = {"mode": stat.S_IMODE(st.st_mode), "uid": st.st_uid}
    except OSError as e:
        made = {"error": str(e)}
    report(attack="build", build=json.loads(text) if not text.startswith("!") else text, made=made)


play("runs-built", attack)
