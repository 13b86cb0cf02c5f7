"""The MCP server (official `mcp` SDK): the reference's tools and ours, over stdio or HTTP.

One `MCPServer` serves any number of users: each call runs as the user bound to the current
context (`as_user`), which the host sets from its own authentication (stdio: `--user`; the web
app: the bearer token). A tool never takes a user id from its arguments.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import Field

from ..engine import MemoryEngine
from ..errors import MemoryOSError, check_user
from ..llm import ChatModel
from .mcp_tools import ToolHost

_USER: contextvars.ContextVar[str | None] = contextvars.ContextVar("memoryos_mcp_user",
                                                                  default=None)
MAX_BODY = 25 * 1024 * 1024
Text = Annotated[str, Field(min_length=1)]
Results = Annotated[int, Field(ge=1, le=100)]
Label = Annotated[str, Field(min_length=1, max_length=200)]
Version = Annotated[int, Field(ge=1)]
INSTRUCTIONS = (
    "Long-term memory for this user (MemoryOS). Call add_memory after each exchange, "
    "retrieve_memory before answering, get_user_profile for what is known about the user.")


@contextmanager
def as_user(user_id: str) -> Iterator[None]:
    """Run the tool calls made inside this block as `user_id`."""
    token = _USER.set(user_id)
    try:
        yield
    finally:
        _USER.reset(token)


def current_user() -> str:
    """The user bound by the host; a call without one is refused, touching nothing."""
    user = _USER.get()
    if not user:
        raise PermissionError("no authenticated user for this MCP call")
    return user


def build_server(
    engine: MemoryEngine, model: Callable[[str], ChatModel | None] | None = None,
    maintain: Callable[[str, ChatModel | None], None] | None = None,
) -> Any:
    """An MCPServer with every tool, acting for `current_user()`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    host = ToolHost(engine, current_user, model or (lambda _u: None), maintain)
    # WARNING: the SDK configures the root logger when none is set; keep a host's INFO quiet.
    server = MCPServer("MemoryOS", instructions=INSTRUCTIONS, version="0.1.0",
                       log_level="WARNING")

    def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (MemoryOSError, PermissionError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description="Add one exchange (the user's input and the assistant's response)"
                 " to memory. timestamp: 'YYYY-MM-DD HH:MM:SS' or ISO 8601 (default: now).")
    async def add_memory(user_input: Text, agent_response: Text, timestamp: str | None = None,
                         meta_data: dict[str, Any] | None = None) -> dict[str, Any]:
        return call(host.add_memory, user_input, agent_response, timestamp,  # type: ignore[no-any-return]
                    meta_data)

    @server.tool(description="Retrieve memory related to a query: short-term memory, retrieved"
                 " pages, user knowledge and assistant knowledge, and the user profile.")
    async def retrieve_memory(
        query: Text, relationship_with_user: str = "friend", style_hint: str = "",
        max_results: Results = 10,
    ) -> dict[str, Any]:
        return call(host.retrieve_memory, query, relationship_with_user,  # type: ignore[no-any-return]
                    style_hint, max_results)

    @server.tool(description="The user's profile, with the user's knowledge and optionally the"
                 " assistant's knowledge.")
    async def get_user_profile(include_knowledge: bool = True,
                               include_assistant_knowledge: bool = False) -> dict[str, Any]:
        return call(host.get_user_profile, include_knowledge,  # type: ignore[no-any-return]
                    include_assistant_knowledge)

    @server.tool(description="Answer a message with memory (one chat-model call), then"
                 " remember the exchange.")
    async def chat(message: Text, relationship_with_user: str | None = None,
                   style_hint: str | None = None) -> dict[str, Any]:
        return call(host.chat, message, relationship_with_user, style_hint)  # type: ignore[no-any-return]

    @server.tool(description="Every memory tier: short-term exchanges, mid-term segments with"
                 " heat and pages, long-term profile and facts, pending work.")
    async def memory_state() -> dict[str, Any]:
        return call(host.memory_state)  # type: ignore[no-any-return]

    @server.tool(description="File pending pages and analyse every segment with unanalysed"
                 " pages now, whatever its heat.")
    async def force_analysis() -> dict[str, Any]:
        return call(host.force_analysis)  # type: ignore[no-any-return]

    @server.tool(description="Save the whole memory as a new numbered version.")
    async def snapshot(label: Label = "mcp") -> dict[str, Any]:
        return call(host.snapshot, label)  # type: ignore[no-any-return]

    @server.tool(description="Saved versions of the memory, newest first.")
    async def list_versions() -> dict[str, Any]:
        return {"versions": call(host.list_versions)}

    @server.tool(description="Make a saved version current; the memory before it is saved as a"
                 " new version first.")
    async def restore_version(version: Version) -> dict[str, Any]:
        return call(host.restore_version, version)  # type: ignore[no-any-return]

    @server.tool(description="Import a dialogue document given as text (JSON formats or"
                 " 'User:'/'Assistant:' lines); format 'auto' detects it.")
    async def import_dialogue(document: Text, format: str = "auto", speaker: str | None = None,
                              conversation: str | None = None) -> dict[str, Any]:
        return call(host.import_dialogue, document, format,  # type: ignore[no-any-return]
                    speaker, conversation)

    @server.tool(description="Search the user's memory: pages of every tier, facts and profile"
                 " dimensions matching the query by words and by meaning, with their dates and"
                 " page ids.")
    async def search_memory(query: Text, max_results: Results = 20) -> dict[str, Any]:
        return call(host.search_memory, query, max_results)  # type: ignore[no-any-return]

    @server.tool(description="Forget one exchange (its page id, from search_memory or"
                 " memory_state): it leaves every tier, index, fact and trace; the memory"
                 " before is saved as a version. everywhere=true also removes it from every"
                 " saved version and the files on disk, and cannot be undone.")
    async def forget_exchange(exchange_id: Annotated[int, Field(ge=1)],
                              everywhere: bool = False) -> dict[str, Any]:
        return call(host.forget_exchange, exchange_id, everywhere)  # type: ignore[no-any-return]

    return server


