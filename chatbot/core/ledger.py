"""The ledger's writer: what this process delivered, recorded in one store write a second.

Delivered changes, new hand message ids and handled updates are recorded every LEDGER_EVERY
seconds in one write (docs/delivery.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from chatbot.core.sessions import Sessions

log = logging.getLogger(__name__)
# Seconds a delivered change, or a new hand message's id, waits to be recorded with the others
# (far below OWED_GRACE: only a process that dies within this time after delivering has its last
# changes sent again; until then another process bares the hand's previous message).
LEDGER_EVERY = 1.0


class Ledger:
    """What one process delivered and has yet to record: one store write for many presses."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions
        self._delivered: dict[str, int] = {}  # chat -> its last delivered change, unrecorded
        self._hands: dict[tuple[str, str], str] = {}  # (chat, hand slot) -> new id, unrecorded
        self._task: asyncio.Task[None] | None = None  # waits LEDGER_EVERY, then records
        self._writing: set[asyncio.Task[None]] = set()  # deliveries being recorded

    def delivered(self, chat: str, change: int) -> None:
        """Every message of `chat`'s change `change` went out: recorded within LEDGER_EVERY."""
        self._delivered[chat] = max(change, self._delivered.get(chat, 0))
        self.write_soon()

    def hand(self, key: tuple[str, str], message: str) -> None:
        """A new hand message (`key`: chat, hand slot): its id, recorded within LEDGER_EVERY."""
        self._hands[key] = message
        self.write_soon()

    def forget_hand(self, key: tuple[str, str]) -> None:
        """The hand's message lost its buttons: its id, not yet recorded, need not be."""
        self._hands.pop(key, None)

    def write_soon(self) -> None:
        """Write the ledger within LEDGER_EVERY seconds (with whatever joins it meanwhile)."""
        if self._task is None:
            self._task = asyncio.create_task(self._write_later())

    async def _write_later(self) -> None:
        await asyncio.sleep(LEDGER_EVERY)
        self._task = None  # deliveries from now on wait for the next write
        task = asyncio.current_task()
        assert task is not None
        self._writing.add(task)
        try:
            await self._write()
        finally:
            self._writing.discard(task)

    async def _write(self) -> None:
        changes, self._delivered = self._delivered, {}
        hands, self._hands = self._hands, {}
        seen = self.sessions.dedupe.marks()
        if not changes and not hands and not seen:
            return
        try:
            await self.sessions.liveness.write_ledger(changes, hands, seen)
        except Exception as exc:  # another process may deliver them again, or not bare a hand
            count = len(changes) + len(hands) + len(seen)
            log.warning("could not record %d deliveries: %r", count, exc)

    async def write_now(self) -> None:
        """Record the deliveries waiting for the next write now."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._write()

    async def written(self) -> None:
        """Wait until the writes under way have ended."""
        while self._writing:
            await asyncio.gather(*self._writing, return_exceptions=True)
