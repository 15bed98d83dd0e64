# The bot as a container: `docker build -t egobot . && docker run -e TELEGRAM_TOKEN=... egobot`
# (add -e REDIS_URL=redis://host:6379/0 so games survive restarts and several processes share them).
# Without TELEGRAM_TOKEN it stops at once with a one-line error. The health check asks
# `python -m chatbot health`: Redis at REDIS_URL answers (always healthy without REDIS_URL).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY chatbot ./chatbot
RUN pip install --no-cache-dir . \
    && useradd --system --uid 10001 --no-create-home --home-dir /app egobot

USER 10001

HEALTHCHECK --interval=30s --timeout=10s --start-period=10s --retries=3 \
    CMD ["python", "-m", "chatbot", "health"]

CMD ["python", "-m", "chatbot", "telegram"]
