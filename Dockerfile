# MemoryOS Playground: the Flask web app served by gunicorn on port 8000.
FROM python:3.11-slim

# llama.cpp's prebuilt library (llama-cpp-cffi) links libstdc++; nothing is compiled.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libstdc++6 \
    && rm -rf /var/lib/apt/lists/*

# CPU-only torch wheels (the embedder runs on the CPU); override to use another index.
ARG PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PIP_EXTRA_INDEX_URL=${PIP_EXTRA_INDEX_URL} \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    MEMPLAY_ENV=production \
    MEMPLAY_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md requirements-llm.txt ./
COPY memoryos_core ./memoryos_core
COPY webapp ./webapp
# wheels only: llama.cpp is prebuilt (llama-cpp-cffi, --no-deps: see requirements-llm.txt)
RUN pip install ".[postgres]" && pip install --no-deps -r requirements-llm.txt && rm -rf /app/*

# /-/metrics (with MEMPLAY_METRICS_TOKEN) sums every gunicorn worker: prometheus_client's
# multiprocess mode keeps their counters in this folder, empty in each new container.
ENV PROMETHEUS_MULTIPROC_DIR=/tmp/memplay-metrics
RUN useradd --create-home --uid 1000 memplay && mkdir -p /data "$PROMETHEUS_MULTIPROC_DIR" \
    && chown memplay /data "$PROMETHEUS_MULTIPROC_DIR"
USER memplay
VOLUME ["/data"]
EXPOSE 8000

# Set MEMPLAY_SECRET_KEY (else a random key is kept in /data/secret_key) and optionally
# MEMPLAY_CHAT_BASE_URL / MEMPLAY_CHAT_MODEL / MEMPLAY_CHAT_API_KEY for an OpenAI-compatible endpoint.
# Embedded default (SQLite in /data): one worker. With MEMPLAY_DATABASE_URL (PostgreSQL +
# pgvector) set WORKERS to any number: jobs, sessions and memory all live in the database.
ENV WORKERS=1
CMD ["sh", "-c", "umask 077 && exec gunicorn --bind 0.0.0.0:8000 --workers \"$WORKERS\" --threads 4 --timeout 300 'webapp:create_app()'"]
