"""The ranked pages put in order for the block: each best page followed by the page that
continues its dialogue, and pages repeating a better one's words left out (kept in the trace)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..context import Context
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import pages as pages_db
from ..text import word_key
from .memory_block import page_tokens
from .types import PageHit

CONTINUED_PAGES = 3  # the best pages that bring the page continuing their dialogue
CONTINUATION_GAP = 3600.0  # an unchained page continues another within this many seconds
# A continuation is brought only when both lines are short (a chat between people, one turn a
# side): in a user-assistant history each page already holds a whole exchange of hundreds of
# tokens, and its continuation took a page's room (LongMemEval dev 0.751 -> 0.813 recall at
# equal tokens with this limit; LoCoMo dev 0.824 -> 0.823; 60 or 120 cost LoCoMo 1-4 points).
CONTINUATION_MAX_TOKENS = 200

def with_continuations(
    ctx: Context, user_id: str, pages: list[PageHit],
    page_rows: dict[int, dict[str, Any]], columns: str, top: int = CONTINUED_PAGES,
) -> list[PageHit]:
    """Each of the `top` best pages is followed by the page that continues its dialogue.

    The continuation is the page's chain link (next_id) or, for pending pages (not chained
    yet), the next mid-term page of the same sitting (within CONTINUATION_GAP seconds). An
    answer often sits in the exchange after the one that matches the question (LoCoMo dev set:
    +2 points of recall at equal tokens over the same ranking without it). Only pages whose
    lines are both short bring one (CONTINUATION_MAX_TOKENS).
    """
    # a page that is a whole exchange already brings none
    short_pages = [page_rows[p["id"]] for p in pages[:top]
                   if page_tokens(page_rows[p["id"]]) <= CONTINUATION_MAX_TOKENS]
    following = pages_db.next_mid_term_pages(  # pending pages: not chained yet
        ctx.store, user_id, [(r["ts"], r["id"], r["ts"] + CONTINUATION_GAP) for r in short_pages
                             if r["next_id"] is None and r["segment_id"] is None])
    wanted: dict[int, int] = {}
    for row in short_pages:
        nxt = row["next_id"] if row["next_id"] is not None else following.get(row["id"])
        if nxt is not None and nxt not in wanted.values():
            wanted[row["id"]] = int(nxt)
    missing = [i for i in wanted.values() if i not in page_rows]
    page_rows.update(exchanges_db.exchanges_by_id(ctx.store, user_id, missing, columns))
    wanted = {h: n for h, n in wanted.items()
              if n in page_rows and page_tokens(page_rows[n]) <= CONTINUATION_MAX_TOKENS}
    by_id = {p["id"]: p for p in pages}
    out: list[PageHit] = []
    placed: set[int] = set()
    for p in pages:
        if p["id"] in placed:
            continue
        out.append(p)
        placed.add(p["id"])
        nxt = wanted.get(p["id"])
        if nxt is None or nxt in placed or nxt not in page_rows \
                or page_rows[nxt]["tier"] != "mid":
            continue
        entry = by_id.get(nxt) or PageHit(id=nxt, fused=0.0)
        entry["continues"] = p["id"]
        out.append(entry)
        placed.add(nxt)
    return out


def without_repeats(pages: list[PageHit],
                     page_rows: dict[int, dict[str, Any]]) -> list[PageHit]:
    """Pages whose words repeat a better-ranked page's words are left out of the block.

    The same exchange said twice (a greeting, a re-sent question, one chat imported from two
    exports) would spend the budget on what the block already holds; the trace keeps them,
    marked as repeats.
    """
    texts = [f"{page_rows[p['id']]['user_text']} | {page_rows[p['id']]['assistant_text']}"
             for p in pages]
    # only pages sharing their letters and digits can share their words: the others' keys
    # (a regex over each page, most of this) are never compared
    letters = [_letters_and_digits(t) for t in texts]
    shared = Counter(letters)
    seen: dict[str, int] = {}
    out: list[PageHit] = []
    for p, text, own in zip(pages, texts, letters, strict=True):
        if shared[own] == 1:
            out.append(p)
            continue
        key = word_key(text)
        if key in seen:
            p["repeats"] = seen[key]
            continue
        seen[key] = p["id"]
        out.append(p)
    return out + [p for p in pages if "repeats" in p]


_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())


def _letters_and_digits(text: str) -> bytes:
    """A text's `word_key` less its spaces and apostrophes: equal keys give equal values.

    An ASCII text's words are its runs of letters and digits (lower-cased), so its value is
    its letters and digits, lower-cased; any other text's is taken from its key.
    """
    if text.isascii():
        return text.lower().encode("ascii").translate(None, _NOT_ALNUM)
    return word_key(text).replace(" ", "").replace("'", "").encode()
