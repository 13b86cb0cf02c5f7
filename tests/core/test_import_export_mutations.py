"""Each chat export with values swapped for wrong types (issue 34): the preview and the import
end in a result or a clear ImportFormatError, never another exception; nothing half-written."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from memoryos_core import ImportFormatError

from . import chat_export_fixtures as fx

ODD: list[Any] = [None, 0, -1, 1e300, True, "", "x", [], {}, [None], {"a": None}, "2025-99-99"]
pytestmark = pytest.mark.sqlite_only  # the readers' robustness; the store is not the point
DOCS = {"claude": fx.claude_conversations(), "openwebui": fx.openwebui(),
        "librechat": fx.librechat(), "gemini": fx.gemini(), "sharegpt": fx.sharegpt(),
        "openmemory": fx.OPENMEMORY, "letta": fx.LETTA, "memories": fx.CLAUDE_MEMORIES}


def _slots(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a document a value sits (the paths to swap)."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _slots(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _slots(v, (*path, i))
    return out


def _swapped(doc: Any, path: tuple, new: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    if not path:
        return new
    holder = doc
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = new
    return doc


@pytest.mark.parametrize("name", sorted(DOCS))
def test_wrong_types_anywhere_give_a_result_or_a_clear_error(engine, name):
    rng = random.Random(name)
    doc = DOCS[name]
    slots = _slots(doc)
    for _ in range(150):
        data = json.dumps(_swapped(doc, rng.choice(slots), rng.choice(ODD))).encode()
        try:
            preview = engine.preview_import("u1", data)
        except ImportFormatError:
            continue
        before = engine.state("u1")["short_term"]["count"]
        try:
            report = engine.import_dialogue("u1", data, maintain=False)
        except ImportFormatError:
            assert engine.state("u1")["short_term"]["count"] == before  # nothing half-written
            continue
        assert report["imported"] <= preview["to_import"]


def _lines(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.decode().splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["sillytavern", "openai-jsonl"])
def test_jsonl_with_wrong_types_gives_a_result_or_a_clear_error(engine, name):
    rng = random.Random(name)
    lines = _lines(fx.sillytavern() if name == "sillytavern" else fx.openai_jsonl())
    slots = _slots(lines)[1:]  # a place inside a line, never the list of lines itself
    for _ in range(150):
        mutated = _swapped(lines, rng.choice(slots), rng.choice(ODD))
        data = "\n".join(json.dumps(line) for line in mutated).encode()
        try:
            engine.import_dialogue("u1", data, maintain=False)
        except ImportFormatError:
            continue
