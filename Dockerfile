# The bot as a container: `docker build -t egobot . && docker run -e TELEGRAM_TOKEN=... egobot`
# (add -e REDIS_URL=redis://host:6379/0 so games survive restarts and several processes share them).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY chatbot ./chatbot
RUN pip install --no-cache-dir . \
    && useradd --system --home /app egobot
USER egobot

CMD ["python", "-m", "chatbot"]
