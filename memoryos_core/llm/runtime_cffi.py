"""llama.cpp from the prebuilt `llama-cpp-cffi` wheel, driven through its C API.

Only the wheel's CPU extension module is loaded, straight from its file: the package's own
`__init__` imports transformers and probes for CUDA and Vulkan, none of which we use, which is
also why the package is installed without its dependencies (`pip install --no-deps`).

Its library was built with a newer GCC than Debian 12's: it names `__cxa_call_terminate`, which
libstdc++ 12 lacks, and only on the path that ends the process anyway (an exception escaping a
noexcept function). Loaded with lazy binding, that symbol is only looked up if it is ever called.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Generator
from importlib import machinery, metadata, util
from typing import Any

from ..errors import ModelError
from .runtime import MIN_P, PENALTY_LAST_N, TOP_K, TOP_P

DIST = "llama-cpp-cffi"
N_BATCH = 512
_module_lock = threading.Lock()
_module: Any = None


def _cpu_module() -> Any:
    """The wheel's `_llama_cpp_cpu` extension (lib, ffi), loaded once; ImportError if it cannot."""
    global _module
    with _module_lock:
        if _module is not None:
            return _module
        try:
            files = metadata.files(DIST) or []
        except metadata.PackageNotFoundError as exc:
            raise ImportError(f"{DIST} is not installed") from exc
        found = [f for f in files if f.name.startswith("_llama_cpp_cpu.")
                 and f.name.endswith(".so")]
        if not found:
            raise ImportError(f"{DIST} holds no CPU library for this platform")
        path = str(found[0].locate())
        loader = machinery.ExtensionFileLoader("llama._llama_cpp_cpu", path)
        spec = util.spec_from_loader(loader.name, loader)
        if spec is None:
            raise ImportError(f"cannot load {path}")
        flags = sys.getdlopenflags()
        sys.setdlopenflags((flags & ~os.RTLD_NOW) | os.RTLD_LAZY)  # see the module docstring
        try:
            module = util.module_from_spec(spec)
            loader.exec_module(module)
        except ImportError as exc:
            raise ImportError(f"{DIST}'s library does not load here: {exc}") from exc
        finally:
            sys.setdlopenflags(flags)
        lib, ffi = module.lib, module.ffi

        # llama.cpp logs every tensor on load to stderr unless a callback takes the lines
        @ffi.def_extern(name="llama_cpp_cffi_ggml_log_callback")  # type: ignore[untyped-decorator]
        def _quiet(level: Any, text: Any, user_data: Any) -> None:
            return None

        lib.llama_log_set(lib.llama_cpp_cffi_ggml_log_callback, ffi.NULL)
        lib.llama_backend_init()
        _module = module
        return module


