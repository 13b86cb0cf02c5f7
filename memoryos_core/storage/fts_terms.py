"""The terms of the keyword index: a word's term in exchanges_fts as SQLite's tokenizer makes it,
and the FTS5 query of some words."""

from __future__ import annotations

import re
import sqlite3
import threading

_PLAIN = re.compile(r"[a-z0-9]+")  # a word FTS5's unicode61 tokenizer keeps as one token
_TOKENIZER = "porter unicode61"  # exchanges_fts's tokenizer (migration 6)
_local = threading.local()


def indexed_terms(words: list[str]) -> dict[str, str]:
    """The term each plain word becomes in exchanges_fts (its Porter stem), as SQLite says.

    SQLite's own tokenizer decides, so the term-count lookups in exchanges_vocab use exactly the
    index's terms: a private in-memory FTS5 table with the same tokenizer takes the words as
    one row and its instance vocabulary reads each word's term back by position.
    """
    plain = [w for w in dict.fromkeys(words) if _PLAIN.fullmatch(w)]
    # a word's term never changes: each is asked of SQLite once (twice per retrieval before);
    # read into a local copy first, so another thread's clear() takes nothing from this call
    known = {w: _TERMS.get(w, "") for w in plain}  # "": not asked yet (no term is empty)
    fresh = [w for w, term in known.items() if term == ""]
    if fresh:
        known.update(_tokenized(fresh))
        if len(_TERMS) > 50_000:
            _TERMS.clear()
        _TERMS.update({w: known[w] for w in fresh})
    return {w: term for w in plain if (term := known[w]) is not None}


_TERMS: dict[str, str | None] = {}  # plain word -> its term in exchanges_fts


def _tokenized(plain: list[str]) -> dict[str, str | None]:
    """`indexed_terms` of some plain words, from SQLite's tokenizer (None: no term)."""
    db = getattr(_local, "tokenizer", None)
    if db is None:
        db = sqlite3.connect(":memory:")
        db.executescript(f"""
            CREATE VIRTUAL TABLE words USING fts5(text, tokenize='{_TOKENIZER}');
            CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance');""")
        _local.tokenizer = db
    with db:
        db.execute("INSERT INTO words(rowid, text) VALUES (1, ?)", (" ".join(plain),))
        terms = {int(offset): term for term, offset in
                 db.execute("SELECT term, offset FROM terms WHERE doc = 1")}
        db.execute("DELETE FROM words WHERE rowid = 1")
    return {w: terms.get(i) for i, w in enumerate(plain)}


def fts_query(words: list[str]) -> str:
    """An FTS5 OR-query of quoted keywords (quotes keep user text from being FTS syntax)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
