"""Nearest-neighbour search inside PostgreSQL with pgvector (an HNSW index per dimension)."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from .postgres import PgConnection, PostgresStore


class PgVectorIndex:
    """The VectorIndex of the shared store: every process searches the same database rows."""

    def __init__(self, store: PostgresStore, ef_search: int = 100) -> None:
        self.store = store
        self.ef_search = ef_search
        self._indexed: set[int] = set()
        self._lock = threading.Lock()

    def _ensure_index(self, dim: int) -> None:
        """An HNSW index over vectors of this dimension (made once per database)."""
        if dim in self._indexed:
            return
        with self._lock:
            name = f"ix_vectors_hnsw_{dim}"
            conn = self.store.connect()
            exists = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = ?",
                                  (name,)).fetchone()
            if not exists:
                with self.store.transaction() as tx:
                    tx.execute(f"CREATE INDEX IF NOT EXISTS {name} ON vectors USING hnsw"
                               f" ((vec::vector({dim})) vector_ip_ops)")
            self._indexed.add(dim)

    def search(
        self, user_id: str, kind: str, query: np.ndarray, k: int,
        among: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """(item id, inner product) pairs, best first, optionally among some ids only."""
        if k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = int(q.shape[0])
        conn = self.store.connect()
        if among is not None:
            ids = [int(i) for i in among]
            if not ids:
                return []
            rows = conn.execute(
                f"SELECT item_id, (vec::vector({dim}) <#> ?::vector({dim})) * -1 FROM vectors"
                f" WHERE user_id = ? AND kind = ? AND item_id = ANY(?)"
                f" ORDER BY 2 DESC LIMIT ?", (q, user_id, kind, ids, k)).fetchall()
            return [(int(r[0]), float(r[1])) for r in rows]
        rows = conn.execute(*self._nearest(conn, user_id, kind, q, k)).fetchall()
        hits = [(int(r[0]), float(r[1])) for r in rows]
        return sorted(hits, key=lambda h: -h[1])  # relaxed order: re-sort the few hits

    def search_each(self, user_id: str, query: np.ndarray, wanted: Mapping[str, int],
                    ) -> dict[str, list[tuple[int, float]]]:
        """`search` of several kinds with one query, in one statement: a retrieval's pages,
        segments and facts cost one round trip, not three (each part its own index scan)."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        asked = [(kind, k) for kind, k in wanted.items() if k > 0]
        out: dict[str, list[tuple[int, float]]] = {kind: [] for kind in wanted}
        if not asked:
            return out
        conn = self.store.connect()
        parts: list[str] = []
        params: list[object] = []
        # the search width is the session's, one for every part: the widest part's (each part
        # searches at least as wide as it would alone)
        widest = max(k for _, k in asked)
        for i, (kind, k) in enumerate(asked):
            sql, part_params = self._nearest(conn, user_id, kind, q, k, widest)
            parts.append(f"SELECT {i} AS part, hits.* FROM ({sql}) AS hits")
            params += part_params
        for part, item, score in conn.execute(" UNION ALL ".join(parts), params).fetchall():
            out[asked[part][0]].append((int(item), float(score)))
        return {kind: sorted(hits, key=lambda h: -h[1]) for kind, hits in out.items()}

    def _nearest(self, conn: PgConnection, user_id: str, kind: str, q: np.ndarray,
                 k: int, width: int | None = None) -> tuple[str, tuple[object, ...]]:
        """The k-nearest query of a namespace (HNSW index made, search settings applied for
        `width` results, k when not given)."""
        dim = int(q.shape[0])
        self._ensure_index(dim)
        ef = max(int(self.ef_search), k if width is None else width)
        if not conn.in_transaction and getattr(conn, "hnsw_ef_search", None) != ef:
            # session settings, made once per connection (not inside a transaction, which
            # could roll them back): one round trip fewer per search
            conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false),"
                         " set_config('hnsw.ef_search', ?, false)", (str(ef),))
            conn.hnsw_ef_search = ef  # type: ignore[attr-defined]
        return (f"SELECT item_id, (vec::vector({dim}) <#> ?::vector({dim})) * -1 AS score"
                f" FROM vectors WHERE user_id = ? AND kind = ?"
                f" ORDER BY vec::vector({dim}) <#> ?::vector({dim}) LIMIT ?",
                (q, user_id, kind, q, k))

    def uses_hnsw(self, user_id: str, kind: str, query: np.ndarray, k: int) -> bool:
        """True when PostgreSQL's plan for this search scans the HNSW index (EXPLAIN)."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        conn = self.store.connect()
        sql, params = self._nearest(conn, user_id, kind, q, k)
        plan = "\n".join(str(r[0]) for r in conn.execute("EXPLAIN " + sql, params).fetchall())
        return f"ix_vectors_hnsw_{int(q.shape[0])}" in plan

    def vectors_of(self, user_id: str, kind: str, item_ids: Sequence[int]) -> dict[int, np.ndarray]:
        """Stored vectors of some items of this user."""
        rows = self.store.connect().execute(
            "SELECT item_id, vec FROM vectors WHERE user_id = ? AND kind = ? AND item_id = ANY(?)",
            (user_id, kind, [int(i) for i in item_ids])).fetchall()
        return {int(r[0]): self.store.decode_vector(r[1]) for r in rows}

    def size(self, user_id: str, kind: str) -> int:
        """Vectors in the namespace."""
        return int(self.store.scalar("SELECT count(*) FROM vectors WHERE user_id = ? AND kind = ?",
                                     (user_id, kind)) or 0)

    def forget(self, user_id: str) -> None:
        """Nothing is cached per user: the database is the index."""
