"""Config layers and production safety."""

from __future__ import annotations

import pytest

from webapp import create_app
from webapp.config import DEV_SECRET_KEY, env_settings


def test_config_production_refuses_dev_secret_key(tmp_path, embedder, chat_model):
    with pytest.raises(RuntimeError, match="secret key"):
        create_app({"ENV": "production", "SECRET_KEY": DEV_SECRET_KEY,
                    "DATA_DIR": str(tmp_path), "CHAT_MODEL": chat_model, "EMBEDDER": embedder})


def test_config_production_refuses_debug(tmp_path, embedder, chat_model):
    with pytest.raises(RuntimeError, match="debug"):
        create_app({"ENV": "production", "SECRET_KEY": "s3cret-from-operator", "DEBUG": True,
                    "DATA_DIR": str(tmp_path), "CHAT_MODEL": chat_model, "EMBEDDER": embedder})


def test_config_production_makes_persistent_random_key(tmp_path, embedder, chat_model, monkeypatch):
    monkeypatch.delenv("MEMPLAY_SECRET_KEY", raising=False)
    first = create_app({"ENV": "production", "DATA_DIR": str(tmp_path), "CHAT_MODEL": chat_model,
                        "EMBEDDER": embedder})
    second = create_app({"ENV": "production", "DATA_DIR": str(tmp_path),
                         "CHAT_MODEL": chat_model, "EMBEDDER": embedder})
    assert first.config["SECRET_KEY"] not in (None, DEV_SECRET_KEY)
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert not first.debug
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_config_env_layers_and_test_mapping_wins(tmp_path, embedder, chat_model, monkeypatch):
    monkeypatch.setenv("MEMPLAY_DATA_DIR", str(tmp_path / "from-env"))
    monkeypatch.setenv("MEMPLAY_CHAT_API_KEY", "12345")
    monkeypatch.setenv("MEMPLAY_LOGIN_MAX_FAILURES", "9")
    monkeypatch.setenv("MEMORYOS_TOP_PAGES", "4")
    app = create_app({"CHAT_MODEL": chat_model, "EMBEDDER": embedder, "LOGIN_MAX_FAILURES": 7})
    assert app.config["DATA_DIR"] == str(tmp_path / "from-env")
    assert app.config["CHAT_API_KEY"] == "12345"  # stays text
    assert app.config["LOGIN_MAX_FAILURES"] == 7  # the test mapping is the last layer
    assert app.extensions["memoryos"].config.top_pages == 4
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert env_settings({"MEMPLAY_X": "[1, 2]", "OTHER": "1"}) == {"X": [1, 2]}


def test_config_instance_file_is_a_layer(tmp_path, embedder, chat_model, monkeypatch):
    import flask

    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "config.py").write_text("LOGIN_WINDOW_SECONDS = 42\n")
    original = flask.Flask.__init__

    def patched(self, *args, **kwargs):
        kwargs["instance_path"] = str(instance)
        original(self, *args, **kwargs)

    monkeypatch.setattr(flask.Flask, "__init__", patched)
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "CHAT_MODEL": chat_model,
                      "EMBEDDER": embedder})
    assert app.config["LOGIN_WINDOW_SECONDS"] == 42


def test_config_operator_endpoint_is_default_model(make_app):
    from memoryos_core.llm import OpenAIChatModel

    app = make_app(CHAT_MODEL="my-model", CHAT_BASE_URL="http://127.0.0.1:9/v1",
                   CHAT_API_KEY="op-key")
    model = app.extensions["memoryos"].configured_chat_model
    assert isinstance(model, OpenAIChatModel) and model.name == "my-model"
    client = app.test_client()
    client.post("/register", data={"username": "op", "password": "correct horse",
                                   "confirm": "correct horse"})
    response = client.get("/-/settings.json")
    assert response.json["default_model"]["name"] == "my-model"
    assert b"op-key" not in response.data


def test_config_production_secret_shared_through_database(tmp_path, embedder, chat_model,
                                                          database_url, monkeypatch):
    """With a database URL every host (data folder) signs with one key kept in the database."""
    monkeypatch.delenv("MEMPLAY_SECRET_KEY", raising=False)
    apps = [create_app({"ENV": "production", "DATA_DIR": str(tmp_path / host),
                        "DATABASE_URL": database_url, "CHAT_MODEL": chat_model,
                        "EMBEDDER": embedder}) for host in ("a", "b")]
    keys = [app.config["SECRET_KEY"] for app in apps]
    for app in apps:
        app.extensions["memplay_workers"].stop()
    assert all(key not in (None, DEV_SECRET_KEY) for key in keys)
    if database_url:
        assert keys[0] == keys[1] and not (tmp_path / "a" / "secret_key").exists()
    else:  # each data folder keeps its own key file
        assert keys[0] != keys[1] and (tmp_path / "a" / "secret_key").exists()
