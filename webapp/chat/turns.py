"""A streamed chat turn: answered on the app's bounded pool, relayed as SSE, ended by Stop."""

from __future__ import annotations

import json
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask

HEARTBEAT_SECONDS = 1.0  # an idle stream writes a comment this often: a hang-up is seen soon
KEY = "memplay_turns"
POOL = "memplay_turn_pool"
Render = Callable[[dict[str, Any]], dict[str, Any]]


class Turn:
    """One answer being made: its id (for Stop), owner, stop signal and event queue."""

    def __init__(self, user_id: str) -> None:
        self.id = secrets.token_urlsafe(12)
        self.user_id = user_id
        self.stop = threading.Event()
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()

    def put(self, kind: str, data: Any) -> None:
        """Hand one event to the response (from the answering thread)."""
        self.events.put((kind, data))


def _running(app: Flask) -> tuple[threading.Lock, dict[str, Turn]]:
    return app.extensions.setdefault(KEY, (threading.Lock(), {}))  # type: ignore[no-any-return]


class Pool:
    """At most `size` daemon threads make answers; a turn beyond them waits in the queue."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._waiting: queue.SimpleQueue[tuple[Callable[[Turn], None], Turn]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._started = self._free = self._owed = 0  # threads; idle ones; turns none took yet

    def submit(self, work: Callable[[Turn], None], turn: Turn) -> None:
        with self._lock:
            if self._free:
                self._free -= 1
            elif self._started < self.size:
                self._started += 1
                threading.Thread(target=self._serve, name="chat-turn", daemon=True).start()
            else:
                self._owed += 1
            self._waiting.put((work, turn))

    def _serve(self) -> None:
        while True:
            work, turn = self._waiting.get()
            try:
                work(turn)
            finally:
                with self._lock:
                    if self._owed:
                        self._owed -= 1
                    else:
                        self._free += 1


def init_app(app: Flask) -> None:
    """The app's answer threads: STREAM_WORKERS turns are made at once, the rest wait."""
    app.extensions[POOL] = Pool(int(app.config.get("STREAM_WORKERS", 16)))


def begin(app: Flask, user_id: str, work: Callable[[Turn], None]) -> Turn:
    """Register a turn and run `work(turn)` on the app's pool."""
    turn = Turn(user_id)
    lock, turns = _running(app)
    with lock:
        turns[turn.id] = turn
    app.extensions[POOL].submit(work, turn)
    return turn


def end(app: Flask, turn: Turn) -> None:
    """Stop the turn if it still runs (a finished one ignores it) and forget it."""
    turn.stop.set()
    lock, turns = _running(app)
    with lock:
        turns.pop(turn.id, None)


def stop(app: Flask, user_id: str, turn_id: str) -> bool:
    """Stop one of the user's running turns (this process's); False when there is none."""
    lock, turns = _running(app)
    with lock:
        turn = turns.get(turn_id)
    if turn is None or turn.user_id != user_id:
        return False
    turn.stop.set()
    return True


def sse(event: str, data: Any) -> str:
    """One Server-Sent Event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def relay(app: Flask, turn: Turn, done: Render, error: Render, silence: float) -> Iterator[str]:
    """The turn's events as SSE until it ends. A browser that hangs up closes this generator
    (GeneratorExit at a write, at most HEARTBEAT_SECONDS later): the turn is stopped, so no
    answer goes on being made and stored after Stop."""
    yield sse("start", {"turn": turn.id})
    heard = time.monotonic()
    try:
        while True:
            try:
                kind, data = turn.events.get(timeout=HEARTBEAT_SECONDS)
            except queue.Empty:
                if time.monotonic() - heard > silence:  # the model went silent: end it plainly
                    turn.stop.set()
                    yield sse("error", error({"status": 504, "error": (
                        "The chat model sent nothing for too long; the answer was stopped"
                        " and is not stored.")}))
                    return
                yield ": alive\n\n"
                continue
            heard = time.monotonic()
            if kind in ("token", "phase", "replace"):
                yield sse(kind, data)
            elif kind == "stopped":
                yield sse("stopped", data)
                return
            elif kind == "error":
                yield sse("error", error(data))
                return
            else:
                yield sse("done", done(data))
                return
    finally:
        end(app, turn)
