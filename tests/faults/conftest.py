"""A redis-server of the test's own, to stop, freeze and restart on the same port."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.conftest import _free_port


class RedisProcess:
    """One redis-server with an append-only file synced at every write, so that a kill and a
    restart on the same port keep every acknowledged write."""

    def __init__(self, workdir: Path) -> None:
        server = shutil.which("redis-server")
        if server is None:
            pytest.fail("redis-server is not on PATH; install it (apt-get install redis-server)")
        self.server = server
        self.port = _free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server (again) on its port and wait until it answers PING."""
        args = [self.server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no"]
        args += ["--dir", str(self.workdir), "--logfile", str(self.workdir / "redis.log")]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        try:
            while True:
                try:
                    client.ping()
                    return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        pytest.fail(f"redis-server on port {self.port} did not start")
                    time.sleep(0.02)
        finally:
            client.close()

    def kill(self) -> None:
        """SIGKILL: every connection is cut, new ones are refused."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def freeze(self) -> None:
        """SIGSTOP: connections stay open and connects succeed, but nothing is answered."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server for this test only."""
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None:
            server.thaw()
            server.kill()
