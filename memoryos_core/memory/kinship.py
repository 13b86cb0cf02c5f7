"""The words of family and partner relations, by what each one covers.

"What's my sibling's job?" is answered by "My brother Kenta is a QA tester", "my older
grandchild" by "my grandson Tatenda", "my other half" or "my bf" by "my husband" or "my
boyfriend": a question names a relation in another word than it was told, often a wider one
("sibling", "kid", "partner") or a casual one ("mum", "bro", "hubby"). MiniLM's word vectors
place "sibling" nearer "cousin" (0.65) than "brother" (0.53), and "partner" as near
"colleague" (0.58) as "husband" (0.60); literal matching (`slot.met`) sees no tie at all.
The table is the language's kinship terms, not a list fitted to questions: a word covers
itself, its other spellings and informal forms, and every narrower relation. A relation of a
relation is the one it makes ("my husband's mother" is the mother-in-law; `composed_relations`).
"""

from __future__ import annotations

import functools
import re

from ..text import stem, words

# each name with the words of the same relation (spellings, informal forms)
# (with the kin words of other Englishes: Jamaican "bredda", "pickney"; Scots "bairn";
# Filipino "kuya", "nanay"; South Asian "bhai", "didi", "amma"; words that are often a name
# or another word, "Lola", "ate", "baba", "wean", are left out)
_GROUPS = (
    "mother mum mom mam mama mamma mommy mummy mammy ma mami amma ammi nanay inay",
    "father dad daddy papa pa pops papi tatay itay appa",
    "brother bro bredda breda brudda bruv bhai bhaiya kuya",
    "sister sis sista sistah didi akka",
    "husband hubby",
    "wife wifey missus missis",
    "boyfriend bf",
    "girlfriend gf",
    "fiance fiancé fiancee fiancée",
    "grandmother grandma granny grannie gramma gran nan nana nanna nonna oma abuela nani "
    "dadi ouma babcia bubbe",
    "grandfather grandpa granddad grandad gramps grampa nonno opa abuelo oupa dziadek",
    "child kid kiddo pickney pikney pikni bairn sprog anak",
    "son lad",
    "grandchild grandkid",
    "parent parents",
    "partner half fella",  # "my other half", "her fella Kevin"
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
def covering(word: str) -> frozenset[str]:
    """The stems of the wider relations that cover `word`'s ("daughter" -> child, kid): a
    sentence on "our three kids" is about the asked daughter, though not which one."""
    names = _same(_singular(word.lower()))
    wider = {w for w, narrower in _WIDER.items() if names & set(narrower)}
    said = {x for w in wider for x in _same(w) | {w}} - {"half"}  # "half" only in "other half"
    return frozenset(stem(x) for x in said) | frozenset({"children"} if "child" in wider
                                                        else set())


@functools.lru_cache(maxsize=2048)
def covered(word: str) -> frozenset[str]:
    """The stems of `kin_words`, to meet the stems of a sentence's words."""
    return frozenset(stem(w) for w in kin_words(word))


_KNOWN = frozenset().union(*_SAME, _WIDER, *_WIDER.values())
_PLURALS = {"children": "child", "grandchildren": "grandchild", "wives": "wife"}


_BY_STEM = {stem(w): w for w in sorted(_KNOWN)}  # a stem given for its word ("sibl")


def _base(word: str) -> str:
    """A word without its possessive ending ("mother's", "parents'" -> mother, parents)."""
    return word.replace("’", "'").removesuffix("'s").removesuffix("'")


def _singular(word: str) -> str:
    word = _base(word)
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


# -- relations by composition: "my husband's mother" is "my mother-in-law" -----------------

_SPOUSE = ("husband", "wife", "partner", "spouse", "fiance", "boyfriend", "girlfriend")
_PARENT = ("mother", "father", "parent")
_CHILD = ("son", "daughter", "child")
_SIBLING = ("brother", "sister", "sibling")
# (the first relation, the second) -> the one relation they make, as the language names it
_COMPOSED: dict[tuple[str, str], str] = {}
for _first, _second, _made in (
        (_SPOUSE, ("mother",), "mother-in-law"), (_SPOUSE, ("father",), "father-in-law"),
        (_SPOUSE, ("parent",), "parent-in-law"), (_SPOUSE, ("brother",), "brother-in-law"),
        (_SPOUSE, ("sister",), "sister-in-law"),
        (("sister",), ("husband", "partner"), "brother-in-law"),
        (("brother",), ("wife", "partner"), "sister-in-law"),
        (("daughter", "stepdaughter"), ("husband", "partner"), "son-in-law"),
        (("son", "stepson"), ("wife", "partner"), "daughter-in-law"),
        (("father",), ("wife", "partner", "girlfriend"), "stepmother"),
        (("mother",), ("husband", "partner", "boyfriend"), "stepfather"),
        (("stepmother", "stepfather"), ("son",), "stepbrother"),
        (("stepmother", "stepfather"), ("daughter",), "stepsister"),
        (_PARENT, ("mother",), "grandmother"), (_PARENT, ("father",), "grandfather"),
        (_CHILD, ("son",), "grandson"), (_CHILD, ("daughter",), "granddaughter"),
        (_SIBLING, ("son",), "nephew"), (_SIBLING, ("daughter",), "niece"),
        (_PARENT, ("brother",), "uncle"), (_PARENT, ("sister",), "aunt")):
    _COMPOSED.update({(a, b): _made for a in _first for b in _second})
# the one-word names of composed relations, with their other spellings
_COMPOSED_NAMES = {"mil": "mother-in-law", "fil": "father-in-law", "sil": "sister-in-law",
                   "bil": "brother-in-law", "dil": "daughter-in-law",
                   "stepmom": "stepmother", "stepmum": "stepmother", "stepdad": "stepfather",
                   "stepbro": "stepbrother", "stepsis": "stepsister"}
_STEP = {"mother": "stepmother", "father": "stepfather", "son": "stepson",
         "daughter": "stepdaughter", "brother": "stepbrother", "sister": "stepsister"}
COMPOSED = frozenset(_COMPOSED.values()) | frozenset(_STEP.values()) | frozenset(
    f"{kin}-in-law" for kin in ("mother", "father", "parent", "brother", "sister", "son",
                                "daughter"))
_PLAIN = frozenset(_KNOWN)  # composed relations that are also plain words ("grandmother")


def ways(made: str) -> list[tuple[str, str]]:
    """The relations of a relation that make a composed one ("brother-in-law" -> the
    husband's brother, the wife's brother, the sister's husband…)."""
    return [pair for pair, to in _COMPOSED.items() if to == made]


def _kin(word: str) -> str | None:
    """The relation a word names, composed ones included ("stepmum" -> stepmother)."""
    base = _base(word)
    if base in _COMPOSED_NAMES or base in COMPOSED:
        return _COMPOSED_NAMES.get(base, base)
    return relation(base)


# whom "her" and "his" may stand for: the relations of each sex ("their" any of them)
_FEMALE = frozenset({"mother", "sister", "wife", "girlfriend", "daughter", "grandmother",
                     "stepmother", "aunt", "niece", "granddaughter", "stepsister", "stepdaughter",
                     "mother-in-law", "sister-in-law", "daughter-in-law", "fiancee"})
_MALE = frozenset({"father", "brother", "husband", "boyfriend", "son", "grandfather",
                   "stepfather", "uncle", "nephew", "grandson", "stepbrother", "stepson",
                   "father-in-law", "brother-in-law", "son-in-law", "fiance"})


def sex(word: str) -> str | None:
    """"f" or "m" for a relation of one sex ("daughter", "bro", "niece"), else None."""
    said = _kin(word) or _base(word)
    return "f" if said in _FEMALE or said == "girl" else "m" if said in _MALE or said == "boy" \
        else None


_PRONOUN_OF = {"her": _FEMALE, "his": _MALE, "their": _FEMALE | _MALE | {
    "partner", "child", "parent", "sibling", "spouse"}}
PRONOUN_REACH = 20  # words back that "her husband" looks for whose husband ("our daughter
# Aoife lives in Cork, her husband Conor…"): a sentence, or two said as one candidate


def _whose(pronoun: str, named: list[tuple[int, str]], at: int) -> tuple[int, str] | None:
    """(place, relation) of the nearest relation named before word `at` that `pronoun` ("her",
    "his", "their") may stand for, within PRONOUN_REACH words; None where none may."""
    meant = [(k, r) for k, r in named
             if r in _PRONOUN_OF[pronoun.lower()] and at - k <= PRONOUN_REACH]
    return meant[-1] if meant else None


def composed_relations(said: list[str]) -> list[str]:
    """The composed relations a text's words name, in order: "husband's mother", "mother in
    law", "MIL" -> mother-in-law; "dads wifes son" -> stepbrother; "step mum" -> stepmother;
    "our daughter Aoife … her husband" -> son-in-law (the nearest relation "her" may mean).
    A plain relation ("my mum", "my grandma") is kinship's words, not one of these."""
    out: list[str] = []
    chain: str | None = None  # the relation the words so far compose
    composed = False  # whether the chain is more than one plain relation
    named: list[tuple[int, str]] = []  # (place, relation) of each relation named so far
    i = 0
    while i < len(said):
        word, step = said[i], 1
        after = [_base(w) for w in said[i + 1: i + 3]]
        kin = _kin(word)
        if word == "step" and after and _kin(after[0]) in _STEP:
            kin, step = _STEP[_kin(after[0]) or ""], 2
        elif after == ["in", "law"] and kin:
            kin, step = f"{kin}-in-law", 3
        elif word in _PRONOUN_OF and after and _kin(after[0]) and not chain:
            # "her husband" after "our daughter": the daughter's husband
            whose = _whose(word, named, i)
            if whose is not None:
                chain, composed = whose[1], False
                i += 1
                continue
        if kin:
            named.append((i, kin))
        made = _COMPOSED.get((chain, kin)) if chain and kin else None
        if made is None and chain and composed:
            out.append(chain)  # the chain ends here
        composed = made is not None or (kin is not None and ("-in-law" in kin or kin in COMPOSED
                                                            and kin not in _PLAIN))
        chain = made or kin
        i += step
    if chain and composed:
        out.append(chain)
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=4096)
def composed_in(text: str) -> tuple[str, ...]:
    """`composed_relations` of a text, in order, kept per text (a question and its sentences
    are weighed many times)."""
    return tuple(composed_relations(words(text)))


_OWNED_BY_PRONOUN = re.compile(r"\b(her|his|their)\s+([\w'’-]+)", re.IGNORECASE)
_WORD = re.compile(r"[\w'’-]+")


def by_pronoun(text: str) -> list[tuple[int, str, str]]:
    """Each relation told by pronoun that makes a composed one, with whose it is where a name
    follows that relative ("Our daughter Siobhán …, and her fella Kevin is…" -> (where "her"
    starts, "son-in-law", "Siobhán")); only where "her"/"his" may mean that relative."""
    out = []
    for m in _OWNED_BY_PRONOUN.finditer(text):
        second = _kin(m.group(2))
        if second is None:
            continue
        before = list(_WORD.finditer(text, 0, m.start()))
        named = [(k, r) for k, w in enumerate(before) if (r := _kin(w.group())) is not None]
        whose = _whose(m.group(1), named, len(before))
        if whose is None:
            continue
        k, first = whose
        made = _COMPOSED.get((first, second))
        name = next((w.group() for w in before[k + 1:k + 2] if w.group()[:1].isupper()), None)
        if made is not None and name is not None:
            out.append((m.start(), made, name))
    return out
