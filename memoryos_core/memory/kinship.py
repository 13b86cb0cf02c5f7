"""The words of family and partner relations, by what each one covers.

"What's my sibling's job?" is answered by "My brother Kenta is a QA tester", "my older
grandchild" by "my grandson Tatenda", "my other half" or "my bf" by "my husband" or "my
boyfriend": a question names a relation in another word than it was told, often a wider one
("sibling", "kid", "partner") or a casual one ("mum", "bro", "hubby"). MiniLM's word vectors
place "sibling" nearer "cousin" (0.65) than "brother" (0.53), and "partner" as near
"colleague" (0.58) as "husband" (0.60); literal matching (`slot.met`) sees no tie at all.
The table is the language's kinship terms, not a list fitted to questions: a word covers
itself, its other spellings and informal forms, and every narrower relation.
"""

from __future__ import annotations

import functools

from ..text import stem

# each name with the words of the same relation (spellings, informal forms)
_GROUPS = (
    "mother mum mom mam mama mamma mommy mummy",
    "father dad daddy papa",
    "brother bro",
    "sister sis",
    "husband hubby",
    "wife wifey missus missis",
    "boyfriend bf",
    "girlfriend gf",
    "fiance fiancé fiancee fiancée",
    "grandmother grandma granny gran nan nana nanna nonna oma abuela",
    "grandfather grandpa granddad grandad nonno opa abuelo",
    "child kid",
    "son lad",
    "grandchild grandkid",
    "parent parents",
    "partner half",  # "my other half"
)
_SAME: tuple[frozenset[str], ...] = tuple(frozenset(group.split()) for group in _GROUPS)
_FIRST = {frozenset(group.split()): group.split()[0] for group in _GROUPS}
# each wider relation with the narrower ones it covers
_WIDER: dict[str, tuple[str, ...]] = {
    "sibling": ("brother", "sister", "twin"),
    "parent": ("mother", "father"),
    "child": ("son", "daughter", "boy", "girl", "baby", "youngest", "eldest", "oldest"),
    "grandchild": ("grandson", "granddaughter"),
    "grandparent": ("grandmother", "grandfather"),
    "partner": ("husband", "wife", "boyfriend", "girlfriend", "fiance", "spouse"),
    "spouse": ("husband", "wife"),
}


@functools.lru_cache(maxsize=2048)
def kin_words(word: str) -> tuple[str, ...]:
    """Every word naming the relation `word` names or a narrower one ("sibling" -> brother,
    bro, sister, sis, twin), itself among them; empty for a word that names no relation."""
    names = _same(_singular(word.lower()))
    out: set[str] = set(names)
    for name in names:
        for narrower in _WIDER.get(name, ()):
            out |= _same(narrower)
    return tuple(sorted(out))


@functools.lru_cache(maxsize=2048)
def covered(word: str) -> frozenset[str]:
    """The stems of `kin_words`, to meet the stems of a sentence's words."""
    return frozenset(stem(w) for w in kin_words(word))


_KNOWN = frozenset().union(*_SAME, _WIDER, *_WIDER.values())
_PLURALS = {"children": "child", "grandchildren": "grandchild", "wives": "wife"}


_BY_STEM = {stem(w): w for w in sorted(_KNOWN)}  # a stem given for its word ("sibl")


def _singular(word: str) -> str:
    word = word.replace("’", "'").removesuffix("'s").removesuffix("'")
    if word in _PLURALS:
        return _PLURALS[word]
    if word not in _KNOWN and word.endswith("s") and word[:-1] in _KNOWN:
        return word[:-1]
    return word if word in _KNOWN else _BY_STEM.get(word, word)


def _same(word: str) -> set[str]:
    for group in _SAME:
        if word in group:
            return set(group)
    return {word} if word in _KNOWN else set()


def relation(word: str) -> str | None:
    """The one name of the relation a word names ("mum", "mom", "mother's" -> mother;
    "sisters" -> sister), or None for a word that names no relation."""
    names = _same(_singular(word.lower()))
    if not names:
        return None
    return _FIRST.get(frozenset(names), next(iter(names)))
