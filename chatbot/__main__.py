"""Command line: `python -m chatbot` runs the Telegram bot when TELEGRAM_TOKEN is set, else a
terminal game against computer players; `console`, `telegram` and `health` choose explicitly."""

from __future__ import annotations

import argparse
import asyncio
import html
import logging
import os
import re
import sys
from collections.abc import Callable
from typing import Any

from chatbot.core.registry import Registry
from chatbot.settings import Settings, masked_token
from engine.core import IllegalAction, OptionSpec, OptionValue

log = logging.getLogger("chatbot")

DEFAULT_PLAYERS = 3
WATCH_PACE = 1.5  # seconds between moves when watching (--fast: none)
STOP_GRACE = 3  # seconds open webhook requests get to finish at a stop


def _flag(option: OptionSpec) -> str:
    return "--" + option.name.replace("_", "-")


def _dest(option: OptionSpec) -> str:
    return "option_" + option.name


def program_name(argv0: str) -> str:
    """The name the program was started by: `egobot`, or `python -m chatbot`."""
    name = os.path.basename(argv0)
    return "python -m chatbot" if name in ("__main__.py", "") else name


def _default_text(option: OptionSpec, games: Registry) -> str:
    """ "default: on", or each game's own default where the games differ."""

    def shown(o: OptionSpec) -> str:
        if o.yes_no:
            return "on" if o.default else "off"
        return str(int(o.default))

    specs = [(g.name, o) for g in games for o in g.game.spec.options if o.name == option.name]
    defaults = {shown(o) for _, o in specs}
    if len(defaults) == 1:
        return f"default: {defaults.pop()}"
    return "default: " + ", ".join(f"{name} {shown(o)}" for name, o in specs)


def _needs_text(option: OptionSpec) -> str:
    """ "; needs --decks 2" for an option played only with another's value."""
    if option.needs is None:
        return ""
    other, value = option.needs
    return f"; needs --{other.replace('_', '-')} {int(value)}"


def build_parser(games: Registry, prog: str = "python -m chatbot") -> argparse.ArgumentParser:
    """The command line; the console's option flags come from the games' own options."""
    from chatbot.i18n import available_locales, translator

    en = translator("en")
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    sub = parser.add_subparsers(dest="command")
    console = sub.add_parser(
        "console",
        help="play in this terminal against computer players",
        description="Play a game in this terminal against computer players. At any prompt, "
        "type help (or ? or rules) for the rules; Ctrl-C or Ctrl-D ends the game.",
    )
    console.add_argument(
        "game",
        nargs="?",
        default=games.default.name,
        choices=games.names,
        help="the game to play (default: %(default)s)",
    )
    ranges = ", ".join(
        f"{g.name} {g.game.spec.min_players}–{g.game.spec.max_players}" for g in games
    )
    console.add_argument(
        "--players",
        type=int,
        default=None,
        help=f"seats, yours included, the others computer players ({ranges}; "
        f"default: {DEFAULT_PLAYERS} where the game allows)",
    )
    added: set[str] = set()
    for bundle in games:
        for option in bundle.game.spec.options:
            users = [g.name for g in games if option.name in {o.name for o in g.game.spec.options}]
            label = f"{bundle.presenter.option_label(option.name, en)} ({', '.join(users)}"
            if option.name in added:
                continue
            added.add(option.name)
            default = _default_text(option, games) + _needs_text(option)
            if option.yes_no:
                console.add_argument(  # --jokers and --no-jokers
                    _flag(option),
                    dest=_dest(option),
                    action=argparse.BooleanOptionalAction,
                    default=None,
                    help=f"{label}; {default})",
                )
            else:
                console.add_argument(
                    _flag(option),
                    dest=_dest(option),
                    type=int,
                    choices=[int(c) for c in option.choices],
                    default=None,
                    help=f"{label}; {default})",
                )
    console.add_argument(
        "--seed", type=int, default=None, help="deal the same cards again (default: random)"
    )
    console.add_argument(
        "--lang",
        default=None,
        help=f"language: {', '.join(available_locales())} (default: en)",
    )
    console.add_argument(
        "--watch",
        action="store_true",
        help="computers in every seat: watch a game (default: you play)",
    )
    console.add_argument(
        "--fast",
        action="store_true",
        help=f"with --watch: every move at once (default: one every {WATCH_PACE:g} s)",
    )
    check = sub.add_parser(
        "verify", help="check a finished game's deal: its key (from the results) against its lock"
    )
    check.add_argument("key", help="the deal's key, shown with the game's results")
    check.add_argument("lock", help="the deal's lock, shown when the game began")
    check.add_argument("--lang", default=None, help="language of the replayed deal (default: en)")
    replay = sub.add_parser(
        "replay", help="play a finished game's record back (the code from its 📜 Record)"
    )
    replay.add_argument("record", help="the record's code, or a file holding it")
    replay.add_argument("--lang", default=None, help="language (default: en)")
    replay.add_argument("--pace", type=float, default=0.5, help="seconds between moves")
    sub.add_parser("telegram", help="run the Telegram bot (long polling; needs TELEGRAM_TOKEN)")
    sub.add_parser("web", help="serve webhooks: LINE, and Telegram with TELEGRAM_WEBHOOK_URL")
    sub.add_parser("line", help="the same as web")
    sub.add_parser("health", help="exit 0 when the store (Redis at REDIS_URL) answers, else 1")
    return parser


