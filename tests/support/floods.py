"""A player's laptop on the hall's Wi-Fi trying to starve the kiosks, for attacks and load runs:
`count` connections from each of `sources` (loopback addresses), over TLS or plain HTTP, each
opened again as soon as the server closes it, doing one of:

- `idle`: sending nothing;
- `drip`: a POST declaring a large body (`--length`), then one byte of it every `--every`
  seconds;
- `trickle`: a request head, one byte every `--every` seconds;
- `hold`: a status poll held open (`GET /api/v1/kiosk?wait=20`, with `--token`, a kiosk's, and
  the status's ETag once it has it), asked again on the same connection as soon as answered;
- `linger`: one GET of `--path`, then the connection kept open, sending nothing more.

It runs as a process of its own (`Flood`), one asyncio loop, so it shares no interpreter lock
with the kiosks it is set against; stopped, it reports what it did: connections opened, the
most open at once, closed by the server, refused at connect, answers by status.

    python tests/support/floods.py HOST PORT --mode drip --sources 127.0.0.5,127.0.0.6
        --count 64 [--tls CAFILE] [--path /director/login] [--token T] [--every 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import ssl
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve()
MODES = ("idle", "drip", "trickle", "hold", "linger")


class Flood:
    """The flood in its own process: `start`, then `stop` for its report."""

    def __init__(
        self,
        host: str,
        port: int,
        mode: str,
        sources: list[str],
        count: int,
        tls: Path | None = None,
        path: str = "/director/login",
        token: str = "",
        every: float = 3.0,
        length: int = 100_000_000,
        wrap: list[str] | None = None,
    ):
        self.argv = [sys.executable, str(HERE), host, str(port), "--mode", mode]
        self.argv += ["--sources", ",".join(sources), "--count", str(count), "--path", path]
        self.argv += ["--every", str(every), "--length", str(length)]
        if tls is not None:
            self.argv += ["--tls", str(tls)]
        if token:
            self.argv += ["--token", token]
        self.argv = [*(wrap or []), *self.argv]  # e.g. `ip netns exec NAME`
        self.process: subprocess.Popen | None = None
        self.report: dict = {}

    def start(self) -> Flood:
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True)
        return self

    def stop(self) -> dict:
        if self.process is None:
            return self.report
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=120)
        lines = out.strip().splitlines()
        self.report = json.loads(lines[-1]) if lines else {}
        self.process = None
        return self.report

    def __enter__(self) -> Flood:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Attack:
    def __init__(self, args):
        self.args = args
        self.stopping = asyncio.Event()
        self.report = Counter()
        self.answers: Counter[str] = Counter()
        self.held = 0
        self.etag = ""  # hold: the status's, once an answer gave it
        self.context = None
        if args.tls:
            self.context = ssl.create_default_context(cafile=args.tls)
            self.context.check_hostname = False  # the attacker does not care who answers

    async def run(self) -> dict:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self.stopping.set)
        tasks = [
            asyncio.create_task(self.one(source))
            for source in self.args.sources.split(",")
            for _ in range(self.args.count)
        ]
        await self.stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {**self.report, "answers": dict(self.answers)}

    async def one(self, source: str) -> None:
        """One connection after another from `source`, each as the mode says."""
        while not self.stopping.is_set():
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        self.args.host,
                        self.args.port,
                        ssl=self.context,
                        local_addr=(source, 0),
                        server_hostname="" if self.context else None,
                    ),
                    timeout=30,
                )
            except (OSError, TimeoutError, ssl.SSLError):
                self.report["refused"] += 1
                await asyncio.sleep(0.02)
                continue
            self.report["opened"] += 1
            self.held += 1
            self.report["most_held"] = max(self.report["most_held"], self.held)
            try:
                await getattr(self, self.args.mode)(reader, writer)
            except (OSError, TimeoutError, ssl.SSLError, asyncio.IncompleteReadError):
                pass
            finally:
                self.held -= 1
                self.report["closed"] += 1
                writer.transport.abort()

    async def idle(self, reader, writer) -> None:
        await self._until_closed(reader)

    async def drip(self, reader, writer) -> None:
        head = (
            f"POST {self.args.path} HTTP/1.1\r\nHost: hall\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {self.args.length}\r\n\r\n"
        )
        writer.write(head.encode() + b"a")
        await self._dripping(reader, writer, b"a")

    async def trickle(self, reader, writer) -> None:
        head = b"GET /healthz HTTP/1.1\r\nHost: hall\r\nX-Padding: " + b"a" * 200 + b"\r\n\r\n"
        writer.write(head[:1])
        await self._dripping(reader, writer, head[1:])

    async def hold(self, reader, writer) -> None:
        """Poll with the status's ETag (learnt from the first answer), so the poll is held."""
        while not self.stopping.is_set():
            tag = f"If-None-Match: {self.etag}\r\n" if self.etag else ""
            writer.write(
                f"GET /api/v1/kiosk?wait=20 HTTP/1.1\r\nHost: hall\r\n{tag}"
                f"Authorization: Bearer {self.args.token}\r\n\r\n".encode()
            )
            await writer.drain()
            if not await self._answer(reader):
                return

    async def linger(self, reader, writer) -> None:
        writer.write(f"GET {self.args.path} HTTP/1.1\r\nHost: hall\r\n\r\n".encode())
        await writer.drain()
        if await self._answer(reader):
            await self._until_closed(reader)

    async def _dripping(self, reader, writer, rest: bytes) -> None:
        """Send `rest` a byte every `every` seconds (again and again), until closed."""
        await writer.drain()
        position = 0
        while not self.stopping.is_set():
            try:
                data = await asyncio.wait_for(reader.read(4096), timeout=self.args.every)
            except TimeoutError:
                data = None
            if data == b"":
                return
            if data:
                self._count(data)
                continue
            writer.write(rest[position % len(rest) : position % len(rest) + 1])
            position += 1
            await writer.drain()

    async def _until_closed(self, reader) -> None:
        while not self.stopping.is_set():
            data = await reader.read(4096)
            if not data:
                return
            self._count(data)

    async def _answer(self, reader) -> bool:
        """Read one answer (with a Content-Length, or none); False if the connection closed."""
        head = await reader.readuntil(b"\r\n\r\n")
        self._count(head)
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
            elif name.lower() == b"etag":
                self.etag = value.strip().decode()
        if length:
            await reader.readexactly(length)
        return b"connection: close" not in head.lower()

    def _count(self, data: bytes) -> None:
        if data.startswith(b"HTTP/1."):
            self.answers[data[9:12].decode(errors="replace")] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--sources", default="127.0.0.1")
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--tls", default="")
    parser.add_argument("--path", default="/director/login")
    parser.add_argument("--token", default="")
    parser.add_argument("--every", type=float, default=3.0)
    parser.add_argument("--length", type=int, default=100_000_000)
    args = parser.parse_args()
    connections = args.count * len(args.sources.split(","))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, connections + 256)), hard))
    print(json.dumps(asyncio.run(Attack(args).run())), flush=True)


if __name__ == "__main__":
    main()
