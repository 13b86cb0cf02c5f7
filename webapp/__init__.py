"""MemoryOS Playground web app; `create_app()` is the factory (gunicorn "webapp:create_app()")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from flask_login import LoginManager
from flask_wtf.csrf import CSRFProtect

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.storage import database_url
from memoryos_core.storage.sqlite import private_dir

from . import config as cfg
from . import keybox
from .maintenance import Maintainer
from .users import UserStore

csrf = CSRFProtect()
login_manager = LoginManager()
login_manager.login_view = "auth.login"
login_manager.login_message = "Please log in to continue."
login_manager.login_message_category = "info"


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
    from memoryos_core.llm.resolver import ModelResolver

    from .models import engine_user_model, operator_chat_model

    # the one place that decides each user's model: their endpoint, else the operator's
    models = ModelResolver(operator_chat_model(app.config),
                           per_user=lambda engine_user: engine_user_model(app, engine_user))
    app.extensions["memoryos"] = MemoryEngine(
        data_dir / "memory", models=models,
        embedder=app.config["EMBEDDER"], config=engine_config, database_url=url)
    app.extensions["memplay_maintainer"] = Maintainer(
        app, app.extensions["memoryos"], inline=app.config["MAINTENANCE"] == "inline")
    app.extensions["memplay_users"] = users
    app.extensions["memplay_model_cache"] = {}

    csrf.init_app(app)
    login_manager.init_app(app)

    from . import (
        analysis,
        auth,
        chat,
        errors,
        imports,
        introspection,
        jobs,
        memory,
        metrics,
        profile,
        rendering,
        security,
        settings,
        versions,
    )

    rendering.init_app(app)
    errors.init_app(app)
    metrics.init_app(app)  # /-/metrics, and every request timed by its route
    security.init_app(app)
    for module in (auth, chat, imports, analysis, jobs, memory, profile, versions, settings,
                   introspection):
        app.register_blueprint(module.bp)
    from . import account, lab, mcp, reference_imports

    mcp.init_app(app)  # /mcp (bearer tokens) and the token pages
    app.register_blueprint(reference_imports.bp)
    app.register_blueprint(account.bp)  # delete my account (issue 21)
    app.register_blueprint(lab.bp)  # the evaluation lab (issue 35)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from . import warmup

    warmup.start(app)  # the embedded model loads now, not on the first answer
    if url:  # the starting thread serves no requests: give its database connection back
        app.extensions["memoryos"].store.close()
    return app


@login_manager.user_loader
def _load_user(user_id: str) -> Any:
    from flask import current_app

    return current_app.extensions["memplay_users"].from_session(user_id)
