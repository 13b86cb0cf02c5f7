"""A list sentence's items, each said back on its own: "What's my cat called?" is answered "I
have a cat called Kiki", not with the dog listed beside it."""

from __future__ import annotations

import re

# a list of things joined by "and" or a comma, each opening with a determiner: "I have a dog
# called Zuri and a cat called Kiki"
# ("n" and "&" as typed on a phone: "a staffy called tank n a budgie called mango")
_CONJUNCT = re.compile(r"\s*(?:,\s*(?:and|plus|n|&)(?:\s+also)?|(?:\b(?:and|plus|n)|\s&)"
                       r"(?:\s+also)?|,)\s+"
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
# "is"/"has"/"was"/"got" ("…, and Rui has an old dog", "and Osian's got a guinea pig", "moose
# is a golden retriever and pickles is 14"), or, after "and", "but" or ";", a time or place
# opening the user's next clause ("…, and on Fridays I go bowling"; "I got the job, from next
# month I am shift manager" is one news)
_OTHER_SUBJECT = re.compile(
    r"\s*(?:,?\s+(?:and|n|&|while|whereas)|,?\s+but|;|,)\s+(?=(?!(?:he|she|it|they|that|this|"
    r"there|which|who|what|i|we|you|then|now|so|also|still|just)\b)[^\W\d_][\w'-]*(?:['’]s)?"
    r"\s+(?:is|has|was|got|had)\b)"
    # someone's own relation with a verb of their own ("my mum is a dental nurse n my dad
    # drives road trains"); "my wife and my son" at a sentence's end is one list
    r"|\s*(?:,?\s+(?:and|n|&|while|whereas)|;)\s+(?=(?:my|our|his|her)\s+[\w'-]+\s+(?!(?:and|"
    r"or|n|&)\b)[a-z]\w+)"
    r"|\s*(?:,?\s+(?:and|n|&)|,?\s+but|;)\s+(?=(?:on|in|at|every|from|since|then|now|later|"
    r"after|before)\b[^,.;]{0,25}?,?\s+(?:i|we)\b)", re.IGNORECASE)
# a part that says "her", "he", "they"… says whose only with the part before it ("My daughter
# Teresa is an accountant, and Luca is her son")
_SUBJECT_BACK = "he|she|they|his|her|their|he's|she's|they're"  # words that say "the one before"
_REFERS_BACK = re.compile(rf"\b(?:{_SUBJECT_BACK}|him|hers|them)\b", re.IGNORECASE)


# a sentence that opens on someone told before ("She's a nurse.") or names them by pronoun
# before any name ("Orange fellow, we named him Laddoo.")
_OPENS_BACK = re.compile(rf"^\W*(?:{_SUBJECT_BACK})\b|"
                         r"^[^A-Z]*\b(?:named|called|call|calls|name)\s+(?:him|her|them)\b")


def refers_back(sentence: str) -> bool:
    """Whether a sentence says of whom only with the sentence before it (a pronoun first)."""
    return _OPENS_BACK.search(sentence[:1].lower() + sentence[1:]) is not None


def other_subject_parts(clause: str) -> list[str]:
    """A clause's parts that each say something of their own subject ("We have a cat, Feijoada,
    and Rui has an old dog, a collie" -> the cat, the dog); [] where it has one subject."""
    parts: list[str] = []
    for part in (p.strip(" ,;") for p in _OTHER_SUBJECT.split(clause)):
        # "Ebuka is 5 and all he wants…" names its own subject; "Luca is her son" says whose
        # only with the part before it: a pronoun in the part's first clause
        # (its first clause: "…because he got it at Christmas" is of the part's own subject)
        if parts and _REFERS_BACK.search(re.split(
                r"\s+(?:and|n|&|because|cos|cause|since|when|so)\s+|,", part)[0]):
            parts[-1] = clause[clause.index(parts[-1]):clause.index(part) + len(part)]
        elif part:
            parts.append(part)
    # "my mum and my dad are teachers" is one subject, not a clause "my mum"
    return parts if len(parts) > 1 and all(len(p.split()) >= 3 for p in parts) else []


# a list of names, each with a number ("His kids are Naledi, 14, and Bongani, 8"; "Kids: Ola
# 15, Thea 11"; "Fergus who is 10 and Isla who is 6"; "Cody's 32 and a game warden in
# Lubbock, Kaylee's 29 and teaches"): each item with the sentence's opening
_NAMED_NUMBER = re.compile(r"\b[A-Z][\w’-]+(?:['’]s\s+|,?\s+(?:(?:who\s+(?:(?:just|only|now)\s+)?"
                           r"(?:is|turned|turns|turn)|who['’]s|is|aged|turned|turns|turning|"
                           # "the kids are Kai, he's 11, and Jade, she's the 8 year old"
                           r"(?:he|she)(?:['’]s|\s+is)(?:\s+the)?)"
                           r"\s+(?:just|only|now|nearly|almost|about)?\s*)?)\d{1,3}\b"
                           r"(?!\s*(?:%|am|pm|:|[.,]\d))")
_BEFORE_ITEM = re.compile(r"(?:,\s*(?:and\s+)?|\s+and\s+|\s+n\s+|\s*&\s*|;\s*|\s+while\s+)"
                          # "and little Ida", "and our daughter Wambui", "n our bunso Paolo"
                          r"(?P<own>(?:(?:little|baby|young|wee|big|our|my|his|her|their)\s+)?"
                          r"(?:[a-z]+\s+)?)$")
_OWN_OPENING = re.compile(r"(?:our|my|his|her|their)\s", re.IGNORECASE)


def named_number_parts(sentence: str) -> list[str]:
    """A list of names with their numbers, an item each (up to the next) with the opening
    before the first; [] where the sentence lists no two."""
    # each name with its number, and where the separator before it starts (an item ends there)
    found = [(m, sep.start() if sep else m.start(), sep.group("own") if sep else "")
             for k, m in enumerate(_NAMED_NUMBER.finditer(sentence))
             if (sep := _BEFORE_ITEM.search(sentence[:m.start()])) or k == 0]
    if len(found) < 2:
        return []
    lead = sentence[:found[0][0].start()]
    ends = [cut for _, cut, _ in found[1:]] + [len(sentence)]
    # an item with an owner of its own ("and our daughter Wambui is 5") opens with it, not
    # with the first item's opening ("Our son")
    return [(own[0].upper() + own[1:] if k and _OWN_OPENING.match(own) else
             lead + (own if k else "")) + sentence[m.start():end].rstrip(" .!,;") + "."
            for k, ((m, _, own), end) in enumerate(zip(found, ends, strict=True))]


def all_parts(sentence: str) -> list[str]:
    """Every part a sentence may be said back by: its list items, its clauses with a subject
    of their own and its named numbers."""
    return list_parts(sentence) + other_subject_parts(sentence) + named_number_parts(sentence)


# "my youngest", "our first born", "the eldest of Karen's lot": the one of a list of ages
_EXTREME = re.compile(r"\b(?:(?P<young>youngest|last[- ]?born|little one|bunso|younger (?:one|kid|"
                      r"child))|eldest|oldest|first[- ]?born|big one|(?:older|elder) (?:one|kid|"
                      r"child))\b"
                      # of two, "Which of my kids is older?"
                      r"|\b(?:which|who)\b.*\b(?:(?P<younger>younger)|older|elder)\b", re.IGNORECASE)
_MONTHS_OLD = re.compile(r"^\s*(?:months?|mos?|weeks?)\b", re.IGNORECASE)


def extreme_part(question: str, sentence: str) -> str | None:
    """The item of a list of named ages ("Kids are Brodie 19, Tahlia 16 and Jack who's 12")
    that a question on the youngest or eldest asks for; None where it asks neither or the
    sentence lists no two ages."""
    asked = _EXTREME.search(question)
    parts = named_number_parts(sentence) if asked else []
    if len(parts) < 2:
        return None

    def age(part: str) -> float:
        found = list(_NAMED_NUMBER.finditer(part))[-1]
        number = float(re.findall(r"\d+", found.group())[-1])
        return number / 12 if _MONTHS_OLD.match(part[found.end():]) else number
    ages = [age(p) for p in parts]
    pick = min if asked is not None and (asked.group("young") or asked.group("younger")) else max
    return parts[ages.index(pick(ages))]
