"""Config classes and helpers for create_app (defaults, class, instance, env, test)."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memoryos_core.storage import BaseStore
from memoryos_core.storage.sqlite import private_dir

from .storage import accounts

DEV_SECRET_KEY = "dev-only-not-secret"  # refused by ProductionConfig
ENV_PREFIX = "MEMPLAY_"
# Environment values kept verbatim (never parsed as JSON: an API key "123" stays text).
STRING_KEYS = {"SECRET_KEY", "DATA_DIR", "CHAT_BASE_URL", "CHAT_MODEL", "CHAT_API_KEY", "ENV",
               "DATABASE_URL", "METRICS_TOKEN", "BIND"}
SECRET_META_KEY = "web_secret_key"  # the shared secret key's name in a database's store_meta


class BaseConfig:
    """Defaults shared by every environment."""

    ENV = "production"
    DEBUG = False
    TESTING = False
    SECRET_KEY = DEV_SECRET_KEY
    DATA_DIR: str | None = None  # default: <instance folder>/data
    DATABASE_URL: str | None = None  # PostgreSQL for accounts and memory; default: MEMORYOS_DATABASE_URL
    MAX_CONTENT_LENGTH = 20 * 1024 * 1024
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    WTF_CSRF_ENABLED = True
    WTF_CSRF_TIME_LIMIT = None  # tokens live as long as the session
    # Default chat model: an OpenAI-compatible endpoint, else the engine's embedded model.
    CHAT_BASE_URL: str | None = None
    CHAT_MODEL: Any = None  # a model name (str) or, in tests, a ChatModel object
    CHAT_API_KEY: str | None = None
    CHAT_CONTEXT_WINDOW = 8192
    CHAT_ENDPOINTS: Any = ()  # more operator endpoints: [{"base_url", "api_key", "models", "name"}]
    # A personal instance (one person, on their own machine) finds the model servers running
    # there and lets its user's endpoint be on loopback: "auto" = bound to loopback (BIND,
    # which scripts/start sets), else true or false.
    PERSONAL: Any = "auto"
    BIND: str | None = None  # "host:port" the server listens on (its own port is not probed)
    DISCOVER_PORTS: Any = None  # ports probed on a personal instance; default: the usual ones
    DISCOVER_AT_START = True
    EMBEDDER: Any = None  # an Embedder object to share (tests); else the engine's default
    ENGINE_SETTINGS: Mapping[str, Any] = {}  # on top of MEMORYOS_<NAME> environment settings
    LOGIN_MAX_FAILURES = 5
    LOGIN_WINDOW_SECONDS = 300
    SESSION_IDLE_SECONDS = 86400  # a login session unused for a day ends (on the server)
    SESSION_MAX_SECONDS = 14 * 86400  # and any login session after two weeks
    MAINTENANCE = "background"  # "inline": consolidate/analyse inside the chat request
    JOB_STALE_SECONDS = 600  # a running job not updated for this long shows as interrupted
    ALLOW_PRIVATE_ENDPOINTS = False  # per-user base URLs on loopback/private networks
    UPLOAD_TTL_SECONDS = 3600  # an import preview's upload is kept this long at most
    STREAM_TIMEOUT_SECONDS = 600  # a streamed answer with no token for this long ends
    STREAM_WORKERS = 16  # answers streamed at once per process; more wait for a free thread
    METRICS_TOKEN: str | None = None  # /-/metrics answers 404 until one is set (bearer token)
    OPERATORS: Any = ()  # usernames that may see /-/versions (JSON list or "a,b"); else 404


class DevelopmentConfig(BaseConfig):
    ENV = "development"
    DEBUG = True
    ALLOW_PRIVATE_ENDPOINTS = True  # a local Ollama or llama.cpp server


class TestingConfig(BaseConfig):
    ENV = "testing"
    TESTING = True
    WTF_CSRF_ENABLED = False
    MAINTENANCE = "inline"  # deterministic tests
    ALLOW_PRIVATE_ENDPOINTS = True  # scripted endpoints on 127.0.0.1
    PERSONAL = False  # no probing of this machine's ports unless a test turns it on
    LOGIN_MAX_FAILURES = 5


class ProductionConfig(BaseConfig):
    ENV = "production"
    SECRET_KEY = None  # from MEMPLAY_SECRET_KEY, else a random key kept in the data folder
    SESSION_COOKIE_SECURE = False  # set MEMPLAY_SESSION_COOKIE_SECURE=true behind HTTPS


CONFIGS: dict[str, type[BaseConfig]] = {
    "development": DevelopmentConfig,
    "testing": TestingConfig,
    "production": ProductionConfig,
}


def env_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """MEMPLAY_<KEY> variables as config keys; non-string keys are parsed as JSON when they can."""
    environ = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name == ENV_PREFIX:
            continue
        key = name[len(ENV_PREFIX):]
        if key in STRING_KEYS:
            out[key] = raw
            continue
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def choose_class(test_config: Mapping[str, Any] | None, env: Mapping[str, Any]) -> type[BaseConfig]:
    """The config class named by the test mapping, then MEMPLAY_ENV; tests default to testing."""
    name = (test_config or {}).get("ENV") or env.get("ENV")
    if name is None:
        name = "testing" if test_config is not None else "production"
    if name not in CONFIGS:
        raise RuntimeError(f"MEMPLAY_ENV must be one of {', '.join(CONFIGS)}, not {name!r}")
    return CONFIGS[name]


def persistent_secret(data_dir: Path, store: BaseStore | None = None) -> str:
    """A random secret key made on first start, kept in the data folder (mode 0600).

    With a shared database `store` (several hosts) the key is kept in it instead, so every
    host signs cookies with the same key.
    """
    if store is not None:
        with accounts.write(store, "secret") as conn:
            return accounts.shared_value(conn, SECRET_META_KEY, secrets.token_hex(32))
    path = data_dir / "secret_key"
    if path.exists():
        if path.stat().st_mode & 0o077:  # made readable by others by an older version
            path.chmod(0o600)
        return path.read_text().strip()
    private_dir(data_dir)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key


def check_production(config: Mapping[str, Any]) -> None:
    """Production never runs with the development secret key or in debug mode."""
    if config.get("ENV") != "production":
        return
    if config.get("SECRET_KEY") == DEV_SECRET_KEY or not config.get("SECRET_KEY"):
        raise RuntimeError("production refuses the development secret key: set MEMPLAY_SECRET_KEY")
    if config.get("DEBUG"):
        raise RuntimeError("production refuses debug mode: unset MEMPLAY_DEBUG")