def console_choices(
    parser: argparse.ArgumentParser, games: Registry, args: argparse.Namespace
) -> tuple[int, dict[str, OptionValue]]:
    """The number of players and the options of the chosen game; parser errors otherwise."""
    spec = games[args.game].game.spec
    players = args.players
    if players is None:
        players = min(max(DEFAULT_PLAYERS, spec.min_players), spec.max_players)
    elif not spec.min_players <= players <= spec.max_players:
        parser.error(
            f"--players: {spec.name} takes {spec.min_players} to {spec.max_players} players"
        )
    own = {o.name for o in spec.options}
    options: dict[str, OptionValue] = {}
    for bundle in games:
        for option in bundle.game.spec.options:
            value = getattr(args, _dest(option), None)
            if value is None:
                continue
            if option.name not in own:
                parser.error(f"{_flag(option)}: {spec.name} has no such option")
            options[option.name] = value
    from chatbot.console.play import plain
    from chatbot.core.views import option_needs
    from chatbot.i18n import negotiate, translator

    try:
        spec.resolve_options(options)
    except IllegalAction as refused:  # an option that needs another (jump-in: two decks)
        if refused.code != "option_needs":
            raise
        tr = translator(negotiate(args.lang))
        reason = option_needs(games[args.game], str(refused.params["option"]), tr)
        parser.error(plain(reason))
    return players, options


def console_language(parser: argparse.ArgumentParser, lang: str | None) -> None:
    """A parser error for a --lang with no catalogue, naming the languages there are."""
    from chatbot.i18n import available_locales, negotiate

    def base(code: str) -> str:
        return code.strip().replace("_", "-").lower().split("-", 1)[0]

    if lang is not None and base(negotiate(lang)) != base(lang):
        languages = ", ".join(available_locales())
        parser.error(f"--lang {lang}: not available; the languages are {languages}")


def main(argv: list[str] | None = None) -> int:
    from chatbot.bootstrap import prepare
    from chatbot.games import registry

    prepare()
    games = registry()
    parser = build_parser(games, program_name(sys.argv[0]))
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    command = args.command or ("telegram" if settings.telegram.token else "console")
    if command == "telegram":
        return run_telegram(settings, games)
    if command in ("web", "line"):
        return run_web(settings, games)
    if command == "health":
        return health(settings)
    if command == "verify":
        return verify_deal(games, args.key, args.lock, args.lang)
    if command == "replay":
        return replay_record(games, args.record, args.lang, args.pace)
    if args.command is None:  # no arguments: the console's defaults
        args = parser.parse_args(["console"])
    console_language(parser, args.lang)
    players, options = console_choices(parser, games, args)
    from chatbot.console.play import play

    return play(
        game=args.game,
        players=players,
        options=options,
        seed=args.seed,
        watch=args.watch,
        lang=args.lang,
        games=games,
        pace=0.0 if args.fast else WATCH_PACE,
    )


