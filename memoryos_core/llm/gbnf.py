"""JSON schema to a llama.cpp GBNF grammar, for the subset of JSON schema our prompts use.

Modelled on llama.cpp's json-schema-to-grammar (the one llama-cpp-python ships), so that every
runtime constrains a reply to the same language: objects with `properties` / `required` (keys in
declared order, optional keys may be left out), arrays with `items` / `minItems` / `maxItems`,
strings with `minLength` / `maxLength`, integers, numbers, booleans, null, `enum`, `const`,
`anyOf` / `oneOf` and lists of types. Annotations (`title`, `description`, ...) are ignored; an
unknown or empty schema is any JSON value.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SPACE = '| " " | "\\n" [ \\t]{0,20}'
_PRIMITIVES = {
    "space": _SPACE,
    "boolean": '("true" | "false") space',
    "null": '"null" space',
    "integral-part": "[0] | [1-9] [0-9]{0,15}",
    "decimal-part": "[0-9]{1,16}",
    "integer": '("-"? integral-part) space',
    "number": '("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space',
    "char": '[^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})',
    "string": '"\\"" char* "\\"" space',
    "value": "object | array | string | number | boolean | null",
    "object": '"{" space ( string ":" space value ("," space string ":" space value)* )? "}" space',
    "array": '"[" space ( value ("," space value)* )? "]" space',
}
_DEPENDS = {"boolean": ["space"], "null": ["space"], "integer": ["integral-part", "space"],
            "number": ["integral-part", "decimal-part", "space"], "string": ["char", "space"],
            "value": ["object", "array", "string", "number", "boolean", "null"],
            "object": ["string", "value", "space"], "array": ["value", "space"]}


def _literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\r", "\\r") + '"'


def _repeat(item: str, low: int, high: int | None, separator: str = "") -> str:
    """`item` repeated low..high times (high None: unbounded), joined by `separator`."""
    if high == 0:
        return ""
    if not separator:
        bound = f"{{{low},}}" if high is None else f"{{{low},{high}}}" if low != high \
            else f"{{{low}}}"
        return f"({item}){bound}"
    rest = _repeat(f"{separator} {item}", max(0, low - 1), None if high is None else high - 1)
    seq = f"{item} {rest}".strip()
    return seq if low > 0 else f"({seq})?"


class _Converter:
    """Builds the rules of one grammar; `rules` ends up name -> body."""

    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def _primitive(self, name: str) -> str:
        if name not in self.rules:
            self.rules[name] = _PRIMITIVES[name]
            for dep in _DEPENDS.get(name, []):
                self._primitive(dep)
        return name

    def _add(self, name: str, body: str) -> str:
        base = re.sub(r"[^a-zA-Z0-9-]+", "-", name).strip("-") or "rule"
        key, i = base, 0
        while key in self.rules and self.rules[key] != body:
            i += 1
            key = f"{base}{i}"
        self.rules[key] = body
        return key

    def visit(self, schema: Any, name: str) -> str:
        """The rule name for `schema` (adding the rules it needs)."""
        if not isinstance(schema, dict) or not schema:
            return self._primitive("value")
        if "const" in schema:
            self._primitive("space")
            return self._add(name, _literal(json.dumps(schema["const"])) + " space")
        if "enum" in schema:
            self._primitive("space")
            options = " | ".join(_literal(json.dumps(v)) for v in schema["enum"])
            return self._add(name, f"({options}) space")
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(alternatives, list) and alternatives:
            parts = [self.visit(s, f"{name}-{i}") for i, s in enumerate(alternatives)]
            return self._add(name, " | ".join(parts))
        kind = schema.get("type")
        if isinstance(kind, list):
            return self.visit({"anyOf": [{**schema, "type": k} for k in kind]}, name)
        if kind == "object" or (kind is None and "properties" in schema):
            return self._object(schema, name)
        if kind == "array" or (kind is None and "items" in schema):
            return self._array(schema, name)
        if kind == "string":
            low, high = int(schema.get("minLength", 0)), schema.get("maxLength")
            if low == 0 and high is None:
                return self._primitive("string")
            self._primitive("char")
            self._primitive("space")
            chars = _repeat("char", low, None if high is None else int(high))
            return self._add(name, f'"\\"" {chars} "\\"" space')
        if kind in ("integer", "number", "boolean", "null"):
            return self._primitive(kind)
        return self._primitive("value")

    def _object(self, schema: dict[str, Any], name: str) -> str:
        props = schema.get("properties") or {}
        if not props:
            return self._primitive("object")
        self._primitive("space")
        required = set(schema.get("required") or [])
        pairs = {key: self._add(f"{name}-{key}-kv", f'{_literal(json.dumps(key))} space ":" space '
                                + self.visit(sub, f"{name}-{key}"))
                 for key, sub in props.items()}
        must = ' "," space '.join(pairs[k] for k in props if k in required)
        optional = [k for k in props if k not in required]
        if not optional:
            return self._add(name, f'"{{" space {must} "}}" space')

        def chain(keys: list[str], first_optional: bool) -> str:
            # the first present optional key, then each later one optional (any subset, in order)
            head = f'( "," space {pairs[keys[0]]} )?' if first_optional else pairs[keys[0]]
            if len(keys) == 1:
                return head
            return f"{head} " + self._add(f"{name}-{keys[0]}-rest", chain(keys[1:], True))

        options = " | ".join(chain(optional[i:], False) for i in range(len(optional)))
        body = f'{must} ( "," space ( {options} ) )?' if must else f"( {options} )?"
        return self._add(name, f'"{{" space {body} "}}" space')

    def _array(self, schema: dict[str, Any], name: str) -> str:
        self._primitive("space")
        item = self.visit(schema.get("items") or {}, f"{name}-item")
        low, high = int(schema.get("minItems", 0)), schema.get("maxItems")
        seq = _repeat(item, low, None if high is None else int(high), separator='"," space')
        return self._add(name, f'"[" space {seq} "]" space')


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """A GBNF grammar (root rule `root`) accepting JSON of this schema."""
    converter = _Converter()
    top = converter.visit(schema, "root")
    rules = converter.rules
    if top != "root":
        rules = {"root": top, **rules}
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"
