"""What every command shares: parsed options, the engine built on first use, output helpers."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config import EngineConfig
from ..engine import MemoryEngine
from ..errors import InvalidInput
from ..llm import ChatModel, Embedder
from ..transfer.importers import MAX_DOCUMENT_BYTES
from . import cli_output

PROG = "memoryos"


class Runtime:
    """Parsed options plus the engine, built on first use (settings and serve-model need none)."""

    def __init__(self, args: argparse.Namespace, embedder: Embedder | None,
                 chat_model: ChatModel | None) -> None:
        self.args = args
        self.user: str = args.user
        self._embedder = embedder
        self._chat_model = chat_model
        self._engine: MemoryEngine | None = None

    def config(self) -> EngineConfig:
        """MEMORYOS_<NAME> environment variables, then every --set name=value on top."""
        pairs: dict[str, str] = {}
        for item in self.args.set or []:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise InvalidInput(f"--set needs name=value, got {item!r}")
            pairs[name.strip().replace("-", "_")] = value.strip()
        return EngineConfig.from_mapping(pairs, base=EngineConfig.from_env())

    def chat_model(self) -> ChatModel | None:
        """--base-url/--model give an OpenAI-compatible model; None means the embedded one."""
        if self._chat_model is not None:
            return self._chat_model
        if self.args.base_url and not self.args.model:
            raise InvalidInput("--base-url needs --model NAME as well")
        if not self.args.model:
            return None
        from ..llm import OpenAIChatModel

        return OpenAIChatModel(self.args.model, base_url=self.args.base_url,
                               api_key=os.environ.get("OPENAI_API_KEY"))

    def engine(self) -> MemoryEngine:
        if self._engine is None:
            config = self.config()
            self._engine = MemoryEngine(self.args.data_dir, chat_model=self.chat_model(),
                                        embedder=self._embedder, config=config,
                                        database_url=self.args.database_url or "")
        return self._engine

    def progress(self) -> cli_output.ProgressBar:
        return cli_output.ProgressBar(sys.stderr, enabled=not self.args.quiet)


def out(*lines: str) -> None:
    for line in lines:
        print(line)


def note(text: str) -> None:
    """A status line on stderr, so stdout stays clean for data."""
    if not getattr(note, "quiet", False):
        print(text, file=sys.stderr)


def read_document(path: str) -> bytes:
    """The bytes of an import file ('-' reads stdin), refusing oversized files before reading."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
    else:
        file = Path(path)
        if file.is_dir():
            raise InvalidInput(f"{path} is a folder, not a file")
        if file.exists() and file.stat().st_size > MAX_DOCUMENT_BYTES:
            raise InvalidInput(f"{path} is larger than {MAX_DOCUMENT_BYTES // 2**20} MB")
        data = file.read_bytes()
    if len(data) > MAX_DOCUMENT_BYTES:
        raise InvalidInput(f"{path} is larger than {MAX_DOCUMENT_BYTES // 2**20} MB")
    return data


def import_source(path: str) -> bytes | Path:
    """What `memoryos import` reads: a file stays on disk (a large chat export is streamed
    from it, the older formats are read whole up to 50 MB); '-' reads stdin."""
    if path == "-":
        return read_document(path)
    file = Path(path)
    if file.is_dir():
        raise InvalidInput(f"{path} is a folder, not a file")
    file.open("rb").close()  # a missing or unreadable file fails here, before the engine
    return file
