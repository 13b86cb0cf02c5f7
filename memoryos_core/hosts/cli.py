"""The `memoryos` command: the engine for researchers and scripts (argparse, no web framework).

    memoryos [--data-dir DIR | --database-url URL] --user USER
             [--set name=value ...] [--base-url URL --model NAME] CMD

Every engine error, unreadable file or malformed document ends in one line
`memoryos: error: ...` on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from ..config import settings_table
from ..errors import MemoryOSError
from ..llm import ChatModel, Embedder
from ..llm.discovery import SERVE_MODEL_PORT
from ..storage.errors import database_errors
from ..transfer.importers import FORMATS
from . import cli_eval, cli_output
from .cli_runtime import PROG, Runtime, import_source, note, out
from .cli_tools import cmd_backup, cmd_import_reference, cmd_mcp, cmd_reembed, cmd_serve_model

# -- commands ---------------------------------------------------------------------------------


def cmd_import(rt: Runtime) -> int:
    args = rt.args
    source = import_source(args.path)  # before the engine exists: a missing file writes nothing
    engine = rt.engine()
    if args.dry_run:
        preview = engine.preview_import(rt.user, source, args.format, args.speaker,
                                        args.conversation)
        if args.json:
            out(cli_output.dumps(preview))
        else:
            out(f"format {preview['format']}: {preview['to_import']} of {preview['total']}"
                f" exchanges would be imported, {len(preview['skipped'])} skipped")
            out(*cli_output.recognised_lines(preview, "would be"))
            out(*(cli_output.clip(f"  {x['where']}: User: {x['user']} | Assistant:"
                                  f" {x['assistant']}", 110) for x in preview["sample"]))
            out(*(f"  skipped {x['where']}: {x['reason']}" for x in preview["skipped"][:20]))
            out(*cli_output.cut_lines(preview, "would be cut"))
        return 0
    bar = rt.progress()
    try:
        report = engine.import_dialogue(rt.user, source, args.format, args.speaker,
                                        progress=bar, maintain=not args.no_maintain,
                                        select=args.conversation)
    finally:
        bar.close()
    if args.json:
        out(cli_output.dumps(report))
        return 0
    if report["format"] == "memoryos-export":
        out(f"replaced the memory of {rt.user} with an export of {report['total']} exchanges;"
            f" the previous memory is saved as version {report['saved_as']}")
    else:
        out(f"imported {report['imported']} of {report['total']} exchanges"
            f" (format {report['format']}), {len(report['skipped'])} skipped")
        out(*cli_output.recognised_lines(report, "were"))
        for item in report["skipped"][:20]:
            out(f"  skipped {item['where']}: {item['reason']}")
        if len(report["skipped"]) > 20:
            out(f"  … {len(report['skipped']) - 20} more skipped")
        out(*cli_output.cut_lines(report, "cut"))
    out(cli_output.memory_counts(engine.state(rt.user)))
    return 0


def cmd_export(rt: Runtime) -> int:
    doc = rt.engine().export(rt.user)
    text = json.dumps(doc, ensure_ascii=False)  # the engine's export is JSON-ready
    if rt.args.output and rt.args.output != "-":
        Path(rt.args.output).write_text(text + "\n", encoding="utf-8")
        note(f"exported {len(doc['exchanges'])} exchanges, {len(doc['segments'])} segments and"
             f" {len(doc['facts'])} facts of {rt.user} to {rt.args.output}")
    else:
        out(text)
    return 0


def cmd_inspect(rt: Runtime) -> int:
    state = rt.engine().state(rt.user)
    out(cli_output.dumps(state) if rt.args.json else "\n".join(
        cli_output.format_state(state, full=rt.args.pages)))
    return 0


def cmd_retrieve(rt: Runtime) -> int:
    a = rt.args
    trace = rt.engine().retrieve(rt.user, a.query, record=a.record, strategy=a.strategy,
                                 token_budget=a.budget)
    out(cli_output.dumps(trace) if a.json else "\n".join(
        cli_output.format_trace(trace, show_prompt=a.show_prompt)))
    return 0


def cmd_ask(rt: Runtime) -> int:
    result = rt.engine().chat(rt.user, rt.args.question)
    out(cli_output.dumps(result) if rt.args.json else result["answer"])
    return 0


def cmd_chat(rt: Runtime) -> int:
    engine = rt.engine()
    interactive = sys.stdin.isatty()
    failed = False
    if interactive:
        note(f"chatting as {rt.user}; /quit or end of input (Ctrl-D) to leave")

    def show(piece: str) -> None:
        sys.stdout.write(piece)
        sys.stdout.flush()

    while True:
        if interactive:
            sys.stderr.write("you> ")
            sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            break
        text = line.strip()
        if not text:
            continue
        if text in ("/quit", "/exit", "/q"):
            break
        try:
            engine.chat(rt.user, text, on_token=show)
            sys.stdout.write("\n")
        except MemoryOSError as exc:
            sys.stdout.flush()
            print(error_line(exc), file=sys.stderr)
            failed = True
    return 1 if failed else 0


def cmd_analyze(rt: Runtime) -> int:
    bar = rt.progress()
    try:
        report = rt.engine().force_analysis(rt.user, progress=bar)
    finally:
        bar.close()
    if rt.args.json:
        out(cli_output.dumps(report))
        return 0
    out(f"analysed {len(report['segments'])} segments ({report['pages']} pages):"
        f" {len(report['facts_added'])} facts added, {report['facts_merged']} merged,"
        f" {len(report['profile_changes'])} profile changes")
    if report["fallbacks"]:
        out(f"  {len(report['fallbacks'])} model replies were invalid; extractive fallback used")
    return 0


def cmd_snapshot(rt: Runtime) -> int:
    saved = rt.engine().snapshot(rt.user, rt.args.label)
    out(cli_output.dumps(saved) if rt.args.json else
        f"saved version {saved['version']} ({saved['label']})")
    return 0


def cmd_versions(rt: Runtime) -> int:
    items = rt.engine().versions(rt.user)
    out(cli_output.dumps(items) if rt.args.json else "\n".join(cli_output.format_versions(items)))
    return 0


def cmd_diff(rt: Runtime) -> int:
    delta = rt.engine().diff(rt.user, rt.args.a, rt.args.b)
    out(cli_output.dumps(delta) if rt.args.json else "\n".join(cli_output.format_diff(delta)))
    return 0


def cmd_restore(rt: Runtime) -> int:
    result = rt.engine().restore(rt.user, rt.args.version)
    out(cli_output.dumps(result) if rt.args.json else
        f"restored version {result['restored']}; the memory before it is saved as version"
        f" {result['saved_as']}")
    return 0


def cmd_clear(rt: Runtime) -> int:
    result = rt.engine().clear(rt.user)
    out(cli_output.dumps(result) if rt.args.json else
        f"cleared the memory of {rt.user}; it is saved as version {result['saved_as']}"
        f" (memoryos restore {result['saved_as']} brings it back)")
    return 0


def cmd_settings(rt: Runtime) -> int:
    rows = settings_table(rt.config())
    out(cli_output.dumps(rows) if rt.args.json else "\n".join(cli_output.format_settings(rows)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="MemoryOS memory engine: import, inspect, retrieve, chat,"
        " versions.", epilog="Settings: MEMORYOS_<NAME> environment variables, then --set."
        " Chat model: --model [--base-url] (key from OPENAI_API_KEY), else the embedded model.")
    p.add_argument("--data-dir", default=os.environ.get("MEMORYOS_DATA_DIR", "memoryos-data"),
                   help="data folder (default: $MEMORYOS_DATA_DIR or ./memoryos-data)")
    p.add_argument("--database-url", default=os.environ.get("MEMORYOS_DATABASE_URL") or None,
                   help="PostgreSQL + pgvector URL (postgresql://...) shared by many hosts;"
                   " default: $MEMORYOS_DATABASE_URL, else SQLite in the data folder")
    p.add_argument("--user", default=os.environ.get("MEMORYOS_USER", "default"),
                   help="user id (default: $MEMORYOS_USER or 'default')")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="engine setting, repeatable (see `memoryos settings`)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint of the chat model")
    p.add_argument("--model", help="chat model name at --base-url (or at OpenAI)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or status lines")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def cmd(name: str, func: Callable[[Runtime], int], text: str,
            json_flag: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=text, description=text)
        sp.set_defaults(func=func)
        if json_flag:
            sp.add_argument("--json", action="store_true", help="print JSON")
        return sp

    sp = cmd("import", cmd_import, "import a dialogue or a memoryos export")
    sp.add_argument("path", help="file to import ('-' reads stdin)")
    sp.add_argument("--format", default="auto", metavar="|".join(FORMATS),
                    help="document format (default: auto-detect)")
    sp.add_argument("--speaker", help="LoCoMo: the speaker who is the user (default: speaker_a)")
    sp.add_argument("--select", "--conversation", dest="conversation", metavar="ID",
                    help="LoCoMo sample_id or LongMemEval question_id: which conversation of"
                    " the file (default: the first)")
    sp.add_argument("--no-maintain", action="store_true",
                    help="only admit; do not consolidate or analyse afterwards")
    sp.add_argument("--dry-run", action="store_true", help="validate and preview; write nothing")
    sp = cmd("export", cmd_export, "print or write the user's whole memory as JSON", False)
    sp.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    sp = cmd("inspect", cmd_inspect, "show every memory tier (--json: the engine's state())")
    sp.add_argument("--pages", action="store_true", help="list every page of every segment")
    sp = cmd("retrieve", cmd_retrieve, "show the retrieval trace for a query (no chat model)")
    sp.add_argument("query")
    sp.add_argument("--strategy", default="memoryos", choices=("memoryos", "flat"))
    sp.add_argument("--budget", type=int, metavar="TOKENS", help="memory token budget")
    sp.add_argument("--record", action="store_true", help="count this as a visit (heat)")
    sp.add_argument("--show-prompt", action="store_true", help="print the memory block")
    sp = cmd("ask", cmd_ask, "retrieve, answer with the chat model, remember the exchange")
    sp.add_argument("question")
    cmd("chat", cmd_chat, "interactive chat: one message per line until end of input or /quit",
        False)
    cmd("analyze", cmd_analyze, "file pending pages and analyse every segment now")
    sp = cmd("snapshot", cmd_snapshot, "save the current memory as a new version")
    sp.add_argument("--label", default="manual")
    cmd("versions", cmd_versions, "list saved versions, newest first")
    sp = cmd("diff", cmd_diff, "what changed between two versions (0 = the current memory)")
    sp.add_argument("a", type=int)
    sp.add_argument("b", type=int)
    sp = cmd("restore", cmd_restore, "make a version current (the current one is saved first)")
    sp.add_argument("version", type=int)
    cmd("clear", cmd_clear, "empty the user's memory (saved as a version first)")
    cmd("settings", cmd_settings, "engine settings with their current values")
    sp = cmd("import-reference", cmd_import_reference, "import a MemoryOS (reference) data"
             " folder: users/<id>/*.json and assistants/<id>/long_term_assistant.json")
    sp.add_argument("folder", help="the reference's data_storage_path")
    sp.add_argument("--from-user", help="which users/<id> to import (default: the only one)")
    sp.add_argument("--assistant", help="which assistants/<id> (default: the only one)")
    sp.add_argument("--dry-run", action="store_true", help="validate and preview; write nothing")
    sp = cmd("reembed", cmd_reembed, "re-embed every vector of the data folder (and its saved"
             " versions) with another embedding model")
    sp.add_argument("model", help="model folder, installed model package, or all-MiniLM-L6-v2")
    sp = cmd("backup", cmd_backup, "copy a running instance's SQLite databases (online backup"
             " API) into a new folder and verify each copy (PostgreSQL: pg_dump)")
    sp.add_argument("target", help="a new or empty folder for the copy")
    sp.add_argument("--instance", metavar="DIR", help="the web app's data folder"
                    " (MEMPLAY_DATA_DIR, or the instance folder holding data/): accounts,"
                    " memory and the secret_key file (there, or in the instance folder above"
                    " it); default: the engine store in --data-dir")
    cli_eval.add_parser(cmd("eval", cli_eval.cmd_eval, "evaluate a LoCoMo or LongMemEval file:"
                            " evidence recall of the product vs. baselines at equal tokens,"
                            " on a throwaway memory of its own"))
    cmd("mcp", cmd_mcp, "serve the memory tools over MCP on stdio, as --user", False)
    sp = cmd("serve-model", cmd_serve_model, "serve the embedded chat model over HTTP", False)
    sp.add_argument("--port", type=int, default=SERVE_MODEL_PORT,
                    help=f"default {SERVE_MODEL_PORT}: where the web app's model picker looks")
    sp.add_argument("--host", default="127.0.0.1")
    return p


def error_line(exc: BaseException) -> str:
    """`memoryos: error: ...` as one line of bounded length."""
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    text = " ".join(text.split())
    if len(text) > 400:
        text = text[:399] + "…"
    return f"{PROG}: error: {text}"


def main(argv: Sequence[str] | None = None, embedder: Embedder | None = None,
         chat_model: ChatModel | None = None) -> int:
    """Run one command; returns the exit status. `embedder`/`chat_model` are for tests."""
    args = build_parser().parse_args(argv)
    note.quiet = args.quiet  # type: ignore[attr-defined]
    runtime = Runtime(args, embedder, chat_model)
    func: Callable[[Runtime], int] = args.func
    try:
        return func(runtime)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # engine, file, document and database errors: one line
        if not isinstance(exc, (MemoryOSError, OSError, json.JSONDecodeError, UnicodeError,
                                *database_errors())):
            raise
        sys.stdout.flush()
        print(error_line(exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
