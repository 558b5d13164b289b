"""Loopback load run: adjudications per second and latency against `adjudicator serve`,
side by side with /healthz in the same run.

    python benchmarks/load_kiosk.py [--workers 2] [--connections 32] [--seconds 10]

Uses wrk (Debian package `wrk`) as the load generator: it is C, so the client spends little
of the machine's two cores. Starts its own server in a temporary data home, with the durable
SQLite journal, and stops it at the end. Traffic goes to 127.0.0.1 only; every run is bounded.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.servers import Server, cli, prepare_home  # noqa: E402

LUA_POST = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {token}"
local bodies = {{
  '{{"words": ["QI", "ZA", "CAT"]}}',
  '{{"words": ["QI", "ZZZ"]}}',
  '{{"words": ["ZEBRA"]}}',
  '{{"words": ["JO", "XI", "AA", "AB", "DOG", "FOX", "CAT", "QI"]}}',
}}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[(n % #bodies) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("JSON {{\\"requests\\": %d, \\"seconds\\": %f, \\"p50_ms\\": %f, \\"p99_ms\\": %f, \\"errors\\": %d, \\"non2xx\\": %d}}\\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
"""
LUA_GET = LUA_POST.split("local bodies")[0].replace('wrk.method = "POST"', 'wrk.method = "GET"') + (
    "\ndone = " + LUA_POST.split("done = ", 1)[1]
)


def wrk(url: str, script: str, connections: int, seconds: int, threads: int = 2) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as handle:
        handle.write(script)
    out = subprocess.run(
        ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--latency",
         "-s", handle.name, url],
        capture_output=True, text=True, timeout=seconds + 60, check=True,
    ).stdout
    data = json.loads(re.search(r"^JSON (.*)$", out, re.M).group(1))
    data["per_second"] = data["requests"] / data["seconds"]
    return data


def run(workers: int, connections: int, seconds: int, env: dict | None = None) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        home = prepare_home(Path(folder) / "home")
        with Server(home, workers=workers, env=env) as server:
            health = wrk(server.url + "/healthz", LUA_GET.format(token=home.token), connections, seconds)
            judge = wrk(server.url + "/api/v1/adjudications", LUA_POST.format(token=home.token),
                        connections, seconds)
        verify = cli(home.path, "journal", "verify")
    judge["journal_verify"] = verify.strip()
    return {"workers": workers, "connections": connections, "healthz": health, "adjudications": judge,
            "ratio": judge["per_second"] / health["per_second"]}


def report(result: dict) -> str:
    h, a = result["healthz"], result["adjudications"]
    return "\n".join((
        f"workers={result['workers']} connections={result['connections']}",
        f"  /healthz        {h['per_second']:8.0f}/s  p50 {h['p50_ms']:6.1f} ms  p99 {h['p99_ms']:6.1f} ms  errors {h['errors'] + h['non2xx']}",
        f"  adjudications   {a['per_second']:8.0f}/s  p50 {a['p50_ms']:6.1f} ms  p99 {a['p99_ms']:6.1f} ms  errors {a['errors'] + a['non2xx']}",
        f"  adjudications / healthz = {result['ratio']:.0%}   ({a['journal_verify']})",
    ))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed: apt-get install wrk")
    result = run(args.workers, args.connections, args.seconds)
    print(json.dumps(result, indent=2) if args.json else report(result))


if __name__ == "__main__":
    main()
