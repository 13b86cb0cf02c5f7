"""Whether a sentence asks, and the statements told in passing around a question.

"whats my cats name" asks by its opening word without a "?"; "we have two cats, mochi and poi
🐱 any tips for keeping them off the counter?" tells of the cats before it asks, and "can u help
me plan a party for my little bro, hes turning 10" tells the brother's age after it asks: a fact
told in passing with a request is a fact told.
"""

from __future__ import annotations

import re

from ..asides import EMOJI_CHARS, INTERJECTION
from ..text import WH_OPENING, WH_WORDS, sentences

# a sentence opening with a question word asks, even without its "?" ("whats my cats name")
_QUESTION_OPENING = re.compile(rf"^\W*(?:{WH_WORDS}|do|does|did|can|could|would|will|is|are|am|"
                               r"was|were|should|shall|have|has)\b", re.IGNORECASE)


def asks(sentence: str) -> bool:
    """True for a sentence that asks rather than tells (syntax: its opening word)."""
    plain = INTERJECTION.sub("", sentence)
    # "n who looks after the dog when im away": a question typed as on a phone, after "and"
    return _QUESTION_OPENING.match(plain) is not None or WH_OPENING.match(plain) is not None


# where a statement ends and the question after it begins inside one sentence: an emoji, a
# dash or a colon, or a comma before a question word ("we have a dog, Chispa, how do we…?")
_BREAK = re.compile(rf"\s*(?:[{EMOJI_CHARS}]+\ufe0f?|\s[-\u2013\u2014]\s|:)\s*"
                    r"|,\s+(?=(?:what|whats|what's|where|when|who|which|why|how|can|could|"
                    r"would|should|do|does|did|is|are|any)\b)", re.IGNORECASE)


def before_question(sentence: str) -> list[str]:
    """The statements a sentence makes before the question it ends with ("we have two cats,
    mochi and poi 🐱 any tips for keeping them off the counter?" -> "we have two cats, mochi
    and poi"): a fact told in passing with a request is a fact told."""
    pieces = [p.strip(" ,") for p in _BREAK.split(sentence)]
    out = []
    for piece in pieces:
        if "?" in piece or asks(piece):
            break
        out.append(piece)
    return [p for p in out if len(p.split()) >= 3] if len(pieces) > 1 else []


def after_request(sentence: str) -> list[str]:
    """The statements a sentence that asks makes after its request, each after a comma ("can
    you recommend a book for my daughter, she is 12 and loves horses?" -> "she is 12 and loves
    horses"); the router decides whether each is told."""
    pieces = [p.strip(" ,?") for p in re.split(r",\s+|\s[-\u2013\u2014]\s", sentence)]
    if len(pieces) < 2 or not asks(pieces[0]):
        return []
    return [p for p in pieces[1:] if len(p.split()) >= 3 and not asks(p)]


_WHICH_OF = re.compile(r"^\W*(?:which|wich)\s+(?:one\s+)?of\s+(?:my|our|the)\s+[\w'\u2019-]+"
                       r"(?:\s+(?:do|did)\s+(?:i|we)\s+say)?\s+(?=\w)", re.IGNORECASE)


def weighed(message: str) -> str:
    """The part of a message a memory question is weighed by: its sentences that ask, less
    what goes around them ("Sorry, my head is all over the place. What did I say my husband
    does?" asks of the husband, not of a head), a question on a group read as who
    (`as_who`)."""
    said = sentences(message)
    asking = [s for s in said if "?" in s or asks(s)]
    return as_who(" ".join(asking) if asking and len(asking) < len(said) else message)


def as_who(question: str) -> str:
    """"Which of my kids has the footy final?" as "Who has the footy final?": the answer is
    one of them by name ("jaxon's got his first grand final"), and need not name the group."""
    m = _WHICH_OF.match(question)
    return f"Who {question[m.end():]}" if m else question
