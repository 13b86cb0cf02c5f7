"""An installed copy (not the checkout) finds its templates and static files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys, tempfile
sys.path.insert(0, sys.argv[1])
import webapp
assert webapp.__file__.startswith(sys.argv[1]), webapp.__file__
from memoryos_core.testing import ScriptedChatModel
class Embedder:
    name, dim = "fake", 4
app = webapp.create_app({"DATA_DIR": tempfile.mkdtemp(), "CHAT_MODEL": ScriptedChatModel(),
                         "EMBEDDER": Embedder()})
assert app.template_folder.startswith(sys.argv[1]), app.template_folder
client = app.test_client()
page = client.get("/login")
assert page.status_code == 200 and b"Log in" in page.data, page.status_code
assert client.get("/static/js/htmx.min.js").status_code == 200
assert client.get("/static/css/app.css").status_code == 200
assert client.get("/favicon.ico").status_code == 200
print("rendered from", app.template_folder)
"""


def test_installed_copy_renders_templates(tmp_path):
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--quiet",
         "--target", str(target), str(ROOT)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-3000:]
    assert (target / "webapp" / "templates" / "base.html").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(target)], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    assert str(target) in run.stdout
