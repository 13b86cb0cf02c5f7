"""Who wrote an exchange's answer, and whether its words may become the assistant's facts.

Only what was said becomes memory. An answer of a real assistant says something about that
assistant: the answers in an imported ChatGPT or Claude export, an answer a host gave with the
exchange (MCP, the reference API), an answer of a configured chat model. The embedded 135M
model invents first-person sentences ("I've been enjoying a relaxing morning of beach days
with my family."), and an answer the app built ("You told me...", "Got it: ...", a courtesy
reply) is the app's own text: neither is ever an assistant fact, nor a ground for a user fact.
`exchanges.answered_by` records the writer when the answer is made (migration 12).
"""

from __future__ import annotations

from typing import Any

MODEL = "model"  # a configured chat model (an OpenAI-compatible endpoint, a host's model)
EMBEDDED = "embedded"  # the small offline model: it invents, so it never states a fact
APP = "app"  # an answer the app built: memory said back, a set reply
UNKNOWN = "unknown"  # a chat answer stored before the writer was recorded, without a trace
GIVEN = ""  # imported, or given with the exchange by its caller
# the answer sources (answer_guard.Reply.source) a chat model wrote; every other is built
MODEL_SOURCES = frozenset({"model", "retry"})


def answered_by(reply_source: str, embedded: bool) -> str:
    """The writer of a chat answer from how it was reached and the model that was asked."""
    if reply_source not in MODEL_SOURCES:
        return APP
    return EMBEDDED if embedded else MODEL


def assistant_speaks(page: dict[str, Any]) -> bool:
    """True when a page's answer may state facts about the assistant (a real assistant wrote
    it); a page without the column (an older reader, a benchmark's page) counts as given."""
    return str(page.get("answered_by") or GIVEN) in (MODEL, GIVEN)


def said_only(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pages with the answers no real assistant wrote emptied (for extractive facts)."""
    return [p if assistant_speaks(p) else dict(p, assistant_text="") for p in pages]


def assistant_facts_said(facts: dict[str, list[dict[str, Any]]],
                         pages: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The facts with each assistant fact's sources cut to the pages whose answer a real
    assistant wrote; an assistant fact left without one is dropped (a model's analysis may
    take the embedded model's inventions for the assistant's)."""
    speaks = {int(p["id"]) for p in pages if assistant_speaks(p)}
    kept = []
    for fact in facts["assistant"]:
        sources = [i for i in fact["sources"] if int(i) in speaks]
        if sources:
            kept.append(dict(fact, sources=sources))
    return {**facts, "assistant": kept}
