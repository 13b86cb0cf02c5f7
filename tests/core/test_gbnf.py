"""The JSON-schema-to-GBNF converter: every rule it references is defined, and the shapes."""

from __future__ import annotations

import re

from memoryos_core.llm.gbnf import schema_to_gbnf
from memoryos_core.memory import prompts


def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.strip().splitlines())


def _undefined(grammar: str) -> set[str]:
    rules = _rules(grammar)
    names: set[str] = set()
    for body in rules.values():
        bare = re.sub(r'"(\\.|[^"\\])*"|\[(\\.|[^\]\\])*\]', " ", body)  # literals, classes
        names |= set(re.findall(r"[a-zA-Z][a-zA-Z0-9-]*", bare))
    return names - set(rules)


def test_prompt_schemas_give_closed_grammars() -> None:
    for schema in (prompts.consolidation_schema(12), prompts.profile_schema([3, 5, 8]),
                   prompts.facts_schema([3, 5]), prompts.facts_schema([3, 5], known=[7]),
                   {"type": "object"}, {}):
        grammar = schema_to_gbnf(schema)
        assert "root" in _rules(grammar)
        assert _undefined(grammar) == set(), grammar


def test_shapes() -> None:
    rules = _rules(schema_to_gbnf({"type": "object", "properties": {
        "level": {"type": "string", "enum": ["low", "high"]},
        "pages": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "integer"}},
        "note": {"type": "string", "maxLength": 5}}, "required": ["level", "pages"]}))
    assert rules["root-level"] == '("\\"low\\"" | "\\"high\\"") space'
    assert rules["root-pages"] == '"[" space integer ("," space integer){0,2} "]" space'
    assert rules["root-note"] == '"\\"" (char){0,5} "\\"" space'
    # required keys in order, then the optional one may follow
    assert rules["root"] == ('"{" space root-level-kv "," space root-pages-kv'
                             ' ( "," space ( root-note-kv ) )? "}" space')
