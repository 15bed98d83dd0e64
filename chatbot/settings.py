"""Configuration, read from the environment once at start-up into a frozen dataclass."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit


def bot_api_root(url: str) -> str:
    """A self-hosted Bot API server's root URL (`http://host:8081`, no trailing slash); a
    ValueError saying what is wrong for anything else (a `/bot` path, no scheme or host)."""
    parts = urlsplit(url.strip())
    hint = "TELEGRAM_BASE_URL must be a Bot API server's root such as http://localhost:8081"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{hint}, with http:// or https:// and a host (got {url!r})")
    if parts.query or parts.fragment or re.search(r"/(file/)?bot[^/]*/?$", parts.path):
        raise ValueError(f"{hint}: leave out /bot, the token and any query (got {url!r})")
    return url.strip().rstrip("/")


def redis_url(url: str) -> str:
    """A Redis URL the client can use (redis://, rediss:// or unix://); a ValueError that
    shows it without its password for anything else."""
    url = url.strip()
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 (a port that is not a number raises)
    except ValueError:
        parts = parts._replace(scheme="")
    if parts.scheme not in ("redis", "rediss", "unix") or (
        parts.scheme != "unix" and not parts.hostname
    ):
        raise ValueError(
            f"REDIS_URL must be a URL such as redis://localhost:6379/0 (got {masked_url(url)!r})"
        )
    return url


def masked_url(url: str) -> str:
    """`url` with any password in it replaced by ***."""
    return re.sub(r"(//[^/@]*?:)[^/@]*@", r"\1***@", url)


def masked_token(token: str) -> str:
    """A bot token as it may be shown: the bot's number, never the secret part."""
    bot, colon, _ = token.partition(":")
    return f"{bot}:…" if colon and bot.isdigit() else "…"


@dataclass(frozen=True)
class TelegramSettings:
    """The Telegram adapter's settings (TELEGRAM_*, and the Bot API's flood limits)."""

    token: str | None = None
    base_url: str | None = None  # a self-hosted Bot API server's root URL
    webhook_url: str | None = None  # public https URL of /telegram/webhook (else polling)
    webhook_secret: str | None = None  # Telegram sends it back in a header: checked
    webapp_name: str | None = None  # the game page's Mini App short name (None: hands in chat)
    webapp_max_age: float = 86400.0  # seconds a Mini App's init data is trusted after its auth_date
    webapp_sdk_url: str = "https://telegram.org/js/telegram-web-app.js"
    group_rate: float = 20.0  # Telegram's limit: messages (and edits) a minute in one group
    overall_rate: float = 30.0  # Telegram's limit: requests a second over all chats


@dataclass(frozen=True)
class LineSettings:
    """The LINE adapter's settings (LINE_*)."""

    channel_secret: str | None = None  # checks the signatures of LINE webhooks
    channel_access_token: str | None = None
    api_base_url: str | None = None  # a LINE Messaging API server other than LINE's
    answer_within: float = 0.8  # seconds a LINE webhook waits for its events' handling
    reply_within: float = 50.0  # seconds after its event a reply token is used (LINE: ~1 min)
    liff_id: str | None = None  # the hand page's LIFF app (None: hands in the 1:1 chat)
    login_channel_id: str | None = None  # the LINE Login channel that ID tokens are for
    liff_sdk_url: str = "https://static.line-scdn.net/liff/edge/2/sdk.js"
    reminders: bool = False  # an idle player's reminder is pushed to them on LINE
    liff_verify_per_minute: float = 10.0  # ID token checks with LINE a client may cause a minute


@dataclass(frozen=True)
class Settings:
    """Everything read from the environment, once: the core's settings, and each platform's
    in a group of its own (`telegram`, `line`)."""

    telegram: TelegramSettings = TelegramSettings()
    line: LineSettings = LineSettings()
    redis_url: str | None = None  # None: in-process store
    redis_cluster: bool = False  # REDIS_URL names a node of a Redis Cluster
    host: str = "0.0.0.0"  # where the webhook server listens
    port: int = 8080
    metrics_host: str = "127.0.0.1"  # where /healthz and /metrics are served (not public)
    metrics_port: int = 9180
    max_body: int = 1_000_000  # bytes of a webhook request's body read at most (then 413)
    access_log: bool = False  # the webhook server logs a line per request
    header_timeout: float = 10.0  # seconds a request's headers may take to arrive (then closed)
    bot_delay: float = 1.5  # seconds before a computer player moves
    remind_after: float = 120.0  # seconds before an idle player is reminded
    takeover_after: float = 60.0  # seconds after the reminder before a computer plays for them
    idle_ttl: int = 2 * 24 * 3600  # seconds an untouched session is kept
    table_interval: float = 3.0  # at most one table edit per group this often (seconds)
    history_keep: int = 20  # finished games remembered per chat
    open_tables: int = 3  # tables one person may hold open (not yet started) at once
    tick: float = 0.5  # how often deadlines are checked (seconds)
    think_workers: int = max(
        1, (os.cpu_count() or 2) - 1
    )  # computer players' processes (0: a thread)
    think_budget: float = 0.1  # seconds a computer player may think about one move
    think_playouts: int = 120  # at most this many simulated continuations a move
    think_timeout: float = 10.0  # seconds before a move's thinking is abandoned (its fallback)
    redis_timeout: float = 2.0  # seconds a Redis command may take before the store is "down"
    redis_connect_timeout: float = 2.0  # seconds to open a connection to Redis
    redis_retries: int = 2  # new connections tried after a refused or broken one
    redis_health_check: float = 30.0  # a connection idle this long is checked (0: never)
    redis_pool_size: int = 64  # connections to Redis at most; a command waits for a free one

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings in `env` (default: the process environment); ValueError names a
        variable that cannot be right."""
        env = os.environ if env is None else env

        def num(name: str, default: float) -> float:
            try:
                return float(env[name]) if env.get(name) else default
            except ValueError:
                raise ValueError(f"{name} must be a number (got {env[name]!r})") from None

        def positive(name: str, default: float) -> float:
            value = num(name, default)
            if not value > 0:
                raise ValueError(f"{name} must be more than 0 (got {env[name]!r})")
            return value

        def flag(name: str) -> bool:
            value = env.get(name, "").strip().lower()
            if value in ("", "0", "no", "false", "off"):
                return False
            if value in ("1", "yes", "true", "on"):
                return True
            raise ValueError(f"{name} must be 1 or 0 (got {env[name]!r})")

        base_url = env.get("TELEGRAM_BASE_URL") or None
        store_url = env.get("REDIS_URL") or None
        port, metrics_port = int(num("PORT", cls.port)), int(num("METRICS_PORT", cls.metrics_port))
        if port == metrics_port:
            raise ValueError(f"METRICS_PORT must differ from PORT (both {port})")

        d, tg, ln = cls(), TelegramSettings(), LineSettings()
        telegram = TelegramSettings(
            token=env.get("TELEGRAM_TOKEN") or None,
            base_url=bot_api_root(base_url) if base_url else None,
            webhook_url=env.get("TELEGRAM_WEBHOOK_URL") or None,
            webhook_secret=env.get("TELEGRAM_WEBHOOK_SECRET") or None,
            webapp_name=env.get("TELEGRAM_WEBAPP_NAME") or None,
            webapp_max_age=num("TELEGRAM_WEBAPP_MAX_AGE", tg.webapp_max_age),
            webapp_sdk_url=env.get("TELEGRAM_WEBAPP_SDK_URL") or tg.webapp_sdk_url,
            group_rate=num("GROUP_RATE", tg.group_rate),
            overall_rate=num("OVERALL_RATE", tg.overall_rate),
        )
        line = LineSettings(
            channel_secret=env.get("LINE_CHANNEL_SECRET") or None,
            channel_access_token=env.get("LINE_CHANNEL_ACCESS_TOKEN") or None,
            api_base_url=env.get("LINE_API_BASE_URL") or None,
            answer_within=num("LINE_ANSWER_WITHIN", ln.answer_within),
            reply_within=positive("LINE_REPLY_WITHIN", ln.reply_within),
            liff_id=env.get("LINE_LIFF_ID") or None,
            login_channel_id=env.get("LINE_LOGIN_CHANNEL_ID") or None,
            liff_sdk_url=env.get("LINE_LIFF_SDK_URL") or ln.liff_sdk_url,
            reminders=flag("LINE_REMINDERS"),
            liff_verify_per_minute=positive(
                "LINE_LIFF_VERIFY_PER_MINUTE", ln.liff_verify_per_minute
            ),
        )
        return cls(
            telegram=telegram,
            line=line,
            redis_url=redis_url(store_url) if store_url else None,
            redis_cluster=flag("REDIS_CLUSTER"),
            host=env.get("HOST") or d.host,
            port=port,
            metrics_host=env.get("METRICS_HOST") or d.metrics_host,
            metrics_port=metrics_port,
            max_body=int(positive("MAX_BODY", d.max_body)),
            access_log=flag("ACCESS_LOG"),
            header_timeout=positive("HEADER_TIMEOUT", d.header_timeout),
            bot_delay=num("BOT_DELAY", d.bot_delay),
            remind_after=num("REMIND_AFTER", d.remind_after),
            takeover_after=num("TAKEOVER_AFTER", d.takeover_after),
            idle_ttl=int(num("IDLE_TTL", d.idle_ttl)),
            table_interval=num("TABLE_INTERVAL", d.table_interval),
            history_keep=int(num("HISTORY_KEEP", d.history_keep)),
            open_tables=int(positive("OPEN_TABLES", d.open_tables)),
            tick=num("TICK", d.tick),
            think_workers=int(num("THINK_WORKERS", num("THINKERS", d.think_workers))),
            think_budget=positive("THINK_BUDGET", d.think_budget),
            think_playouts=int(positive("THINK_PLAYOUTS", d.think_playouts)),
            think_timeout=positive("THINK_TIMEOUT", d.think_timeout),
            redis_timeout=num("REDIS_TIMEOUT", d.redis_timeout),
            redis_connect_timeout=num("REDIS_CONNECT_TIMEOUT", d.redis_connect_timeout),
            redis_retries=int(num("REDIS_RETRIES", d.redis_retries)),
            redis_health_check=num("REDIS_HEALTH_CHECK", d.redis_health_check),
            redis_pool_size=int(positive("REDIS_POOL_SIZE", d.redis_pool_size)),
        )
