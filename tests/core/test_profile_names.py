"""Profile dimensions named as in the reference; stored profiles migrate, nothing dropped."""

from __future__ import annotations

import sqlite3
import time

from memoryos_core.memory.persona import DIMENSIONS, FAMILIES, RENAMED
from memoryos_core.storage import SQLiteStore
from memoryos_core.storage.migrations import MIGRATIONS
from memoryos_core.storage.sqlite import DB_NAME, _split_sql

REFERENCE_PROMPT_NAMES = ("Openness", "Neuroticism", "Need for Self-Esteem", "Helpfulness",
                          "Instruction Compliance", "Conciseness", "Science Interest",
                          "Financial Management Interest", "Social Media Activity",
                          "Practicality")


def test_profile_dimensions_follow_the_reference_prompt():
    assert list(FAMILIES) == ["psychological model", "AI alignment preferences",
                              "content interests"]
    assert [len(d) for d in FAMILIES.values()] == [16, 8, 27]
    for name in REFERENCE_PROMPT_NAMES:
        assert name in DIMENSIONS
    assert all(new is None or new in DIMENSIONS for new in RENAMED.values())


def old_store(folder, rows):
    """A data folder as it was before migration 4, holding profile rows with the old names."""
    folder.mkdir()
    conn = sqlite3.connect(folder / DB_NAME)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                 " applied_at REAL NOT NULL)")
    for number, script in enumerate(MIGRATIONS[:3], start=1):
        for statement in _split_sql(script):
            conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (number, time.time()))
    conn.executemany("INSERT INTO profile VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()


def test_migration_renames_stored_profiles_and_keeps_the_rest_as_notes(tmp_path):
    rows = [("u1", "Emotional stability", "psychological model", "High", "calm", "[3]", 1.0),
            ("u1", "Music", "content interests", "Medium", "plays piano", "[4]", 1.0),
            ("u1", "Prefers concise answers", "AI alignment preferences", "High", "asked", "[]",
             1.0),
            ("u1", "Empathy", "psychological model", "High", "comforts friends", "[5]", 1.0),
            ("u1", "Science", "content interests", "Low", "rarely", "[]", 1.0),
            ("u1", "Science Interest", "content interests", "High", "newer row", "[6]", 2.0),
            ("u2", "Extraversion", "psychological model", "Low", "quiet", "[9]", 1.0)]
    old_store(tmp_path / "data", rows)
    store = SQLiteStore(tmp_path / "data")
    assert store.schema_version() >= 4
    profile = {(r["user_id"], r["dimension"]): r for r in store.query("SELECT * FROM profile")}
    assert set(profile) == {("u1", "Neuroticism"), ("u1", "Music Interest"),
                            ("u1", "Conciseness"), ("u1", "Science Interest"),
                            ("u2", "Extraversion")}
    assert profile[("u1", "Neuroticism")]["level"] == "Low"  # stability High = neuroticism Low
    assert profile[("u1", "Music Interest")]["evidence"] == "[4]"
    assert profile[("u1", "Conciseness")]["family"] == "AI alignment preferences"
    assert profile[("u1", "Science Interest")]["reason"] == "newer row"
    notes = [r["text"] for r in store.query("SELECT text FROM notes WHERE user_id = 'u1' AND"
                                            " kind = 'retired_profile' ORDER BY id")]
    assert notes == ["Empathy: High (comforts friends) evidence [5]",
                     "Science: Low (rarely) evidence []"]
    assert all(r["dimension"] in DIMENSIONS for r in profile.values())
