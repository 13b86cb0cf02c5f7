"""`memoryos serve-model`: a chat model behind an OpenAI-compatible API (standard library only).

Endpoints: `GET /v1/models`, `POST /v1/chat/completions` (plain, `stream: true` as server-sent
events in OpenAI's chunk format, and `response_format` json_object / json_schema, which the
embedded model turns into a grammar). Any OpenAI client can use it with any API key.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..errors import ModelError
from ..llm.base import ChatModel, Message

MAX_BODY = 4 * 1024 * 1024
DEFAULT_MAX_TOKENS = 512


class RequestError(Exception):
    """A request the server rejects with HTTP 400."""


def _text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a content list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content
                       if isinstance(p, dict) and p.get("type") in ("text", None))
    raise RequestError("message content must be a string or a list of text parts")


def parse_request(body: dict[str, Any]) -> dict[str, Any]:
    """The model call an OpenAI chat request asks for; RequestError when it is malformed."""
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestError("'messages' must be a non-empty list")
    messages: list[Message] = []
    for n, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("system", "developer", "user",
                                                             "assistant", "tool"):
            raise RequestError(f"messages[{n}] needs a role of system, user or assistant")
        role = "system" if m["role"] == "developer" else str(m["role"])
        messages.append({"role": "user" if role == "tool" else role,
                         "content": _text(m.get("content"))})
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or DEFAULT_MAX_TOKENS
    temperature = body.get("temperature")
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise RequestError("'max_tokens' must be a positive integer")
    if temperature is not None and not isinstance(temperature, (int, float)):
        raise RequestError("'temperature' must be a number")
    schema: dict[str, Any] | None = None
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        schema = fmt.get("schema") if isinstance(fmt.get("schema"), dict) else {"type": "object"}
    elif isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise RequestError("response_format.json_schema.schema must be an object")
    elif fmt is not None and not (isinstance(fmt, dict) and fmt.get("type") == "text"):
        raise RequestError("response_format.type must be text, json_object or json_schema")
    return {"messages": messages, "max_tokens": max_tokens,
            "temperature": 0.3 if temperature is None else float(temperature),
            "json_schema": schema, "stream": bool(body.get("stream"))}


def _stream(model: ChatModel, call: dict[str, Any]) -> Iterator[str]:
    """The reply's pieces; a schema-constrained stream where the model supports one."""
    kwargs: dict[str, Any] = {"max_tokens": call["max_tokens"],
                              "temperature": call["temperature"]}
    if call["json_schema"] is not None:
        try:
            return iter(model.stream(call["messages"], json_schema=call["json_schema"],  # type: ignore[call-arg]
                                     **kwargs))
        except TypeError:  # a ChatModel whose stream() takes no schema: answer in one piece
            done = model.complete(call["messages"], json_schema=call["json_schema"], **kwargs)
            return iter([done.text])
    return iter(model.stream(call["messages"], **kwargs))


def make_handler(model: ChatModel) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to one chat model."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "memoryos-serve-model/1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            sys.stderr.write(f"serve-model: {self.address_string()} {format % args}\n")

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, kind: str) -> None:
            self._json(status, {"error": {"message": message, "type": kind, "code": status}})

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": [
                    {"id": model.name, "object": "model", "created": 0, "owned_by": "memoryos",
                     "context_window": model.context_window}]})
            elif path in ("", "/health"):
                self._json(200, {"ok": True, "model": model.name})
            else:
                self._error(404, f"no route {path}", "not_found_error")

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            path = self.path.split("?")[0].rstrip("/")
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._error(404, f"no route {path}", "not_found_error")
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                if length <= 0 or length > MAX_BODY:
                    raise RequestError("a JSON body of at most 4 MB is required")
                body = json.loads(self.rfile.read(length))
                if not isinstance(body, dict):
                    raise RequestError("the body must be a JSON object")
                call = parse_request(body)
            except (RequestError, ValueError) as exc:
                self._error(400, str(exc), "invalid_request_error")
                return
            if call["stream"]:
                self._respond_stream(call)
            else:
                self._respond(call)

        def _respond(self, call: dict[str, Any]) -> None:
            try:
                done = model.complete(call["messages"], max_tokens=call["max_tokens"],
                                      temperature=call["temperature"],
                                      json_schema=call["json_schema"])
            except ModelError as exc:
                self._error(500, str(exc), "server_error")
                return
            finish = "length" if done.completion_tokens >= call["max_tokens"] else "stop"
            self._json(200, {
                "id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion",
                "created": int(time.time()), "model": model.name,
                "choices": [{"index": 0, "finish_reason": finish,
                             "message": {"role": "assistant", "content": done.text}}],
                "usage": {"prompt_tokens": done.prompt_tokens,
                          "completion_tokens": done.completion_tokens,
                          "total_tokens": done.prompt_tokens + done.completion_tokens},
            })

        def _respond_stream(self, call: dict[str, Any]) -> None:
            ident, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())

            def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
                chunk = {"id": ident, "object": "chat.completion.chunk", "created": created,
                         "model": model.name,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()

            pieces = _stream(model, call)
            try:  # the first piece before the headers, so a failing model gives a clean 500
                first = next(pieces, None)
            except ModelError as exc:
                self._error(500, str(exc), "server_error")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(event({"role": "assistant", "content": ""}))
                if first is not None:
                    self.wfile.write(event({"content": first}))
                for piece in pieces:
                    self.wfile.write(event({"content": piece}))
                    self.wfile.flush()
                self.wfile.write(event({}, "stop"))
            except ModelError as exc:
                error = {"error": {"message": str(exc), "type": "server_error", "code": 500}}
                self.wfile.write(f"data: {json.dumps(error)}\n\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                close = getattr(pieces, "close", None)
                if close is not None:
                    close()
                return
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def make_server(port: int, host: str = "127.0.0.1",
                model: ChatModel | None = None) -> ThreadingHTTPServer:
    """A bound, not yet serving, server for `model` (the embedded model when None)."""
    if model is None:
        from ..llm.local import LocalChatModel

        model = LocalChatModel()
    server = ThreadingHTTPServer((host, port), make_handler(model))
    server.daemon_threads = True
    return server


def serve_model(port: int, host: str = "127.0.0.1", model: ChatModel | None = None) -> None:
    """Serve the chat model (the embedded one by default) until interrupted."""
    server = make_server(port, host, model)
    bound_host, bound_port = server.server_address[:2]
    sys.stderr.write(f"serve-model: OpenAI-compatible API on http://{bound_host!s}:{bound_port}"
                     f"/v1 (POST /v1/chat/completions, GET /v1/models); Ctrl-C stops\n")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
