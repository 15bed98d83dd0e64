"""The Telegram adapter (python-telegram-bot).

Importing it opts in to python-telegram-bot's durations as `datetime.timedelta` (its coming
default; without the opt-in it warns on every `retry_after`), before any of its code runs.
"""

import os

os.environ["PTB_TIMEDELTA"] = "true"
