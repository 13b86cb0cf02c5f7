"""A list sentence's items, each said back on its own: "What's my cat called?" is answered "I
have a cat called Kiki", not with the dog listed beside it."""

from __future__ import annotations

import re

# a list of things joined by "and" or a comma, each opening with a determiner: "I have a dog
# called Zuri and a cat called Kiki"
_CONJUNCT = re.compile(r"\s*(?:,\s*(?:and|plus)(?:\s+also)?|\b(?:and|plus)(?:\s+also)?|,)\s+"
                       r"(?=(?:a|an|the|my|our|two|three)\b)", re.IGNORECASE)
_PRONOUN = re.compile(r"(?:i|we|they|he|she)\s+\w+", re.IGNORECASE)
_ARTICLE = re.compile(r"\b(?:a|an|two|three)\b", re.IGNORECASE)
_OWNER = re.compile(r"(?:the|my|our)\b", re.IGNORECASE)


def list_parts(sentence: str) -> list[str]:
    """A list sentence's items, each with the sentence's opening ("We have a German shepherd,
    Rocky, and a tortoise called Shelly" -> "We have a German shepherd, Rocky." and "We have a
    tortoise called Shelly."); [] for a sentence that lists nothing."""
    parts = [p.strip(" ,.") for p in _CONJUNCT.split(sentence)]
    if len(parts) < 2:
        return []
    # the opening before the first item ("And in the house we have"): up to the first
    # item's article, or a pronoun and its verb where it has none ("I have very many books
    # and also two animals, a dog…")
    articles = list(_ARTICLE.finditer(parts[0]))
    lead = parts[0][:articles[-1].start()].strip() if articles else \
        " ".join(parts[0].split()[:2]) if _PRONOUN.match(parts[0]) else ""
    if not lead:
        return []
    # an item with its own owner ("and my daughter Ulrike is a judge") is a clause of its own
    return [parts[0] + "."] + [(part if _OWNER.match(part) and len(part.split()) >= 3
                                else f"{lead} {part}") + "." for part in parts[1:] if part]
