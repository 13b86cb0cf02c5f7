"""Numbered schema migrations, applied in order on open and recorded in the file."""

from __future__ import annotations

from .initial_schema import INITIAL_SCHEMA

MIGRATIONS: tuple[str, ...] = (
    # 1: the three tiers, vectors, event log, versions, jobs, traces.
    INITIAL_SCHEMA,
    # 2: document frequencies of FTS terms, so retrieval can skip terms that match everything.
    """
    CREATE VIRTUAL TABLE exchanges_vocab USING fts5vocab(exchanges_fts, 'row');
    """,
    # 3: store-wide facts (the embedding model the vectors were made with) and per-user notes
    # (text kept verbatim, e.g. a reference MemoryOS profile: never parsed into levels).
    """
    CREATE TABLE store_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE notes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX ix_notes_user ON notes(user_id, id);
    """,
    # 4: profile dimensions renamed to the reference's (its analysis prompt); a name with no
    # counterpart, or whose new name the user already has, is kept as a note, never dropped.
    # "Emotional stability" becomes "Neuroticism" with the level inverted.
    """
    CREATE TABLE profile_renames (old TEXT PRIMARY KEY, new TEXT, family TEXT);
    INSERT INTO profile_renames (old, new, family) VALUES
        ('Openness to experience', 'Openness', 'psychological model'),
        ('Emotional stability', 'Neuroticism', 'psychological model'),
        ('Curiosity', 'Cognitive Needs', 'psychological model'),
        ('Need for achievement', 'Need for Achievement', 'psychological model'),
        ('Need for belonging', 'Need for Belonging', 'psychological model'),
        ('Creativity', 'Aesthetic Appreciation', 'psychological model'),
        ('Empathy', NULL, NULL),
        ('Optimism', NULL, NULL),
        ('Resilience', NULL, NULL),
        ('Risk taking', NULL, NULL),
        ('Self-reflection', NULL, NULL),
        ('Prefers concise answers', 'Conciseness', 'AI alignment preferences'),
        ('Prefers detailed explanations', 'Complexity', 'AI alignment preferences'),
        ('Prefers formal tone', 'Language Style', 'content interests'),
        ('Appreciates humour', 'Sense of Humor', 'content interests'),
        ('Wants emotional support', NULL, NULL),
        ('Wants proactive suggestions', NULL, NULL),
        ('Values directness', NULL, NULL),
        ('Wants encouragement', NULL, NULL),
        ('Values privacy', NULL, NULL),
        ('Sports and fitness', 'Sports Interest', 'content interests'),
        ('Music', 'Music Interest', 'content interests'),
        ('Travel', 'Travel Interest', 'content interests'),
        ('Technology', 'Tech Interest', 'content interests'),
        ('Art and creativity', 'Art Interest', 'content interests'),
        ('Family and relationships', 'Family Concern', 'content interests'),
        ('Career and work', NULL, NULL),
        ('Health and wellbeing', 'Health Concern', 'content interests'),
        ('Food and cooking', 'Food Interest', 'content interests'),
        ('Education and learning', 'Education Interest', 'content interests'),
        ('Nature and outdoors', 'Environmental Concern', 'content interests'),
        ('Books and literature', 'Literature Interest', 'content interests'),
        ('Movies and TV', 'Film Interest', 'content interests'),
        ('Pets and animals', 'Animal Concern', 'content interests'),
        ('Community and volunteering', NULL, NULL),
        ('Finance', 'Financial Management Interest', 'content interests'),
        ('Games', 'Gaming Interest', 'content interests'),
        ('Fashion', 'Fashion Interest', 'content interests'),
        ('Society and politics', 'Political Concern', 'content interests'),
        ('Science', 'Science Interest', 'content interests'),
        ('Spirituality and religion', 'Religious Interest', 'content interests'),
        ('Home and gardening', NULL, NULL);
    UPDATE OR IGNORE profile SET
        level = CASE WHEN dimension = 'Emotional stability' THEN
            CASE level WHEN 'High' THEN 'Low' WHEN 'Low' THEN 'High' ELSE level END
            ELSE level END,
        family = (SELECT r.family FROM profile_renames r WHERE r.old = profile.dimension),
        dimension = (SELECT r.new FROM profile_renames r WHERE r.old = profile.dimension)
    WHERE dimension IN (SELECT old FROM profile_renames WHERE new IS NOT NULL);
    INSERT INTO notes (user_id, kind, text, source, created_at)
        SELECT user_id, 'retired_profile', dimension || ': ' || level || ' (' || reason
               || ') evidence ' || evidence, 'migration 4: profile names of the reference',
               updated_at
        FROM profile WHERE dimension IN (SELECT old FROM profile_renames);
    DELETE FROM profile WHERE dimension IN (SELECT old FROM profile_renames);
    """,
    # 5: durable jobs (any worker process claims a queued job, a stale one is taken over) and
    # uploads kept for a preview in the database rather than on one web host's disk.
    """
    ALTER TABLE jobs ADD COLUMN payload TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE jobs ADD COLUMN worker TEXT;
    ALTER TABLE jobs ADD COLUMN heartbeat_at REAL;
    ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX ix_jobs_status ON jobs(status, created_at);
    CREATE TABLE uploads (
        token TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        created_at REAL NOT NULL,
        data BLOB NOT NULL
    );
    CREATE INDEX ix_uploads_user ON uploads(user_id, kind, created_at);
    """,
    # 6: keyword search matches word forms ("painting" finds "painted"): the Porter stemmer in
    # front of unicode61; the index and its term counts are rebuilt from the stored exchanges.
    # Pages by time, for queries that name a date.
    """
    DROP TABLE exchanges_vocab;
    DROP TRIGGER exchanges_fts_insert;
    DROP TRIGGER exchanges_fts_delete;
    DROP TABLE exchanges_fts;
    CREATE VIRTUAL TABLE exchanges_fts USING fts5(
        user_text, assistant_text, content='exchanges', content_rowid='id',
        tokenize='porter unicode61'
    );
    CREATE TRIGGER exchanges_fts_insert AFTER INSERT ON exchanges BEGIN
        INSERT INTO exchanges_fts(rowid, user_text, assistant_text)
        VALUES (new.id, new.user_text, new.assistant_text);
    END;
    CREATE TRIGGER exchanges_fts_delete AFTER DELETE ON exchanges BEGIN
        INSERT INTO exchanges_fts(exchanges_fts, rowid, user_text, assistant_text)
        VALUES ('delete', old.id, old.user_text, old.assistant_text);
    END;
    INSERT INTO exchanges_fts(exchanges_fts) VALUES ('rebuild');
    CREATE VIRTUAL TABLE exchanges_vocab USING fts5vocab(exchanges_fts, 'row');
    CREATE INDEX ix_exchanges_user_time ON exchanges(user_id, tier, ts);
    """,
    # 7: facts over time (issue 20): when a fact began to hold (the newest of its source pages,
    # else when it was stored), until when (NULL while current) and the fact that replaced it;
    # a replaced fact is kept as history.
    """
    ALTER TABLE facts ADD COLUMN valid_from REAL;
    ALTER TABLE facts ADD COLUMN valid_until REAL;
    ALTER TABLE facts ADD COLUMN superseded_by INTEGER REFERENCES facts(id) ON DELETE SET NULL;
    UPDATE facts SET valid_from = coalesce(
        (SELECT max(e.ts) FROM json_each(facts.sources) j JOIN exchanges e ON e.id = j.value
         WHERE e.user_id = facts.user_id), created_at);
    CREATE INDEX ix_facts_superseded ON facts(superseded_by);
    """,
    # 8: a profile dimension may hold signals without a level (issue 19): extractive analysis
    # keeps the user's sentences that name an interest ([{page, text}]) and never invents a
    # level, so level may be NULL (SQLite changes a column only by copying the table). Rows the
    # old extractive rule made (levels from page counts, "N page(s) on it: ...") keep their
    # links and lose the made-up level and keyword reason.
    """
    CREATE TABLE profile_v8 (
        user_id TEXT NOT NULL,
        dimension TEXT NOT NULL,
        family TEXT NOT NULL,
        level TEXT CHECK (level IN ('High', 'Medium', 'Low')),
        reason TEXT NOT NULL,
        evidence TEXT NOT NULL DEFAULT '[]',
        updated_at REAL NOT NULL,
        signals TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (user_id, dimension)
    );
    INSERT INTO profile_v8 (user_id, dimension, family, level, reason, evidence, updated_at)
        SELECT user_id, dimension, family,
               CASE WHEN reason LIKE '% page(s) on it%' THEN NULL ELSE level END,
               CASE WHEN reason LIKE '% page(s) on it%' THEN '' ELSE reason END,
               evidence, updated_at
        FROM profile;
    DROP TABLE profile;
    ALTER TABLE profile_v8 RENAME TO profile;
    """,
    # 9: the user's own corrections (issue 21): a fact or profile dimension the user edited
    # or set is marked as theirs; analysis never overwrites or deletes it.
    """
    ALTER TABLE facts ADD COLUMN by_user INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE profile ADD COLUMN by_user INTEGER NOT NULL DEFAULT 0;
    """,
    # 10: conversations (issue 31): each exchange belongs to the conversation its first exchange
    # started (conversation_id = that exchange's id); the rows stored before are one
    # conversation per user and kind of source (chat, each import format: "import:locomo D1:3"
    # is "import:locomo"). An edited or regenerated exchange changes its texts in place, so the
    # keyword index follows an update of them too.
    """
    ALTER TABLE exchanges ADD COLUMN conversation_id INTEGER;
    UPDATE exchanges SET conversation_id = f.first_id
        FROM (SELECT user_id, CASE WHEN instr(source, ' ') > 0
                     THEN substr(source, 1, instr(source, ' ') - 1) ELSE source END AS kind,
                     min(id) AS first_id
              FROM exchanges GROUP BY 1, 2) AS f
        WHERE f.user_id = exchanges.user_id AND f.kind = CASE WHEN instr(exchanges.source, ' ') > 0
              THEN substr(exchanges.source, 1, instr(exchanges.source, ' ') - 1)
              ELSE exchanges.source END;
    CREATE INDEX ix_exchanges_conversation ON exchanges(user_id, conversation_id, ts);
    CREATE TRIGGER exchanges_fts_update AFTER UPDATE OF user_text, assistant_text ON exchanges
    BEGIN
        INSERT INTO exchanges_fts(exchanges_fts, rowid, user_text, assistant_text)
        VALUES ('delete', old.id, old.user_text, old.assistant_text);
        INSERT INTO exchanges_fts(rowid, user_text, assistant_text)
        VALUES (new.id, new.user_text, new.assistant_text);
    END;
    """,
    # 11: where an imported fact came from (issue 34): "imported from Claude memory", shown
    # with the fact; '' for facts the analysis made.
    """
    ALTER TABLE facts ADD COLUMN origin TEXT NOT NULL DEFAULT '';
    """,
    # 12: who wrote an exchange's answer (issue 44): 'model' (a configured chat model),
    # 'embedded' (the small offline model), 'app' (an answer the app built), 'unknown' (a chat
    # answer stored before this, without a trace), '' (imported or given by the caller). Only
    # 'model' and '' answers may become assistant facts (memory/provenance.py). The rows
    # stored before are read from their answer's trace.
    """
    ALTER TABLE exchanges ADD COLUMN answered_by TEXT NOT NULL DEFAULT '';
    UPDATE exchanges SET answered_by = CASE
            WHEN t.how IS NOT NULL AND t.how NOT IN ('model', 'retry') THEN 'app'
            WHEN t.model IS NULL THEN 'unknown'
            WHEN t.model LIKE '%(embedded)%' THEN 'embedded'
            ELSE 'model' END
        FROM (SELECT exchange_id, json_extract(trace, '$.answer_source') AS how,
                     json_extract(trace, '$.model') AS model FROM traces) AS t
        WHERE t.exchange_id = exchanges.id;
    UPDATE exchanges SET answered_by = 'unknown' WHERE source = 'chat' AND answered_by = '';
    """,
    # 13: each exchange's number among its user's (issue 48): the web's URLs and labels say
    # "page 3" for a user's third exchange, not the global id that told how many exchanges of
    # others came before. Given on insert (every path: a chat turn, an import, a version
    # written back without one); the rows stored before are numbered in id order.
    """
    ALTER TABLE exchanges ADD COLUMN number INTEGER;
    UPDATE exchanges SET number = r.n
        FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY id) AS n
              FROM exchanges) AS r
        WHERE r.id = exchanges.id;
    CREATE INDEX ix_exchanges_number ON exchanges(user_id, number);
    CREATE TRIGGER exchanges_number AFTER INSERT ON exchanges WHEN new.number IS NULL
    BEGIN
        UPDATE exchanges SET number = (SELECT coalesce(max(number), 0) + 1 FROM exchanges
                                       WHERE user_id = new.user_id)
            WHERE id = new.id;
    END;
    """,
)
