"""Message budgets shared by every process: places reserved in the store, on one clock.

A platform that limits how fast a bot may send (messages a second over all chats, a minute in
one group) is one budget for every process behind the same bot: each place is reserved in the
store in one atomic step (`chatbot/store/lua/reserve.lua`), so N processes together keep the
limit that one process keeps. Sessions make it (`Sessions.budgets`); the adapters use it.
"""

from __future__ import annotations

from collections.abc import Callable

from chatbot.core import keys
from chatbot.store.base import Pace, Place, Store


class Budgets:
    """Reserve places in named budgets (e.g. a bot's overall rate, one of its groups)."""

    def __init__(self, store: Store, clock: Callable[[], float], process: str) -> None:
        self._store = store
        self.clock = clock  # the clock every process shares (the store's)
        self.process = process

    async def reserve(
        self, name: str, pace: Pace, earliest: float = 0.0, counted: bool = False
    ) -> Place:
        """The first place in budget `name` at or after `earliest` seconds from now;
        `counted`: this process is counted among the budget's users (`Place.processes`).
        StoreUnavailable when the store cannot be reached."""
        who = self.process if counted else ""
        return await self._store.reserve(keys.budget(name), pace, self.clock(), earliest, who)

    async def pause(self, name: str, seconds: float) -> None:
        """No place in budget `name` for `seconds` from now (the platform asked to wait)."""
        await self._store.pause(keys.budget(name), self.clock() + seconds)

    async def last_reply(self, name: str) -> float | None:
        """When the last reply counted in budget `name` went (the shared clock; None: none
        kept). StoreUnavailable when the store cannot be reached."""
        at = await self._store.get_setting(keys.budget(name), "replied")
        return None if at is None else float(at)

    async def replying(self, name: str, keep: int) -> None:
        """A reply counted in budget `name` goes now (kept `keep` seconds)."""
        await self._store.set_setting(keys.budget(name), "replied", f"{self.clock():.3f}", keep)
