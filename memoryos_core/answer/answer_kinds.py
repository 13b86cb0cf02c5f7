"""What kind of answer a question's syntax asks for, and whether a sentence holds one.

"How old is Walter?" wants an age (a number, not a year), "When is Hugo's birthday?" a date, "Where…" a place,
"What's my dog called?" a name: a sentence about Walter with none of these does not answer.
Features of the slot model (answer/slot.py), whose weights are fitted on the dev chats.
"""

from __future__ import annotations

import re
from collections.abc import Collection

MONTHS = ("january february march april may june july august september october november"
          " december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday"
          " wednesday thursday friday saturday sunday").split()
_NUMBER_WORDS = ("one two three four five six seven eight nine ten eleven twelve twenty"
                 " thirty forty fifty sixty seventy eighty ninety hundred").split()
# an age is a number of years a person or thing has, not a year ("How old is my mum?" is not
# answered by "my father passed in 2021")
_ASKS = {"age": re.compile(r"\bhow old\b|\bage\b", re.I),
         "number": re.compile(r"\bhow (?:many|much|long|often)\b", re.I),
         "date": re.compile(r"\bwhen\b|\bwhat (?:year|date|day|month)\b|\bbirthday\b", re.I),
         "place": re.compile(r"\bwhere\b|\bwhich (?:city|town|country)\b", re.I)}
# a capitalised word past a sentence's opening: a name or a place
_CAPITAL = r"(?<!^)(?<![.!?] )\b[A-Z][\w'-]+"
_AGE = r"(?<![\d.,:/£$€-])\b\d{1,3}\b(?![.,:/]\d)(?!\s*(?:%|am\b|pm\b))"
HOLDS = {"age": re.compile(_AGE + r"|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b|\b\d0s\b", re.I),
         "number": re.compile(r"\d|\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.I),
         "date": re.compile(r"\d|\b(?:" + "|".join(MONTHS) + r"|ago|last|next|yesterday|"
                            r"tomorrow|week|month|year|summer|winter|spring|autumn)\b", re.I),
         "place": re.compile(_CAPITAL + r"|\b(?:in|at|from|to|near)\s+(?:the\s+)?\w+")}


# a question for a name ("What's my dog called?", "Who is my dentist?") is answered by a
# sentence that holds one: a capitalised word past its opening, or the word after "called"
ASKS_NAME = re.compile(r"\bnames?\b|\bcalled\b|\bwho\b", re.I)
CAPITAL = re.compile(_CAPITAL)
_I = re.compile(r"I(?:['’](?:m|ve|d|ll))?")  # the user, not a name


def cased(sentence: str) -> bool:
    """Whether a sentence was typed with capitals beyond "I" (else a name may be lower case)."""
    return any(not _I.fullmatch(w) for w in re.findall(r"\b[A-Z][\w'’-]*", sentence))


def holds_name(sentence: str, known: Collection[str] = ()) -> bool:
    """Whether a sentence holds a name: a capitalised word past its opening ("I" aside), or
    any word after "called"/"named" ("a dog called rex"); none of the `known` (lower-cased:
    the question's own words, so "Dermot's vet" is not named by "There's also Dermot")."""
    return any(not _I.fullmatch(m.group(0)) and m.group(0).lower() not in known
               for m in CAPITAL.finditer(sentence)) or any(
        m.group(1).lower() not in known
        for m in re.finditer(r"\b(?:called|named)\s+(\w+)", sentence, re.I))


def asked_kind(question: str) -> str | None:
    """The kind of answer a question's syntax asks for: age, number, date, place or None."""
    return next((k for k, pattern in _ASKS.items() if pattern.search(question)), None)
