"""Games at human pace within Telegram's real budgets: what a group sees and waits for.

Plays whole games against the local fake Bot API at the default limits (GROUP_RATE 20 a
minute, OVERALL_RATE 30 a second, TABLE_INTERVAL 3 s, BOT_DELAY 1.5 s), with the fake refusing
a group's 21st message in a minute and the bot's 31st in a second (429) as Telegram does, on
a real redis-server. Simulated people (tests/e2e/pace.py) open the table at human pace (Join,
the turn timer, an option, computers, Start: each 1–2 s after looking at the lobby the group
shows) and play: a move 1–4 s after their hand shows it (a step of a choice in 0.3–0.8 s); in
EGO everyone picks within 5 s of a new question. In every group a member who is not playing
spams /status every second, and someone who is not the host sends /stop now and then (a
membership check). Each game runs in a group of its own, all at once.

With `--page` the bot has a game page (a Mini App, `TELEGRAM_WEBAPP_NAME`): people read the
game and move on the page's API (`/webapp/api/state`, `/webapp/api/move`, with init data
signed as Telegram signs it), 1–4 s after it offers them a move (EGO: within 5 s), instead of
pressing the buttons of their private hands.

Prints per game: group API calls a move (a turn for EGO), private-chat messages a move and all
Bot API messages a move (sent, edited; the spammer's replies left out), the press answer
latency p50/p99/max, the time from a move to the group's next message or edit p50/p90 (EGO:
from a turn's last pick to its reveal), the share of presses refused as outdated, the lobby's
presses refused (each refusal's answer below the table), the replies the spammer got and the
429s (the group's and its people's).

    .venv/bin/python bench/telegram_pace.py              # every game, whole games
    .venv/bin/python bench/telegram_pace.py --turns 8    # EGO: stop after 8 turns
    .venv/bin/python bench/telegram_pace.py --processes 3  # three bots on one Redis, one token:
                                                           # each update goes to the next one
    .venv/bin/python bench/telegram_pace.py --processes 3 --real  # ... as real processes,
                                                                  # fed by their webhooks
    .venv/bin/python bench/telegram_pace.py --page       # moves on the game page
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.pace import Figures, Pace, play_tables, quantile


async def run(args: argparse.Namespace) -> list[tuple[Figures, int]]:
    from telegram_presses import start_redis

    proc, url = (None, args.redis_url) if args.redis_url else start_redis()
    pace = Pace(
        games=tuple(args.games),
        turns=args.turns,
        limit=args.limit,
        seed=args.seed,
        processes=args.processes,
        spam=args.spam,
        page=args.page,
        interval_grace=args.interval_grace,
    )
    log = Path(tempfile.mkdtemp()) / "bots.log" if args.real else None
    try:
        return await play_tables(url, pace, None if log else f"pace{os.getpid()}:", log)
    finally:
        if log is not None and log.exists():
            print(f"(the bot processes' errors: {log})")
        if proc is not None:
            proc.terminate()


def report(results: list[tuple[Figures, int]]) -> None:
    print(
        "| game | moves (turns) | group calls a move (a turn) | private messages a move |"
        " Bot API messages a move | answer p50 / p99 / max |"
        " move seen by the group p50 / p90 | reveal after last pick p50 / p90 |"
        " outdated presses | lobby presses refused | spam: commands → replies | 429s |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for f, calls in results:
        per = calls / f.turns if f.turns else calls / max(1, f.done_moves)
        private = f.private / max(1, f.done_moves)
        overall = (calls + f.private) / max(1, f.done_moves)
        unit = f"{f.done_moves} ({f.turns})" if f.turns else str(f.done_moves)
        ms = [x * 1000 for x in f.answers]
        answer = f"{quantile(ms, 0.5):.0f} / {quantile(ms, 0.99):.0f} / {max(ms):.0f} ms"
        seen = (
            f"{quantile(f.seen, 0.5):.1f} / {quantile(f.seen, 0.9):.1f} s"
            if f.seen and not f.turns
            else "–"
        )
        rev = (
            f"{quantile(f.reveals, 0.5):.1f} / {quantile(f.reveals, 0.9):.1f} s"
            if f.reveals
            else "–"
        )
        out = f"{100 * f.outdated / max(1, f.presses):.1f}% of {f.presses}"
        lobby = f"{len(f.lobby_refused)} of {f.lobby_presses}"
        print(
            f"| {f.name} | {unit} | {per:.2f} | {private:.2f} | {overall:.2f} | {answer} |"
            f" {seen} | {rev} | {out} | {lobby} | {f.spam} → {f.spam_replies} | {f.http_429} |"
        )
        for refused in f.lobby_refused:
            print(f"  lobby refusal ({f.name}): {refused}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=["egonomy", "ano", "ego"])
    parser.add_argument("--turns", type=int, default=15, help="EGO turns measured (15)")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds a game may take")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--processes", type=int, default=1, help="bots on one Redis (1)")
    parser.add_argument("--interval-grace", type=float, default=4.0)
    parser.add_argument(
        "--no-spam", dest="spam", action="store_false", help="no member spams the group"
    )
    parser.add_argument("--page", action="store_true", help="moves on the game page (Mini App)")
    parser.add_argument(
        "--real",
        action="store_true",
        help="the bots are `python -m chatbot web` processes fed by webhook (own Redis)",
    )
    args = parser.parse_args()
    began = time.monotonic()
    results = asyncio.run(run(args))
    report(results)
    load = os.getloadavg()[0]
    print(f"\n{time.monotonic() - began:.0f} s in all; load average {load:.1f}")


if __name__ == "__main__":
    main()
