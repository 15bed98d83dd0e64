"""The game page: one web page for a game on every platform (each adapter says who is asking:
`identity.Identity`), served by the bot's web server, drawing the game from its presenter's
`page_view` and acting through the same unit of work as a press
(docs/platforms.md#the-game-page)."""
