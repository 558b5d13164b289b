"""Helpers for the kiosk browser tests: a real `adjudicator serve` in a temporary data home,
tiny lexicons, tournaments and kiosks made with the CLI, and headless Chromium via Playwright.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from . import servers
from .paths import ARTIFACTS

# Debian's Chromium binary itself, not its /usr/bin/chromium launcher: the launcher sources
# /etc/chromium.d, whose Google API keys turn on services that reach out of this machine
# (autofill's server predictions on every form, Google sign-in, the component updater), which
# tests must never do. The flags below keep the rest of them off.
CHROMIUM = "/usr/lib/chromium/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",  # as the launcher would on a small /dev/shm
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-pings",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-features=AutofillServerCommunication,OptimizationHints,Translate,MediaRouter",
    # What no switch turns off (Google sign-in's account check, the component and extension
    # updaters) never resolves, so never leaves: the hall's own names and addresses still do.
    "--host-resolver-rules=MAP *.google.com ~NOTFOUND, MAP *.googleapis.com ~NOTFOUND, "
    "MAP *.gvt1.com ~NOTFOUND, MAP *.gstatic.com ~NOTFOUND",
]

TINY_WORDS = ("AA", "AB", "QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA", "QUIXOTIC")
OTHER_WORDS = ("AA", "QI", "ZA", "OK", "EW", "CAT", "DOGS")
REFER_WORDS = ("QI", "ZA", "CAT")
HD = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 900}
TABLET = {"width": 768, "height": 1024}
PHONE = {"width": 390, "height": 844}
PAIRING_LINK = re.compile(r"Pairing link .*?/pair(?:\?lang=[a-z]+)?#(\S+)")


def browser_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[test]')"
    return None


@dataclass
class Home:
    """A prepared data home: lexicons TINY, OTHER and REFER, tournaments made with the CLI."""

    path: Path
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def prepare(cls, path: Path) -> Home:
        store = LexiconStore(root=path / "lexicons")
        store.save("TINY", WordSet.of(TINY_WORDS), description="tiny test lexicon")
        store.save("OTHER", WordSet.of(OTHER_WORDS), description="another test edition")
        store.save(
            "REFER",
            WordSet.of(REFER_WORDS),
            description="long words go to a judge",
            refer_longer_than=5,
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
        env.update(ADJUDICATOR_HOME=str(path), ADJUDICATOR_KIOSK_RATE_LIMIT="off")
        home = cls(path, env)
        home.cli("db", "upgrade")
        return home

    def cli(self, *args: str, stdin: str | None = None) -> str:
        """Run the CLI in a subprocess; its stdout, or an AssertionError with its stderr."""
        done = subprocess.run(
            [sys.executable, "-m", "adjudicator", *args],
            input=stdin,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"adjudicator {' '.join(args)}: {done.stderr}"
        return done.stdout

    def import_words(self, name: str, words, alphabet: str) -> None:
        """Import `words` as lexicon `name` in `alphabet` with `lexicon import`, as a user would."""
        path = self.path / f"{name}.txt"
        path.write_text("\n".join(words) + "\n", encoding="utf-8")
        self.cli("lexicon", "import", str(path), "--name", name, "--alphabet", alphabet)

    def tournament(
        self, slug: str, lexicon: str = "TINY", rule: str = "double", title: str = ""
    ) -> str:
        self.cli(
            "tournament",
            "create",
            slug,
            "--lexicon",
            lexicon,
            "--rule",
            rule,
            "--title",
            title or f"Test {slug}",
        )
        return slug

    def pairing_code(self, kiosk: str, tournament: str, *options: str) -> str:
        """Enrol a kiosk (with `options` such as "--table", "6") and return its one-time
        pairing code, parsed from the pairing link."""
        out = self.cli("kiosk", "add", kiosk, "--tournament", tournament, *options)
        match = PAIRING_LINK.search(out)
        assert match, f"no pairing link in: {out}"
        return match.group(1)


class Server(servers.Server):
    """`python -m adjudicator serve` on a free port, one worker, started at once; settings
    such as verdict_seconds="2" become ADJUDICATOR_* variables."""

    def __init__(self, home: Home, **settings: str):
        env = {f"ADJUDICATOR_{name.upper()}": value for name, value in settings.items()}
        super().__init__(home, workers=1, env=env)
        self.start()


@contextmanager
def launched_chromium() -> Iterator:
    """Debian's Chromium under Playwright, closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser, viewport: dict | None = None, timeout: float | None = None, **options):
    """A page in a fresh browser context (its own cookies) at `viewport` (a 1080p screen)."""
    context = browser.new_context(viewport=viewport or HD, **options)
    if timeout is not None:
        context.set_default_timeout(timeout)
    return context.new_page()


