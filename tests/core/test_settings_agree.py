"""The settings table and EngineConfig declare the same settings, defaults and types."""

from __future__ import annotations

import dataclasses
import typing

from memoryos_core.config import CHOICES, SETTINGS, EngineConfig, settings_table

# config.py writes every default twice (the table for the CLI, web page and docs; the dataclass
# for the engine): these tests are what ties the two together.
FIELDS = {field.name: field for field in dataclasses.fields(EngineConfig)}
TABLE = {name: default for name, default, _ in SETTINGS}


def test_every_field_has_a_table_entry_and_every_entry_a_field_in_the_same_order():
    assert [name for name, _, _ in SETTINGS] == list(FIELDS)


def test_the_table_and_the_dataclass_give_each_setting_the_same_default():
    differing = {name: (TABLE[name], field.default) for name, field in FIELDS.items()
                 if TABLE.get(name) != field.default}
    assert differing == {}


def test_each_default_has_the_type_its_field_declares():
    # type() rather than isinstance: a bool default would pass for an int field, and an int
    # default for a float field would make _coerce parse the setting's values as ints
    hints = typing.get_type_hints(EngineConfig)
    mismatched = {name: (type(TABLE[name]).__name__, hints[name].__name__) for name in FIELDS
                  if type(TABLE[name]) is not hints[name]}
    assert mismatched == {}
    assert {hints[name] for name in FIELDS} <= {int, float, str}


def test_every_setting_has_help_text_and_each_choice_default_is_a_choice():
    assert [name for name, _, help_text in SETTINGS if not help_text.strip()] == []
    assert {name: TABLE[name] for name, choices in CHOICES.items()
            if TABLE[name] not in choices} == {}


def test_the_settings_table_shows_the_dataclass_defaults_and_a_config_value():
    changed = EngineConfig().replace(top_pages=3)
    rows = {row["name"]: row for row in settings_table(changed)}
    assert {name: row["default"] for name, row in rows.items()} == EngineConfig().as_dict()
    assert rows["top_pages"]["value"] == 3
    assert rows["top_pages"]["default"] == 20
