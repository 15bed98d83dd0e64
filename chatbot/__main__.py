"""Command line: `python -m chatbot` (console game), `python -m chatbot telegram`."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chatbot", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    console = sub.add_parser("console", help="play in this terminal against computer players")
    console.add_argument("game", nargs="?", default="egonomy")
    console.add_argument("--players", type=int, default=3)
    console.add_argument("--flip", action="store_true", help="flip-table mode")
    console.add_argument("--seed", type=int, default=None)
    console.add_argument("--computers-only", action="store_true", help="watch computers play")
    args = parser.parse_args(argv)
    if args.command in (None, "console"):
        from chatbot.console.play import play

        return play(
            getattr(args, "game", "egonomy"),
            getattr(args, "players", 3),
            getattr(args, "flip", False),
            getattr(args, "seed", None),
            getattr(args, "computers_only", False),
        )
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
