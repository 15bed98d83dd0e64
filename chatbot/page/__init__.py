"""The game page: one web page for a game on every platform (LINE's LIFF app, Telegram's Mini
App), served by the bot's web server, drawing the game from its presenter's `page_view` and
acting through the same unit of work as a press (docs/platforms.md#the-game-page)."""
