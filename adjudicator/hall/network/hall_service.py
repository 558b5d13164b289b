"""The systemd unit that runs `adjudicator hall` at boot (`adjudicator hall --print-service`)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from adjudicator import settings


def service_unit(name: str, port: int, http_port: int | None = None) -> str:
    """A systemd unit that starts this hall at boot and again if it stops (`http_port`: the
    plain-HTTP port for the trust page, written out when given)."""
    import getpass

    command = own_command() + ["hall", "--name", name, "--port", str(port)]
    if http_port is not None:
        command += ["--http-port", str(http_port)]
    env = {"ADJUDICATOR_HOME": str(settings.data_home().resolve())}
    left_out = []
    for key, value in sorted(os.environ.items()):
        if key.startswith("ADJUDICATOR_") and key != "ADJUDICATOR_HOME":
            if "@" in value:  # a database URL with a password: not into a world-readable file
                left_out.append(key)
            else:
                env[key] = value
    lines = [
        f"# The hall {name}: https://{name}.local:{port}. Install it with:",
        f"#   adjudicator hall --name {name} --port {port} --print-service \\",
        "#     | sudo tee /etc/systemd/system/adjudicator-hall.service",
        "#   sudo systemctl daemon-reload && sudo systemctl enable --now adjudicator-hall",
    ]
    if left_out:
        lines.append(
            f"# Left out (they hold a password; unit files are world-readable): "
            f"{', '.join(left_out)}. Put them in /etc/adjudicator-hall.env (mode 600)."
        )
    lines += [
        "[Unit]",
        f"Description=Challenge adjudicator: the hall {name}",
        "Wants=network-online.target",
        "After=network-online.target",
        "",
        "[Service]",
        "Type=simple",
        f"User={getpass.getuser()}",
        *(f'Environment="{key}={value}"' for key, value in env.items()),
        "EnvironmentFile=-/etc/adjudicator-hall.env",
        f"ExecStart={shlex.join(command)}",
        "KillSignal=SIGTERM",
        "TimeoutStopSec=30",
        "Restart=always",
        "RestartSec=5",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)


def own_command() -> list[str]:
    """How this program was started: its installed script, else `python -m adjudicator`."""
    script = Path(sys.argv[0])
    if script.name == "adjudicator" and script.exists():
        return [str(script.resolve())]
    return [sys.executable, "-m", "adjudicator"]
