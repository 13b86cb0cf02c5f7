"""A load run: many users chatting at once against gunicorn, the scripted model behind HTTP."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from . import common
from .fault_tools import FaultServer

PASSWORD = "correct horse battery"
TOKEN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Client:
    """A browser-like client: cookies kept, redirects not followed, form posts."""

    def __init__(self, base: str) -> None:
        self.base = base
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar),
                                                  _NoRedirect())

    def request(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(self.base + path, body, timeout=120) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:  # 3xx (not followed), 4xx, 5xx
            return exc.code, exc.read().decode(errors="replace")

    def token(self, path: str) -> str:
        match = TOKEN.search(self.request(path)[1])
        if match is None:
            raise RuntimeError(f"no CSRF token on {path}")
        return match.group(1)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _user(base: str, n: int, turns: int, latencies: list[float], errors: list[str],
          stored: dict[int, int]) -> None:
    try:
        client = _Client(base)
        token = client.token("/register")
        status, _ = client.request("/register", {"username": f"load{n}", "password": PASSWORD,
                                                 "confirm": PASSWORD, "csrf_token": token})
        if status != 302:
            errors.append(f"register load{n}: HTTP {status}")
            return
        token = client.token("/")
        for turn in range(turns):
            started = time.perf_counter()
            status, body = client.request("/chat.json", {
                "message": f"user {n} turn {turn}: I like hiking trail {turn}",
                "csrf_token": token})
            latencies.append(time.perf_counter() - started)
            if status != 200 or not json.loads(body).get("ok"):
                errors.append(f"chat load{n}/{turn}: HTTP {status}")
        state = json.loads(client.request("/memory.json")[1])
        stored[n] = state["short_term"]["count"] + state["mid_term"]["page_count"]
    except Exception as exc:  # noqa: BLE001 - every failure is a counted error
        errors.append(f"load{n}: {type(exc).__name__}: {exc}")


def run(users: int, turns: int, workdir: Path) -> dict[str, Any]:
    """errors, p50/p95 turn latency and exchanges stored once, under `gunicorn`."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    with FaultServer() as server:
        env = {**os.environ, "MEMPLAY_ENV": "production", "HF_HUB_OFFLINE": "1",
               "MEMPLAY_SECRET_KEY": secrets.token_hex(16),
               "MEMPLAY_DATA_DIR": str(workdir / "load"),
               "MEMPLAY_CHAT_BASE_URL": server.base_url, "MEMPLAY_CHAT_MODEL": "scripted",
               "MEMORYOS_CONSOLIDATION": "extractive", "MEMORYOS_ANALYSIS": "extractive"}
        workdir.mkdir(parents=True, exist_ok=True)
        log = (workdir / "gunicorn.log").open("w")
        proc = subprocess.Popen(
            [str(gunicorn), "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "8",
             "--timeout", "300", "webapp:create_app()"], cwd=common.ROOT, env=env,
            stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            startup = _wait_up(base, proc, workdir / "gunicorn.log")
            warm: list[float] = []
            errors: list[str] = []
            _user(base, -1, 1, warm, errors, {})  # loads the embedder: not part of the run
            latencies: list[float] = []
            stored: dict[int, int] = {}
            started = time.perf_counter()
            threads = [threading.Thread(target=_user, args=(base, n, turns, latencies, errors,
                                                            stored)) for n in range(users)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(600)
            wall = time.perf_counter() - started
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
    return {"users": users, "turns": turns, "errors": len(errors), "error_examples": errors[:5],
            "not_stored_once": sum(stored.get(n) != turns for n in range(users)),
            "startup_s": round(startup, 1), "first_turn_s": round(sum(warm), 1),
            "wall_s": round(wall, 1),
            "turns_per_s": round(len(latencies) / wall, 2) if wall else None,
            **common.summary_ms(latencies), "model_calls": server.calls}


def _wait_up(base: str, proc: subprocess.Popen[str], log: Path, timeout: float = 240) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {log.read_text()[-500:]}")
        try:
            if _Client(base).request("/-/health.json")[0] == 200:
                return time.perf_counter() - started
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError("gunicorn did not answer in time")
