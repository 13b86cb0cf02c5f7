"""The app's shared objects: CSRF, the login manager, and the engine, stores and maintainer it keeps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import current_app
from flask_login import LoginManager, current_user
from flask_wtf.csrf import CSRFProtect

if TYPE_CHECKING:
    from memoryos_core import MemoryEngine

    from .maintenance import Maintainer
    from .storage.tokens import TokenStore
    from .storage.users import UserStore

csrf = CSRFProtect()
login_manager = LoginManager()
login_manager.login_view = "auth.login"
login_manager.login_message = "Please log in to continue."
login_manager.login_message_category = "info"

ENGINE, USERS, TOKENS, MAINTAINER = "memoryos", "memplay_users", "memplay_tokens", "memplay_maintainer"
MODEL_CACHE = "memplay_model_cache"  # per-account chat models, keyed (account id, endpoint digest)


def engine() -> MemoryEngine:
    """The app's one memory engine."""
    return current_app.extensions[ENGINE]  # type: ignore[no-any-return]


def uid() -> str:
    """The engine user id of the logged-in account."""
    return str(current_user.engine_id)


def users(app: Any = None) -> UserStore:
    """The app's accounts (`app`: outside a request)."""
    return (app or current_app).extensions[USERS]  # type: ignore[no-any-return]


def tokens() -> TokenStore:
    """The app's MCP access tokens."""
    return current_app.extensions[TOKENS]  # type: ignore[no-any-return]


def maintainer(app: Any = None) -> Maintainer:
    """The app's maintainer (`app`: outside a request)."""
    return (app or current_app).extensions[MAINTAINER]  # type: ignore[no-any-return]


def model_cache(app: Any = None) -> dict[tuple[int, str], Any]:
    """The per-account chat models built so far."""
    return (app or current_app).extensions[MODEL_CACHE]  # type: ignore[no-any-return]


@login_manager.user_loader
def _load_user(user_id: str) -> Any:
    return users().from_session(user_id)
