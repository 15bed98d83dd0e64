# The bot as a container: `docker build -t egobot . && docker run -e TELEGRAM_TOKEN=... egobot`
# (add -e REDIS_URL=redis://host:6379/0 so games survive restarts and several processes share them).
# Without TELEGRAM_TOKEN it stops at once with a one-line error. The health check asks
# `python -m chatbot health`: Redis at REDIS_URL answers (always healthy without REDIS_URL).
# A whole deployment (webhooks, Redis, TLS, Prometheus): docs/self-hosting.md.
# The context is the repository; the image holds only what is copied below
# (tests/packaging/test_image.py builds the wheel from exactly these files).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# The locked versions, each file checked against its hash (scripts/lock writes the lock);
# a layer of its own, rebuilt only when the lock changes.
COPY scripts/requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock

COPY pyproject.toml README.md ./
COPY engine ./engine
# chatbot/locales is a link to ../locales: the catalogues must be beside it
COPY locales ./locales
COPY chatbot ./chatbot
RUN pip install --no-cache-dir --no-deps --no-build-isolation . \
    && useradd --system --uid 10001 --no-create-home --home-dir /app egobot

USER 10001

HEALTHCHECK --interval=30s --timeout=10s --start-period=10s --retries=3 \
    CMD ["python", "-m", "chatbot", "health"]

CMD ["python", "-m", "chatbot", "telegram"]
