"""The Telegram adapter (python-telegram-bot); `chatbot.bootstrap.prepare` opts in to its
durations as `datetime.timedelta` before any of its code runs."""
