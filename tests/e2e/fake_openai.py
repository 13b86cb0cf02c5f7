"""A scripted OpenAI-compatible chat server on 127.0.0.1 for the browser tests.

`POST /v1/chat/completions` answers from a queue of scripted replies (else a default reply),
plain or streamed as server-sent events in OpenAI's chunk format; `GET /v1/models` lists one
model. Every request is recorded, and every stream a client closed before its end (`hangups`:
what Stop must cause). `fail_with(500)` makes every completion fail until `reset()`
(a persistent failure: the `openai` client retries, so a one-shot failure would be hidden).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_NAME = "fake-gpt"


class FakeOpenAI:
    """The server and its script; `base_url` ends in /v1 like OpenAI's."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, model: str = MODEL_NAME) -> None:
        self.model = model  # what /v1/models lists (a second server names another model)
        self._lock = threading.Lock()
        self._replies: deque[str] = deque()
        self.default = "Noted. I will remember that."
        self.requests: list[dict[str, Any]] = []
        self.failure: int | None = None
        self.token_delay = 0.0  # seconds between streamed pieces (to watch an answer stream)
        self.hangups: list[float] = []  # when a client closed a stream before its end (Stop)
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-openai",
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- script ------------------------------------------------------------------------------

    def enqueue(self, *replies: str) -> None:
        with self._lock:
            self._replies.extend(replies)

    def fail_with(self, status: int = 500) -> None:
        with self._lock:
            self.failure = status

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self.requests.clear()
            self.failure = None
            self.token_delay = 0.0
            self.hangups.clear()

    def completions(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def _next(self, body: dict[str, Any]) -> tuple[int | None, str]:
        with self._lock:
            self.requests.append({"path": body.pop("__path"), "body": body,
                                  "at": time.time()})
            if self.failure is not None:
                return self.failure, ""
            return None, self._replies.popleft() if self._replies else self.default


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            pass

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": [
                    {"id": fake.model, "object": "model", "created": 0, "owned_by": "tests"}]})
            else:
                self._json(404, {"error": {"message": f"no route {path}", "code": 404}})

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            path = self.path.split("?")[0].rstrip("/")
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._json(404, {"error": {"message": f"no route {path}", "code": 404}})
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._json(400, {"error": {"message": "body is not JSON", "code": 400}})
                return
            body["__path"] = path
            failure, reply = fake._next(body)
            if failure is not None:
                self._json(failure, {"error": {"message": "scripted failure",
                                               "type": "server_error", "code": failure}})
                return
            ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
            model = body.get("model") or MODEL_NAME
            if not body.get("stream"):
                words = len(reply.split())
                self._json(200, {
                    "id": ident, "object": "chat.completion", "created": created,
                    "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": reply}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": words,
                              "total_tokens": 10 + words}})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()

            def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
                data = {"id": ident, "object": "chat.completion.chunk", "created": created,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                return f"data: {json.dumps(data)}\n\n".encode()

            self.close_connection = True
            try:
                self.wfile.write(chunk({"role": "assistant", "content": ""}))
                pieces = reply.split(" ")
                for n, piece in enumerate(pieces):
                    self.wfile.write(chunk({"content": piece if n == 0 else " " + piece}))
                    self.wfile.flush()
                    if fake.token_delay:
                        time.sleep(fake.token_delay)
                self.wfile.write(chunk({}, "stop"))
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client hung up: Stop reached us
                with fake._lock:
                    fake.hangups.append(time.time())

    return Handler