def pair_page(page, url: str, code: str, link: str = "/pair/", ready: str = ""):
    """Pair `page` as a kiosk with pairing code `code` (through `url + link + code`), and wait
    until the kiosk shows its lexicon (or the `ready` selector)."""
    page.goto(f"{url}{link}{code}")
    page.click("#pair-button")
    page.wait_for_selector(ready or "#lexicon-words:not(:empty)")
    return page


def type_and_judge(page, words: str, verdict: bool = True) -> None:
    """Type `words` into a kiosk's word box and press JUDGE; with `verdict`, wait until the
    verdict screen shows."""
    page.locator("#word-input").focus()
    page.keyboard.type(words)
    page.click("#judge-button")
    if verdict:
        page.wait_for_selector("#verdict-screen:not([hidden])")


def fill_sign_in(page, name: str, password: str) -> None:
    """Type a name and password into the staff's sign-in form and send it."""
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("#sign-in")


def sign_in(browser, url: str, path: str, name: str, password: str, **page_options):
    """A new page signed in as staff through the sign-in form at `url + path`."""
    page = open_page(browser, **{"viewport": LAPTOP, **page_options})
    page.goto(url + path)
    fill_sign_in(page, name, password)
    return page


def staffed_home(path: Path, director_password: str, judge_password: str) -> servers.PreparedHome:
    """servers.prepare_home, plus lexicon OTHER, the director's password and judge `alice`."""
    home = servers.prepare_home(path)
    LexiconStore(root=path / "lexicons").save(
        "OTHER", WordSet.of(OTHER_WORDS[1:]), description="another edition"
    )
    for command, password in (
        (("director", "set-password"), director_password),
        (("judge-account", "add", "alice"), judge_password),
    ):
        servers.cli(path, *command, "--password-stdin", stdin=password + "\n")
    return home


def wait_until(page, script: str, timeout: float = 8.0) -> None:
    """Poll a JS expression until true (page.wait_for_function needs eval: the CSP forbids it)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(script):
        assert time.monotonic() < deadline, f"timed out waiting for {script}"
        time.sleep(0.1)


def save_screenshot(page, name: str, full_page: bool = False) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def clean_artifacts(pattern: str = "kiosk-*.png") -> None:
    """Remove the screenshots of an earlier run, so every one left is from this run."""
    ARTIFACTS.mkdir(exist_ok=True)
    for png in ARTIFACTS.glob(pattern):
        png.unlink()


# What sticks out of the screen: the page's scroll size against the viewport, and each visible
# element of the kiosk whose box is not wholly on screen (a box spilling off the left or top
# edge does not add to the scroll size, so both are checked).
OFF_SCREEN_JS = """() => {
    const width = window.innerWidth, height = window.innerHeight;
    const page = document.documentElement;
    const found = [];
    if (page.scrollWidth > width) found.push(`the page is ${page.scrollWidth} px wide`);
    if (page.scrollHeight > height) found.push(`the page is ${page.scrollHeight} px tall`);
    for (const element of document.querySelectorAll('#kiosk *')) {
        if (element.closest('.sr-only, [hidden]') || !element.getClientRects().length) continue;
        const box = element.getBoundingClientRect();
        if (box.left < -0.5 || box.top < -0.5 || box.right > width + 0.5
                || box.bottom > height + 0.5) {
            const name = element.id ? '#' + element.id : element.tagName.toLowerCase()
                + (element.className.baseVal === undefined && element.className
                   ? '.' + element.className.split(' ')[0] : '');
            found.push(`${name} at ${Math.round(box.left)},${Math.round(box.top)}`
                + `-${Math.round(box.right)},${Math.round(box.bottom)}`);
        }
    }
    return found;
}"""

# Two animation frames: the kiosk refits itself in the next frame after any change.
SETTLE_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def off_screen(page) -> list[str]:
    """What of the kiosk page does not fit the viewport (empty when everything fits)."""
    page.evaluate(SETTLE_JS)
    return page.evaluate(OFF_SCREEN_JS)


# The page's next challenge reaches the hall over its own connection and is answered, and the
# answer is then lost on the way back: the page is told the network failed (as when the hall's
# Wi-Fi drops; window.lostAnswer keeps what the hall said). Playwright's route.fetch would send
# it on a seventh connection of the kiosk's credential, which the hall may refuse (429) while
# the page's six are busy. A function's source: Playwright's evaluate, or `(...)()` in WebKit.
LOSE_ONE_ANSWER = """() => {
    const real = window.fetch;
    window.lostAnswer = null;
    window.fetch = (url, options) => {
        if (window.lostAnswer !== null || !String(url).endsWith("/api/v1/adjudications")) {
            return real(url, options);
        }
        return real(url, options).then(async (response) => {
            window.lostAnswer = {status: response.status, body: await response.json()};
            throw new TypeError("Failed to fetch");
        });
    };
}"""
