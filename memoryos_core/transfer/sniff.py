"""Reading a chat export by content: containers (ZIP, gzip, JSON, JSONL), streamed elements.

A file is never classified by its name or by a substring of its bytes: people paste JSON into
chats, so key names occur inside message text. Only the parsed keys of the top object or of
the first element count (classify.py).
"""

from __future__ import annotations

import codecs
import gzip
import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import ImportFormatError

CHUNK = 1 << 20
MAX_OBJECT_BYTES = 50 * 1024 * 1024  # a single top-level object (LibreChat, Letta) is loaded
ZIP_MEMBERS = ("conversations.json", "memories.json", "myactivity.json", "users.json",
               "projects.json", "memories.jsonl.gz")


@dataclass(frozen=True)
class Container:
    """Where the document's bytes are: a file path or bytes, maybe one member of a ZIP."""

    data: bytes | None
    path: Path | None
    member: str | None = None  # the ZIP member read, or None
    members: tuple[str, ...] = ()  # every ZIP member name (basename match decides)
    gzipped: bool = False

    def open(self) -> IO[bytes]:
        """A fresh binary stream over the document (a ZIP member or gzip decompressed)."""
        raw: IO[bytes] = io.BytesIO(self.data) if self.data is not None else open(
            self.path or "", "rb")
        if self.member is not None:
            archive = zipfile.ZipFile(raw)
            raw = archive.open(self.member)
        if self.gzipped:
            raw = gzip.open(raw, "rb")  # type: ignore[assignment]
        return raw

    def with_member(self, member: str) -> Container:
        """The same archive, reading another member."""
        return Container(self.data, self.path, member, self.members,
                         member.lower().endswith(".gz"))

    @property
    def size(self) -> int:
        """The document's size in bytes as stored (for progress)."""
        if self.member is not None:
            with self._zip() as archive:
                return archive.getinfo(self.member).file_size
        return len(self.data) if self.data is not None else (self.path or Path()).stat().st_size

    def _zip(self) -> zipfile.ZipFile:
        return zipfile.ZipFile(io.BytesIO(self.data) if self.data is not None
                               else (self.path or Path()))


def basename(member: str) -> str:
    """The file name of a ZIP member, lower-cased, whatever folder it sits in."""
    return member.replace("\\", "/").rsplit("/", 1)[-1].lower()


def open_container(source: bytes | str | Path) -> Container:
    """The container of a source: bytes, pasted text or a file path; ZIP and gzip opened."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    data, path = (source, None) if isinstance(source, bytes) else (None, Path(source))
    with (io.BytesIO(data) if data is not None else open(path or "", "rb")) as fp:
        head = fp.read(4)
    if head[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data) if data is not None else (path or "")) as zf:
                names = tuple(i.filename for i in zf.infolist() if not i.is_dir())
        except zipfile.BadZipFile:
            raise ImportFormatError("the file starts like a ZIP archive but is damaged") from None
        return Container(data, path, None, names)
    return Container(data, path, gzipped=head[:2] == b"\x1f\x8b")


def _text_chunks(fp: IO[bytes]) -> Iterator[str]:
    """Decoded UTF-8 text of a stream, chunk by chunk, a BOM dropped."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    while True:
        chunk = fp.read(CHUNK)
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError:
            raise ImportFormatError("the document is not UTF-8 text") from None
        if text:
            yield text
        if not chunk:
            return


def head_text(container: Container, limit: int = 64 * 1024) -> str:
    """The first characters of the document (for deciding JSON, JSONL or text)."""
    with container.open() as fp:
        raw = fp.read(limit)
    return raw.decode("utf-8-sig", errors="ignore")


class JsonArray:
    """The elements of a top-level JSON array, one at a time; memory holds one element."""

    def __init__(self, fp: IO[bytes]) -> None:
        self._chunks = _text_chunks(fp)
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._decoder = json.JSONDecoder()
        self.consumed = 0  # characters read so far (progress)

    def _more(self) -> bool:
        if self._eof:
            return False
        text = next(self._chunks, None)
        if text is None:
            self._eof = True
            return False
        self._buf = self._buf[self._pos:] + text
        self._pos = 0
        self.consumed += len(text)
        return True

    def _peek(self) -> str:
        """The next non-space character ('' at the end), not consumed."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in " \t\r\n":
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def __iter__(self) -> Iterator[Any]:
        if self._peek() != "[":
            raise ImportFormatError("the document is not a JSON list")
        self._pos += 1
        if self._peek() == "]":
            return
        while True:
            yield self._value()
            sep = self._peek()
            self._pos += 1
            if sep == "]":
                return
            if sep != ",":
                raise ImportFormatError(f"invalid JSON: expected ',' or ']' after element, at"
                                        f" character {self.consumed - len(self._buf) + self._pos}")

    def _value(self) -> Any:
        self._peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                # an element cut by the chunk boundary fails like a broken one: read on, and
                # only at the end of the file is it broken
                if self._more():
                    continue
                raise ImportFormatError(f"invalid JSON: {exc.msg} (element starting at"
                                        f" character {self.consumed - len(self._buf)})") from None
            except RecursionError:
                raise ImportFormatError("the JSON document is nested too deeply") from None
            self._pos = end
            return value


def iter_jsonl(fp: IO[bytes]) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) of each non-empty line; a broken line raises, named."""
    wrapper = io.TextIOWrapper(fp, encoding="utf-8-sig", newline=None)
    try:
        for n, line in enumerate(wrapper, start=1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(f"line {n} is not valid JSON: {exc.msg}") from None
    except UnicodeDecodeError:
        raise ImportFormatError("the document is not UTF-8 text") from None


def load_object(container: Container) -> Any:
    """A whole (small) JSON document: one conversation object, an agent file, a memory file."""
    with container.open() as fp:
        raw = fp.read(MAX_OBJECT_BYTES + 1)
    if len(raw) > MAX_OBJECT_BYTES:
        raise ImportFormatError("a single JSON object over 50 MB is not read; export a list")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ImportFormatError("the document is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"invalid JSON at line {exc.lineno} column {exc.colno}:"
                                f" {exc.msg}") from None
    except RecursionError:
        raise ImportFormatError("the JSON document is nested too deeply") from None


def first_element(container: Container) -> Any:
    """The first non-empty element of a top-level array, parsed alone (None: empty list)."""
    with container.open() as fp:
        for element in JsonArray(fp):
            if element:
                return element
    return None


def first_lines(container: Container, count: int = 2) -> list[str]:
    """The first non-empty lines of the document (each read whole, up to 50 MB)."""
    out: list[str] = []
    with container.open() as fp:
        while len(out) < count:
            line = fp.readline(MAX_OBJECT_BYTES)
            if not line:
                break
            if line.strip():
                out.append(line.decode("utf-8-sig", errors="replace"))
    return out


def is_jsonl(container: Container) -> bool:
    """JSONL when the first two non-empty lines each parse on their own as an object."""
    if head_text(container, 4096).lstrip().startswith("["):
        return False  # a list: and its first line may be the whole (large) file
    lines = first_lines(container)
    try:
        return len(lines) == 2 and all(isinstance(json.loads(x), dict) for x in lines)
    except json.JSONDecodeError:
        return False
