"""One command brings up a whole deployment (issue 34, item 2): docs/deploy/compose.yaml read
as YAML. The bot is the webhook server and scales (no fixed name, no published port); Redis
keeps an append-only file on a volume and never evicts; Caddy serves ${DOMAIN} with its own
certificates and forwards to every replica; Prometheus scrapes each replica's metrics port,
which the bot serves on every interface inside the network. That last point is run, not only
read: the bot started with the compose file's environment answers /metrics on this host's
network address, not only on its loopback. .env.example names every setting with a comment."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from chatbot.settings import Settings
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "docs" / "deploy"
COMPOSE: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def bot_env() -> dict[str, str]:
    env = SERVICES["bot"]["environment"]
    assert isinstance(env, dict), "environment as a mapping"
    return {k: str(v) for k, v in env.items()}


def test_the_services_and_their_volumes() -> None:
    assert set(SERVICES) == {"bot", "redis", "caddy", "prometheus"}
    declared = set(COMPOSE["volumes"])
    for name, service in SERVICES.items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith("."):
                assert source in declared, f"{name}: volume {source} is not declared"
            else:
                assert (DEPLOY / source).is_file(), f"{name}: {source} is missing"
    assert "redis-data:/data" in SERVICES["redis"]["volumes"]
    assert any(v.startswith("caddy-data:") for v in SERVICES["caddy"]["volumes"])


def test_the_bot_is_the_webhook_server_and_scales() -> None:
    bot = SERVICES["bot"]
    assert bot["command"] == ["python", "-m", "chatbot", "web"]
    assert bot["build"]["context"] == "../.." and (DEPLOY / "../../Dockerfile").is_file()
    # --scale bot=3: no fixed container name, no host port two replicas would both claim
    assert "container_name" not in bot and "ports" not in bot
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"
    assert bot["env_file"] == ".env"
    env = bot_env()
    assert env["REDIS_URL"] == "redis://redis:6379/0"


def test_redis_keeps_an_append_only_file_and_never_evicts() -> None:
    command = [str(c) for c in SERVICES["redis"]["command"]]
    pairs = dict(zip(command[1::2], command[2::2], strict=True))
    assert command[0] == "redis-server"
    assert pairs["--appendonly"] == "yes"
    assert pairs["--maxmemory-policy"] == "noeviction"


def test_caddy_serves_the_domain_and_forwards_to_every_replica() -> None:
    caddy = SERVICES["caddy"]
    assert {"80:80", "443:443"} <= set(caddy["ports"])
    assert caddy["environment"]["DOMAIN"].startswith("${DOMAIN:?")
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    body = "\n".join(line.split("#")[0] for line in caddyfile.splitlines())
    assert re.search(r"^\{\$DOMAIN\} \{", body, flags=re.MULTILINE), "a site for ${DOMAIN}"
    assert "reverse_proxy" in body and re.search(r"dynamic a \{\s*name bot\s*port 8080", body)
    assert bot_env()["PORT"] == "8080" and "tls internal" not in body


def test_prometheus_scrapes_each_replicas_metrics_port() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    (found,) = job["dns_sd_configs"]
    env = bot_env()
    assert found["names"] == ["bot"] and found["port"] == int(env["METRICS_PORT"])
    assert job.get("metrics_path", "/metrics") == "/metrics"
    settings = Settings.from_env(env)
    assert settings.metrics_host == "0.0.0.0" and settings.metrics_port == found["port"]
    assert "ports" not in SERVICES["bot"], "the metrics are published nowhere"


def test_the_polling_file_runs_one_bot_on_its_redis() -> None:
    polling = yaml.safe_load((DEPLOY / "compose.polling.yaml").read_text())["services"]
    assert polling["bot"]["command"][-1] == "telegram" and "ports" not in polling["bot"]
    command = [str(c) for c in polling["redis"]["command"]]
    assert "noeviction" in command and command[command.index("--appendonly") + 1] == "yes"


def test_env_example_names_every_setting_with_a_comment() -> None:
    source = (REPO / "chatbot" / "settings.py").read_text()
    read = set(re.findall(r'(?:env\.get|env\[|num|positive|flag)\(?\s*"([A-Z_]+)"', source))
    assert {"TELEGRAM_TOKEN", "REDIS_URL", "THINK_WORKERS", "LINE_LIFF_ID"} <= read
    lines = (REPO / ".env.example").read_text().splitlines()
    named = {}
    for i, line in enumerate(lines):
        found = re.match(r"^(?:# )?([A-Z][A-Z0-9_]+)=", line)
        if found:
            named[found[1]] = i
            above = lines[i - 1]
            assert above.startswith("#"), f"{found[1]} has no comment"
    old = {"THINKERS"}  # THINK_WORKERS' older name, still read: named in its comment
    assert "THINKERS" in lines[named["THINK_WORKERS"] - 1]
    missing = read - old - set(named)
    assert not missing, f".env.example does not name {sorted(missing)}"
    assert "DOMAIN" in named, "compose.yaml needs it"
    assert "EGOBOT_LOCALES" in named


def _network_address() -> str | None:
    """This host's address on its network (what another container would connect to)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # no packet is sent: only the route is looked up
        except OSError:
            return None
        address: str = sock.getsockname()[0]
    return None if address.startswith("127.") else address


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.skipif(
    _network_address() is None, reason="this host has no network address besides its loopback"
)
async def test_the_bot_with_the_compose_environment_serves_metrics_to_the_network(
    redis_url: str, tmp_path: Path
) -> None:
    address = _network_address()
    assert address is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "LINE_"))}
    env |= bot_env()
    ops, port = _free_port(), _free_port()
    env |= {"REDIS_URL": redis_url, "METRICS_PORT": str(ops), "PORT": str(port)}
    env |= {"PYTHONPATH": str(REPO), "THINK_WORKERS": "0"}
    async with FakeLine.running() as line:
        env |= {"LINE_CHANNEL_SECRET": SECRET, "LINE_CHANNEL_ACCESS_TOKEN": ACCESS_TOKEN}
        env |= {"LINE_API_BASE_URL": line.base_url}
        log = (tmp_path / "bot.log").open("w+")
        proc = subprocess.Popen(
            [sys.executable, "-m", "chatbot", "web"], env=env, cwd=tmp_path, stderr=log
        )
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        got = await client.get(f"http://{address}:{ops}/metrics")
                        break
                    except httpx.TransportError:
                        assert proc.poll() is None, "the bot stopped"
                        assert time.monotonic() < deadline, "no /metrics on the network"
                        await asyncio.sleep(0.2)
            assert got.status_code == 200 and "egobot_" in got.text
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            log.seek(0)
            said = log.read()
            log.close()
    started = [line for line in said.splitlines() if "games live in" in line]
    assert len(started) == 1, said
    assert f"games live in Redis at {redis_url}" in started[0]
    assert f"/healthz and /metrics on 0.0.0.0:{ops}" in started[0]
