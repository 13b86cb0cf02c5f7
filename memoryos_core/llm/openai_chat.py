"""A ChatModel over any OpenAI-compatible endpoint, through the `openai` package."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InvalidInput, ModelError
from ..text import count_tokens
from .base import Completion, Message

AddressCheck = Callable[[str], bool]  # guard.is_public: True for an address one may reach


class OpenAIChatModel:
    """Chat completions from an OpenAI-compatible HTTP endpoint."""

    def __init__(
        self, model: str, base_url: str | None = None, api_key: str | None = None,
        timeout: float = 60.0, retries: int = 2, context_window: int = 8192,
        json_mode: str = "none", address_check: AddressCheck | None = None,
    ) -> None:
        """`address_check` (e.g. guard.is_public): every connection goes only to an address
        that passed it, resolved once per request (a user's own endpoint)."""
        import openai  # imported lazily: the engine loads without it for the fake model

        from .guard import pinned_transport

        self.name = model
        self.base_url = base_url
        self.context_window = context_window
        self.json_mode = json_mode  # "none", "object" or "schema": what response_format to send
        self._openai = openai
        # ValueError: a reply that is not JSON (the client parses it before we see it)
        # InvalidInput: the endpoint guard refused the address (see guard.py)
        self._failures: tuple[type[Exception], ...] = (openai.OpenAIError, ValueError,
                                                      InvalidInput, *_transport_errors())
        # Redirects are never followed (a 3xx is a failed call): a redirect could lead to an
        # address nobody checked. With a guard, no proxy from the environment either.
        http_client = openai.DefaultHttpxClient(
            follow_redirects=False,
            **({} if address_check is None else {
                "transport": pinned_transport(address_check), "trust_env": False}))
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", timeout=timeout,
            max_retries=retries, http_client=http_client,
        )

    def _format(self, json_schema: dict[str, Any] | None) -> dict[str, Any]:
        if json_schema is None or self.json_mode == "none":
            return {}
        if self.json_mode == "schema":
            return {"response_format": {"type": "json_schema", "json_schema": {
                "name": "reply", "schema": json_schema}}}
        return {"response_format": {"type": "json_object"}}

    def complete(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        """One chat completion; every provider failure becomes a ModelError."""
        try:
            reply = self._client.chat.completions.create(
                model=self.name, messages=messages,  # type: ignore[arg-type]
                max_tokens=max_tokens, temperature=temperature, **self._format(json_schema),
            )
        except self._failures as exc:
            raise ModelError(f"chat model {self.name!r} failed: {_describe(exc)}") from exc
        if not getattr(reply, "choices", None) or reply.choices[0].message.content is None:
            raise ModelError(f"chat model {self.name!r} returned an empty reply")
        text = reply.choices[0].message.content
        usage = reply.usage
        return Completion(
            text=text, model=reply.model or self.name,
            prompt_tokens=usage.prompt_tokens if usage else sum(
                count_tokens(m["content"]) for m in messages),
            completion_tokens=usage.completion_tokens if usage else count_tokens(text),
        )

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float = 0.3
    ) -> Iterator[str]:
        """Yield the reply's text pieces as the endpoint streams them."""
        try:
            chunks = self._client.chat.completions.create(
                model=self.name, messages=messages,  # type: ignore[arg-type]
                max_tokens=max_tokens, temperature=temperature, stream=True,
            )
            finished = False
            try:
                for chunk in chunks:
                    choices = getattr(chunk, "choices", None)
                    if choices and choices[0].delta and choices[0].delta.content:
                        yield choices[0].delta.content
                    if choices and choices[0].finish_reason:
                        finished = True
            finally:  # closed early (Stop, a cut answer): hang up, so the endpoint stops too
                close = getattr(chunks, "close", None)  # typed as a union with the plain reply
                if callable(close):
                    close()
        except self._failures as exc:
            raise ModelError(f"chat model {self.name!r} failed: {_describe(exc)}") from exc
        if not finished:  # a cut stream must not pass for a whole answer
            raise ModelError(f"chat model {self.name!r} stopped streaming before the answer"
                             " was complete")


def _transport_errors() -> tuple[type[Exception], ...]:
    """The HTTP library's base error (a connection cut mid-stream is not an OpenAIError)."""
    for name in ("httpx", "httpx2"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        error = getattr(module, "HTTPError", None)
        if isinstance(error, type) and issubclass(error, Exception):
            return (error,)
    return ()


def _describe(exc: Exception) -> str:
    """A one-line description of a provider error (the guard's reason when it refused)."""
    cause = exc.__cause__ or exc.__context__
    while cause is not None:
        if isinstance(cause, InvalidInput):
            return str(cause)
        cause = cause.__cause__ or cause.__context__
    status = getattr(exc, "status_code", None)
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"HTTP {status}: {text}" if status else text
