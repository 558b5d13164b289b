"""WebKit (the engine of iPads) through WebKitGTK's WebDriver and Selenium, on a private Xvfb.

CI installs `webkit2gtk-driver` and `xvfb` (.ci/run); elsewhere the WebKit tests skip when they
are missing, and fail under CI=true, so a missing install step cannot pass as green.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .browser import OFF_SCREEN_JS

WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"


def webkit_missing_reason() -> str | None:
    """Why the WebKit tests cannot run here, or None when they can."""
    if not os.path.exists(WEBKIT_DRIVER):
        return f"{WEBKIT_DRIVER} is missing (apt-get install webkit2gtk-driver)"
    if shutil.which("Xvfb") is None:
        return "Xvfb is missing (apt-get install xvfb)"
    try:
        import selenium.webdriver  # noqa: F401
    except ImportError:
        return "Selenium is not installed (pip install -e '.[test]')"
    return None


SESSION_START_SECONDS = 60
SESSION_ATTEMPTS = 3


@contextmanager
def xvfb_display() -> Iterator[str]:
    """A private X display (":N") for as long as the block runs."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as announced:
            number = announced.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextmanager
def webkit_driver(display: str) -> Iterator:
    """A Selenium session in WebKitGTK's MiniBrowser on `display`, quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    env = {**os.environ, "DISPLAY": display}
    for attempt in range(SESSION_ATTEMPTS):
        service = Service(executable_path=WEBKIT_DRIVER, env=env)
        # WebKitWebDriver sometimes never answers the new-session request on a loaded machine
        # (seen once in a full run: 10 minutes waiting). Stopping the driver ends the wait;
        # the session is then tried afresh.
        watchdog = threading.Timer(SESSION_START_SECONDS, service.stop)
        watchdog.start()
        try:
            driver = webdriver.WebKitGTK(options=Options(), service=service)
            break
        except Exception:
            if attempt == SESSION_ATTEMPTS - 1:
                raise
        finally:
            watchdog.cancel()
    try:
        driver.set_page_load_timeout(30)
        yield driver
    finally:
        driver.quit()


def wait_for(driver, script: str, timeout: float = 10):
    """Wait until a JS expression is true in the page."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(
        lambda d: d.execute_script(f"return {script}")
    )


def text(driver, element_id: str) -> str:
    """What a person reads in the element `element_id`."""
    return driver.execute_script(
        "return document.getElementById(arguments[0]).innerText.trim()", element_id
    )


def off_screen(driver) -> list[str]:
    """What of the kiosk page does not fit the window (support.browser.OFF_SCREEN_JS)."""
    return driver.execute_script(f"return ({OFF_SCREEN_JS})()")


def pair_in_webkit(driver, url: str, code: str) -> None:
    """Open the pairing link `url/pair/CODE`, press Pair, and wait for the kiosk's status."""
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/pair/{code}")
    assert driver.find_element(By.ID, "code").get_attribute("value") == code
    driver.find_element(By.ID, "pair-button").click()
    wait_for(
        driver,
        "document.getElementById('lexicon-words') && "
        "document.getElementById('lexicon-words').textContent !== ''",
    )


def set_viewport(driver, width: int, height: int) -> None:
    """Size the window so that the page itself is `width` x `height` (the browser's own bars
    take some of the window)."""
    driver.set_window_size(width, height)
    inner_width, inner_height = driver.execute_script("return [innerWidth, innerHeight]")
    driver.set_window_size(2 * width - inner_width, 2 * height - inner_height)
    assert driver.execute_script("return [innerWidth, innerHeight]") == [width, height]
