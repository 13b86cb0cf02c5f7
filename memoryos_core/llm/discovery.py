"""Find the OpenAI-compatible model servers on this machine, and list any endpoint's models.

`list_models` asks one endpoint what it serves and turns each way it can fail into a sentence a
person understands (`EndpointProblem`). `probe` looks for servers on the usual local ports in
parallel, with short timeouts; `Discovery` keeps its result for a few seconds. Only hosts that
serve one person should probe: on a shared server, the machine's ports are not its users'.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidInput, ModelError
from .guard import check_url, http_module, pinned_transport

SERVE_MODEL_PORT = 8765  # `memoryos serve-model`'s default port (hosts/serve.py)
# Port -> the server usually found there; the answer's owned_by names it better when it can.
LOCAL_PORTS: dict[int, str] = {
    11434: "Ollama", 1234: "LM Studio", 8080: "llama.cpp server or LocalAI", 8000: "vLLM",
    1337: "Jan", SERVE_MODEL_PORT: "memoryos serve-model",
}
OWNERS = {"memoryos": "memoryos serve-model", "library": "Ollama", "llamacpp": "llama.cpp server",
          "vllm": "vLLM", "organization_owner": "LM Studio", "jan": "Jan"}
MAX_BODY = 1024 * 1024  # a model list is a few kB; a larger answer is not one
AddressCheck = Callable[[str], bool]


class EndpointProblem(ModelError):
    """An endpoint could not list its models; the message says why in plain words."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # key, not found, not compatible, timeout, refused, address, failed


@dataclass(frozen=True)
class Server:
    """One model server: its base URL, what it is, and the chat models it lists."""

    base_url: str
    label: str
    models: tuple[str, ...]


def _models_of(payload: Any) -> tuple[list[str], str | None] | None:
    """Model ids and owner from an OpenAI list (or Ollama's /api/tags), None if neither."""
    if isinstance(payload, dict) and isinstance(payload.get("data"), list):
        items = [m for m in payload["data"] if isinstance(m, dict) and isinstance(m.get("id"), str)]
        if len(items) == len(payload["data"]):
            owner = items[0].get("owned_by") if items else None
            return [m["id"] for m in items], owner if isinstance(owner, str) else None
    if isinstance(payload, dict) and isinstance(payload.get("models"), list):
        names = [m.get("name") for m in payload["models"] if isinstance(m, dict)]
        if names and all(isinstance(n, str) for n in names):
            return [str(n) for n in names], "library"
    return None


def _chat_models(ids: Iterable[str]) -> tuple[str, ...]:
    """The ids without embedding models (Ollama and LM Studio list both; neither can chat)."""
    return tuple(i for i in ids if "embed" not in i.lower().replace("embedded", ""))


def _read(response: Any) -> bytes:
    """At most MAX_BODY bytes of the response (a hostile endpoint may send gigabytes)."""
    body = b""
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_BODY:
            break
    return body


def _not_compatible(url: str, body: bytes, content_type: str) -> EndpointProblem:
    looks = body.lstrip()[:200].lower()
    what = ("a web page (HTML)" if "html" in content_type or looks.startswith((b"<!doctype", b"<html"))
            else "something else than a model list")
    return EndpointProblem(
        "not compatible",
        f"The server at {url} answered with {what}, not an OpenAI-compatible model list:"
        " is this the API's base URL (often ending in /v1) rather than a web page?")


def _status_problem(status: int, url: str, base_url: str) -> EndpointProblem:
    if status in (401, 403):
        return EndpointProblem(
            "key", f"The endpoint refused the API key (HTTP {status}): check the key, or give"
                   " one if this server needs one.")
    if status == 404:
        path = urlsplit(base_url).path.rstrip("/")
        hint = (" OpenAI-compatible servers usually end in /v1: try"
                f" {base_url.rstrip('/')}/v1." if not path.endswith("/v1") else
                " Check the path of the base URL.")
        return EndpointProblem("not found", f"Nothing answers at {url} (HTTP 404): the base"
                                            f" URL's path is probably wrong.{hint}")
    return EndpointProblem("failed", f"The endpoint failed to list its models (HTTP {status}).")


def _transport_problem(exc: Exception, base_url: str, timeout: float) -> EndpointProblem:
    http = http_module()
    where = urlsplit(base_url).netloc or base_url
    if isinstance(exc, http.TimeoutException):
        return EndpointProblem("timeout", f"{where} did not answer within {timeout:g} seconds:"
                                          " is the server running and reachable from here?")
    text = str(exc).lower()
    if isinstance(exc, http.ConnectError) and ("refused" in text or "errno 111" in text):
        return EndpointProblem("refused", f"Nothing is listening at {where} (connection"
                                          " refused): is the server running, on this port?")
    if isinstance(exc, http.ConnectError) and ("name" in text or "address" in text):
        return EndpointProblem("failed", f"The host name of {where} does not resolve: check"
                                         " its spelling.")
    return EndpointProblem("failed", f"Could not reach {where}: {str(exc) or type(exc).__name__}.")


