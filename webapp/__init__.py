"""MemoryOS Playground web app; `create_app()` is the factory (gunicorn "webapp:create_app()")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.llm.resolver import ModelResolver
from memoryos_core.runtime import JobWorkers
from memoryos_core.storage import database_url
from memoryos_core.storage.sqlite import private_dir

from . import config as cfg
from . import errors, keybox, local_models, metrics, numbers, rendering, security, warmup
from .account import settings as account_settings
from .account import views as account
from .auth import views as auth
from .chat import turns
from .chat import views as chat
from .extensions import ENGINE, MAINTAINER, MODEL_CACHE, USERS, csrf, login_manager
from .imports import dialogue, reference
from .introspection import views as introspection
from .jobs import views as jobs
from .lab import views as lab
from .maintenance import Maintainer
from .mcp import views as mcp
from .memory import analysis, profile, versions
from .memory import views as memory
from .models import engine_user_model, operator_chat_model
from .storage.users import UserStore

BLUEPRINTS = (auth, chat, dialogue, analysis, jobs, memory, profile, versions, account_settings,
              introspection, reference, account, lab)


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: defaults, config class, instance config.py, MEMPLAY_* env, test mapping."""
    here = Path(__file__).resolve().parent  # the package's own templates/ and static/
    app = Flask(__name__, instance_relative_config=True, template_folder=str(here / "templates"),
                static_folder=str(here / "static"))
    env = cfg.env_settings()
    app.config.from_object(cfg.choose_class(test_config, env))
    app.config.from_pyfile("config.py", silent=True)
    app.config.update(env)
    if test_config is not None:
        app.config.update(test_config)
    data_dir = Path(app.config["DATA_DIR"] or Path(app.instance_path) / "data")
    app.config["DATA_DIR"] = str(data_dir)
    private_dir(data_dir)  # 0700: only the app's user reads the data folder
    # PostgreSQL for accounts and memory: MEMPLAY_DATABASE_URL, else MEMORYOS_DATABASE_URL.
    url = database_url(app.config.get("DATABASE_URL") or None)
    app.config["DATABASE_URL"] = url
    users = UserStore(data_dir, url, session_idle_seconds=app.config["SESSION_IDLE_SECONDS"],
                      session_max_seconds=app.config["SESSION_MAX_SECONDS"])
    if app.config["ENV"] == "production" and not app.config.get("SECRET_KEY"):  # unset or ""
        app.config["SECRET_KEY"] = cfg.persistent_secret(data_dir, users.store if url else None)
    cfg.check_production(app.config)
    keybox.init_app(app, users)  # endpoint API keys encrypted under the secret key
    app.debug = bool(app.config["DEBUG"])

    engine_config = EngineConfig.from_env(base=EngineConfig())
    engine_config = engine_config.replace(**dict(app.config["ENGINE_SETTINGS"]))
    # the one place that decides each user's model: their endpoint, else the operator's
    models = ModelResolver(operator_chat_model(app.config),
                           per_user=lambda engine_user: engine_user_model(app, engine_user))
    engine = app.extensions[ENGINE] = MemoryEngine(
        data_dir / "memory", models=models,
        embedder=app.config["EMBEDDER"], config=engine_config, database_url=url)
    # a job whose worker has been silent this long is taken over by another worker
    engine.jobs.stale_seconds = float(app.config.get("JOB_TAKEOVER_SECONDS", 30))
    app.extensions[MAINTAINER] = Maintainer(app, engine,
                                            inline=app.config["MAINTENANCE"] == "inline")
    app.extensions[USERS] = users
    app.extensions[MODEL_CACHE] = {}
    local_models.init_app(app)  # a personal instance looks for this machine's model servers

    csrf.init_app(app)
    login_manager.init_app(app)
    rendering.init_app(app)
    numbers.init_app(app)  # pages and traces by the user's own numbers
    errors.init_app(app)
    metrics.init_app(app)  # /-/metrics, and every request timed by its route
    security.init_app(app)
    turns.init_app(app)  # the bounded pool that makes streamed answers
    for module in BLUEPRINTS:
        app.register_blueprint(module.bp)
    mcp.init_app(app)  # /mcp (bearer tokens) and the token pages
    for kind in (dialogue, reference, analysis, lab):  # the stored jobs each part runs
        kind.register_jobs(app)
    _start_background(app)
    if url:  # the starting thread serves no requests: give its database connection back
        engine.store.close()
    return app


def _start_background(app: Flask) -> None:
    """Every app process runs stored jobs (imports, analysis, maintenance, lab runs) in its own
    worker threads, and loads the embedded model now, not on the first answer."""
    workers = app.extensions["memplay_workers"] = JobWorkers(app.extensions[ENGINE].jobs)
    count = int(app.config.get("JOB_WORKERS", 2))
    if count > 0:
        workers.start(count)
    lab.start_workers(app)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    warmup.start(app)
