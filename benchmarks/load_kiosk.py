"""Loopback load run: adjudications per second and latency against `adjudicator serve`,
side by side with /healthz in the same run.

    python benchmarks/load_kiosk.py [--workers 2] [--connections 32] [--seconds 10]
        [--servers 2] [--database postgresql://USER@HOST:PORT/DB | --postgres]
    python benchmarks/load_kiosk.py --matrix [--repeat 2]   # SQLite/PostgreSQL x 1/2 servers

Uses wrk (Debian package `wrk`) as the load generator: it is C, so the client spends little
of the machine's two cores. Starts its own server(s) in a temporary data home, with the durable
SQLite journal by default, and stops them at the end. Traffic goes to 127.0.0.1 only; every
run is bounded.

PostgreSQL: `--database URL` names a running server (a fresh database is created on it for
each run); `--postgres` starts a temporary one (initdb in a temp folder, fsync on, as root run
as the postgres user), needing Debian's postgresql package.

Several servers: `--servers N` starts N `adjudicator serve` instances on N ports sharing the
data home and the journal. wrk targets one URL, so one wrk runs per server at the same time,
each with connections/N connections; throughputs are added up, and the latency quoted is the
worst of the N runs' percentiles.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.servers import Server, cli, prepare_home  # noqa: E402

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
  io.write(string.format("JSON {{\\"requests\\": %d, \\"seconds\\": %f, " ..
    "\\"p50_ms\\": %f, \\"p99_ms\\": %f, \\"errors\\": %d, \\"non2xx\\": %d}}\\n",
    summary.requests, summary.duration / 1e6,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
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
        [
            "wrk",
            "-t",
            str(threads),
            "-c",
            str(connections),
            "-d",
            f"{seconds}s",
            "--latency",
            "-s",
            handle.name,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    ).stdout
    data = json.loads(re.search(r"^JSON (.*)$", out, re.M).group(1))
    data["per_second"] = data["requests"] / data["seconds"]
    return data


def wrk_many(urls: list[str], script: str, connections: int, seconds: int) -> dict:
    """One wrk per URL at the same time, connections split between them; the sum of the
    throughputs, and the worst of the percentiles."""
    if len(urls) == 1:
        return wrk(urls[0], script, connections, seconds)
    results: list[dict] = [{} for _ in urls]

    def one(index: int) -> None:
        results[index] = wrk(
            urls[index], script, max(1, connections // len(urls)), seconds, threads=1
        )

    runners = [threading.Thread(target=one, args=(i,)) for i in range(len(urls))]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    total = {key: sum(r[key] for r in results) for key in ("requests", "errors", "non2xx")}
    total.update(
        seconds=max(r["seconds"] for r in results),
        per_second=sum(r["per_second"] for r in results),
        p50_ms=max(r["p50_ms"] for r in results),
        p99_ms=max(r["p99_ms"] for r in results),
        per_server=[round(r["per_second"]) for r in results],
    )
    return total


def run(
    workers: int,
    connections: int,
    seconds: int,
    env: dict | None = None,
    servers: int = 1,
    database: str | None = None,
) -> dict:
    """One load run; `database` is a PostgreSQL server URL (a fresh database is made on it)."""
    db_env = {}
    if database:
        from tests.support.postgres import create_database

        db_env["ADJUDICATOR_DATABASE_URL"] = create_database(database, prefix="bench")
    with tempfile.TemporaryDirectory() as folder:
        home = prepare_home(Path(folder) / "home", env=db_env)
        started = [Server(home, workers=workers, env=env) for _ in range(servers)]
        try:
            for server in started:
                server.start()
            urls = [server.url for server in started]
            health = wrk_many(
                [u + "/healthz" for u in urls],
                LUA_GET.format(token=home.token),
                connections,
                seconds,
            )
            judge = wrk_many(
                [u + "/api/v1/adjudications" for u in urls],
                LUA_POST.format(token=home.token),
                connections,
                seconds,
            )
        finally:
            for server in started:
                server.kill()
        verify = cli(home.path, "journal", "verify", env=db_env)
    judge["journal_verify"] = verify.strip()
    rows = re.search(r"([\d,]+) rows", verify)
    judge["journal_rows"] = int(rows.group(1).replace(",", "")) if rows else None
    return {
        "workers": workers,
        "connections": connections,
        "servers": servers,
        "database": "postgresql" if database else "sqlite",
        "healthz": health,
        "adjudications": judge,
        "ratio": judge["per_second"] / health["per_second"],
    }


def _line(label: str, run: dict) -> str:
    return (
        f"  {label:<15} {run['per_second']:8.0f}/s  p50 {run['p50_ms']:6.1f} ms  "
        f"p99 {run['p99_ms']:6.1f} ms  errors {run['errors'] + run['non2xx']}"
    )


def report(result: dict) -> str:
    h, a = result["healthz"], result["adjudications"]
    return "\n".join(
        (
            f"{result.get('database', 'sqlite')} servers={result.get('servers', 1)} "
            f"workers={result['workers']} connections={result['connections']}",
            _line("/healthz", h),
            _line("adjudications", a),
            f"  adjudications / healthz = {result['ratio']:.0%}   ({a['journal_verify']})",
        )
    )


def table(results: list[dict]) -> str:
    """The matrix as a Markdown table, one line per run."""
    lines = [
        "| journal | servers x workers | /healthz per s | adjudications per s | p50 / p99 ms "
        "(adjudications) | adjudications / healthz | failed | rows = 2xx |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        h, a = r["healthz"], r["adjudications"]
        served = a["requests"] - a["non2xx"]
        lines.append(
            f"| {r['database']} | {r['servers']} x {r['workers']} | {h['per_second']:,.0f} | "
            f"{a['per_second']:,.0f} | {a['p50_ms']:.1f} / {a['p99_ms']:.1f} | {r['ratio']:.0%} | "
            f"{a['errors'] + a['non2xx']} | {a['journal_rows']:,} vs {served:,} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    """Every run's figures (one run, or the matrix's)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--servers", type=int, default=1, help="app servers sharing the journal")
    parser.add_argument(
        "--database",
        default=None,
        help="a PostgreSQL server URL (postgresql://...); default SQLite",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="start a temporary PostgreSQL for the run"
    )
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="SQLite and PostgreSQL, one and two servers, side by side",
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --matrix: rounds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed: apt-get install wrk")
    with temporary_postgres(args.postgres or (args.matrix and not args.database)) as started:
        database = args.database or started
        if not args.matrix:
            result = run(
                args.workers,
                args.connections,
                args.seconds,
                servers=args.servers,
                database=database,
            )
            print(json.dumps(result, indent=2) if args.json else report(result))
            return [result]
        results = []
        for _ in range(args.repeat):
            for db in (None, database):
                for servers in (1, 2):
                    result = run(
                        args.workers, args.connections, args.seconds, servers=servers, database=db
                    )
                    print(report(result), file=sys.stderr, flush=True)
                    results.append(result)
        print(json.dumps(results, indent=2) if args.json else table(results))
        return results


@contextlib.contextmanager
def temporary_postgres(wanted: bool):
    """A throwaway PostgreSQL server's URL when `wanted`, else None."""
    if not wanted:
        yield None
        return
    from tests.support.postgres import PostgresServer

    with PostgresServer(durable=True) as server:
        yield server.url


if __name__ == "__main__":
    main()
