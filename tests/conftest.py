"""Shared fixtures. Store fixtures: a real redis-server per session, stores per test."""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from chatbot import bootstrap
from chatbot.core.registry import Registry
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform
from chatbot.games import registry
from chatbot.settings import Settings
from chatbot.store.base import Store
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram

# The test modules pytest rewrites, and the modules they import, keep their compiled form in
# __pycache__ even where PYTHONDONTWRITEBYTECODE is set: otherwise every run, and each of its
# worker processes, compiles them all again (seconds of processor time each).
sys.dont_write_bytecode = False

bootstrap.prepare()  # as a process starts: PTB's timedelta durations, every test


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway redis-server on a free local port, for the whole session."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not on PATH; install it (apt-get install redis-server)")
    port = _free_port()
    workdir = tmp_path_factory.mktemp("redis")
    log_path = workdir / "redis.log"
    args = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
    args += ["no", "--daemonize", "no", "--dir", str(workdir), "--logfile", str(log_path)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.2)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log = log_path.read_text() if log_path.exists() else ""
                    pytest.fail(f"redis-server on port {port} did not answer PING:\n{log}")
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait(check: Callable[[], bool], proc_ok: Callable[[], bool], what: str, log: Path) -> None:
    """Poll `check` until it holds; fail, with the server log, if a server dies or 20 s pass."""
    deadline = time.monotonic() + 20
    while True:
        try:
            if check():
                return
        except (redis.ConnectionError, redis.BusyLoadingError):
            pass
        if not proc_ok() or time.monotonic() > deadline:
            pytest.fail(f"{what}:\n{log.read_text() if log.exists() else ''}")
        time.sleep(0.05)


def _cluster_port() -> int:
    """A free port whose Cluster bus port (10000 higher) is free too (and below 65536)."""
    while True:
        port = _free_port()
        if port > 55535:
            port = random.randrange(20000, 55535)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


@pytest.fixture(scope="session")
def redis_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A throwaway Redis Cluster for the whole session: three `redis-server --cluster-enabled
    yes` nodes on free local ports (no persistence), joined by `redis-cli --cluster create`
    with no replicas; the URL names the first node."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        pytest.fail("redis-server and redis-cli must be on PATH (apt-get install redis-server)")
    procs: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    while len(ports) < 3:  # three different ports (a port freed is often handed out again)
        if (port := _cluster_port()) not in ports:
            ports.append(port)
    workdir = tmp_path_factory.mktemp("cluster")
    clients = [redis.Redis(host="127.0.0.1", port=p, socket_connect_timeout=0.2) for p in ports]
    try:
        for port in ports:
            node = workdir / str(port)
            node.mkdir()
            args = [server, "--port", str(port), "--bind", "127.0.0.1", "--daemonize", "no"]
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(node / "nodes.conf")]
            args += ["--appendonly", "no", "--save", "", "--dir", str(node)]
            args += ["--logfile", str(node / "redis.log")]
            procs.append(
                subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            )
        alive = lambda: all(p.poll() is None for p in procs)  # noqa: E731
        for client, port in zip(clients, ports, strict=True):
            log = workdir / str(port) / "redis.log"
            _wait(client.ping, alive, f"cluster node {port} did not answer PING", log)
        create = [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports)]
        create += ["--cluster-replicas", "0", "--cluster-yes"]
        done = subprocess.run(create, capture_output=True, timeout=60, check=False)
        if done.returncode != 0:
            pytest.fail(f"redis-cli --cluster create failed:\n{done.stdout!r}\n{done.stderr!r}")

        def ok() -> bool:
            return all(c.cluster("INFO").get("cluster_state") == "ok" for c in clients)

        _wait(ok, alive, "the cluster did not reach cluster_state:ok", workdir / "none")
        yield f"redis://127.0.0.1:{ports[0]}"
    finally:
        for client in clients:
            client.close()
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix no other test uses."""
    return f"test:{uuid.uuid4().hex}:"


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A raw asyncio client on the test server, for inspecting what a store wrote."""
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def redis_store(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    """A RedisStore on the test server under this test's own prefix."""
    store = RedisStore.from_url(redis_url, redis_prefix)
    yield store
    await store.close()


@pytest.fixture
def memory_store() -> MemoryStore:
    """A fresh in-process store."""
    return MemoryStore()


def make_service(
    store: Store | None = None,
    settings: Settings | None = None,
    games: Registry | None = None,
    platform: Platform | None = None,
) -> GameService:
    """A game service on `store` (default: a fresh MemoryStore) with the real games."""
    return bootstrap.service(
        store or MemoryStore(), settings or Settings(), games or registry(), platform or Platform()
    )


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    """The local fake Telegram Bot API server."""
    async with FakeTelegram.running() as fake:
        yield fake
