"""Receipts and witnesses in real headless Chromium against `adjudicator serve`.

- The verdict screen shows the receipt's short code; the page keeps the receipt in its storage;
  the printed docket carries the whole receipt as a QR code, which decodes (zxing-cpp) to a
  receipt whose signature verifies; a long press on the status bar downloads the kiosk's
  receipts, which `journal audit` accepts.
- A kiosk whose receipt vanished from the journal raises the director's alarm, naming the
  kiosk and the row, with its next status poll.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator

import pytest

from support.browser import ARTIFACTS, LAPTOP, open_page, pair_page, sign_in
from support.receipts import independent_verify
from support.servers import PreparedHome, Server, cli, prepare_home

pytestmark = [
    pytest.mark.browser,
]

DIRECTOR_PASSWORD = "director-witness-1"
PAIRING = re.compile(r"/pair(?:\?lang=[a-z]+)?#([A-Z0-9]+)")  # the code after "#" (issue 10)


@pytest.fixture
def home(tmp_path) -> PreparedHome:
    home = prepare_home(tmp_path / "home")
    cli(home.path, "director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    return home


@pytest.fixture
def server(home) -> Iterator[Server]:
    # The verdict stays up until Done: checking the docket may take longer than 10 s.
    with Server(home, workers=1, env={"ADJUDICATOR_VERDICT_SECONDS": "300"}) as running:
        yield running


def paired_kiosk(browser, server: Server, home: PreparedHome, name: str):
    code = PAIRING.search(cli(home.path, "kiosk", "add", name, "--tournament", "hall"))[1]
    page = open_page(browser, LAPTOP, timeout=10000, accept_downloads=True)
    return pair_page(page, server.url, code)


def judge(page, words: str) -> dict:
    """Type and judge; the shown adjudication id and receipt code."""
    page.fill("#word-input", words + " ")
    page.click("#judge-button")
    page.wait_for_selector("#verdict-screen:not([hidden])")
    return {
        "id": int(page.inner_text("#verdict-id").lstrip("#")),
        "code": page.inner_text("#verdict-receipt"),
    }


def kept_receipts(page, kiosk: str) -> list[dict]:
    return page.evaluate(f"JSON.parse(localStorage.getItem('adjudicator.receipts.{kiosk}'))")


def dismiss(page) -> None:
    page.wait_for_timeout(1600)  # the lock-out against stray keys
    page.click("#verdict-done")
    page.wait_for_selector("#idle-screen:not([hidden])")


QR_PIXELS = """() => {
  const image = document.getElementById("receipt-qr");
  const scale = 4;
  const canvas = document.createElement("canvas");
  canvas.width = image.naturalWidth * scale;
  canvas.height = image.naturalHeight * scale;
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  const rgba = context.getImageData(0, 0, canvas.width, canvas.height).data;
  const gray = [];
  for (let i = 0; i < rgba.length; i += 4) { gray.push(rgba[i]); }
  return {width: canvas.width, height: canvas.height, gray: gray};
}"""


def decode_qr(page) -> str:
    import zxingcpp

    pixels = page.evaluate(QR_PIXELS)
    image = memoryview(bytes(pixels["gray"])).cast("B", (pixels["height"], pixels["width"]))
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1, "the docket's QR code does not decode"
    return found[0].text


def test_the_verdict_shows_a_receipt_code_and_the_docket_carries_the_whole_receipt(
    browser, server, home, tmp_path
):
    page = paired_kiosk(browser, server, home, "docket-kiosk")
    public_pem = cli(home.path, "journal", "key")
    shown = judge(page, "qi za")
    (receipt,) = kept_receipts(page, "docket-kiosk")
    assert receipt["id"] == shown["id"] and receipt["verdict"] == "ACCEPTABLE"
    head = receipt["row_hash"][:8].upper()
    assert shown["code"] == f"{head[:4]}-{head[4:]}"
    assert independent_verify(receipt, public_pem)

    page.wait_for_selector("#receipt-qr:not([hidden])", state="attached")
    assert not page.locator("#receipt-qr").is_visible()  # on the docket only, not the screen
    page.emulate_media(media="print")
    assert page.locator("#receipt-qr").is_visible()
    assert page.locator("#verdict-receipt").is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "kiosk-docket-receipt.png"), full_page=True)
    printed = json.loads(decode_qr(page))
    assert printed == receipt
    assert independent_verify(printed, public_pem)
    page.emulate_media(media="screen")

    dismiss(page)
    judge(page, "cat dogx")
    dismiss(page)
    kept = kept_receipts(page, "docket-kiosk")
    assert [r["verdict"] for r in kept] == ["ACCEPTABLE", "UNACCEPTABLE"]

    page.hover("#status")
    page.mouse.down()  # a long press on the status bar: the director's way in
    page.wait_for_timeout(2300)
    page.mouse.up()
    page.wait_for_selector("#receipts-panel:not([hidden])")
    assert page.inner_text("#receipts-count") == "2"
    with page.expect_download() as download:
        page.click("#receipts-download")
    path = tmp_path / "receipts.jsonl"
    download.value.save_as(path)
    assert [json.loads(line) for line in path.read_text().splitlines()] == kept
    audited = cli(home.path, "journal", "audit", str(path))
    assert "2 receipt(s) checked: 2 held unchanged" in audited


def test_a_kiosk_whose_receipt_vanished_raises_the_directors_alarm(browser, server, home):
    page = paired_kiosk(browser, server, home, "witness-kiosk")
    shown = judge(page, "qx")
    (receipt,) = kept_receipts(page, "witness-kiosk")
    assert receipt["id"] == shown["id"]

    with sqlite3.connect(home.path / "journal.sqlite3") as connection:  # the row vanishes
        connection.execute("DELETE FROM adjudications WHERE id = ?", (shown["id"],))
    connection.close()

    director = sign_in(browser, server.url, "/director/login", "director", DIRECTOR_PASSWORD)
    director.wait_for_url(server.url + "/director/")
    alarm = f"ALARM: kiosk witness-kiosk, journal row {shown['id']}."
    deadline = time.monotonic() + 15  # the kiosk polls every 5 s
    while alarm not in director.inner_text("#integrity") and time.monotonic() < deadline:
        director.wait_for_timeout(500)
        director.reload()
    assert alarm in director.inner_text("#integrity")
    assert "no row" in director.inner_text(".witness-alarm")
    ARTIFACTS.mkdir(exist_ok=True)
    director.screenshot(path=str(ARTIFACTS / "director-witness-alarm.png"), full_page=True)
    assert "WITNESS ALARM: kiosk witness-kiosk" in server.read_log()


def test_the_kiosk_shows_the_true_reason_when_the_journal_is_gone(browser, server, home):
    page = paired_kiosk(browser, server, home, "reason-kiosk")
    judge(page, "qi")
    dismiss(page)
    assert page.locator("#service-alert").is_hidden()
    (home.path / "journal.sqlite3-wal").unlink()  # the journal is no longer the one opened
    page.fill("#word-input", "za ")
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    assert "not the one this server opened" in page.inner_text("#error-message")
    page.wait_for_selector("#service-alert:not([hidden])")  # the status, refreshed at once
    assert "not the one this server opened" in page.inner_text("#service-alert")
    assert page.locator("#lexicon-alert").is_hidden()  # not blamed on the lexicon
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "kiosk-journal-lost.png"))


def test_a_french_kiosk_says_the_journal_is_gone_in_french(browser, server, home):
    cli(home.path, "tournament", "set", "hall", "--language", "fr")
    page = paired_kiosk(browser, server, home, "french-kiosk")
    assert page.locator("html").get_attribute("lang") == "fr"
    judge(page, "qi")
    dismiss(page)
    (home.path / "journal.sqlite3-wal").unlink()  # the journal is no longer the one opened
    page.fill("#word-input", "za ")
    page.click("#judge-button")
    page.wait_for_selector("#error-screen:not([hidden])")
    said = "n'est pas celui que ce serveur a ouvert"
    assert said in page.inner_text("#error-message")
    assert page.inner_text("#error-message").startswith("NON JUGÉ")
    page.wait_for_selector("#service-alert:not([hidden])")
    alert = page.inner_text("#service-alert")
    assert said in alert and "Appelez le directeur" in alert
    assert "not the one this server opened" not in alert
