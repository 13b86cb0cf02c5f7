"""llama.cpp through llama-cpp-python (the optional `[llamacpp]` extra; it compiles at install)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

from ..errors import ModelError
from .runtime import MIN_P, PENALTY_LAST_N, TOP_K, TOP_P


class LlamaCppRuntime:
    """One GGUF model and context on llama-cpp-python."""

    def __init__(self, path: str, n_ctx: int, n_threads: int) -> None:
        import llama_cpp  # type: ignore[import-untyped,unused-ignore]
        import llama_cpp.llama_cpp as capi  # type: ignore[import-untyped,unused-ignore]

        self._llama_cpp: Any = llama_cpp
        self._capi: Any = capi
        self.name = f"llama-cpp-python {llama_cpp.__version__}"
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
            self.llama = llama_cpp.Llama(
                model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                n_batch=512, last_n_tokens_size=PENALTY_LAST_N, verbose=False,
            )
        finally:
            capi.llama_model_default_params = defaults

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """Token ids of a text, no BOS."""
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=special))

    def token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens render as nothing)."""
        return bytes(self.llama.detokenize([token]))

    def detokenize(self, tokens: list[int]) -> str:
        """The text of some tokens."""
        return str(self.llama.detokenize(tokens).decode("utf-8", errors="ignore"))

    def chat_template(self) -> tuple[str, str, str]:
        """The GGUF's chat template and its BOS / EOS texts (as llama-cpp-python reads them)."""
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError("the GGUF has no chat template")
        model = self.llama._model  # noqa: SLF001 - the texts llama-cpp-python's formatter uses

        def text(token: int) -> str:
            return "" if token < 0 else str(model.token_get_text(token))

        return str(template), text(self.llama.token_bos()), text(self.llama.token_eos())

    def generate(self, prompt: list[int], *, temperature: float, repeat_penalty: float,
                 grammar: str | None, stop: Callable[[], bool]) -> Generator[int, None, None]:
        """Sampled tokens one by one; see `Runtime.generate`."""
        llama, capi = self.llama, self._capi
        vocab = llama._model.vocab  # noqa: SLF001
        constraint = None
        if grammar is not None:  # llama-cpp-python would chain a NULL sampler for a bad grammar
            probe = capi.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
            if not probe:
                raise ModelError("llama.cpp rejected the JSON grammar")
            capi.llama_sampler_free(probe)
            constraint = self._llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        # llama-cpp-python evaluates the prompt inside its generator: the abort callback is the
        # only way to stop it there; it is cleared for the per-token loop (costly per node)
        abort = capi.ggml_abort_callback(lambda _: bool(stop()))
        ctx = llama._ctx.ctx  # noqa: SLF001
        capi.llama_set_abort_callback(ctx, abort, None)
        tokens = llama.generate(prompt, top_k=TOP_K, top_p=TOP_P, min_p=MIN_P, temp=temperature,
                                repeat_penalty=repeat_penalty, reset=True, grammar=constraint)
        produced = 0
        try:
            for token in tokens:
                if produced == 0:
                    capi.llama_set_abort_callback(ctx, capi.ggml_abort_callback(), None)
                if capi.llama_vocab_is_eog(vocab, token) or produced + len(prompt) >= llama.n_ctx():
                    return
                produced += 1
                yield int(token)
                if stop():
                    return
        except (RuntimeError, ValueError) as exc:  # a bad grammar, llama_decode's failure, or 2
            if stop():  # when the abort callback stopped it
                return
            raise ModelError(f"the embedded model failed: {exc}") from exc
        finally:
            tokens.close()
            capi.llama_set_abort_callback(ctx, capi.ggml_abort_callback(), None)

    def close(self) -> None:
        """Free the model and context."""
        self.llama.close()
