"""A list sentence's items, each said back on its own: "What's my cat called?" is answered "I
have a cat called Kiki", not with the dog listed beside it."""

from __future__ import annotations

import re

# a list of things joined by "and" or a comma, each opening with a determiner: "I have a dog
# called Zuri and a cat called Kiki"
_CONJUNCT = re.compile(r"\s*(?:,\s*(?:and|plus)(?:\s+also)?|\b(?:and|plus)(?:\s+also)?|,)\s+"
                       r"(?=(?:a|an|the|my|our|two|three)\b)", re.IGNORECASE)
_PRONOUN = re.compile(r"(?:i|we|they|he|she)\s+\w+", re.IGNORECASE)
# "two" opens an item ("two cats"), not a time ("rescued him two years ago")
_ARTICLE = re.compile(r"\b(?:a|an|two|three)\b(?!\s+(?:years?|months?|weeks?|days?|hours?|"
                      r"minutes?|times?)\b)", re.IGNORECASE)
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


# a cut before a clause with a subject of its own other than the user: a name or noun with
# "is"/"has"/"was" ("…, and Rui has an old dog", "moose is a golden retriever and pickles is
# 14"), or, after "and", "but" or ";", a time or place opening the user's next clause ("…, and
# on Fridays I go bowling"; "I got the job, from next month I am shift manager" is one news)
_OTHER_SUBJECT = re.compile(
    r"\s*(?:,?\s+and|,?\s+but|;|,)\s+(?=(?!(?:he|she|it|they|that|this|there|which|who|what|"
    r"i|we|you|then|now|so|also|still|just)\b)[^\W\d_][\w'-]*(?:['’]s)?\s+(?:is|has|was)\b)"
    r"|\s*(?:,?\s+and|,?\s+but|;)\s+(?=(?:on|in|at|every|from|since|then|now|later|after|"
    r"before)\b[^,.;]{0,25}?,?\s+(?:i|we)\b)", re.IGNORECASE)
# a part that says "her", "he", "they"… says whose only with the part before it ("My daughter
# Teresa is an accountant, and Luca is her son")
_REFERS_BACK = re.compile(r"\b(?:he|she|they|him|her|his|hers|them|their|he's|she's|they're)\b",
                          re.IGNORECASE)


def other_subject_parts(clause: str) -> list[str]:
    """A clause's parts that each say something of their own subject ("We have a cat, Feijoada,
    and Rui has an old dog, a collie" -> the cat, the dog); [] where it has one subject."""
    parts: list[str] = []
    for part in (p.strip(" ,;") for p in _OTHER_SUBJECT.split(clause)):
        if parts and _REFERS_BACK.search(part):
            parts[-1] = clause[clause.index(parts[-1]):clause.index(part) + len(part)]
        elif part:
            parts.append(part)
    return parts if len(parts) > 1 else []
