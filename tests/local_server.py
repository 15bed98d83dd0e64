"""An ASGI app served by real uvicorn on 127.0.0.1, as a task of the running event loop: the
fake Bot API server and the fake LINE server run this way inside a test or a benchmark."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Iterator
from typing import Any

import uvicorn


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # leave Ctrl-C to pytest
        yield

    async def main_loop(self) -> None:
        """uvicorn's loop (its date header renewed every second), ended by `stop` at once
        rather than at its next look a tenth of a second later."""
        self.stopped = asyncio.Event()
        counter = 0
        while not await self.on_tick(counter):
            counter += 10  # (uvicorn renews the date header on every tenth tick)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), 1.0)


class LocalServer:
    """Serves `app` on a free port of 127.0.0.1 (`port` once started); `options` go to
    uvicorn's Config."""

    def __init__(self, app: Any, name: str, **options: Any) -> None:
        self.app, self.name, self.options = app, name, options
        self.port = 0
        self._server: _Server | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None

    async def start(self) -> int:
        """Listen, and return once uvicorn serves (RuntimeError when it does not in 10 s)."""
        if self._task is not None:
            raise RuntimeError(f"{self.name} is already running")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        # Accepted connections inherit TCP_NODELAY: without it, a response written in two
        # parts waits for the client's delayed ACK (about 40 ms a request).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        options: dict[str, Any] = {
            "http": "h11",
            "lifespan": "off",
            "log_level": "warning",
            "access_log": False,
        }
        config = uvicorn.Config(
            self.app, host="127.0.0.1", port=self.port, **options | self.options
        )
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name=self.name)
        deadline = time.monotonic() + 10
        while not self._server.started:
            if self._task.done() or time.monotonic() > deadline:
                await self.stop()
                raise RuntimeError(f"{self.name} did not start")
            await asyncio.sleep(0.01)
        return self.port

    async def stop(self) -> None:
        """Shut the server down and wait for it (at most 10 s)."""
        if self._task is None or self._server is None:
            return
        self._server.should_exit = True
        if hasattr(self._server, "stopped"):  # (its main loop has begun)
            self._server.stopped.set()
        task, self._task, self._server = self._task, None, None
        await asyncio.wait_for(task, timeout=10)
