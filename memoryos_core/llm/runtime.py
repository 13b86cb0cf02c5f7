"""The llama.cpp runtimes the embedded model can run on, behind one small Protocol.

`MEMORYOS_LOCAL_RUNTIME` picks one: `cffi` (llama-cpp-cffi, a prebuilt wheel: the default
dependency, nothing compiles), `llamacpp` (llama-cpp-python, the optional `[llamacpp]` extra,
compiled from source at install), or `auto` (the default: cffi where it loads, else
llama-cpp-python). Both get the same prompt text (the GGUF's own chat template rendered here),
the same GBNF grammar and the same sampler chain, so they differ only in their llama.cpp build.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

RUNTIMES = ("cffi", "llamacpp")
ENV = "MEMORYOS_LOCAL_RUNTIME"
# sampling that llama-cpp-python's create_chat_completion uses by default; kept for both runtimes
TOP_K, TOP_P, MIN_P, PENALTY_LAST_N = 40, 0.95, 0.05, 64


class Runtime(Protocol):
    """One loaded GGUF model and context."""

    name: str  # package and version, e.g. "llama-cpp-cffi 0.4.42"

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """Token ids of a text, no BOS; `special` parses markers like <|im_start|>."""
        ...

    def detokenize(self, tokens: list[int]) -> str:
        """The text of some tokens."""
        ...

    def token_bytes(self, token: int) -> bytes:
        """The bytes one token stands for (a piece of a UTF-8 character at times)."""
        ...

    def chat_template(self) -> tuple[str, str, str]:
        """The GGUF's Jinja chat template, its BOS text and its EOS text."""
        ...

    def generate(self, prompt: list[int], *, temperature: float, repeat_penalty: float,
                 grammar: str | None, stop: Callable[[], bool]) -> Generator[int, None, None]:
        """Sampled tokens one by one, up to an end-of-generation token.

        The next token is decoded only when asked for, so closing the generator (or `stop()`
        turning true) ends the decode loop within one token; `stop` also aborts the prompt's
        evaluation.
        """
        ...

    def close(self) -> None:
        """Free the model and context now."""
        ...


@dataclass
class GenerationStats:
    """Counts and timings of the latest generation, for tokens/s and time to first token."""

    runtime: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_token_s: float | None = None  # prompt evaluation + first sample, from the call
    total_s: float = 0.0
    cancelled: bool = False

    @property
    def tokens_per_s(self) -> float:
        """Generated tokens per second after the first token."""
        gen_s = self.total_s - (self.first_token_s or 0.0)
        return (self.completion_tokens - 1) / gen_s if self.completion_tokens > 1 and gen_s > 0 \
            else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The stats as JSON-ready values."""
        return {"runtime": self.runtime, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "first_token_s": None if self.first_token_s is None
                else round(self.first_token_s, 4),
                "total_s": round(self.total_s, 4), "tokens_per_s": round(self.tokens_per_s, 1),
                "cancelled": self.cancelled}


def installed(kind: str) -> bool:
    """Whether the package behind a runtime is installed (not loaded)."""
    if kind == "cffi":
        from importlib import metadata

        try:
            metadata.distribution("llama-cpp-cffi")
        except metadata.PackageNotFoundError:
            return False
        return True
    return importlib.util.find_spec("llama_cpp") is not None


def requested() -> str:
    """The runtime asked for by the environment: auto, cffi or llamacpp."""
    value = os.environ.get(ENV, "auto").strip().lower() or "auto"
    aliases = {"llama-cpp-cffi": "cffi", "llama-cpp-python": "llamacpp", "llama_cpp": "llamacpp"}
    value = aliases.get(value, value)
    if value not in ("auto", *RUNTIMES):
        raise ValueError(f"{ENV} must be auto, cffi or llamacpp, not {value!r}")
    return value


@lru_cache(maxsize=8)
def _compiled(template: str) -> Any:
    from jinja2 import BaseLoader, ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # the environment llama-cpp-python (and transformers) render chat templates in
    env = ImmutableSandboxedEnvironment(loader=BaseLoader(), trim_blocks=True, lstrip_blocks=True,
                                        extensions=[ext.loopcontrols])
    return env.from_string(template)


def render_chat(template: str, messages: list[dict[str, str]], bos: str, eos: str) -> str:
    """The prompt text of a chat under the model's template, ending in the assistant's turn."""

    def raise_exception(message: str) -> None:
        raise ValueError(message)

    return str(_compiled(template).render(messages=messages, bos_token=bos, eos_token=eos,
                                          add_generation_prompt=True,
                                          raise_exception=raise_exception))