def list_models(base_url: str, api_key: str | None = None, *, timeout: float = 8.0,
                address_check: AddressCheck | None = None) -> tuple[list[str], str | None]:
    """The models `base_url` serves (`/models`, else Ollama's `/api/tags`) and who owns them.
    With `address_check` (guard.is_public) an address it refuses is never connected to.
    Raises EndpointProblem with a sentence for a person."""
    if address_check is not None:
        try:
            check_url(base_url, address_check)
        except InvalidInput as exc:
            raise EndpointProblem("address", str(exc)) from None
    elif urlsplit(base_url).scheme not in ("http", "https") or not urlsplit(base_url).hostname:
        raise EndpointProblem("address", "The base URL must be an http(s) URL with a host.")
    http = http_module()
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    # no redirects (a redirect could lead to an address nobody checked), no proxy from the
    # environment for a guarded or a local call
    client = http.Client(timeout=http.Timeout(timeout, connect=min(timeout, 4.0)),
                         follow_redirects=False, trust_env=False,
                         **({} if address_check is None else
                            {"transport": pinned_transport(address_check)}))
    url = base_url.rstrip("/") + "/models"
    try:
        with client:
            with client.stream("GET", url, headers=headers) as response:
                body, status = _read(response), response.status_code
                kind = response.headers.get("content-type", "")
            if status == 404 and urlsplit(base_url).port == 11434:  # an Ollama without /v1
                root = base_url.rstrip("/").removesuffix("/v1")
                with client.stream("GET", root + "/api/tags", headers=headers) as response:
                    body, status = _read(response), response.status_code
    except InvalidInput as exc:  # the pinned transport refused the address
        raise EndpointProblem("address", str(exc)) from None
    except http.HTTPError as exc:
        raise _transport_problem(exc, base_url, timeout) from None
    if status != 200:
        raise _status_problem(status, url, base_url)
    try:
        found = _models_of(json.loads(body))
    except ValueError:
        found = None
    if found is None:
        raise _not_compatible(url, body, kind)
    return found


def _open(host: str, port: int, timeout: float) -> bool:
    """Whether something accepts connections there (a closed port answers at once)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def probe_one(host: str, port: int, connect_timeout: float = 0.3,
              read_timeout: float = 1.5) -> Server | None:
    """The model server on host:port, or None when there is none (or it lists no model)."""
    if not _open(host, port, connect_timeout):
        return None
    base_url = f"http://{host}:{port}/v1"
    try:
        ids, owner = list_models(base_url, timeout=read_timeout)
    except ModelError:
        return None
    models = _chat_models(ids)
    if not models:
        return None
    label = OWNERS.get(owner or "") or LOCAL_PORTS.get(port) or f"port {port}"
    return Server(base_url, label, models)


def probe(ports: Sequence[int], host: str = "127.0.0.1", skip: Iterable[int] = (),
          connect_timeout: float = 0.3, read_timeout: float = 1.5) -> list[Server]:
    """The model servers on these ports of `host`, probed in parallel, in the ports' order."""
    wanted = [p for p in dict.fromkeys(ports) if p not in set(skip)]
    if not wanted:
        return []
    with ThreadPoolExecutor(max_workers=len(wanted), thread_name_prefix="probe") as pool:
        found = list(pool.map(lambda p: probe_one(host, p, connect_timeout, read_timeout),
                              wanted))
    return [s for s in found if s is not None]


class Discovery:
    """The machine's model servers, probed at most once per `ttl` seconds (thread-safe)."""

    def __init__(self, ports: Sequence[int], skip: Iterable[int] = (), ttl: float = 15.0,
                 host: str = "127.0.0.1") -> None:
        self.ports, self.skip, self.ttl, self.host = list(ports), set(skip), ttl, host
        self._lock = threading.Lock()
        self._found: list[Server] | None = None
        self._at = 0.0

    def servers(self, max_age: float | None = None) -> list[Server]:
        """The servers found, probed again when the result is older than `max_age` (ttl)."""
        limit = self.ttl if max_age is None else max_age
        with self._lock:  # one probe at a time; the others wait for its result
            if self._found is None or time.monotonic() - self._at > limit:
                self._found = probe(self.ports, self.host, self.skip)
                self._at = time.monotonic()
            return list(self._found)

    def cached(self) -> list[Server] | None:
        """The last result without probing (None before the first probe)."""
        return None if self._found is None else list(self._found)

    def start(self) -> threading.Thread:
        """Probe once in a daemon thread (at server start: the picker then opens at once)."""
        thread = threading.Thread(target=self.servers, name="model-discovery", daemon=True)
        thread.start()
        return thread