class CffiRuntime:
    """One GGUF model and context on llama-cpp-cffi's prebuilt CPU library."""

    def __init__(self, path: str, n_ctx: int, n_threads: int) -> None:
        module = _cpu_module()
        self.lib, self.ffi = module.lib, module.ffi
        self.name = f"{DIST} {metadata.version(DIST)}"
        lib, ffi = self.lib, self.ffi
        params = lib.llama_model_default_params()
        if hasattr(params, "use_extra_bufts"):  # newer builds: no AMX buffers (SIGILL on VMs)
            params.use_extra_bufts = False
        self.model = lib.llama_model_load_from_file(path.encode("utf-8"), params)
        if self.model == ffi.NULL:
            raise ModelError(f"llama.cpp could not load {path}")
        cparams = lib.llama_context_default_params()
        cparams.n_ctx, cparams.n_batch, cparams.n_ubatch = n_ctx, N_BATCH, N_BATCH
        cparams.n_threads = cparams.n_threads_batch = n_threads
        cparams.embeddings = False
        cparams.no_perf = True
        self.ctx = lib.llama_init_from_model(self.model, cparams)
        if self.ctx == ffi.NULL:
            lib.llama_model_free(self.model)
            raise ModelError("llama.cpp could not create a context")
        self.vocab = lib.llama_model_get_vocab(self.model)
        self.n_ctx = n_ctx
        self._cached: list[int] = []  # the tokens whose keys and values the context holds
        self._piece = ffi.new("char[256]")

    # -- tokens ----------------------------------------------------------------------------

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """Token ids of a text, no BOS."""
        data = text.encode("utf-8")
        size = len(data) + 8
        out = self.ffi.new("llama_token[]", size)
        n = self.lib.llama_tokenize(self.vocab, data, len(data), out, size, False, special)
        if n < 0:  # never more tokens than bytes + 8, but follow the API's contract
            size = -n
            out = self.ffi.new("llama_token[]", size)
            n = self.lib.llama_tokenize(self.vocab, data, len(data), out, size, False, special)
        return list(out[0:n])

    def token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens render as nothing)."""
        n = self.lib.llama_token_to_piece(self.vocab, token, self._piece, 256, 0, False)
        return bytes(self.ffi.buffer(self._piece, n)) if n > 0 else b""

    def detokenize(self, tokens: list[int]) -> str:
        """The text of some tokens."""
        return b"".join(self.token_bytes(t) for t in tokens).decode("utf-8", errors="ignore")

    def chat_template(self) -> tuple[str, str, str]:
        """The GGUF's chat template and its BOS / EOS texts."""
        lib, ffi = self.lib, self.ffi
        raw = lib.llama_model_chat_template(self.model, ffi.NULL)
        if raw == ffi.NULL:
            raise ModelError("the GGUF has no chat template")

        def text(token: int) -> str:
            return "" if token < 0 else ffi.string(lib.llama_vocab_get_text(self.vocab, token)) \
                .decode("utf-8", errors="replace")

        return (ffi.string(raw).decode("utf-8"), text(lib.llama_vocab_bos(self.vocab)),
                text(lib.llama_vocab_eos(self.vocab)))

    # -- generation ------------------------------------------------------------------------

    def _sampler(self, temperature: float, repeat_penalty: float, grammar: str | None) -> Any:
        """The sampler chain llama-cpp-python builds: penalties, grammar, top-k/p, min-p, temp."""
        lib, ffi = self.lib, self.ffi
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        lib.llama_sampler_chain_add(
            chain, lib.llama_sampler_init_penalties(PENALTY_LAST_N, repeat_penalty, 0.0, 0.0))
        if grammar is not None:
            constrained = lib.llama_sampler_init_grammar(self.vocab, grammar.encode("utf-8"),
                                                         b"root")
            if constrained == ffi.NULL:
                lib.llama_sampler_free(chain)
                raise ModelError("llama.cpp rejected the JSON grammar")
            lib.llama_sampler_chain_add(chain, constrained)
        if temperature <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
            return chain
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(TOP_K))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(TOP_P, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_min_p(MIN_P, 1))
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temperature))
        seed = int.from_bytes(os.urandom(4), "little")
        lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(seed))
        return chain

    def _forget_from(self, keep: int) -> bool:
        """Drop the cached keys and values from position `keep` on; False if it cannot."""
        lib = self.lib
        if keep <= 0:
            clear = getattr(lib, "llama_kv_self_clear", None) or lib.llama_kv_cache_clear
            clear(self.ctx)
            self._cached = []
            return True
        remove = getattr(lib, "llama_kv_self_seq_rm", None) or lib.llama_kv_cache_seq_rm
        if not remove(self.ctx, 0, keep, -1):
            return False
        del self._cached[keep:]
        return True

    def _decode(self, batch: Any, tokens: list[int], start: int) -> None:
        """Evaluate tokens at positions start.. (logits for the last one only)."""
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i], batch.pos[i] = token, start + i
            batch.n_seq_id[i], batch.seq_id[i][0], batch.logits[i] = 1, 0, False
        batch.logits[len(tokens) - 1] = True
        result = self.lib.llama_decode(self.ctx, batch)
        if result != 0:
            self._cached = []  # a failed or aborted decode leaves the cache unknown
            raise ModelError("llama.cpp stopped" if result == 2 else f"llama_decode: {result}")
        self._cached.extend(tokens)

    def generate(self, prompt: list[int], *, temperature: float, repeat_penalty: float,
                 grammar: str | None, stop: Callable[[], bool]) -> Generator[int, None, None]:
        """Sampled tokens one by one; see `Runtime.generate`."""
        if not prompt or len(prompt) >= self.n_ctx:
            raise ModelError(f"a prompt of {len(prompt)} tokens does not fit the window")
        lib, ffi = self.lib, self.ffi
        # reuse the cached prefix (retries and regenerations share their instructions), but
        # always evaluate at least the prompt's last token: its logits give the first sample
        common = 0
        for a, b in zip(self._cached, prompt[:-1], strict=False):
            if a != b:
                break
            common += 1
        if not self._forget_from(common):
            self._forget_from(0)
        sampler = self._sampler(temperature, repeat_penalty, grammar)
        batch = lib.llama_batch_init(N_BATCH, 0, 1)
        abort = ffi.callback("bool(void *)", lambda _: bool(stop()))
        try:
            lib.llama_set_abort_callback(self.ctx, abort, ffi.NULL)  # stop mid-prompt too
            pos = len(self._cached)
            while pos < len(prompt):
                if stop():
                    return
                chunk = prompt[pos:pos + N_BATCH]
                try:
                    self._decode(batch, chunk, pos)
                except ModelError:
                    if stop():  # the abort callback ended it: a cancelled reply, no error
                        return
                    raise
                pos += len(chunk)
            # per token, a Python callback on every graph node costs more than it saves
            lib.llama_set_abort_callback(self.ctx, ffi.NULL, ffi.NULL)
            while len(self._cached) < self.n_ctx:
                token = int(lib.llama_sampler_sample(sampler, self.ctx, -1))
                if lib.llama_vocab_is_eog(self.vocab, token):
                    return
                yield token
                if stop():
                    return
                self._decode(batch, [token], len(self._cached))
        finally:
            lib.llama_set_abort_callback(self.ctx, ffi.NULL, ffi.NULL)
            lib.llama_batch_free(batch)
            lib.llama_sampler_free(sampler)

    def close(self) -> None:
        """Free the context and model."""
        if getattr(self, "ctx", None) is not None:
            self.lib.llama_free(self.ctx)
            self.ctx = None
        if getattr(self, "model", None) is not None:
            self.lib.llama_model_free(self.model)
            self.model = None
