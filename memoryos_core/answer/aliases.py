"""The names a user gave the people and things a question asks about by relation.

"What's my husband's job?" must find "Chidi is a pilot with Air Canada": the question says
"husband", the page says "Chidi", and neither vector nor keyword search joins the two. Where the
user named the husband somewhere ("My husband Chidi loves jazz", "Chidi, my husband, ...", "a
dog called Zuri"), that name is searched too, and the slot model takes a sentence naming Chidi
as naming the husband.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ..context import Context
from ..memory import animal_kinds, kinship
from ..storage import search
from ..text import STOP_WORDS, owned

_OWNERS = frozenset({"my", "our"})
MAX_ALIASES = 3  # names searched per question at most
MAX_COMPOSED_WORDS = 4  # words of a composed relation's parts searched at most
MAX_LISTED = 4  # names of a plural's list after the first
# the next names of a list, each after "and" or a comma and what the one before has beside
# it ("who's 14"), within one clause
_LISTED = re.compile(r"(?:\s+who(?:'s|’s| is)\s+\w+|\s+\(\w+\))?(?:,\s*(?:and\s+)?|\s+and\s+)"
                     r"([A-Z][\w'-]+)")


_THE_NOUN = re.compile(r"\bthe\s+([^\W\d_]+)", re.IGNORECASE)


def the_own(question: str) -> list[str]:
    """The relations and pets a question names with "the", as people say of their own ("What
    does the wife do?", "the dog's name")."""
    return [m.group(1).lower() for m in _THE_NOUN.finditer(question)
            if kinship.relation(m.group(1)) or animal_kinds.kind_words(m.group(1))]


def owned_nouns(question: str) -> list[str]:
    """The nouns a question names as the user's own, by "my"/"our" ("my husband's job" ->
    husband, "our dog" -> dog), else by "the" (`the_own`); a person's name with "'s" is no
    relation and gives none."""
    return [noun for noun in owned(question, named=False) if noun.isalpha()] or the_own(question)


def _patterns(nouns: Sequence[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """"husband Chidi", "husband, Chidi", "dog called Zuri", "sister is named Ana", "wife is
    Efua", "wife's name is Efua"; and
    "Chidi, my husband", "Chidi is my husband" (for any of the nouns)."""
    # "whats my brothers name" (no apostrophe) asks of the brother named "my brother Daichi"
    n = "(?:" + "|".join(re.escape(noun[:-1]) + "s?" if noun.endswith("s") and len(noun) > 3
                         else re.escape(noun) for noun in nouns) + ")"
    # "Abena's son, Nana Kwame" and "her husband Conor" name another's son and husband
    after = re.compile(rf"(?<!['’]s )(?<!\bhis )(?<!\bher )(?<!\btheir )"
                       rf"\b{n}(?:'s|’s)?,?\s+(?P<link>is\s+(?:called|named)\s+|called\s+|"
                       r"named\s+|name\s+is\s+|is\s+)?"
                       r"(?P<name>[A-Z][\w'-]+)", re.IGNORECASE)
    # "Chidi, my husband, …" closes its apposition: "Yesterday, my husband cooked" names no one
    before = re.compile(rf"\b(?P<name>[A-Z][\w'-]+)(?:\s+is\s+(?:my|our)\s+{n}\b|,\s+(?:my|our)\s+{n},)",
                        re.IGNORECASE)
    return after, before


def _listed(text: str, at: int) -> list[str]:
    """The names a list goes on with from `at` (`_LISTED`), each right after the one before."""
    out: list[str] = []
    while len(out) < MAX_LISTED and (more := _LISTED.match(text, at)):
        out.append(more.group(1))
        at = more.end()
    return out


def given_names(noun: str | Sequence[str], texts: Iterable[str],
                is_name: Callable[[str], bool] | None = None) -> list[str]:
    """The names the texts give `noun`, or any of several nouns (lower-cased, most often
    given first): a capitalised word in apposition (in a text all in lower case "my husband
    works" names no one), or one typed in lower case that `is_name` takes for a first name
    ("my gf kayla")."""
    nouns = (noun,) if isinstance(noun, str) else tuple(noun)
    after, before = _patterns(nouns)
    counts: dict[str, int] = {}
    for text in texts:
        for pattern in (after, before):
            for found in pattern.finditer(text):
                named = [found.group("name")]
                # a plural names each of a list: "two kids, Imran who's 14 and Nadia who's 9"
                if pattern is after and re.match(r"\w+s\b", found.group(0), re.IGNORECASE):
                    named += _listed(text, found.end())
                # "my wife is Efua", not "my husband is Italian" nor "is pilot": after a
                # bare "is", a capitalised word `is_name` takes for a first name
                bare = pattern is after and (found.group("link") or "").split() == ["is"]
                for name in named:
                    low = name.lower()
                    if (name[0].isupper() and not bare or (name[0].isupper() or not bare)
                            and is_name is not None and is_name(low)) \
                            and low not in STOP_WORDS and low not in nouns and low not in _OWNERS:
                        counts[low] = counts.get(low, 0) + 1
    return sorted(counts, key=lambda n: -counts[n])



def aliases(question: str, texts: Iterable[str], known: Sequence[str]) -> list[str]:
    """The names (not yet among the `known` search words) the texts give the nouns the
    question names as the user's own."""
    nouns = owned_nouns(question)
    said = list(texts)
    found = [n for noun in nouns for n in given_names(noun, said)]
    named = [n for n in dict.fromkeys(found) if n not in known][:MAX_ALIASES]
    # "my son-in-law" is told as "our daughter Aoife…, her husband Conor…": searched by the
    # relatives it is made of too (kinship.ways)
    made = kinship.composed_in(question)
    parts = [w for first, second in kinship.ways(made[0]) for w in (second, first)] if made \
        else []
    return named + [w for w in dict.fromkeys(parts) if w not in known][:MAX_COMPOSED_WORDS]


def alias_hits(ctx: Context, user_id: str, question: str, texts: Iterable[str],
               known: Sequence[str], limit: int, total: int) -> tuple[list[str], list[int]]:
    """(the aliases, the user's pages that name them, best first): the pages already read
    for ranking and the recent exchanges are read for names, so a question naming no one
    the user named costs no query."""
    named = aliases(question, texts, known)
    if not named:
        return [], []
    return named, search.keyword_search(ctx.store, user_id, named, limit, total)
