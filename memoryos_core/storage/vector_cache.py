"""Large namespaces' vectors (and HNSW index) as files next to the SQLite database, for fast opens.

Derived from the `vectors` table and rebuildable: a namespace with MIN_VECTORS or more vectors
gets, in `vector-cache/` of the data folder, its item ids and its matrix as .npy files (memory-
mapped on open, no row-by-row load) and its HNSW index as a FAISS file, described by a JSON file
stamped with the namespace's vector epoch and the last vector seq they hold. Files are named by
a hash of (user id, kind), never by the id itself. Every file is written to a temporary name and
renamed into place, the JSON last (it names the data files of its generation), so a reader sees
one whole generation or none; a file that is missing, torn, of another epoch or fails its checksum
is ignored (the caller loads the table), never an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

log = logging.getLogger(__name__)

FOLDER = "vector-cache"
FORMAT = 2  # 2: word-sum checksums (1: CRC-32)
KINDS = ("page", "segment", "fact")
# Namespaces smaller than this load from the table fast enough and get no files (tests lower it).
MIN_VECTORS = 50_000
CHUNK = 1 << 22  # bytes per write/CRC step (4 MiB)


@dataclass
class Cached:
    """One valid cache generation: memory-mapped ids and vectors, and where its index is."""

    ids: np.ndarray
    mat: np.ndarray
    seq: int
    epoch: int
    index_file: Path | None
    index_crc: int


def folder_of(data_dir: Path) -> Path:
    """The cache folder of a data folder (not created)."""
    return Path(data_dir) / FOLDER


def stem(user_id: str, kind: str) -> str:
    """The file name stem of a namespace: a hash, so no user id ever becomes a path."""
    digest = hashlib.sha256(f"memoryos-vector-cache\0{user_id}\0{kind}".encode())
    return digest.hexdigest()[:40]


def load(folder: Path, user_id: str, kind: str, epoch: int) -> Cached | None:
    """The namespace's cache when whole and of this epoch; else None (stale files deleted)."""
    base = stem(user_id, kind)
    meta_file = folder / f"{base}.json"
    if not meta_file.is_file():
        return None
    try:
        meta = json.loads(meta_file.read_text())
        if meta.get("format") != FORMAT or int(meta["epoch"]) != epoch:
            drop(folder, user_id, kind)  # rows were deleted since: these files hold them
            return None
        token, n, dim = str(meta["token"]), int(meta["n"]), int(meta["dim"])
        ids = np.load(folder / f"{base}.{token}.ids.npy", mmap_mode="r", allow_pickle=False)
        mat = np.load(folder / f"{base}.{token}.vecs.npy", mmap_mode="r", allow_pickle=False)
        if ids.shape != (n,) or ids.dtype != np.int64 or mat.shape != (n, dim) \
                or mat.dtype != np.float32 or not mat.flags.c_contiguous:
            raise ValueError("shape")
        if _crc(ids) != int(meta["ids_crc"]) or _crc(mat) != int(meta["vecs_crc"]):
            raise ValueError("crc")
        index_file = folder / f"{base}.{token}.hnsw" if meta.get("index_crc") is not None \
            else None
        return Cached(ids=ids, mat=mat, seq=int(meta["seq"]), epoch=epoch,
                      index_file=index_file, index_crc=int(meta.get("index_crc") or 0))
    except Exception as exc:  # noqa: BLE001 - a torn or corrupt cache is rebuilt, never an error
        log.warning("ignoring the vector cache of a %s namespace: %s", kind, exc)
        drop(folder, user_id, kind)
        return None


def read_index(cached: Cached) -> Any:
    """The cached HNSW index (its CRC checked while reading), or None when absent or damaged."""
    if cached.index_file is None:
        return None
    try:
        with open(cached.index_file, "rb") as f:
            crc = [0]

            def read(size: int) -> bytes:
                data = f.read(size)
                crc[0] = zlib.crc32(data, crc[0])
                return data

            reader = faiss.PyCallbackIOReader(read, CHUNK)  # type: ignore[attr-defined]
            index = faiss.read_index(reader)
            if f.read(1) or crc[0] != cached.index_crc or index.ntotal != len(cached.ids):
                raise ValueError("crc")
        return index
    except Exception as exc:  # noqa: BLE001 - the index is built again instead
        log.warning("ignoring a cached HNSW index: %s", exc)
        return None


def save(folder: Path, user_id: str, kind: str, epoch: int, seq: int, ids: np.ndarray,
         mat: np.ndarray, index: Any) -> None:
    """Write one generation (data files, then the JSON that names them); older ones go."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    base, token = stem(user_id, kind), uuid.uuid4().hex[:12]
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    mat = np.ascontiguousarray(mat, dtype=np.float32)
    meta: dict[str, Any] = {"format": FORMAT, "token": token, "epoch": epoch, "seq": seq,
                            "n": len(ids), "dim": int(mat.shape[1]), "ids_crc": _crc(ids),
                            "vecs_crc": _crc(mat), "index_crc": None}
    _write(folder / f"{base}.{token}.ids.npy", lambda f: np.save(f, ids, allow_pickle=False))
    _write(folder / f"{base}.{token}.vecs.npy", lambda f: np.save(f, mat, allow_pickle=False))
    if index is not None:
        crc = [0]

        def dump(f: Any) -> None:
            def write(data: bytes) -> int:
                crc[0] = zlib.crc32(data, crc[0])
                return int(f.write(data))

            writer = faiss.PyCallbackIOWriter(write, CHUNK)  # type: ignore[attr-defined]
            faiss.write_index(index, writer)

        _write(folder / f"{base}.{token}.hnsw", dump)
        meta["index_crc"] = crc[0]
    _write(folder / f"{base}.json", lambda f: f.write(json.dumps(meta).encode()))
    for old in folder.glob(f"{base}.*"):  # the previous generation (its readers keep their maps)
        if token not in old.name and old.name != f"{base}.json":
            old.unlink(missing_ok=True)


def drop(folder: Path, user_id: str, kind: str | None = None) -> int:
    """Delete a namespace's cache files (every kind of the user when `kind` is None)."""
    removed = 0
    for k in (kind,) if kind else KINDS:
        for path in folder.glob(f"{stem(user_id, k)}*"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def drop_all(folder: Path) -> None:
    """Delete every cache file of the data folder (re-embedding replaced every vector)."""
    for path in folder.glob("*"):
        if path.is_file():
            path.unlink(missing_ok=True)


def _crc(arr: np.ndarray) -> int:
    """A checksum of an array's bytes, read in place (a memory-mapped array is never copied).

    Position-weighted sums of 64-bit words per 4 MiB chunk: any flipped bit or swapped chunk
    changes it, and numpy sums at memory speed (1.5 GB: 0.17 s here, CRC-32 0.73 s, on the
    open's path). Arrays whose size is not a multiple of 8 bytes take CRC-32.
    """
    flat = arr.reshape(-1).view(np.uint8)
    if len(flat) % 8:
        crc = 0
        for start in range(0, len(flat), CHUNK):
            crc = zlib.crc32(flat[start:start + CHUNK].data, crc)
        return crc
    words, step, total = flat.view(np.uint64), CHUNK // 8, 0
    for k, start in enumerate(range(0, len(words), step)):
        total = (total + int(words[start:start + step].sum(dtype=np.uint64)) * (2 * k + 1)) \
            % (1 << 64)
    return total


def _write(path: Path, fill: Callable[[Any], Any]) -> None:
    """Write a file owner-only under a temporary name, flush it to disk, rename it into place."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
