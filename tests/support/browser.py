"""Headless Chromium for the report's tests and the README's screenshots (selenium).

It uses the system's browser and driver (Debian packages ``chromium`` and
``chromium-driver``): nothing is downloaded, and the browser is told not to
reach out by itself (no component updates, sync or background networking), so
every request it logs comes from the page under test.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} is missing (apt-get install {package})"
    return None


@contextlib.contextmanager
def chromium(width: int = 1100, height: int = 800) -> Iterator[Any]:
    """A headless Chromium with a fresh profile, quit (and its profile removed) at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver: Any, page: Path, fragment: str = "") -> None:
    """Load ``page`` from disk, the browser's logs emptied first, and wait for its script."""
    driver.get("about:blank")
    driver.get_log("browser")
    driver.get_log("performance")
    driver.get(page.resolve().as_uri() + fragment)
    deadline = time.monotonic() + 10
    while driver.execute_script("return document.body && document.body.dataset.ready") != "1":
        if time.monotonic() > deadline:
            raise AssertionError(f"{page} did not finish its script: {driver.get_log('browser')}")
        time.sleep(0.05)


def requests_made(driver: Any) -> list[str]:
    """The URL of every request the browser sent since the last call (DevTools log)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def severe_messages(driver: Any) -> list[str]:
    """Script errors and blocked requests (Content-Security-Policy) since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def screenshots(driver: Any, report: Path, game_id: str, ply: int, folder: Path) -> list[Path]:
    """The report's standings and one game's replay at ``ply``, as PNG files in ``folder``."""
    from selenium.webdriver.common.by import By

    folder.mkdir(parents=True, exist_ok=True)
    open_page(driver, report)
    standings = folder / "report-standings.png"
    driver.find_element(By.ID, "standings").screenshot(str(standings))
    open_page(driver, report, f"#game={game_id}&ply={ply}")
    replay = folder / "report-replay.png"
    driver.find_element(By.ID, "viewer").screenshot(str(replay))
    return [standings, replay]
