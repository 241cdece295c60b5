"""A real browser for tests: Debian's headless chromium driven through chromedriver.

:func:`chromium_driver` starts ``/usr/bin/chromium`` (headless) through Debian's
``/usr/bin/chromedriver`` with selenium and yields the ``WebDriver``; it quits the browser
and removes its profile directory at the end, also when the body raised. ``make test``
installs both packages (``chromium``, ``chromium-driver``) through ``tools/system-deps``.
The sandbox is switched off (``--no-sandbox``): Chromium's sandbox cannot start as root,
which is how tests run in containers and CI; the pages loaded are the tests' own.

:func:`screenshot` saves the current page as ``NAME.png`` into :func:`artefacts_dir`:
``$CRANFIELD_ARTEFACTS`` when set, else ``tmp/artefacts`` in the repository (ignored by
git), so a failing end-to-end test leaves pictures of every page it saw.

Examples
--------
>>> with chromium_driver() as driver:                          # doctest: +SKIP
...     driver.get("http://127.0.0.1:8000/")
...     screenshot(driver, "login")
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TIMEOUT = 30
"""Seconds allowed for a page load or a script; the driver's start is bounded by selenium."""
WINDOW = (1280, 900)
REPO = Path(__file__).resolve().parents[1]

INSTALL_HINT = (
    "Debian's chromium and chromedriver are needed ({missing} not found): install the "
    "'chromium' and 'chromium-driver' packages ('make system-deps' as root, or "
    "'sudo apt-get install chromium chromium-driver')"
)


def artefacts_dir() -> Path:
    """Where test artefacts go: ``$CRANFIELD_ARTEFACTS`` or ``tmp/artefacts``; created."""
    directory = Path(os.environ.get("CRANFIELD_ARTEFACTS") or REPO / "tmp" / "artefacts")
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def screenshot(driver, name: str) -> Path:
    """Save the current page of ``driver`` as ``<artefacts>/<name>.png``; return the path.

    ``name`` is reduced to letters, digits, ``-``, ``_`` and ``.`` so it stays one file
    inside the artefacts directory.
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-") or "page"
    path = artefacts_dir() / f"{safe}.png"
    png = driver.get_screenshot_as_png()
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(png)
    os.replace(tmp, path)
    return path


def _binaries() -> tuple[str, str]:
    chromium = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    driver = CHROMEDRIVER if os.access(CHROMEDRIVER, os.X_OK) else shutil.which("chromedriver")
    missing = [n for n, p in (("chromium", chromium), ("chromedriver", driver)) if not p]
    if missing:
        raise RuntimeError(INSTALL_HINT.format(missing=" and ".join(missing)))
    return chromium, driver


@contextlib.contextmanager
def chromium_driver(window: tuple[int, int] = WINDOW) -> Iterator:
    """Start headless chromium; yield a selenium ``WebDriver``; quit it at the end.

    Parameters
    ----------
    window
        Window size in CSS pixels (also the size of screenshots).
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = _binaries()
    profile = Path(tempfile.mkdtemp(prefix="cranfield-chromium-"))
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",  # the sandbox cannot start as root
        "--disable-dev-shm-usage",  # containers have a small /dev/shm
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--mute-audio",
        "--force-device-scale-factor=1",
        f"--window-size={window[0]},{window[1]}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    service = Service(executable_path=driver_path, log_output=os.devnull)
    driver = None
    try:
        driver = webdriver.Chrome(options=options, service=service)
        driver.set_page_load_timeout(TIMEOUT)
        driver.set_script_timeout(TIMEOUT)
        yield driver
    finally:
        if driver is not None:
            with contextlib.suppress(Exception):
                driver.quit()
        else:
            with contextlib.suppress(Exception):
                service.stop()
        shutil.rmtree(profile, ignore_errors=True)
