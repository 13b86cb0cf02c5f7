"""Issue 31 part 5 through the Flask test client: favicon, field styles, the token page's
Copy, setting names, Undo an import, the two forget buttons, /-/versions for operators."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .conftest import wait_job

CSS = (Path(__file__).resolve().parents[2] / "webapp" / "static" / "css" / "app.css").read_text()
FIELD_RULE = CSS[:CSS.index("{", CSS.index("input[type=text], input[type=password]"))]


def test_favicon_is_served_and_linked_on_every_page(client, user):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert icon.data.lstrip().startswith(b"<svg")
    assert client.get("/static/favicon.svg").status_code == 200
    for url in ("/", "/memory", "/settings", "/-/settings"):
        assert 'rel="icon" type="image/svg+xml" href="/static/favicon.svg"' in \
            client.get(url).data.decode()


def test_favicon_needs_no_login(client):
    assert client.get("/favicon.ico").status_code == 200
    assert 'rel="icon"' in client.get("/login").data.decode()


def test_search_and_untyped_fields_share_the_field_style(client, user):
    # the search boxes are type=search; the token name, facts and reasons have no type
    assert "input[type=search]" in FIELD_RULE and "input:not([type])" in FIELD_RULE
    memory = client.get("/memory").data.decode()
    assert 'id="memory-search" type="search"' in memory
    assert 'id="token-name" name="name"' in client.get("/settings").data.decode()


def test_token_page_wraps_the_config_and_offers_copy(client, user):
    created = client.post("/settings/tokens", data={"name": "laptop"})
    assert created.status_code == 201
    html = created.data.decode()
    token = re.search(r'id="new-token" class="token" readonly value="(mos_[^"]+)"', html)
    assert token, html
    assert '<pre class="config" id="client-config">' in html
    assert f'"Bearer {token.group(1)}"' in html
    assert 'data-copy="new-token"' in html and ">Copy token</button>" in html
    assert 'data-copy="client-config"' in html and ">Copy configuration</button>" in html
    assert 'class="copy-status" role="status"' in html  # the visible confirmation
    assert "pre.config { white-space: pre-wrap" in CSS


def test_setting_names_break_only_at_underscores(client, user):
    html = client.get("/-/settings").data.decode()
    assert "<code>short_<wbr>term_<wbr>capacity</code>" in html
    assert '<td class="setting-value">' in html
    assert ".setting-name code { overflow-wrap: normal;" in CSS
    assert client.get("/-/settings.json").json["settings"]  # the JSON twin is unchanged


def test_undo_this_import_asks_then_restores_the_version_before(client, user, engine):
    engine.add_exchange(user, "I keep bees in the garden.", "Bees are wonderful.")
    started = client.post("/import/run.json", data={
        "text": "User: I moved to Lisbon last month.\nAssistant: Lisbon is lovely.",
        "format": "transcript"})
    job = wait_job(engine, user, started.json["job"]["id"])
    saved = job["result"]["saved_as"]
    shown = client.get(f"/jobs/{job['id']}").data.decode()
    undo = f"/versions/{saved}/restore?undo=import"
    assert f'href="{undo}">Undo this import…</a>' in shown
    asked = client.get(undo).data.decode()
    assert "Undo the import?" in asked and ">Undo the import</button>" in asked
    assert 'name="undo" value="import"' in asked
    assert "Lisbon" in json.dumps(client.get("/memory.json").json)  # asking restores nothing
    done = client.post(f"/versions/{saved}/restore", data={"undo": "import"},
                       follow_redirects=True).data.decode()
    assert f"Import undone: version {saved}" in done
    state = json.dumps(client.get("/memory.json").json)
    assert "Lisbon" not in state and "bees" in state
    assert client.get("/versions/9999/restore").status_code == 404


def test_forget_buttons_are_distinct_and_everywhere_needs_the_box(client, user, engine):
    engine.add_exchange(user, "My locker code is 4711.", "Noted.")
    pid = engine.search(user, "locker")["pages"][0]["id"]
    html = client.get(f"/memory/pages/{pid}").data.decode()
    assert ">Forget this exchange (can be undone)</button>" in html
    assert ">Forget everywhere, permanently</button>" in html
    assert "This cannot be undone." in html and 'name="understood"' in html
    refused = client.post(f"/memory/pages/{pid}/forget", data={"everywhere": "y"})
    assert refused.status_code == 400 and b"tick the box" in refused.data
    assert engine.page(user, pid)["id"] == pid  # nothing forgotten
    done = client.post(f"/memory/pages/{pid}/forget", data={"everywhere": "y", "understood": "y"},
                       follow_redirects=True)
    assert b"forgotten everywhere" in done.data
    assert client.get(f"/memory/pages/{pid}").status_code == 404


def test_versions_page_is_for_operators_only(app, client, auth, user):
    for url in ("/-/versions", "/-/versions.json"):
        assert client.get(url).status_code == 404
    assert 'href="/-/versions"' not in client.get("/").data.decode()
    app.config["OPERATORS"] = "root, alice"  # as MEMPLAY_OPERATORS=root,alice gives it
    assert client.get("/-/versions.json").json["packages"]["flask"]
    assert 'href="/-/versions"' in client.get("/").data.decode()
    auth.logout()
    auth.register("bob")
    assert client.get("/-/versions").status_code == 404
    app.config["OPERATORS"] = ["bob"]
    assert client.get("/-/versions").status_code == 200


def test_every_time_on_a_page_names_its_zone(client, user, engine):
    # issue 47: times were the server's UTC with no zone; app.js shows them in the reader's
    engine.add_exchange(user, "I moved to Lisbon.", "Nice city.", timestamp=1_714_557_600)
    html = client.get("/memory").data.decode()
    assert '<time datetime="2024-05-01T10:00Z">2024-05-01 10:00 UTC</time>' in html
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d(?! UTC)", html)
    from webapp.rendering import when, when_text
    assert when_text(1_714_557_600) == "2024-05-01 10:00 UTC" and when(None) == "—"
    script = client.get("/static/js/app.js").data.decode()
    assert 'querySelectorAll("time[datetime]' in script and "timeZoneName" in script
