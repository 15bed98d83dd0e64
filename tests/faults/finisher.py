"""A bot process that plays one all-computer game on a real Redis and stops dead at its end:
`python -m tests.faults.finisher URL PREFIX before|after` prints AT-END when the game's end is
about to be committed (`before`: the commit is never sent) or has been (`after`), then waits
to be killed. The wire is hooked (`tests.redis_packets.Wire`), not our code: what Redis got is
exactly what a process killed there would have sent."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from chatbot.core import buttons as b
from chatbot.core.model import Command, Press, User
from chatbot.core.sessions import Sessions
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from tests.conftest import make_service
from tests.redis_packets import Wire

HOST = User("tg:1", "Host", "en")
CHAT = "tg:-100777"


async def main(url: str, prefix: str, when: str) -> None:
    store = RedisStore.from_url(url, prefix)
    committing = store._commit.sha.encode()

    async def stop(*_: Any) -> Any:
        print("AT-END", flush=True)
        await asyncio.Event().wait()

    wire = Wire(committing, before=stop) if when == "before" else Wire(committing, after=stop)
    wire.__enter__()
    service = make_service(store, Settings(bot_delay=0))
    sessions: Sessions = service.sessions
    await service.handle(
        Command(chat=CHAT, private=False, user=HOST, name="newgame", args=sys.argv[4])
    )
    session, _ = await sessions.load(CHAT)
    assert session is not None
    start = b.encode(b.START, stamp=session.stamp)
    await service.handle(Press(chat=CHAT, private=False, user=HOST, data=start, message="1"))
    while True:
        await service.tick()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
