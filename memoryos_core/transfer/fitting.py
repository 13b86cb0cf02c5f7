"""Texts over the length limit: cut with a visible note, never refused (every import format)."""

from __future__ import annotations

CUT_NOTE = " [... cut: {:,} more characters not stored]"
CUT_AT_SPACE = 200  # a cut backs up to a space this close, so it does not split a word


def fit_text(text: str, limit: int) -> tuple[str, int]:
    """A text over the limit cut to fit it with a visible note; (text, characters left out).

    Cut, not stored whole: the other ways in (chat, add_exchange) keep texts within
    max_text_chars, the embedder reads only a page's first 256 tokens, and the consolidation
    and analysis prompts carry page texts. The note counts toward the limit.
    """
    text = text.strip()
    if len(text) <= limit:
        return text, 0
    keep = limit - len(CUT_NOTE.format(len(text)))
    if keep <= 0:  # a limit too small for the note: the report still lists the cut
        return text[:limit], len(text) - limit
    start = max(0, keep - CUT_AT_SPACE)
    window = text[start : keep + 1]
    space = max(window.rfind(" "), window.rfind("\n"))
    head = text[: start + space if space > 0 else keep].rstrip()
    return head + CUT_NOTE.format(len(text) - len(head)), len(text) - len(head)
