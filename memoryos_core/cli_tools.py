"""Commands that serve or move a store: serve-model, mcp, import-reference, reembed."""

from __future__ import annotations

from . import cli_output
from .cli_runtime import Runtime, note, out
from .errors import InvalidInput


def cmd_serve_model(rt: Runtime) -> int:
    if not 0 < rt.args.port < 65536:
        raise InvalidInput(f"port {rt.args.port} is not between 1 and 65535")
    try:
        from .serve import serve_model
    except ImportError as exc:
        raise InvalidInput(f"serve-model is not available: {exc}") from None
    serve_model(rt.args.port, rt.args.host)
    return 0


def cmd_import_reference(rt: Runtime) -> int:
    from . import reference_import

    a = rt.args
    files = reference_import.read_folder(a.folder)  # before the engine: a bad path writes nothing
    engine = rt.engine()
    if a.dry_run:
        preview = engine.preview_reference(rt.user, files, a.from_user, a.assistant)
        out(cli_output.dumps(preview) if a.json else
            f"would import from users/{preview['user']}: " + ", ".join(
                f"{k} {v}" for k, v in preview["counts"].items()))
        return 0
    bar = rt.progress()
    try:
        report = engine.import_reference(rt.user, files, a.from_user, a.assistant, progress=bar)
    finally:
        bar.close()
    out(cli_output.dumps(report) if a.json else
        f"imported from users/{report['user']}: " + ", ".join(
            f"{k} {v}" for k, v in report["imported"].items())
        + f"; the memory before is saved as version {report['saved_as']}")
    return 0


def cmd_reembed(rt: Runtime) -> int:
    from .llm.embedder import SentenceTransformerEmbedder
    from .reembed import recorded_model, reembed
    from .storage import open_store

    embedder = SentenceTransformerEmbedder.from_name(rt.args.model)
    # opened without the model check: it is being moved
    store = open_store(rt.args.data_dir, rt.args.database_url or "")
    before = recorded_model(store)
    bar = rt.progress()
    try:
        report = reembed(store, embedder, progress=bar)
    finally:
        bar.close()
    out(cli_output.dumps(report) if rt.args.json else
        f"re-embedded {report['vectors']} vectors and {report['versions']} versions with"
        f" {report['model']} ({report['dim']}-d)"
        + (f", was {before['name']} ({before['dim']}-d)" if before else ""))
    return 0


def cmd_mcp(rt: Runtime) -> int:
    from .mcp_server import run_stdio

    engine = rt.engine()
    where = "PostgreSQL" if rt.args.database_url else rt.args.data_dir
    note(f"MCP server on stdio for user {rt.user!r}, data in {where}")
    run_stdio(engine, rt.user)
    return 0


# -- parser and entry point -------------------------------------------------------------------
