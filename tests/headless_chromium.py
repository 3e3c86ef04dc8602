"""Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by selenium, for the tests that open a page in
a real browser. Without them those tests skip and say what is missing (`.ci/run` installs them with apt-get)."""
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
DRIVER = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(paths, name):
    return next((p for p in paths if Path(p).is_file()), None) or shutil.which(name)


def chromium_session(profile_prefix: str, width: int, height: int):
    """For a fixture to `yield from`: a browser session with a window of width x height that keeps the page's
    console log, closed (its scratch profile deleted) after the tests."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    chromium, driver = _first(CHROMIUM, "chromium"), _first(DRIVER, "chromedriver")
    if not chromium or not driver:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver "
                    "(apt-get install -y chromium chromium-driver)")
    profile = tempfile.mkdtemp(prefix=profile_prefix)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # an explicit driver path: selenium never looks for (or downloads) a driver of its own
    session = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    yield session
    session.quit()
    shutil.rmtree(profile, ignore_errors=True)
