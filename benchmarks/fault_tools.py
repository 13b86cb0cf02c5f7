"""Fault-suite tools: a hash embedder, a misbehaving OpenAI-compatible server, store checks."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# the fault suite starts dozens of processes; its storage checks do not depend on embedding
# quality, so it embeds with the library's hashing test embedder (no model to load)
from memoryos_core.testing import HashEmbedder  # noqa: F401 - re-exported for the suite

MARKER = "FAULT-MARKER-7f3a"  # inside every faulty reply: found in the store means stored
FAULT_MODES = ("timeout", "http500", "garbage", "truncated_json", "stream_cut")
ERROR_MARKERS = (MARKER, "Traceback", "internal error", "HTTP 500", "Internal Server Error",
                 "ModelError", "stopped streaming")


def fill(schema: dict[str, Any]) -> Any:
    """A valid value for a JSON schema (the scripted model's filler)."""
    from memoryos_core.testing import fill_schema

    return fill_schema(schema)


class _QuietServer(ThreadingHTTPServer):
    """Clients that give up (timeouts) are expected here: no tracebacks on stderr."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


class FaultServer:
    """An OpenAI-compatible endpoint that answers well ('ok') or fails in a chosen way."""

    def __init__(self, answer: str = "Noted, thank you.") -> None:
        self.mode = "ok"
        self.answer = answer
        self.delay = 0.0  # seconds before an 'ok' reply (load runs)
        self.calls = 0
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The /v1 URL to give an OpenAI client."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply_text(self, body: dict[str, Any]) -> str:
        """The content of a good reply: schema-filled JSON for structured calls."""
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema")
        if schema:
            return json.dumps(fill(schema))
        return self.answer


def _handler(server: FaultServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            return

        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            self._send(200, json.dumps({"object": "list", "data": [{"id": "faulty"}]}).encode())

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server._lock:
                server.calls += 1
            mode = server.mode
            if mode == "timeout":
                time.sleep(3.0)
                mode = "ok"
            if mode == "http500":
                self._send(500, json.dumps({"error": {"message": f"boom {MARKER}"}}).encode())
                return
            if mode == "garbage":
                self._send(200, f"<html>{MARKER} not json".encode(), "application/json")
                return
            text = server.reply_text(body)
            if mode == "truncated_json" and not body.get("stream"):
                envelope = json.dumps(_completion(text + " " + MARKER))
                self._send(200, envelope[: len(envelope) // 2].encode())
                return
            if server.delay:
                time.sleep(server.delay)
            if body.get("stream"):
                self._stream(text, cut=mode == "stream_cut")
                return
            self._send(200, json.dumps(_completion(text)).encode())

        def _stream(self, text: str, cut: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            words = (text + " " + MARKER).split(" ") if cut else text.split(" ")
            if cut:
                words = words[: max(1, len(words) // 2)]
            for i, word in enumerate(words):
                delta = {"content": word if i == 0 else " " + word}
                self._chunk(f"data: {json.dumps(_chunk(delta, None))}\n\n")
                if server.mode == "truncated_json":  # then a chunk whose JSON breaks off
                    whole = json.dumps(_chunk({"content": " " + MARKER}, "stop"))
                    self._chunk(f"data: {whole[: len(whole) // 2]}\n\n")
                    self.wfile.write(b"0\r\n\r\n")
                    return
            if cut:  # the connection drops: no finish_reason, no [DONE], no last chunk
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            self._chunk(f"data: {json.dumps(_chunk({}, 'stop'))}\n\n")
            self._chunk("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")

        def _chunk(self, text: str) -> None:
            data = text.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


def _completion(text: str) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "faulty",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def _chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "faulty",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _db(data_dir: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(data_dir / "memory.sqlite3", timeout=60)
    conn.row_factory = sqlite3.Row
    return conn


def invariants(data_dir: Path) -> dict[str, int]:
    """Violations of the store's invariants, by kind (all zero in a healthy store)."""
    conn = _db(data_dir)
    try:
        found: dict[str, int] = {}

        def count(name: str, sql: str) -> None:
            found[name] = int(conn.execute(sql).fetchone()[0])

        found["integrity_check"] = int(conn.execute("PRAGMA integrity_check").fetchone()[0]
                                       != "ok")
        count("page_in_missing_or_foreign_segment",
              "SELECT count(*) FROM exchanges e WHERE e.segment_id IS NOT NULL AND NOT EXISTS"
              " (SELECT 1 FROM segments s WHERE s.id = e.segment_id AND s.user_id = e.user_id)")
        count("short_term_page_in_segment",
              "SELECT count(*) FROM exchanges WHERE tier = 'short' AND segment_id IS NOT NULL")
        count("broken_chain_link",
              "SELECT count(*) FROM exchanges e WHERE (e.prev_id IS NOT NULL AND NOT EXISTS"
              " (SELECT 1 FROM exchanges p WHERE p.id = e.prev_id AND p.user_id = e.user_id"
              " AND p.next_id = e.id)) OR (e.next_id IS NOT NULL AND NOT EXISTS (SELECT 1"
              " FROM exchanges n WHERE n.id = e.next_id AND n.user_id = e.user_id))")
        count("page_without_vector",
              "SELECT count(*) FROM exchanges e WHERE NOT EXISTS (SELECT 1 FROM vectors v"
              " WHERE v.kind = 'page' AND v.item_id = e.id)")
        count("segment_without_vector",
              "SELECT count(*) FROM segments s WHERE NOT EXISTS (SELECT 1 FROM vectors v"
              " WHERE v.kind = 'segment' AND v.item_id = s.id)")
        count("orphan_vector",
              "SELECT count(*) FROM vectors v WHERE (v.kind = 'page' AND NOT EXISTS (SELECT 1"
              " FROM exchanges e WHERE e.id = v.item_id)) OR (v.kind = 'segment' AND NOT EXISTS"
              " (SELECT 1 FROM segments s WHERE s.id = v.item_id))")
        try:
            conn.execute("INSERT INTO exchanges_fts(exchanges_fts, rank)"
                         " VALUES('integrity-check', 1)")
            found["fts_out_of_step"] = 0
        except sqlite3.DatabaseError:
            found["fts_out_of_step"] = 1
        short_over = conn.execute(
            "SELECT count(*) FROM (SELECT user_id FROM exchanges WHERE tier = 'short'"
            " GROUP BY user_id HAVING count(*) > ?)", (SHORT_TERM,)).fetchone()[0]
        found["short_term_over_capacity"] = int(short_over)
        return found
    finally:
        conn.close()


SHORT_TERM = 7


def exchange_texts(data_dir: Path, user_id: str = "u1") -> list[str]:
    """Every stored user text of a user (duplicates kept)."""
    conn = _db(data_dir)
    try:
        return [r[0] for r in conn.execute("SELECT user_text FROM exchanges WHERE user_id = ?",
                                           (user_id,))]
    finally:
        conn.close()


def error_texts_stored(data_dir: Path) -> int:
    """Stored texts (exchanges, segments, facts, profile) that carry an error or fault reply."""
    conn = _db(data_dir)
    try:
        rows = [*conn.execute("SELECT user_text || ' ' || assistant_text || ' ' ||"
                              " coalesce(overview, '') FROM exchanges"),
                *conn.execute("SELECT summary || ' ' || keywords FROM segments"),
                *conn.execute("SELECT text FROM facts"),
                *conn.execute("SELECT level || ' ' || reason FROM profile")]
        return sum(1 for (text,) in rows if any(m in (text or "") for m in ERROR_MARKERS))
    finally:
        conn.close()
