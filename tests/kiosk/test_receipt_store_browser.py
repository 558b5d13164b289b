"""The kiosk's receipt store in real headless Chromium (issue 22, item 5): a number that comes
back with other content (a journal rolled back, its numbers issued again) is kept beside the
receipt held before, never in its place, and the one held before is sent as a witness at once;
the same receipt again is kept once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from support.browser import LAPTOP, open_page, pair_page
from support.servers import Server, prepare_home

pytestmark = [pytest.mark.browser]
PAIRING = re.compile(r"/pair#([A-Z0-9]+)")


def test_a_number_back_with_other_content_keeps_both_and_is_reported(browser, tmp_path):
    home = prepare_home(tmp_path / "home")
    with Server(home, workers=1) as server:
        out = subprocess.run(
            [sys.executable, "-m", "adjudicator", "kiosk", "add", "k9", "--tournament", "hall"],
            env={**os.environ, "ADJUDICATOR_HOME": str(home.path)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        page = open_page(browser, LAPTOP, timeout=10000)
        pair_page(page, server.url, PAIRING.search(out)[1])
        first = {"type": "receipt", "id": 6, "journal": "j1", "row_hash": "a" * 64, "kiosk": "k9"}
        again = {**first, "row_hash": "b" * 64}
        sent = []
        page.on(
            "request",
            lambda request: (
                sent.append(request.post_data)
                if request.url.endswith("/api/v1/kiosk") and request.method == "POST"
                else None
            ),
        )
        page.evaluate(f"window.Kiosk.keepReceipt({json.dumps(first)})")
        page.evaluate(f"window.Kiosk.keepReceipt({json.dumps(first)})")  # the same: once
        page.evaluate(f"window.Kiosk.keepReceipt({json.dumps(again)})")
        page.wait_for_timeout(500)
        kept = page.evaluate("JSON.parse(localStorage.getItem('adjudicator.receipts.k9'))")
    assert [r["row_hash"][0] for r in kept] == ["a", "b"]  # both kept, the newest last
    witnesses = [json.loads(body)["witness"] for body in sent if body]
    assert witnesses and witnesses[0]["row_hash"] == "a" * 64  # the older one, sent at once
