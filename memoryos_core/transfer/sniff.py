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
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import ImportFormatError

CHUNK = 1 << 20
MAX_OBJECT_BYTES = 50 * 1024 * 1024  # a single top-level object (LibreChat, Letta) is loaded
# what one member of an archive (or a gzip) may expand to: a real Claude export of 347
# conversations is 111 MB unzipped, and a 255 KB ZIP can hold a 262 MB file
MAX_EXPANDED_BYTES = 128 * 1024 * 1024
DAMAGED = (zipfile.BadZipFile, zlib.error, EOFError, gzip.BadGzipFile)


def megabytes(n: int) -> str:
    """A byte count as people read it ('262 MB', '0.3 MB')."""
    return f"{n / 1_000_000:.0f} MB" if n >= 10_000_000 else f"{n / 1_000_000:.1f} MB"


def too_large(where: str, limit: int, declared: int | None = None) -> ImportFormatError:
    """The refusal of an archive member that expands past the limit."""
    said = f" (its header says {megabytes(declared)})" if declared is not None else ""
    return ImportFormatError(f"{where} expands to more than {megabytes(limit)}{said}, the most"
                             " this server unpacks from an archive; nothing was imported. Unzip it and import"
                             " the file with the command line (memoryos import), or split it")


class _Counted(io.RawIOBase):
    """A stream that stops once more than `limit` bytes came out: archive headers can lie."""

    def __init__(self, inner: IO[bytes], limit: int, where: str) -> None:
        super().__init__()
        self._inner, self._limit, self._where, self.count = inner, limit, where, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._inner.read(min(len(buffer), CHUNK))
        except DAMAGED as exc:
            raise ImportFormatError(f"{self._where} is damaged ({exc}); nothing was"
                                    " imported") from None
        self.count += len(data)
        if self.count > self._limit:
            raise too_large(self._where, self._limit)
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()
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
    limit: int = MAX_EXPANDED_BYTES  # the most a member or a gzip may expand to

    @property
    def where(self) -> str:
        """The document as a sentence names it."""
        return f"{self.member} in the ZIP" if self.member is not None else "the gzip file"

    def open(self) -> IO[bytes]:
        """A fresh binary stream over the document (a ZIP member or gzip decompressed), cut
        off with a clear error past the expanded-size limit."""
        raw: IO[bytes] = io.BytesIO(self.data) if self.data is not None else open(
            self.path or "", "rb")
        if self.member is None and not self.gzipped:
            return raw
        try:
            if self.member is not None:
                archive = zipfile.ZipFile(raw)
                declared = archive.getinfo(self.member).file_size
                if declared > self.limit:  # refused before a byte is unpacked
                    raise too_large(self.where, self.limit, declared)
                raw = archive.open(self.member)
            if self.gzipped:
                raw = gzip.open(raw, "rb")  # type: ignore[assignment]
        except (*DAMAGED, KeyError, NotImplementedError, RuntimeError) as exc:
            raise ImportFormatError(f"{self.where} cannot be opened ({exc}); nothing was"
                                    " imported") from None
        return io.BufferedReader(_Counted(raw, self.limit, self.where), CHUNK)

    def with_member(self, member: str) -> Container:
        """The same archive, reading another member."""
        return Container(self.data, self.path, member, self.members,
                         member.lower().endswith(".gz"), self.limit)

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


def open_container(source: bytes | str | Path, limit: int = MAX_EXPANDED_BYTES) -> Container:
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
        return Container(data, path, None, names, limit=limit)
    return Container(data, path, gzipped=head[:2] == b"\x1f\x8b", limit=limit)


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

    def _at(self) -> int:
        """The current position as a character count from the start of the document."""
        return self.consumed - len(self._buf) + self._pos

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
            if sep == "":
                raise ImportFormatError("invalid JSON: the file ends before the list is closed,"
                                        " it looks cut off (truncated); nothing was imported")
            if sep != ",":
                raise ImportFormatError(f"invalid JSON: expected ',' or ']' after element, at"
                                        f" character {self._at() - 1}")

    def _value(self) -> Any:
        self._peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except json.JSONDecodeError as exc:
                # an element cut by the chunk boundary fails like a broken one: read on, and
                # only at the end of the file is it broken. The buffer doubles before the next
                # try, so one huge element is parsed a few times, not once per megabyte.
                start = len(self._buf) - self._pos
                if start > MAX_OBJECT_BYTES:
                    raise ImportFormatError(
                        f"one element of the list (at character {self._at()}) is larger than"
                        f" {megabytes(MAX_OBJECT_BYTES)}; nothing was imported") from None
                grew = False
                while self._more():
                    grew = True
                    if len(self._buf) - self._pos >= 2 * start:
                        break
                if grew:
                    continue
                where = self._at()
                if exc.pos >= len(self._buf) or exc.msg.startswith("Unterminated"):
                    raise ImportFormatError(
                        f"invalid JSON: the file ends in the middle of the element starting at"
                        f" character {where}, it looks cut off (truncated); nothing was"
                        " imported") from None
                raise ImportFormatError(f"invalid JSON: {exc.msg} (element starting at"
                                        f" character {where})") from None
            except RecursionError:
                raise ImportFormatError("the JSON is nested too deeply (deeper than any export);"
                                " nothing was imported") from None
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
        raise ImportFormatError("the JSON is nested too deeply (deeper than any export);"
                                " nothing was imported") from None


def first_elements(container: Container, count: int = 5) -> list[Any]:
    """The first non-empty elements of a top-level array, each parsed alone ([]: none)."""
    out: list[Any] = []
    with container.open() as fp:
        for element in JsonArray(fp):
            if element:
                out.append(element)
                if len(out) == count:
                    break
    return out


def first_element(container: Container) -> Any:
    """The first non-empty element of a top-level array, parsed alone (None: empty list)."""
    found = first_elements(container, 1)
    return found[0] if found else None


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
