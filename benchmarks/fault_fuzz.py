"""Hypothesis-fuzzed importers and route parameters through the real Flask app."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .fault_tools import HashEmbedder

USER = "u1"
FORMATS = ("auto", "playground", "locomo", "chatgpt", "transcript", "memoryos-export")


def _app(folder: Path) -> Any:
    from memoryos_core.testing import ScriptedChatModel, schema_filler
    from webapp import create_app

    return create_app({
        "DATA_DIR": str(folder), "SECRET_KEY": "fuzz", "EMBEDDER": HashEmbedder(),
        "CHAT_MODEL": ScriptedChatModel(default=schema_filler),
        "ENGINE_SETTINGS": {"consolidation": "extractive", "analysis": "extractive"},
        "LOGIN_MAX_FAILURES": 10**6, "PROPAGATE_EXCEPTIONS": False})  # a crash is a 500


def _strategies() -> dict[str, Any]:
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
               | st.floats(allow_nan=False) | st.text(max_size=30))
    values = st.recursive(scalars, lambda c: st.lists(c, max_size=4)
                          | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)
    text_or_any = st.text(max_size=60) | values
    stamp = (st.none() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=25)
             | st.sampled_from(["2024-05-01 10:00:00", "2024-13-45", "1e309", ""]))
    playground = st.lists(st.fixed_dictionaries({}, optional={
        "user_input": text_or_any, "agent_response": text_or_any, "timestamp": stamp})
        | values, max_size=6)
    turn = st.fixed_dictionaries({}, optional={
        "speaker": st.sampled_from(["Ann", "Bo", "Cy", None, 3]), "text": text_or_any,
        "dia_id": st.text(max_size=6), "blip_caption": st.none() | st.text(max_size=10)
        | st.integers()}) | values
    dates = st.sampled_from(["1:56 pm on 8 May, 2023", "25:99 pm on 40 Foo, 2023", ""]) \
        | st.text(max_size=20) | values
    conversation = st.fixed_dictionaries(
        {"speaker_a": st.sampled_from(["Ann", 5, None, ""]),
         "speaker_b": st.sampled_from(["Bo", "Ann", None])},
        optional={"session_1": st.lists(turn, max_size=6) | values, "session_1_date_time": dates,
                  "session_2": st.lists(turn, max_size=6) | values, "session_2_date_time": dates})
    locomo = st.fixed_dictionaries({"sample_id": st.text(max_size=4),
                                    "conversation": conversation | values})
    node = st.fixed_dictionaries({}, optional={
        "message": st.fixed_dictionaries({}, optional={
            "author": st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", 7])})
            | values, "content": st.fixed_dictionaries({"parts": st.lists(text_or_any,
                                                                            max_size=3)}) | values,
            "create_time": stamp}) | values,
        "parent": st.sampled_from(["a", "b", "c", None]), "children": values})
    chatgpt = st.fixed_dictionaries({"mapping": st.dictionaries(
        st.sampled_from(["a", "b", "c"]), node, max_size=3) | values},
        optional={"current_node": st.sampled_from(["a", "b", "c", None])})
    transcript = st.lists(st.tuples(st.sampled_from(["User: ", "Assistant: ", "AI:", "me:", "",
                                                     "  ", "Bob: "]), st.text(max_size=40)),
                          max_size=8).map(lambda lines: "\n".join(a + b for a, b in lines))
    docs = (playground | locomo | st.lists(locomo, max_size=2) | chatgpt | values).map(json.dumps)
    return {"document": docs | transcript | st.text(max_size=200),
            "format": st.sampled_from(FORMATS),
            "param": st.integers(-2**70, 2**70).map(str) | st.text(max_size=30)}


def _count(engine: Any) -> int:
    return int(engine.store.scalar("SELECT count(*) FROM exchanges WHERE user_id = ?", (USER,)))


def _wait(engine: Any, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = engine.jobs.get(USER, job_id)
        if job["status"] not in ("queued", "running"):
            return job
        time.sleep(0.02)
    raise RuntimeError(f"import job {job_id} did not finish")


def run(examples: int, seed: int, workdir: Path) -> dict[str, Any]:
    """Server errors (>= 500) and partial imports over fuzzed documents and route values."""
    from hypothesis import HealthCheck, given, settings

    app = _app(workdir / "fuzz")
    engine = app.extensions["memoryos"]
    client = app.test_client()
    client.post("/register", data={"username": "fuzzer", "password": "correct horse battery",
                                   "confirm": "correct horse battery"})
    figures = {"import_cases": 0, "imports_accepted": 0, "route_cases": 0, "server_errors": 0,
               "partial_imports": 0, "examples": []}
    strat = _strategies()
    config = settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck))

    def server_error(response: Any, what: str) -> None:
        if response.status_code >= 500:
            figures["server_errors"] += 1
            if len(figures["examples"]) < 5:
                figures["examples"].append(f"{what}: HTTP {response.status_code}")

    @config
    @given(strat["document"], strat["format"])
    def imports(document: str, fmt: str) -> None:
        figures["import_cases"] += 1
        data = {"text": document, "format": fmt}
        server_error(client.post("/import/preview.json", data=data), f"preview {document[:60]!r}")
        before = _count(engine)
        run = client.post("/import/run.json", data=data)
        server_error(run, f"run {document[:60]!r}")
        if run.status_code != 200:
            figures["partial_imports"] += int(_count(engine) != before)
            return
        job = _wait(engine, run.json["job"]["id"])
        result = job.get("result") or {}
        if job["status"] == "done":
            figures["imports_accepted"] += 1
        if result.get("format") == "memoryos-export":
            return  # an export replaces the whole memory: no delta to compare
        added = result.get("imported", 0) if job["status"] == "done" else 0
        figures["partial_imports"] += int(_count(engine) - before != added)

    @config
    @given(strat["param"], strat["param"])
    def routes(a: str, b: str) -> None:
        figures["route_cases"] += 1
        x, y = quote(a, safe=""), quote(b, safe="")
        for method, url, data in (
                ("get", f"/memory/pages/{x}", None), ("get", f"/memory/pages/{x}.json", None),
                ("get", f"/memory/segments/{x}", None), ("get", f"/chat/trace/{x}.json", None),
                ("get", f"/jobs/{x}", None), ("get", f"/versions/diff.json?a={x}&b={y}", None),
                ("post", f"/versions/{x}/restore.json", {}), ("get", f"/login?next={x}", None),
                ("post", "/import/run.json", {"token": a}),
                ("post", "/settings.json", {"base_url": a, "model": b})):
            server_error(getattr(client, method)(url, data=data), f"{method} {url[:80]}")
        client.post("/settings.json", data={"base_url": "", "model": ""})  # default model

    imports()
    routes()
    return figures
