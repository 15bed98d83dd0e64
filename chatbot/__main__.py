"""Command line: `python -m chatbot` runs the Telegram bot when TELEGRAM_TOKEN is set, else a
terminal game against computer players; `console` and `telegram` choose explicitly."""

from __future__ import annotations

import argparse
import logging
import sys

from chatbot.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chatbot", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    console = sub.add_parser("console", help="play in this terminal against computer players")
    console.add_argument("game", nargs="?", default="egonomy")
    console.add_argument("--players", type=int, default=3)
    console.add_argument("--flip", action="store_true", help="flip-table mode")
    console.add_argument("--seed", type=int, default=None)
    console.add_argument("--lang", default=None, help="th, ja or en")
    console.add_argument("--watch", action="store_true", help="computers only: watch a game")
    sub.add_parser("telegram", help="run the Telegram bot (long polling; needs TELEGRAM_TOKEN)")
    sub.add_parser("line", help="serve LINE webhooks (needs LINE_CHANNEL_SECRET and _ACCESS_TOKEN)")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    command = args.command or ("telegram" if settings.telegram_token else "console")
    if command == "telegram":
        return run_telegram(settings)
    if command == "line":
        return run_line(settings)
    from chatbot.console.play import play

    return play(
        game=getattr(args, "game", "egonomy"),
        players=getattr(args, "players", 3),
        flip=getattr(args, "flip", False),
        seed=getattr(args, "seed", None),
        watch=getattr(args, "watch", False),
        lang=getattr(args, "lang", None),
    )


def run_telegram(settings: Settings) -> int:
    from chatbot.games import registry
    from chatbot.store.memory import MemoryStore
    from chatbot.store.redis import RedisStore
    from chatbot.telegram.bot import TelegramBot

    if not settings.telegram_token:
        print("TELEGRAM_TOKEN is not set", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    store = RedisStore.from_url(settings.redis_url) if settings.redis_url else MemoryStore()
    TelegramBot(settings, store, registry()).run_polling()
    return 0


def run_line(settings: Settings) -> int:
    import uvicorn

    from chatbot.games import registry
    from chatbot.line.bot import LineBot
    from chatbot.store.memory import MemoryStore
    from chatbot.store.redis import RedisStore
    from chatbot.web import app

    if not settings.line_channel_secret or not settings.line_channel_access_token:
        print("LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN must be set", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    store = RedisStore.from_url(settings.redis_url) if settings.redis_url else MemoryStore()
    bot = LineBot(settings, store, registry())
    uvicorn.run(app(bot), host=settings.host, port=settings.port, proxy_headers=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
