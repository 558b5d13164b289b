"""`adjudicator hall` for real: HTTPS on the hall's LAN address and on NAME.local (checked with
Python's ssl and the hall's own CA), NAME.local resolved by mDNS, a printed sheet's codes
pairing over HTTPS once, the bad input and faults, and a clean stop that withdraws the name.
The hall runs in a network namespace of the test's own, and the tablets in another, joined by
a veth pair (support.netns): nothing reaches the machine's own network."""

from __future__ import annotations

import os
import re
import signal
import socket
import ssl
import subprocess
from pathlib import Path

import pytest

from support.netns import HallNetwork
from support.running_hall import RunningHall, TlsClient, resolve_by_mdns, run_cli
from support.servers import free_port, prepare_home

pytestmark = pytest.mark.slow


def qr_texts(page: str, scale: int = 6) -> list[str]:
    """Decode every QR code (segno's inline SVG) on a page: each path drawn into pixels, then
    read by zxing-cpp, so the test reads what a tablet's camera would."""
    import zxingcpp

    texts = []
    for size, path in re.findall(
        r'<svg viewBox="0 0 (\d+) \d+"[^>]*>.*?<path[^>]* d="([^"]+)"', page, re.S
    ):
        n = int(size)
        dark = set()
        x = y = 0.0
        for op, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path):
            if op == "M":
                x, y = float(a), float(b)
            elif op == "m":
                x, y = x + float(a), y + float(b)
            else:
                dark.update((int(x) + i, int(y)) for i in range(int(float(a))))
                x += float(a)
        width = n * scale
        pixels = bytearray(b"\xff" * width * width)
        for col, row in dark:
            for dy in range(scale):
                start = (row * scale + dy) * width + col * scale
                pixels[start : start + scale] = b"\x00" * scale
        image = memoryview(bytes(pixels)).cast("B", (width, width))
        found = zxingcpp.read_barcodes(image)
        assert len(found) == 1, "a QR code on the sheet does not decode"
        texts.append(found[0].text)
    return texts


def test_the_hall_serves_https_by_name_and_its_sheet_pairs_once(
    tmp_path: Path, hall_network: HallNetwork, hall_name: str
):
    prepared = prepare_home(tmp_path / "home")
    home = prepared.path
    port = free_port()
    tablets, lan_address = hall_network.devices, hall_network.hall.address
    hall = RunningHall(home, hall_name, port, netns=hall_network.hall).start()
    try:
        out = hall.output()
        assert f"The hall is open at https://{hall_name}.local:{port}" in out
        assert f"https://{lan_address}:{port}" in out
        assert "/hall/trust" in out and "/director/login" in out
        ca = home / "hall" / "ca.crt"
        assert oct((home / "hall" / "ca.key").stat().st_mode & 0o777) == "0o600"

        # TLS with the hall's own CA, for the LAN address ...
        by_address = TlsClient(lan_address, port, lan_address, ca, tablets)
        status, headers, body = by_address.request("GET", "/hall/ca.crt")
        assert status == 200 and body == ca.read_bytes()
        assert headers["Content-Type"].startswith("application/x-x509-ca-cert")
        assert b"PRIVATE KEY" not in body
        # ... and for NAME.local, which mDNS resolves to the hall's address
        resolved = resolve_by_mdns(f"{hall_name}.local", tablets)
        assert resolved == [lan_address]
        by_name = TlsClient(resolved[0], port, f"{hall_name}.local", ca, tablets)
        status, _, page = by_name.request("GET", "/hall/trust")
        assert status == 200 and b"Trust this hall once" in page and b"iPad" in page
        # a client that does not trust the hall's CA is refused, not served in clear
        with pytest.raises(ssl.SSLCertVerificationError):
            stranger = ssl.create_default_context()
            with tablets.entered():
                raw = socket.create_connection((lan_address, port), timeout=10)
            with raw:
                stranger.wrap_socket(raw, server_hostname=f"{hall_name}.local")

        # the sheet printed now points at the hall, over HTTPS, by name
        sheet_file = tmp_path / "sheet.html"
        done = run_cli(
            home,
            "kiosk",
            "sheet",
            "--tournament",
            "hall",
            "--tables",
            "1-3",
            "--output",
            str(sheet_file),
        )
        assert done.returncode == 0, done.stderr
        assert "3 table(s)" in done.stdout
        sheet = sheet_file.read_text()
        links = qr_texts(sheet)
        assert len(set(links)) == 3
        assert all(link.startswith(f"https://{hall_name}.local:{port}/pair#") for link in links)
        codes = [link.partition("#")[2] for link in links]
        assert all(f'<p class="code">{code}</p>' in sheet for code in codes)
        assert "works once" in sheet
        assert oct(sheet_file.stat().st_mode & 0o777) == "0o600"

        # a tablet pairs with its table's code over HTTPS, and gets the challenge screen
        tablet = TlsClient(resolved[0], port, f"{hall_name}.local", ca, tablets)
        status, page = tablet.pair(codes[0])
        assert status == 200 and 'id="judge-button"' in page
        # the same code on another screen: refused, it was used
        status, page = TlsClient(lan_address, port, lan_address, ca, tablets).pair(codes[0])
        assert status == 400 and "already used" in page

        # a second hall on the same port: a clear refusal, exit 2
        clash = run_cli(
            home, "hall", "--name", hall_name, "--port", str(port), netns=hall_network.hall
        )
        assert clash.returncode == 2
        assert f"Port {port} is already in use" in clash.stderr and "--port" in clash.stderr
        assert "Traceback" not in clash.stderr

        # SIGTERM: a clean stop, and the name withdrawn from the network
        os.kill(hall.process.pid, signal.SIGTERM)
        assert hall.process.wait(timeout=30) == 0
        assert "withdrawn" in hall.stderr()
        assert resolve_by_mdns(f"{hall_name}.local", tablets, 1500) == []
        with pytest.raises(OSError), tablets.entered():
            socket.create_connection((lan_address, port), timeout=2).close()
    finally:
        hall.kill()

    # pairing links printed later point at the hall, from its record in the data home
    pair = run_cli(home, "kiosk", "pair", "k1")
    assert f"https://{hall_name}.local:{port}/pair#" in pair.stdout


