"""Provider faults: timeout, HTTP 500, garbage, truncated JSON, a stream cut halfway."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .fault_tools import FAULT_MODES, FaultServer, HashEmbedder, error_texts_stored, invariants

USER = "u1"
ALL = ("answer", "stream", "maintenance")
APPLIES = {"stream_cut": ("stream",)}  # structured and plain calls are not streamed


def _engine(folder: Path, base_url: str) -> Any:
    from memoryos_core import EngineConfig, MemoryEngine
    from memoryos_core.llm import OpenAIChatModel

    model = OpenAIChatModel("faulty", base_url=base_url, timeout=1.0, retries=0,
                            json_mode="schema")
    config = EngineConfig().replace(consolidation="llm", analysis="llm", consolidation_batch=4,
                                    structured_retries=1, heat_threshold=2.0)
    return MemoryEngine(folder, chat_model=model, embedder=HashEmbedder(), config=config)


def _count(engine: Any) -> int:
    return int(engine.store.scalar("SELECT count(*) FROM exchanges WHERE user_id = ?", (USER,)))


def _answer(engine: Any, stream: bool) -> str:
    """'error' when the engine raised a named model error, 'stored' when it answered."""
    from memoryos_core import ModelError

    try:
        engine.chat(USER, "What do you remember about my garden?", maintain=False,
                    on_token=(lambda piece: None) if stream else None)
    except ModelError:
        return "error"
    return "stored"


def run(workdir: Path) -> dict[str, Any]:
    """Each fault against answers (plain and streamed) and maintenance; then recovery."""
    from memoryos_core import ModelError

    modes: dict[str, Any] = {}
    folder = workdir / "provider"
    with FaultServer() as server:
        engine = _engine(folder, server.base_url)
        for n, mode in enumerate(FAULT_MODES):
            server.mode = "ok"
            for i in range(12):  # fresh pending pages for this fault's maintenance run
                engine.add_exchange(USER, f"{mode} note {i}: my garden has {n + i} tomato"
                                    " plants", "Lovely garden.", maintain=False)
            applies = APPLIES.get(mode, ALL)
            before = _count(engine)
            server.mode = mode
            entry: dict[str, Any] = {
                "answer": _answer(engine, stream=False) if "answer" in applies else "n/a",
                "stream": _answer(engine, stream=True) if "stream" in applies else "n/a"}
            entry["exchanges_stored_on_error"] = _count(engine) - before
            fallbacks = sum(v.get("fallbacks", 0) for v in engine.usage(USER).values())
            try:
                if "maintenance" in applies:
                    engine.maintain(USER, force=True)
                entry["maintenance"] = "completed" if "maintenance" in applies else "n/a"
            except ModelError:
                entry["maintenance"] = "model error (pages stay pending)"
            entry["fallbacks"] = sum(v.get("fallbacks", 0)
                                     for v in engine.usage(USER).values()) - fallbacks
            server.mode = "ok"
            engine.force_analysis(USER)
            pending = engine.state(USER)["pending_work"]
            entry["resumed"] = (pending["pages_to_consolidate"] == 0
                                and pending["unanalysed_pages"] == 0)
            entry["answer_after_recovery"] = _answer(engine, stream=True)
            modes[mode] = entry
        engine.store.close()
    faulted = [m for m in modes.values()]
    return {
        "modes": modes,
        "faulty_answers_stored": sum((m["answer"] == "stored") + (m["stream"] == "stored")
                                     for m in faulted),
        "exchanges_stored_on_error": sum(m["exchanges_stored_on_error"] for m in faulted),
        "error_texts_stored": error_texts_stored(folder),
        "maintenance_not_resumed": sum(not m["resumed"] for m in faulted),
        "recovery_failures": sum(m["answer_after_recovery"] != "stored" for m in faulted),
        "invariant_violations": sum(invariants(folder).values()),
    }
