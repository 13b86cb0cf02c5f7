"""Commands that serve, move or copy a store: serve-model, mcp, import-reference, reembed,
backup."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InvalidInput
from . import cli_output
from .cli_runtime import Runtime, note, out

SECRET_FILE = "secret_key"  # the web app's cookie-signing key in its data folder
NO_SECRET_NOTE = (
    "  no secret_key file was found (the app's key comes from MEMPLAY_SECRET_KEY): keep that"
    " value with this backup and start the restored app with it; with another key every login"
    " ends and the API keys saved for model endpoints cannot be read (their owners enter them"
    " again)")


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
    from ..transfer import reference_import

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
    from ..llm.embedder import SentenceTransformerEmbedder
    from ..storage import open_store
    from ..transfer.reembed import recorded_model, reembed

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



def web_data_folder(path: Path) -> Path:
    """The web app's data folder: the one given, or its data/ when given the instance folder
    (one that holds no database of its own)."""
    if not any(path.glob("*.sqlite3")) and (path / "data").is_dir():
        return path / "data"
    return path


def cmd_backup(rt: Runtime) -> int:
    """Copy every SQLite database of a data folder with the online backup API, then verify."""
    from ..storage import backup, database_url

    a = rt.args
    if database_url(a.database_url or None):
        raise InvalidInput(
            "this store is PostgreSQL: back it up with pg_dump, e.g. pg_dump --format=custom"
            " --file memoryos.dump \"$MEMORYOS_DATABASE_URL\" (restore: pg_restore --clean"
            " --dbname URL memoryos.dump; docs/operating.md, \"Backups\"). memoryos backup copies"
            " SQLite data folders.")
    if a.instance:
        folder = web_data_folder(Path(a.instance)).resolve()
        files = backup.databases_in(folder) if folder.is_dir() else []
        if not files:
            raise InvalidInput(f"no SQLite databases in {folder} (a web app on PostgreSQL is"
                               " backed up with pg_dump; docs/operating.md, \"Backups\")")
    else:
        folder = Path(a.data_dir).resolve()
        if not backup.memory_database(folder).is_file():
            raise InvalidInput(f"no memory store in {folder}"
                               f" ({backup.memory_database(folder).name} not found)")
        files = [Path(backup.memory_database(folder).name)]
    target = Path(a.target).resolve()
    if target == folder or folder in target.parents:
        raise InvalidInput(f"the backup folder {target} must be outside {folder}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidInput(f"{target} exists and is not an empty folder: back up into a new one")
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    copied = [{"file": str(rel), **backup.copy_database(folder / rel, target / rel)}
              for rel in files]
    secret = secret_file(folder) if a.instance else None
    if secret is not None:  # signs login cookies and seals endpoint keys: both survive a restore
        fd = os.open(target / SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secret.read_bytes())
    report = {"source": str(folder), "target": str(target), "databases": copied,
              "secret_key": str(secret) if secret else None}
    if a.json:
        out(cli_output.dumps(report))
        return 0
    out(f"backed up {len(copied)} database{'s' if len(copied) > 1 else ''} of {folder} to"
        f" {target}; each copy reopened and passed PRAGMA integrity_check")
    for item in copied:
        counts = ", ".join(f"{k} {v}" for k, v in item["counts"].items())
        out(f"  {item['file']}: {item['bytes']:,} bytes, schema {item['schema_version']}, {counts}")
    if secret is not None:
        out(f"  {SECRET_FILE}: copied from {secret}")
    elif a.instance:
        out(NO_SECRET_NOTE)
    return 0


def secret_file(folder: Path) -> Path | None:
    """The web app's key file: in its data folder (the app made it), else in the instance
    folder above it (scripts/start keeps it there and passes it as MEMPLAY_SECRET_KEY)."""
    for candidate in (folder / SECRET_FILE, folder.parent / SECRET_FILE):
        if candidate.is_file():
            return candidate
    return None
