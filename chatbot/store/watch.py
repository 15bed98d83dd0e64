"""Word of changed documents, for pages that show them live: every write of a document is
announced (a Redis PUBLISH in the same script, on the document's own Redis key as channel), and
each process hands what it hears to the watchers it holds (`Watchers`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

QUEUED = 16  # announcements a slow watcher may hold before older ones go (only the last counts)


class Watchers:
    """This process's watchers of documents, by channel: each gets the new version (0: gone)
    of every announced write; a watcher that falls behind keeps the newest."""

    def __init__(self) -> None:
        self._queues: dict[str, set[asyncio.Queue[int]]] = {}

    @property
    def channels(self) -> list[str]:
        return list(self._queues)

    def tell(self, channel: str, version: int) -> None:
        for queue in self._queues.get(channel, ()):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(version)

    def add(self, channel: str) -> tuple[asyncio.Queue[int], bool]:
        """A new watcher's queue, and whether it is the channel's first."""
        queue: asyncio.Queue[int] = asyncio.Queue(QUEUED)
        first = channel not in self._queues
        self._queues.setdefault(channel, set()).add(queue)
        return queue, first

    def drop(self, channel: str, queue: asyncio.Queue[int]) -> bool:
        """Forget a watcher; whether the channel has none left."""
        held = self._queues.get(channel)
        if held is None:
            return False
        held.discard(queue)
        if held:
            return False
        del self._queues[channel]
        return True

    @asynccontextmanager
    async def local(self, channel: str) -> AsyncIterator[asyncio.Queue[int]]:
        """A watcher of a channel announced in this process only."""
        queue, _ = self.add(channel)
        try:
            yield queue
        finally:
            self.drop(channel, queue)
