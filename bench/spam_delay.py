"""Does a member's command spam hold up the game? Groups play Egonomy (3 people) at human pace
against the strict fake Bot API at Telegram's real limits (tests/e2e/pace.py: the fake refuses
a group's 21st message in a minute and the bot's 31st in a second), on a real redis-server.
Twenty seconds into each game a member who is not playing sends, one every 0.25 s:

- nothing (the groups to compare with),
- 40 × /newgame,
- 40 × /stats,
- 30 mixed commands (/newgame, /stats, /status, /help, /rules, /verify, /language, an unknown
  command, /stop by someone who is not the host).

Prints, per kind of burst, the time from each move made from the burst's start until 60 s
later to the group's next table message or edit (replies to commands left out) p50 / p90 /
max, against the quiet groups' over the same stretch of their games, the difference of the
means, and the replies the spammer got for the burst (counted until 90 s after its last
command: a reply that only tells waits up to a group window, 60 s, for a place the game does
not need).

    .venv/bin/python bench/spam_delay.py                 # two groups of each kind
    .venv/bin/python bench/spam_delay.py --groups 3 --processes 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.pace import Figures, Pace, Scenario, play_tables, quantile

MIXED = (
    "/newgame",
    "/stats",
    "/status",
    "/help",
    "/rules",
    "/verify",
    "/language",
    "/dance",
    "/stop",
)
BURSTS = {
    "none": (),
    "40 × /newgame": ("/newgame",) * 40,
    "40 × /stats": ("/stats",) * 40,
    "30 mixed": tuple(MIXED[i % len(MIXED)] for i in range(30)),
}
AFTER, GAP = 20.0, 0.25
REPLIES = 90.0  # seconds after the burst's last command that its replies are counted


async def run(args: argparse.Namespace) -> dict[str, list[Figures]]:
    from telegram_presses import start_redis

    proc, url = (None, args.redis_url) if args.redis_url else start_redis()
    kinds = [k for k in BURSTS for _ in range(args.groups)]
    scenarios = tuple(Scenario("egonomy", 3, 0, BURSTS[k], AFTER, GAP) for k in kinds)
    longest = max(len(b) for b in BURSTS.values()) * GAP
    pace = Pace(
        scenarios=scenarios,
        limit=AFTER + longest + REPLIES,
        seed=args.seed,
        processes=args.processes,
        spam=False,
        interval_grace=1.0,
    )
    try:
        results = await play_tables(url, pace, f"spam{os.getpid()}:")
    finally:
        if proc is not None:
            proc.terminate()
    by_kind: dict[str, list[Figures]] = {k: [] for k in BURSTS}
    for kind, (figures, _) in zip(kinds, results, strict=True):
        by_kind[kind].append(figures)
    return by_kind


def report(by_kind: dict[str, list[Figures]]) -> None:
    quiet = [s for f in by_kind["none"] for s in f.after_burst]
    print(
        "| burst | moves in the stretch | move to table p50 / p90 / max |"
        " mean later than the quiet groups' | replies to the burst (per group) |"
    )
    print("| --- | --- | --- | --- | --- |")
    for kind, figures in by_kind.items():
        times = [s for f in figures for s in f.after_burst]
        spread = (
            f"{quantile(times, 0.5):.1f} / {quantile(times, 0.9):.1f} / {max(times):.1f} s"
            if times
            else "–"
        )
        later = (
            f"{statistics.mean(times) - statistics.mean(quiet):+.1f} s"
            if times and quiet and kind != "none"
            else "–"
        )
        replies = ", ".join(str(f.burst_replies) for f in figures) if kind != "none" else "–"
        print(f"| {kind} | {len(times)} | {spread} | {later} | {replies} |")
    refused = sum(f.http_429 for fs in by_kind.values() for f in fs)
    print(f"\n429s: {refused}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=2, help="groups of each kind (2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1, help="bots on one Redis (1)")
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    began = time.monotonic()
    report(asyncio.run(run(args)))
    print(f"{time.monotonic() - began:.0f} s in all; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
