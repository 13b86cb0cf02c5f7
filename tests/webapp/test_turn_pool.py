"""Streamed answers run on a bounded pool: no more threads than its size, every turn answered."""

from __future__ import annotations

import threading
import time

from webapp.chat.turns import Pool, Turn


def test_the_pool_never_starts_more_threads_than_its_size_and_runs_every_turn():
    pool, gate, done = Pool(2), threading.Event(), []
    running = 0
    most = 0
    lock = threading.Lock()

    def work(turn: Turn) -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        gate.wait(5)
        with lock:
            running -= 1
            done.append(turn.id)

    before = {t.ident for t in threading.enumerate()}
    turns = [Turn("u1") for _ in range(5)]
    for turn in turns:
        pool.submit(work, turn)
    time.sleep(0.2)
    started = [t for t in threading.enumerate() if t.ident not in before and t.name == "chat-turn"]
    assert len(started) == 2 and most == 2  # three turns wait for a free thread
    gate.set()
    deadline = time.monotonic() + 5
    while len(done) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sorted(done) == sorted(t.id for t in turns)
    pool.submit(work, Turn("u1"))  # an idle thread takes the next turn: none is started
    time.sleep(0.1)
    assert len([t for t in threading.enumerate() if t.ident not in before
                and t.name == "chat-turn"]) == 2
