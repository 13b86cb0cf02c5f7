"""Listing an endpoint's models and finding local model servers, against real loopback servers."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memoryos_core.llm.discovery import Discovery, EndpointProblem, list_models, probe
from memoryos_core.llm.guard import is_public


class Canned:
    """An HTTP server on 127.0.0.1 that answers every GET with one canned response."""

    def __init__(self, status: int = 200, body: object = None, content_type: str =
                 "application/json", delay: float = 0.0, key: str | None = None) -> None:
        self.paths: list[str] = []
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                canned.paths.append(self.path)
                time.sleep(delay)
                refused = key is not None and self.headers.get("Authorization") != f"Bearer {key}"
                code = 401 if refused else status
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up waiting (a timeout being tested)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


MODELS = {"object": "list", "data": [
    {"id": "llama3.2:3b", "object": "model", "owned_by": "library"},
    {"id": "nomic-embed-text:latest", "object": "model", "owned_by": "library"}]}


@pytest.fixture
def canned() -> Iterator[list[Canned]]:
    made: list[Canned] = []
    yield made
    for server in made:
        server.close()


def serve(made: list[Canned], **kwargs: object) -> Canned:
    made.append(Canned(**kwargs))  # type: ignore[arg-type]
    return made[-1]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def problem(base_url: str, **kwargs: object) -> EndpointProblem:
    with pytest.raises(EndpointProblem) as caught:
        list_models(base_url, **kwargs)  # type: ignore[arg-type]
    return caught.value


def test_list_models_reads_the_openai_list(canned):
    server = serve(canned, body=MODELS, key="sk-right")
    assert list_models(server.base_url, "sk-right") == (
        ["llama3.2:3b", "nomic-embed-text:latest"], "library")
    assert server.paths[-1] == "/v1/models"


def test_list_models_failures_are_sentences(canned):
    wrong_key = problem(serve(canned, body=MODELS, key="sk-right").base_url, api_key="sk-wrong")
    assert wrong_key.kind == "key" and "refused the API key (HTTP 401)" in str(wrong_key)
    missing = serve(canned, status=404, body={"error": "no route"})
    no_v1 = problem(f"http://127.0.0.1:{missing.port}")
    assert no_v1.kind == "not found" and f"try http://127.0.0.1:{missing.port}/v1" in str(no_v1)
    html = problem(serve(canned, body=b"<!DOCTYPE html><html><body>Hi</body></html>",
                         content_type="text/html").base_url)
    assert html.kind == "not compatible" and "a web page (HTML)" in str(html)
    other = problem(serve(canned, body={"hello": "world"}).base_url)
    assert other.kind == "not compatible" and "not an OpenAI-compatible model list" in str(other)
    port = closed_port()
    refused = problem(f"http://127.0.0.1:{port}/v1")
    assert refused.kind == "refused"
    assert f"Nothing is listening at 127.0.0.1:{port} (connection refused)" in str(refused)
    slow = problem(serve(canned, body=MODELS, delay=1.0).base_url, timeout=0.3)
    assert slow.kind == "timeout" and "did not answer within 0.3 seconds" in str(slow)


def test_list_models_guarded_refuses_loopback_before_connecting(canned):
    server = serve(canned, body=MODELS)
    refused = problem(server.base_url, address_check=is_public)
    assert refused.kind == "address" and "private or local address (127.0.0.1)" in str(refused)
    assert server.paths == []  # never connected


def test_probe_finds_servers_in_parallel_and_skips_ports(canned):
    ollama = serve(canned, body=MODELS)
    ours = serve(canned, body={"object": "list", "data": [
        {"id": "SmolLM2-135M-Instruct (embedded)", "owned_by": "memoryos"}]})
    page = serve(canned, body=b"<html></html>", content_type="text/html")
    slow = [serve(canned, body=MODELS, delay=1.5) for _ in range(2)]
    closed = closed_port()
    started = time.monotonic()
    found = probe([ollama.port, ours.port, page.port, closed, *(s.port for s in slow)],
                  skip={ours.port}, read_timeout=0.5)
    assert time.monotonic() - started < 1.4  # one slow server's timeout, not their sum
    assert [(s.base_url, s.label, s.models) for s in found] == [
        (ollama.base_url, "Ollama", ("llama3.2:3b",))]  # no embedding model, no web page
    assert ours.paths == []  # a skipped port (our own) is never asked
    assert [s.label for s in probe([ours.port])] == ["memoryos serve-model"]


def test_discovery_keeps_its_result_briefly(canned):
    server = serve(canned, body=MODELS)
    found = Discovery([server.port], ttl=60)
    assert found.cached() is None
    assert [s.models for s in found.servers()] == [("llama3.2:3b",)]
    found.servers()
    assert len(server.paths) == 1  # kept, not asked again
    found.servers(max_age=0)
    assert len(server.paths) == 2
