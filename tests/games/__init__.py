"""Small games that exist only in the tests, to prove the chat core fits any game's shape."""