def run_stdio(engine: MemoryEngine, user_id: str,
              model: Callable[[str], ChatModel | None] | None = None) -> None:
    """Serve MCP over stdin/stdout as one user until the client closes the pipe."""
    server = build_server(engine, model)
    with as_user(check_user(user_id)):
        server.run("stdio")


def serve_http(server: Any, user_id: str, method: str, path: str, headers: list[tuple[str, str]],
               body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """One Streamable HTTP request, answered by the SDK's transport in stateless JSON mode.

    Each request gets a fresh session manager and event loop (stateless: no session outlives
    the request), so it runs inside any WSGI worker, sync or threaded, with no shared loop.
    """
    import anyio
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    status = [500]
    out_headers: list[tuple[str, str]] = []
    chunks: list[bytes] = []

    async def handle() -> None:
        done = anyio.Event()
        sent = [False]

        async def receive() -> MutableMapping[str, Any]:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
                out_headers.extend((k.decode("latin-1"), v.decode("latin-1"))
                                   for k, v in message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body"):
                    done.set()

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method.upper(), "scheme": "http", "path": path, "raw_path": path.encode(),
            "root_path": "", "query_string": b"", "server": ("localhost", 80),
            "client": ("127.0.0.1", 0),
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers],
        }
        manager = StreamableHTTPSessionManager(
            server._lowlevel_server, json_response=True, stateless=True,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=MAX_BODY)
        with as_user(user_id):  # before the task group exists, so its tasks inherit it
            async with manager.run():
                await manager.handle_request(scope, receive, send)
        done.set()

    anyio.run(handle)
    return status[0], out_headers, b"".join(chunks)


def jsonrpc_error(message: str, code: int = -32001) -> bytes:
    """A JSON-RPC error body for refusals made before the MCP server is reached."""
    return json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": code, "message": message}}).encode()
