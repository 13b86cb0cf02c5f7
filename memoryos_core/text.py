"""Text helpers that need no model: keywords, Jaccard, token estimates, cleaning model output."""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable

STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each few for from further had hadn't has hasn't have haven't having he he'd
    he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into
    is isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only
    or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's
    these they they'd they'll they're they've this those through to too under until up very was
    wasn't we we'd we'll we're we've were weren't what what's when when's where where's which while
    who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours
    yourself yourselves yes yeah oh ok okay also just really get got like know think well much
    many one thing things would could will shall may might lot lots gonna wanna hey hi hello thanks
    thank sure great good nice cool wow always never ever still even though since going go went
    make made want see say said tell told let us way time right now back new day""".split()
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_TOKEN_PIECE = re.compile(r"[^\W_]+|[^\w\s]", re.UNICODE)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def words(text: str) -> list[str]:
    """Lower-cased words of a text (letters and digits, inner apostrophes kept)."""
    if text.isascii():  # lower-casing first finds the same words (A-Z only), at a third the cost
        return _WORD.findall(text.lower())
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


# A page's words are compared in every retrieval that finds it among its ~100 candidates: the
# keys of recent texts are kept (the text is the key, so an edited page gets a new one).
@functools.lru_cache(maxsize=4096)
def word_key(text: str) -> str:
    """The words of a text joined by spaces: texts saying the same words share it."""
    return " ".join(words(text))


def keywords(text: str, limit: int = 12) -> list[str]:
    """Most frequent non-stop-words of a text, most frequent first (ties: first seen)."""
    counts = Counter(w for w in words(text) if w not in STOP_WORDS and len(w) > 2)
    return [w for w, _ in counts.most_common(limit)]


# Words that ask for a name rather than say what is named: "What is my cat called?", "the name
# of my physio". As keywords they match every naming statement in the memory ("named him
# Pixel" for the physio's name), not the thing asked about (first-impression check: 2 of 8
# questions ranked another fact first; LoCoMo and LongMemEval dev recall unchanged).
QUESTION_FRAME_WORDS = frozenset({"name", "names", "named", "call", "called", "calls"})
# Words between "my" and the person or thing it owns ("my little brother", "my late husband",
# "my old car"): the owned noun is the word after them, not "little".
OWNED_MODIFIERS = frozenset("little big baby older younger elder eldest oldest youngest new old"
                            " late best ex step twin current former first second third other"
                            " dear lovely only".split())
# words that ask, not name: never the person or thing a question asks about
ASKING_WORDS = frozenset("kind type sort name names named called call much many long old often"
                         " again still now currently ever before previously used".split())
_OWNERS = frozenset({"my", "our", "mine", "ours", "mi"})  # "mi bredda": Jamaican and others
_POSSESSIVE = re.compile(r"^(.+?)(?:'s|’s|s')$")


def without_possessive(word: str) -> str:
    """A word without its possessive ending ("sister's" -> sister, "parents'" -> parent)."""
    found = _POSSESSIVE.match(word)
    return found.group(1) if found else word
_NOT_OWNERS = frozenset("it that what who there here let he she".split())


def owned(text: str, named: bool = True) -> list[str]:
    """The nouns a text names as someone's own ("my dog's name" -> dog; "our trip" -> trip;
    "my sister's husband" -> sister, husband; with `named`, "Maya's birthday" -> maya too)."""
    said = words(text)
    out: list[str] = []
    for i, word in enumerate(said):
        found = _POSSESSIVE.match(word)
        if named and found and found.group(1) not in _NOT_OWNERS:
            out.append(found.group(1))
        if word in _OWNERS:
            for nxt in [w for w in said[i + 1: i + 5] if w not in OWNED_MODIFIERS][:3]:
                base = _POSSESSIVE.match(nxt)
                noun = base.group(1) if base else nxt
                if noun in STOP_WORDS or noun in ASKING_WORDS or noun in QUESTION_FRAME_WORDS:
                    break
                out.append(noun)
                if not base:
                    break
    return list(dict.fromkeys(w for w in out if w not in STOP_WORDS))


def query_keywords(query: str, limit: int = 12) -> list[str]:
    """The keywords a query is searched by: its keywords less the words that ask for a name."""
    wider = keywords(query, limit + len(QUESTION_FRAME_WORDS))  # the dropped ones leave no gap
    return [w for w in wider if w not in QUESTION_FRAME_WORDS][:limit]


_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")


def stem(word: str) -> str:
    """A light suffix stem, enough to match "recommended" to "recommend" inside one text."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems_held(text: str, stems: set[str]) -> int:
    """How many of `stems` the words of `text` hold (each counted once)."""
    return len(stems & {stem(w) for w in words(text)})


