"""Migration 1: the schema a new store starts from (the three tiers, vectors, event log,
versions, jobs, traces); later migrations change it (migrations.py)."""

INITIAL_SCHEMA = """
    CREATE TABLE segments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        summary TEXT NOT NULL,
        keywords TEXT NOT NULL DEFAULT '[]',
        n_visit INTEGER NOT NULL DEFAULT 0,
        l_interaction INTEGER NOT NULL DEFAULT 0,
        last_visit REAL NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        analysed_at REAL
    );
    CREATE INDEX ix_segments_user ON segments(user_id);

    CREATE TABLE exchanges (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        user_text TEXT NOT NULL,
        assistant_text TEXT NOT NULL,
        ts REAL NOT NULL,
        admitted_at REAL NOT NULL,
        tier TEXT NOT NULL CHECK (tier IN ('short', 'mid')),
        segment_id INTEGER REFERENCES segments(id) ON DELETE CASCADE,
        prev_id INTEGER,
        next_id INTEGER,
        overview TEXT NOT NULL DEFAULT '',
        keywords TEXT NOT NULL DEFAULT '[]',
        analysed INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL DEFAULT 'chat',
        content_key TEXT NOT NULL,
        moved_at REAL
    );
    CREATE INDEX ix_exchanges_user_tier ON exchanges(user_id, tier, id);
    CREATE INDEX ix_exchanges_segment ON exchanges(segment_id);
    CREATE INDEX ix_exchanges_key ON exchanges(user_id, content_key);

    CREATE VIRTUAL TABLE exchanges_fts USING fts5(
        user_text, assistant_text, content='exchanges', content_rowid='id'
    );
    CREATE TRIGGER exchanges_fts_insert AFTER INSERT ON exchanges BEGIN
        INSERT INTO exchanges_fts(rowid, user_text, assistant_text)
        VALUES (new.id, new.user_text, new.assistant_text);
    END;
    CREATE TRIGGER exchanges_fts_delete AFTER DELETE ON exchanges BEGIN
        INSERT INTO exchanges_fts(exchanges_fts, rowid, user_text, assistant_text)
        VALUES ('delete', old.id, old.user_text, old.assistant_text);
    END;

    CREATE TABLE vectors (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('page', 'segment', 'fact')),
        item_id INTEGER NOT NULL,
        vec BLOB NOT NULL,
        UNIQUE (kind, item_id)
    );
    CREATE INDEX ix_vectors_user_kind ON vectors(user_id, kind, seq);

    -- A deletion bumps the epoch so every process rebuilds that index on its next use.
    CREATE TABLE vector_epochs (
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        epoch INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, kind)
    );
    CREATE TRIGGER vectors_delete AFTER DELETE ON vectors BEGIN
        INSERT INTO vector_epochs(user_id, kind, epoch) VALUES (old.user_id, old.kind, 1)
        ON CONFLICT(user_id, kind) DO UPDATE SET epoch = epoch + 1;
    END;
    CREATE TRIGGER exchanges_vector_delete AFTER DELETE ON exchanges BEGIN
        DELETE FROM vectors WHERE kind = 'page' AND item_id = old.id;
    END;
    CREATE TRIGGER segments_vector_delete AFTER DELETE ON segments BEGIN
        DELETE FROM vectors WHERE kind = 'segment' AND item_id = old.id;
    END;

    CREATE TABLE profile (
        user_id TEXT NOT NULL,
        dimension TEXT NOT NULL,
        family TEXT NOT NULL,
        level TEXT NOT NULL CHECK (level IN ('High', 'Medium', 'Low')),
        reason TEXT NOT NULL,
        evidence TEXT NOT NULL DEFAULT '[]',
        updated_at REAL NOT NULL,
        PRIMARY KEY (user_id, dimension)
    );

    CREATE TABLE facts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('user', 'assistant')),
        text TEXT NOT NULL,
        norm TEXT NOT NULL,
        sources TEXT NOT NULL DEFAULT '[]',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX ix_facts_user ON facts(user_id, kind);
    CREATE TRIGGER facts_vector_delete AFTER DELETE ON facts BEGIN
        DELETE FROM vectors WHERE kind = 'fact' AND item_id = old.id;
    END;

    CREATE TABLE user_state (
        user_id TEXT PRIMARY KEY,
        overview TEXT NOT NULL DEFAULT '',
        last_page_id INTEGER,
        updated_at REAL NOT NULL
    );

    CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        ts REAL NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX ix_events_user ON events(user_id, id);

    CREATE TABLE traces (
        exchange_id INTEGER PRIMARY KEY REFERENCES exchanges(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        trace TEXT NOT NULL
    );

    CREATE TABLE snapshots (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        label TEXT NOT NULL,
        created_at REAL NOT NULL,
        counts TEXT NOT NULL,
        doc BLOB NOT NULL,
        UNIQUE (user_id, version)
    );

    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
        done INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        phase TEXT NOT NULL DEFAULT '',
        result TEXT,
        error TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX ix_jobs_user ON jobs(user_id, created_at);

    CREATE TABLE usage (
        user_id TEXT NOT NULL,
        purpose TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        fallbacks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, purpose)
    );
    """