def run_telegram(settings: Settings, games: Registry) -> int:
    """Run the bot until stopped; one line on stderr for what keeps it from starting."""
    if not settings.telegram.token:
        print(
            "TELEGRAM_TOKEN is not set: give the bot's token from @BotFather "
            "(e.g. docker run -e TELEGRAM_TOKEN=123:abc ...)",
            file=sys.stderr,
        )
        return 2
    from telegram.error import InvalidToken

    from chatbot.bootstrap import (
        open_store,
        settled,
        startup_line,
        telegram_bot,
        thinking_pool,
    )

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    try:
        bot = telegram_bot(settings, open_store(settings), games)
        settled()
        # once the token was taken: a refused one stays a one-line error
        bot.run_polling(lambda: log.info("%s", startup_line(settings, polling=True)))
    except InvalidToken:
        print(_refused(settings), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        thinking_pool(settings.think_workers).shutdown()  # every thinking process ends with the bot
    return 0


def _refused(settings: Settings) -> str:
    """The one line for a token Telegram refused (its secret part never shown)."""
    token = masked_token(settings.telegram.token or "")
    return f"Telegram refused TELEGRAM_TOKEN ({token}): copy the token again from @BotFather"


def verify_deal(games: Registry, key: str, lock: str, lang: str | None) -> int:
    """Print whether `key` opens `lock` and the deal it names; 0 when it does, else 1."""
    from chatbot.core.verify import verify
    from chatbot.i18n import negotiate, translator

    ok, text = verify(games, key, lock, translator(negotiate(lang)))
    print(plain(text))
    return 0 if ok else 1


def replay_record(games: Registry, given: str, lang: str | None, pace: float) -> int:
    """Print a record's game move by move, `pace` seconds apart; 1 for an unreadable one."""
    import time
    from pathlib import Path

    from chatbot.core.record import BadRecord, Record, lines
    from chatbot.i18n import negotiate, translator

    path = Path(given)
    text = path.read_text(encoding="utf-8") if len(given) < 256 and path.is_file() else given
    try:
        told = lines(Record.from_code(text), games, translator(negotiate(lang)))
    except BadRecord as exc:
        print(f"not a record: {exc}", file=sys.stderr)
        return 1
    for line in told:
        print(plain(line), flush=True)
        if pace > 0:
            time.sleep(pace)
    return 0


def plain(text: str) -> str:
    """Chat markup as terminal text."""
    return html.unescape(re.sub(r"<[^>]*>", "", text))


def health(settings: Settings) -> int:
    """0 when the store answers the probe /healthz reads (Redis at REDIS_URL; the in-process
    store always does)."""
    if not settings.redis_url:
        print("ok: in-process store")
        return 0
    from chatbot.bootstrap import probe
    from chatbot.store.base import StoreUnavailable

    try:
        asyncio.run(probe(settings))
    except (StoreUnavailable, ValueError) as exc:
        print(f"Redis at REDIS_URL does not answer: {exc.__cause__ or exc}", file=sys.stderr)
        return 1
    print("ok: Redis answers")
    return 0


def run_web(settings: Settings, games: Registry) -> int:
    """The webhook server for every platform configured: LINE (LINE_CHANNEL_SECRET and
    LINE_CHANNEL_ACCESS_TOKEN), Telegram (TELEGRAM_TOKEN and TELEGRAM_WEBHOOK_URL)."""
    serve_line = bool(settings.line.channel_secret and settings.line.channel_access_token)
    serve_telegram = bool(settings.telegram.token and settings.telegram.webhook_url)
    if not serve_line and not serve_telegram:
        print(
            "nothing to serve: set LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN, or "
            "TELEGRAM_TOKEN and TELEGRAM_WEBHOOK_URL",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    from chatbot.bootstrap import thinking_pool

    try:
        with asyncio.Runner(loop_factory=fast_loop()) as runner:
            return runner.run(serve(settings, games))
    except OSError as exc:  # a port taken, an address not of this host
        print(f"cannot listen: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        thinking_pool(
            settings.think_workers
        ).shutdown()  # every thinking process ends with the server


def fast_loop() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed (not on Windows), else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def serve(settings: Settings, games: Registry) -> int:
    """Serve the webhooks on HOST:PORT and /healthz, /metrics on METRICS_HOST:METRICS_PORT,
    one server (one lifespan, one signal handler) on two sockets; until SIGTERM or SIGINT.
    The bots' HTTP clients belong to this event loop."""
    import socket

    import uvicorn
    from telegram.error import InvalidToken

    from chatbot.bootstrap import settled, startup_line, web_app
    from chatbot.telegram.bot import TelegramBot
    from chatbot.web import header_timeout, ops_app

    webhooks = web_app(settings, games)
    for adapter in webhooks.state.adapters:
        if isinstance(adapter, TelegramBot):
            try:  # a refused token: one line, not the server's traceback of a failed start
                await adapter.reach()
            except InvalidToken:
                print(_refused(settings), file=sys.stderr)
                return 2
    sockets = []
    for host, port in (
        (settings.host, settings.port),
        (settings.metrics_host, settings.metrics_port),
    ):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sockets.append(sock)
    ops = ops_app(webhooks)
    ops_port = sockets[1].getsockname()[1]
    log.info("%s", startup_line(settings))

    async def both(scope: Any, receive: Any, send: Any) -> None:
        """The ops routes on the ops socket only, the webhooks on the public one only."""
        server = scope.get("server") or (None, None)
        target = ops if scope["type"] != "lifespan" and server[1] == ops_port else webhooks
        await target(scope, receive, send)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            """As uvicorn's, but the signal is not raised again once the server stopped:
            the process ends by itself (its thinking processes ended first), status 0."""
            super().handle_exit(sig, frame)
            self._captured_signals.clear()

    config = uvicorn.Config(  # httptools' parser when installed, else h11
        both,
        http=header_timeout(settings.header_timeout),
        proxy_headers=True,
        timeout_graceful_shutdown=STOP_GRACE,
        access_log=settings.access_log,
    )
    settled()
    await Server(config).serve(sockets=sockets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
