"""The PostgreSQL counts kept by the writes: statement triggers keep each user's exchange count
per tier and document frequency per search term in the writing transaction (migrations 8 and 9
of `pg_schema.PG_MIGRATIONS`, which applies them in its order)."""

from __future__ import annotations

# 8: each user's exchange count per tier, kept by the writes: statement triggers (bulk
# COPY too) update it in the transaction that inserts, moves or deletes exchanges, so a
# retrieval reads one row instead of counting the user's pages (O(pages), twice a query).
EXCHANGE_COUNTS = """
    CREATE TABLE exchange_counts (
        user_id TEXT NOT NULL,
        tier TEXT NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (user_id, tier)
    );
    INSERT INTO exchange_counts (user_id, tier, n)
        SELECT user_id, tier, count(*) FROM exchanges GROUP BY user_id, tier;
    CREATE FUNCTION memoryos_count_exchanges() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        -- rows of several users are counted in (user, tier) order: no two writers deadlock
        IF TG_OP = 'INSERT' THEN
            INSERT INTO exchange_counts AS c (user_id, tier, n)
                SELECT user_id, tier, count(*) FROM added GROUP BY user_id, tier ORDER BY 1, 2
                ON CONFLICT (user_id, tier) DO UPDATE SET n = c.n + excluded.n;
        ELSIF TG_OP = 'DELETE' THEN
            INSERT INTO exchange_counts AS c (user_id, tier, n)
                SELECT user_id, tier, -count(*) FROM removed GROUP BY user_id, tier ORDER BY 1, 2
                ON CONFLICT (user_id, tier) DO UPDATE SET n = c.n + excluded.n;
        ELSE  -- an update: only rows that changed tier (or user) move a count
            INSERT INTO exchange_counts AS c (user_id, tier, n)
                SELECT user_id, tier, sum(d) FROM (
                    SELECT user_id, tier, -1 AS d FROM removed
                    UNION ALL SELECT user_id, tier, 1 FROM added) AS moved
                GROUP BY user_id, tier HAVING sum(d) <> 0 ORDER BY 1, 2
                ON CONFLICT (user_id, tier) DO UPDATE SET n = c.n + excluded.n;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER exchanges_count_insert AFTER INSERT ON exchanges
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_exchanges();
    CREATE TRIGGER exchanges_count_delete AFTER DELETE ON exchanges
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_exchanges();
    CREATE TRIGGER exchanges_count_update AFTER UPDATE ON exchanges
        REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_exchanges();
    """

# 9: each user's document frequency per search term (lexeme of `words`) over their mid-term
# pages, kept by statement triggers in the writing transaction (bulk COPY and the cascades
# of a segment delete too): the keyword filter and ranking read one row per query word
# instead of counting up to 5% of the user's pages per word through the GIN index. A term
# whose count reaches 0 is deleted: no word of a forgotten page stays behind.
TERM_COUNTS = """
    CREATE TABLE term_counts (
        user_id TEXT NOT NULL,
        term TEXT NOT NULL,
        n BIGINT NOT NULL,
        PRIMARY KEY (user_id, term)
    );
    INSERT INTO term_counts (user_id, term, n)
        SELECT user_id, term, count(*) FROM exchanges, unnest(tsvector_to_array(words)) AS term
        WHERE tier = 'mid' GROUP BY user_id, term;
    CREATE FUNCTION memoryos_count_terms() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        gone_users TEXT[];
        gone_terms TEXT[];
    BEGIN
        -- terms of several users are counted in (user, term) order: no two writers deadlock
        IF TG_OP = 'INSERT' THEN
            INSERT INTO term_counts AS c (user_id, term, n)
                SELECT user_id, term, count(*) FROM added, unnest(tsvector_to_array(words))
                AS term WHERE tier = 'mid' GROUP BY 1, 2 ORDER BY 1, 2
                ON CONFLICT (user_id, term) DO UPDATE SET n = c.n + excluded.n;
            RETURN NULL;
        END IF;
        IF TG_OP = 'DELETE' THEN
            WITH counted AS (
                INSERT INTO term_counts AS c (user_id, term, n)
                    SELECT user_id, term, -count(*) FROM removed,
                    unnest(tsvector_to_array(words)) AS term WHERE tier = 'mid'
                    GROUP BY 1, 2 ORDER BY 1, 2
                    ON CONFLICT (user_id, term) DO UPDATE SET n = c.n + excluded.n
                    RETURNING c.user_id, c.term, c.n)
            SELECT array_agg(user_id), array_agg(term) INTO gone_users, gone_terms
                FROM counted WHERE n = 0;
        ELSE  -- an update: only rows whose user, tier or words changed (ids never change)
            WITH changed AS (
                SELECT o.user_id AS old_user, o.tier AS old_tier, o.words AS old_words,
                       a.user_id AS new_user, a.tier AS new_tier, a.words AS new_words
                FROM removed o JOIN added a ON a.id = o.id
                WHERE (o.user_id, o.tier, o.words) IS DISTINCT FROM (a.user_id, a.tier, a.words)
            ), counted AS (
                INSERT INTO term_counts AS c (user_id, term, n)
                    SELECT user_id, term, sum(d) FROM (
                        SELECT old_user AS user_id, term, -1 AS d FROM changed,
                            unnest(tsvector_to_array(old_words)) AS term WHERE old_tier = 'mid'
                        UNION ALL
                        SELECT new_user, term, 1 FROM changed,
                            unnest(tsvector_to_array(new_words)) AS term WHERE new_tier = 'mid'
                    ) AS moved GROUP BY 1, 2 HAVING sum(d) <> 0 ORDER BY 1, 2
                    ON CONFLICT (user_id, term) DO UPDATE SET n = c.n + excluded.n
                    RETURNING c.user_id, c.term, c.n)
            SELECT array_agg(user_id), array_agg(term) INTO gone_users, gone_terms
                FROM counted WHERE n = 0;
        END IF;
        IF gone_users IS NOT NULL THEN
            DELETE FROM term_counts c USING unnest(gone_users, gone_terms) AS g(user_id, term)
                WHERE c.user_id = g.user_id AND c.term = g.term AND c.n = 0;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER exchanges_terms_insert AFTER INSERT ON exchanges
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_terms();
    CREATE TRIGGER exchanges_terms_delete AFTER DELETE ON exchanges
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_terms();
    CREATE TRIGGER exchanges_terms_update AFTER UPDATE ON exchanges
        REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT
        EXECUTE FUNCTION memoryos_count_terms();
    """