def merge_keywords(groups: Iterable[Iterable[str]], limit: int = 15) -> list[str]:
    """Union of keyword lists ranked by how many lists name them, then by first appearance."""
    counts: Counter[str] = Counter()
    for group in groups:
        counts.update(list(dict.fromkeys(k.strip().lower() for k in group if k.strip())))
    return [k for k, _ in counts.most_common(limit)]


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard similarity of two keyword sets (0 when both are empty)."""
    sa, sb = {x.lower() for x in a}, {x.lower() for x in b}
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


# The same texts are counted again and again (a page line is counted when it is cut, then when
# it is placed, in every retrieval that finds it): the counts of recent ones are kept.
@functools.lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """Estimate tokens the way BPE tokenizers split text: words, long words in 4-char pieces."""
    return _count_tokens(text)


def _count_tokens(text: str) -> int:
    """`count_tokens` without the cache (the prefixes `truncate_tokens` tries)."""
    pieces = _TOKEN_PIECE.findall(text)
    # a piece is one token, one of 7+ characters (len + 3) // 4: (len - 1) // 4 more
    return len(pieces) + sum((len(p) - 1) // 4 for p in pieces if len(p) > 6)


def truncate_tokens(text: str, max_tokens: int) -> str:
    """Cut a text so that `count_tokens` of the result is at most `max_tokens`."""
    if count_tokens(text) <= max_tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _count_tokens(text[:mid]) + 1 <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def strip_think(text: str) -> str:
    """Remove <think>…</think> blocks that reasoning models put before the answer."""
    return _THINK.sub("", text).strip()


def first_sentences(text: str, max_chars: int = 160) -> str:
    """The opening sentence(s) of a text, at most `max_chars` characters."""
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("! "))
    return (cut[: end + 1] if end > 40 else cut.rsplit(" ", 1)[0] + "…").strip()


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# a full stop after these ends no sentence: "Dr. Okafor", "St. Mary's"
_ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "st", "prof", "jr", "sr", "mt", "no",
                            "vs", "etc", "e.g", "i.e", "approx", "dept", "ave", "rd"})


def sentences(text: str) -> list[str]:
    """The sentences of a text, spaces collapsed; an abbreviation or an initial ends none."""
    out: list[str] = []
    for piece in _SENTENCE.split(text or ""):
        piece = " ".join(piece.split())
        last = out[-1].rsplit(" ", 1)[-1].rstrip(".").lower() if out else ""
        if out and out[-1].endswith(".") and (last in _ABBREVIATIONS or len(last) == 1):
            out[-1] = f"{out[-1]} {piece}"
        elif piece:
            out.append(piece)
    return out


def normalise(text: str) -> str:
    """Lower-case, collapse spaces and drop punctuation: the key for exact-duplicate facts."""
    return " ".join(words(text))


def content_hash(*parts: str) -> str:
    """A stable hash of some texts, used to recognise a re-imported exchange."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:32]


# Casual typing's first person and contractions ("im", "i", "dont"): rules that read who
# speaks or whether a clause denies must read "im allergic to shellfish" as "I'm allergic…"
# (a quarter of a phone-typed chat's facts were missed; benchmarks.newcomer_chats --casual)
_CASUAL = {"i": "I", "im": "I'm", "ive": "I've", "i'm": "I'm", "i've": "I've", "i'd": "I'd",
           "i'll": "I'll", "dont": "don't", "cant": "can't", "wont": "won't", "didnt": "didn't",
           "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't", "arent": "aren't",
           "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
           "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't",
           "youre": "you're", "theyre": "they're", "thats": "that's", "whats": "what's"}
# a lone "i" of "i.e." or "part i." is no pronoun
_CASUAL_WORD = re.compile(r"(?<![\w'’.])(?:i['’](?:m|ve|d|ll)|[a-z]+)(?![\w'’]|\.\w)",
                          re.IGNORECASE)


def _restored(match: re.Match[str]) -> str:
    said = match.group(0)
    full = _CASUAL.get(said.lower().replace("’", "'"))
    if full is None or said == "I":
        return said
    if not said[0].isupper():
        return full
    # capitalised, only where a sentence opens ("Im tired"): "my friend Im Soo-jin" is a name
    before = match.string[:match.start()].rstrip()
    return full[0].upper() + full[1:] if not before or before[-1] in ".!?,;:(\"" else said


def casual_restored(text: str) -> str:
    """The text with casual typing's pronoun "I" and contractions restored ("im allergic" ->
    "I'm allergic", "i dont" -> "I don't"); every other word as typed."""
    return _CASUAL_WORD.sub(_restored, text)


# a sentence opening with a question word asks, even typed without its "?" ("whats my dog
# called", "wat inhaler i use", "n wat job i had before that"): never a fact of the user's
# (extractive analysis kept 2 of 15 such in one chat)
WH_WORDS = ("what|whats|what's|where|wheres|where's|when|who|whos|who's|whose|which|why|how|"
            "hows|how's|wat|wats|wot|wut|wich")
WH_OPENING = re.compile(rf"^\W*(?:(?:and|n|so|but|&)\s+)?(?:{WH_WORDS})\b", re.IGNORECASE)


def casually_typed(text: str) -> str:
    """A message as typed in a hurry on a phone: lower case, no apostrophes ("where's my
    wife's work?" -> "wheres my wifes work"), no closing question mark or full stop."""
    return re.sub(r"['’]", "", text.lower()).rstrip(" ?.")
