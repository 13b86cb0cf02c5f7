"""SQL statements and write transactions per chat turn (SQLite), for each prompt layout.

A made-up chat of 30 exchanges (the first-impression chat), then chat turns through
engine.chat with an instant scripted model: `chat` layout (a configured endpoint) and
`compact` layout (the embedded small model, which also retrieves at its own budget). Every
statement the engine sends to SQLite on the turn's thread is counted (sqlite3's trace
callback; statements SQLite runs inside FTS5 and triggers are not the engine's and are left
out), BEGIN and COMMIT included. Maintenance runs as in a real turn.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from . import answers, common, first_impression

USER = "sql-user"
QUESTIONS = [q for _, q, _ in answers.FACTS]


class StatementLog:
    """Counts the statements of every connection the store opens from now on."""

    def __init__(self, store: Any) -> None:
        self.statements: list[str] = []
        original = store.connect

        def connect() -> Any:
            conn = original()
            if not getattr(store._local, "traced", False):
                conn.set_trace_callback(self._seen)
                store._local.traced = True
            return conn

        store.connect = connect

    def _seen(self, sql: str) -> None:
        # "-- " marks statements SQLite runs inside FTS5 or a trigger; PRAGMAs are per connection
        if sql.startswith(("--", "PRAGMA")):
            return
        # an INSERT that fires triggers is reported once more per trigger program: one statement
        if sql.startswith("INSERT") and self.statements and self.statements[-1] == sql:
            return
        self.statements.append(sql)


def one_layout(compact: bool, emb: Any, data_dir: Path) -> dict[str, Any]:
    """Statements and write transactions of each question's turn under one layout."""
    from memoryos_core.testing import ScriptedChatModel

    model = ScriptedChatModel(None, default="Noted, thanks.", name="small",
                              context_window=4096) if compact else common.instant_model()
    if compact:
        model.embedded = True
    engine = common.make_engine(data_dir, model=model, emb=emb)
    start = time.time() - 40 * first_impression.DAY
    for n, (user, reply) in enumerate(answers.impression_chat(False)):
        engine.add_exchange(USER, user, reply, timestamp=start + n * first_impression.DAY)
    log = StatementLog(engine.store)
    engine.chat(USER, "Hello again!", model=model)  # warm: the indexes loaded
    turns = []
    for question in QUESTIONS:
        log.statements.clear()
        engine.chat(USER, question, model=model)
        said = log.statements
        turns.append({"statements": len(said),
                      "write_transactions": sum(s.upper().startswith("BEGIN") for s in said)})
    engine.store.close()
    counts = [t["statements"] for t in turns]
    return {"layout": "compact" if compact else "chat", "turns": len(turns),
            "median_statements": statistics.median(counts), "max_statements": max(counts),
            "max_write_transactions": max(t["write_transactions"] for t in turns),
            "per_turn": turns}


def run(emb: Any = None) -> dict[str, Any]:
    """Both layouts over fresh data folders."""
    emb = emb or common.embedder()
    result = common.envelope("sql_per_turn", {"questions": len(QUESTIONS)},
                             {"embedder": emb.name})
    with tempfile.TemporaryDirectory(prefix="memoryos-sql-") as tmp:
        result["layouts"] = [one_layout(compact, emb, Path(tmp) / f"d{int(compact)}")
                             for compact in (False, True)]
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = common.base_parser(__doc__.splitlines()[0])
    args = parser.parse_args(argv)
    result = run()
    common.emit(result, args.json, "\n".join(
        f"{r['layout']}: median {r['median_statements']} statements per turn (max "
        f"{r['max_statements']}), at most {r['max_write_transactions']} write transaction(s)"
        for r in result["layouts"]))
    return result


if __name__ == "__main__":
    main()
