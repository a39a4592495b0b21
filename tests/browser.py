"""A real headless Chromium for the tests that open a page (the class report, its "Similar submissions" section).

Without Chromium and its driver such a test skips, saying what is missing (pytest's ``-ra`` summary shows it), so
a newcomer's first run of the suite passes; where the environment variable ``CI`` is set (GitHub Actions,
``.ci/run``) it fails instead, so CI never passes without checking the page in a browser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def missing_reason(chromium: Path = CHROMIUM, chromedriver: Path = CHROMEDRIVER) -> str:
    """Why a browser test cannot run here ("" when it can): each missing file named, once."""
    missing = [str(p) for p in (chromium, chromedriver) if not p.is_file()]
    if not missing:
        return ""
    return (f"Chromium is needed to test the page in a browser, but {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing: install them with "
            "`apt-get install -y chromium chromium-driver` (.ci/run does this in CI)")


@contextmanager
def chromium(tmp_path: Path, binary: Path = CHROMIUM, driver: Path = CHROMEDRIVER) -> Iterator[Any]:
    """A Selenium driver of a real headless Chromium, through the system chromedriver (see the module docstring)."""
    reason = missing_reason(binary, driver)
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, so this fails instead of skipping", pytrace=False)
        pytest.skip(reason)
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: `pip install -e '.[test]'`", pytrace=False)
    options = Options()
    options.binary_location = str(binary)
    for arg in CHROME_ARGS + [f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    web = webdriver.Chrome(service=Service(str(driver)), options=options)
    try:
        yield web
    finally:
        web.quit()


def open_at_width(driver: Any, url: str, width: int, height: int = 900) -> None:
    """Open ``url`` in a window whose viewport (``window.innerWidth`` by ``window.innerHeight``) is exactly ``width``
    by ``height`` CSS pixels: the window's frame, if any, is added to the size asked for."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    if inner != [width, height]:
        driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    driver.get(url)
