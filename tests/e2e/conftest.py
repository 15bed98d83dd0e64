"""End-to-end tests use the fixtures of tests/conftest.py (the fake Telegram server, a real
redis-server)."""
