"""The user's control over their own memory, as MemoryEngine methods: search, forget,
correct, and erase everything of a user."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..context import Context
from ..errors import NotFound, check_user
from ..storage.tables import exchange_numbers
from . import corrections, forgetting, memory_search
from .corrections import FactDeleted, FactEdited, ProfileDeleted, ProfileEdited
from .forgetting import Erased, Forgotten
from .memory_search import SearchResult

MAX_ID = 2**63 - 1


def _id(value: Any, what: str) -> int:
    """A record id SQLite can hold, else NotFound (as the engine's other lookups)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise NotFound(f"{what} {str(value)[:40]} does not exist")
    return value


class UserControl:
    """Search, forget, correct and erase (mixed into MemoryEngine)."""

    ctx: Context

    if TYPE_CHECKING:
        def _user_lock(self, user_id: str) -> threading.Lock: ...

    @staticmethod
    def _check_user(user_id: Any) -> str:
        return check_user(user_id)

    def search(self, user_id: str, query: str, limit: int = 20) -> SearchResult:
        """Pages (every tier), facts and profile dimensions matching a query by words and by
        meaning, each with its dates."""
        return memory_search.search(self.ctx, self._check_user(user_id), query, limit)

    def forget(self, user_id: str, exchange_id: int, everywhere: bool = False) -> Forgotten:
        """Take one exchange out of every tier, index, chain, fact and trace.

        Without `everywhere` a version is saved first; with it the exchange also leaves every
        version, and no byte of its text stays in the store's files (SQLite).
        """
        with self._user_lock(self._check_user(user_id)):
            return forgetting.forget(self.ctx, user_id, _id(exchange_id, "page"),
                                     bool(everywhere))

    def erase_user(self, user_id: str) -> Erased:
        """Delete every row and version of the user and scrub the store's files."""
        with self._user_lock(self._check_user(user_id)):
            return forgetting.erase_user(self.ctx, user_id)

    def edit_fact(self, user_id: str, fact_id: int, text: str) -> FactEdited:
        """Correct a fact's text (saved as the user's; a version first)."""
        with self._user_lock(self._check_user(user_id)):
            return corrections.edit_fact(self.ctx, user_id, _id(fact_id, "fact"), text)

    def delete_fact(self, user_id: str, fact_id: int) -> FactDeleted:
        """Delete a fact (a version first)."""
        with self._user_lock(self._check_user(user_id)):
            return corrections.delete_fact(self.ctx, user_id, _id(fact_id, "fact"))

    def edit_profile(self, user_id: str, dimension: str, level: str,
                     reason: str = "") -> ProfileEdited:
        """Set a profile dimension's level and reason (saved as the user's; a version first)."""
        with self._user_lock(self._check_user(user_id)):
            return corrections.edit_profile(self.ctx, user_id, dimension, level, reason)

    def delete_profile(self, user_id: str, dimension: str) -> ProfileDeleted:
        """Delete a profile dimension (a version first)."""
        with self._user_lock(self._check_user(user_id)):
            return corrections.delete_profile(self.ctx, user_id, dimension)

    def exchange_numbers(self, user_id: str, exchange_ids: list[int]) -> dict[int, int]:
        """Each exchange's number among the user's (1 for their first): what the web shows and
        links by, so no URL tells how many exchanges other users have."""
        ids = [i for i in dict.fromkeys(exchange_ids) if isinstance(i, int) and 0 < i <= MAX_ID]
        return exchange_numbers.numbers_of(self.ctx.store, self._check_user(user_id), ids)

    def exchange_of_number(self, user_id: str, number: int) -> int:
        """The id of the user's exchange with this number (NotFound when none)."""
        found = exchange_numbers.id_of_number(self.ctx.store, self._check_user(user_id),
                                          _id(number, "page"))
        if found is None:
            raise NotFound(f"page {number} does not exist")
        return found