def test_a_damaged_ca_stops_the_start_with_what_to_do(tmp_path: Path, hall_network: HallNetwork):
    home = prepare_home(tmp_path / "home").path
    port = free_port()
    (home / "hall").mkdir(mode=0o700)
    (home / "hall" / "ca.crt").write_text("not a certificate\n")
    (home / "hall" / "ca.key").write_text("not a key either\n")
    done = run_cli(home, "hall", "--name", "damaged", "--port", str(port), netns=hall_network.hall)
    assert done.returncode == 2
    assert "certificate authority cannot be read" in done.stderr
    assert "delete both" in done.stderr and "Traceback" not in done.stderr
    for address in ("127.0.0.1", hall_network.hall.address):  # never a half-started server
        with pytest.raises(OSError), hall_network.hall.entered():
            socket.create_connection((address, port), timeout=2).close()


def test_a_bad_name_is_refused_before_anything_starts(tmp_path: Path):
    done = run_cli(tmp_path / "home", "hall", "--name", "My Hall!")
    assert done.returncode == 2
    assert "Invalid hall name 'My Hall!'" in done.stderr and "lower-case" in done.stderr


def test_print_service_is_a_systemd_unit_that_runs_the_hall(tmp_path: Path):
    done = run_cli(tmp_path / "home", "hall", "--name", "club", "--port", "9443", "--print-service")
    assert done.returncode == 0, done.stderr
    unit = done.stdout
    assert "[Unit]" in unit and "[Service]" in unit and "[Install]" in unit
    exec_start = re.search(r"^ExecStart=(.+)$", unit, re.M).group(1)
    assert exec_start.endswith("hall --name club --port 9443 --http-port 8080")
    assert f'Environment="ADJUDICATOR_HOME={(tmp_path / "home").resolve()}"' in unit
    assert "Restart=always" in unit and "WantedBy=multi-user.target" in unit
    verify = Path("/usr/bin/systemd-analyze")
    if verify.exists():
        unit_file = tmp_path / "adjudicator-hall.service"
        unit_file.write_text(unit)
        checked = subprocess.run(
            [str(verify), "verify", str(unit_file)], capture_output=True, text=True
        )
        assert "Unknown key" not in checked.stderr and "Unknown section" not in checked.stderr
