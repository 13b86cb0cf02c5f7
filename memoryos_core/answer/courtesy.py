"""Replies the small model gets wrong that need no model: greetings, thanks, goodbyes, and a
user telling something about themselves.

Read in the browser as a new user (SmolLM2-135M, loaded 2-core machine): "Hi!" got "I'm so
glad you're enjoying the new adventure!", "Thanks!" got "I'm so sorry to hear about your
family.", and "My name is Dana and I work as a nurse in Bristol." got "I'm Dana, a
compassionate, non-medical nurse…": the model takes the user's life as its own. These turns
are answered in kind, with what the user said given back so they see it was understood; the
model still answers feelings, opinions, requests and everything else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..asides import INTERJECTION, without_asides
from ..text import WH_WORDS, casual_restored, sentences, words
from .saying import SECOND_PERSON

PLAIN_REPLY = {"chat": "I see. Tell me more?",
               "general": "I'm not sure about that. A bigger model (Settings) would answer"
                          " it better."}
GREETING = re.compile(r"^\s*(?:hi+|hello|hey+|heya|heyo|hiya|howdy|yo|good (?:morning|afternoon|evening)|"
                      r"greetings)\b[\s,!.]*(?:there|all|everyone|again|friend)?[\s,!.]*",
                      re.IGNORECASE)
THANKS = re.compile(r"\b(?:thanks|thank you|thank u|thx|ty|tysm|cheers|much appreciated)\b",
                    re.IGNORECASE)
_GOODBYE = re.compile(r"^\s*(?:(?:ok(?:ay)?|well|thanks?|thank you|thx|ty|cheers|right)[\s,!.]*)*(?:"
                      r"bye|goodbye|good night|night night|see (?:you|ya)|talk (?:to you )?"
                      r"(?:later|soon)|speak soon|catch you later|take care|gotta go|got to go|gtg|"
                      r"i have to go|i'm off|i'm heading off|off to bed|going to bed|sleep well)\b"
                      # sign-offs that say it only alone ("night shifts are hard" is no goodbye)
                      r"|^\s*(?:(?:ok(?:ay)?|thanks?|cheers|right)[\s,!.]*)*(?:g?'?night|nighty "
                      r"night|nite|gn|ttyl|cya|later|laters|cheerio|ta-?ra)[\s!.x]*$",
                      re.IGNORECASE)
# an acknowledgement alone ("ok thats cool", "fair enough", "got it"): the small model took it
# for a request and offered help with "creative projects"
_ACK = re.compile(r"^\s*(?:(?:ok(?:ay)?|oh|ah|haha|lol|right)[\s,!.]*)*(?:ok(?:ay)?|cool|nice|great|"
                  r"neat|awesome|perfect|alright|fair enough|got it|i see|i understand|understood|"
                  r"makes sense|sounds good|"
                  r"good to know|interesting|that'?s (?:cool|nice|great|interesting|fair)|"
                  r"noted|sure)(?:[\s,!.]*(?:then|lol|haha))*[\s!.]*$", re.IGNORECASE)
_HOW_ARE_YOU = re.compile(r"^\s*how(?:'s| is| are) (?:you|it going|things)\b[^.!?]*[?!.]*\s*$",
                          re.IGNORECASE)
NAME_GIVEN = re.compile(r"\b(?i:my name is) ([A-Z][\w'-]+)"
                        r"|\b(?:(?i:call me)) ([A-Z][\w'-]+)\s*[.!]?$"
                        r"|^(?i:name['’]?s) ([A-Z][\w'-]+)\b")  # "name's Tae, 24, …"
# "I'm Sam" gives a name, "I'm Chinese" does not: the word is checked by meaning (names.py)
_IM = re.compile(r"\b(?:I'm|I am) ([A-Z][\w'-]+)\s*[.!]?$")
# the user's own name only: "a dog called Pepper" names the dog
_NAME_OPENING = r"(?i:my name is|my name's|call me|i'm called|i am called)"
_NAME_STATED = re.compile(rf"\b{_NAME_OPENING} ([A-Z][\w'-]+)")
# a sentence that tells a fact of the user's life opens with them as its subject
_FIRST_PERSON_OPENING = re.compile(r"^(?:i|i'm|i've|i'd|my|we|we're|we've|our)\b",
                                   re.IGNORECASE)
# ... and is not a wish, a request, a feeling or an opinion: those are the model's to answer
_NOT_A_FACT = re.compile(
    r"^(?:i|we)(?:'m|'d| am| would| was| were| are)?\s+(?:\w+ly\s+)?(?:want|need|wish|"
    r"wonder|wondering|think|thought|feel|feeling|felt|hope|hoping|believe|guess|like to know|"
    r"love to|looking for|trying|try|don't know|not sure|have a question|have "
    r"no idea|ask|asking|mean|meant|agree|disagree|bet|suppose)\b"
    r"|^i(?:'m| am)\s+(?:so |really |very |a bit |kind of |pretty |quite )?(?:tired|sad|happy|"
    r"bored|stressed|anxious|lonely|excited|angry|upset|worried|sick|exhausted|depressed|"
    r"nervous|frustrated|scared|afraid|sorry|glad|fine|good|great|okay|ok|well|confused|"
    r"lost|hungry)\b", re.IGNORECASE)
# "I can't decide what to cook" asks for help; read as told (the router's call), "I can't eat
# peanuts" is a fact of the user's life
_CANNOT = re.compile(r"^(?:i|we)\s+(?:\w+ly\s+)?(?:can't|cannot|can’t|can not)\b", re.IGNORECASE)
# a clause on the talk itself ("I liked our chat", "I loved it") is a remark to answer in kind
_ON_THE_TALK = re.compile(r"\b(?:our|this|that|the) (?:chat|conversation|talk|answer|reply)\b"
                          r"|\b(?:it|that|this)\s*$", re.IGNORECASE)
_FEELING = re.compile(
    r"^i(?:'m| am| feel| have been| 've been| was)\s+(?:feeling\s+)?(?:so |really |very |a bit |"
    r"a little |kind of |pretty |quite |super |totally )?(?:(?P<low>tired|sad|bored|stressed|"
    r"anxious|lonely|angry|upset|worried|sick|ill|exhausted|depressed|nervous|frustrated|"
    r"scared|afraid|down|overwhelmed|miserable|unwell|homesick|burnt out|burned out)|"
    r"(?P<high>happy|excited|glad|great|thrilled|proud|relieved|grateful|delighted))\b",
    re.IGNORECASE)
MAX_FEELING_WORDS = 20
MAX_TOLD_WORDS = 40  # a longer message is more than a fact told in passing: the model's
_CLAUSE = re.compile(r"\s*(?:,?\s+and|,?\s+but|;|,)\s+(?=(?:i|i'm|i've|my|we|our)\b)",
                     re.IGNORECASE)


# a word that makes the words before "and I" a clause of their own ("My name is Dana and I
# work…") rather than the first half of a shared subject ("In October, Min-jun and I will…")
_MAKES_A_CLAUSE = frozenset("i i'm i've i'd i'll we we're we've he she they it you is am are was were be"
                    " been have has had do does did will would can could don't didn't".split())


def _shared_subject(before: str) -> bool:
    """Whether the words before an "and I" name someone who shares the subject with the
    user: a few words after the last comma, none of them a verb or a subject."""
    # a label before them is no part of it: "quick update - my partner Eetu and I moved"
    said = words(re.split(r"[,;:]|\s[-\u2013\u2014]\s", INTERJECTION.sub("", before.strip()))[-1])
    return 0 < len(said) <= 3 and not any(w.replace("’", "'") in _MAKES_A_CLAUSE
                                          or w.endswith("'s") for w in said)


def clauses(sentence: str) -> list[str]:
    """A sentence's clauses that have the user as their own subject ("My name is Dana and I
    work as a nurse" -> both halves); the sentence itself when it has one. "Min-jun and I
    will travel" is one subject, not a clause "Min-jun"."""
    parts, start = [], 0
    for cut in _CLAUSE.finditer(sentence):
        before = sentence[start:cut.start()]
        # "Faisal drives a taxi, mostly nights, and we've got two kids": a contracted verb
        # ("we've", "I'm") makes a clause, no shared subject ("Min-jun and I")
        bare = sentence[cut.end():].split(maxsplit=1)[0].lower() in ("i", "we", "my", "our")
        if "and" in cut.group(0).lower() and bare and _shared_subject(before):
            continue
        # a comma alone joins two of the user's clauses ("I'm Leilani, I teach surfing"),
        # not a phrase to its clause ("In October, I…", "When I was young, I…")
        if cut.group(0).strip() == "," and not _FIRST_PERSON_OPENING.match(
                INTERJECTION.sub("", before.strip())):
            continue
        parts.append(sentence[start:cut.start()])
        start = cut.end()
    parts = [p.strip(" ,;") for p in parts + [sentence[start:]]]
    return [p for p in parts if p] if len(parts) > 1 else [sentence]


def plain_reply(kind: str, question: str) -> str:
    """Our reply when the model's failed: for small talk (`kind` social) in kind with the
    message (a greeting is greeted, a thank-you welcomed, a name given answered by name), else
    a plain prompt to go on ("Thanks, but that's wrong" is not thanks to welcome)."""
    if kind == "general":
        return PLAIN_REPLY["general"]
    if kind != "social":
        return PLAIN_REPLY["chat"]
    named = NAME_GIVEN.search(question)
    if named:
        return f"Nice to meet you, {named.group(1) or named.group(2)}! What's on your mind?"
    if GREETING.match(question):
        return "Hello! What would you like to talk about?"
    if THANKS.search(question):
        return "You're welcome!"
    return PLAIN_REPLY["chat"]


def says_nothing(sentence: str) -> bool:
    """A greeting, thanks, a goodbye or an acknowledgement alone: nothing told in it."""
    return bool(GREETING.fullmatch(sentence) or THANKS.search(sentence)
                or _GOODBYE.match(sentence) or _ACK.match(sentence))


def _no_name(word: str) -> bool:
    """Without a measured check no bare "I'm X" is a name."""
    return False


def known_name(texts: Iterable[str], is_name: Callable[[str], bool] = _no_name) -> str | None:
    """The user's name as they gave it ("My name is Dana", "call me Sam", "I'm Sam" where
    `is_name` says Sam is a name), newest first."""
    for text in texts:
        found = _NAME_STATED.search(text) or NAME_GIVEN.search(text)
        if found:
            return next(g for g in found.groups() if g)
        bare = _IM.search(text)
        if bare and is_name(bare.group(1)):
            return bare.group(1)
    return None


def tells_a_fact(clause: str, told: bool = False) -> bool:
    """A clause with the user as its subject telling something of their life ("I work as a
    nurse"), not a wish, a request, a feeling or a remark on the talk; "I can't…" only in a
    message read as told."""
    clause = clause.strip().rstrip(".!")
    return bool(_FIRST_PERSON_OPENING.match(clause)) and not _NOT_A_FACT.match(clause) \
        and not _ON_THE_TALK.search(clause) and (told or not _CANNOT.match(clause))


def _of_others(clause: str, is_name: Callable[[str], bool]) -> bool:
    """A statement about someone or something else in the user's life ("Chidi is a pilot with
    Air Canada", "My sister's cat is ginger"): opening with a name (read by meaning) or an
    owner, never a request ("Suggest a dinner…"); taken as a fact only where the router has
    read the message as one told."""
    clause = clause.strip().rstrip(".!")
    said = clause.split()
    if len(words(clause)) < 3 or _NOT_A_FACT.match(clause) or _CANNOT.match(clause) \
            or _ON_THE_TALK.search(clause):
        return False
    first = said[0].strip(",:;")
    # a name and then a verb that agrees with it ("Chidi is…", "Toby loves…"), where a
    # request opens with its verb ("Suggest a dinner…", "Plan my trip")
    # (typed all in lower case, "keala is a nurse", the name is read by meaning alone)
    return _OWNED.match(first) is not None or (
        (first[:1].isupper() or clause.islower()) and is_name(first)
        and _FINITE.match(said[1]) is not None)


_OWNED = re.compile(r"(?:my|our|his|her|their|the)$", re.IGNORECASE)
_FINITE = re.compile(r"(?:is|was|has|had|will|just|also|never|always|still|and|\w+[^s]s|"
                     r"\w+ed)[,.]?$", re.IGNORECASE)


def _told(message: str, reflect: Callable[[str], str | None],
          is_name: Callable[[str], bool] = _no_name,
          told: bool = False) -> tuple[str | None, list[str]]:
    """(the name given, the other facts said back) when every sentence of the message tells
    something of the user's life (or, where the router read it as told, of the people and
    things in it); (None, []) otherwise. A message read as told that holds a fragment
    ("allergic to penicillin", "living in Cork these days") is given back as typed, quoted:
    said back after "you", a fragment is broken English, and the model it went to invented
    around it."""
    rest = GREETING.sub("", message, count=1).strip() or message
    said = sentences(rest)
    if not said or "?" in rest or _ASKED_AFTER.search(rest) or len(words(rest)) > MAX_TOLD_WORDS:
        return None, []
    name, facts, fragment, short = None, [], False, False
    for sentence in said:
        for clause in clauses(sentence):
            clause = without_asides(clause)
            given = NAME_GIVEN.fullmatch(clause + ".") or re.fullmatch(
                rf"{_NAME_OPENING} ([A-Z][\w'-]+)(?:,?\s+(?i:by the way|btw))?", clause)
            bare = re.fullmatch(r"(?i:i'm|i am) ([A-Z][\w'-]+)", clause)
            if given or (bare and is_name(bare.group(1))):
                name = next(g for g in (given or bare).groups() if g)  # type: ignore[union-attr]
                continue
            if told and len(words(clause)) < 3 and not tells_a_fact(clause, told):
                short = short or _fragment(clause)  # "no kids", or "Nice." before the fact
                continue
            own = tells_a_fact(clause, told)
            reflected = reflect(clause) if own or (told and _of_others(clause, is_name)) \
                else None
            if reflected is None:
                if told and _fragment(clause):
                    fragment = True
                    continue
                return None, []
            # "you're…" lower-cased, a name ("Chidi is…") kept
            facts.append(reflected[0].lower() + reflected[1:] if own or _OWNED.match(
                reflected.split()[0]) or reflected.lower().startswith("your ") else reflected)
    if (fragment or (short and not facts and not name)) and not _CORRECTION.search(rest):
        given = NAME_GIVEN.search(rest)  # "name's Tae, 24, grad student in Busan"
        name = name or (next(g for g in given.groups() if g) if given else None)
        return name, [f"\u201c{without_asides(rest)}\u201d"]  # quoted whole, as typed
    return name, facts


# a question typed without its "?" ("whats my dogs name", "do i still work there") or a bid
# ("remind me…", "write a toast…"): never a fragment of the user's life to give back
_ASKS_OR_BIDS = re.compile(
    rf"^\W*(?:{WH_WORDS}|wat|wich|(?:do|does|did|is|are|was|were|can|could|will|would|should|"
    r"shall|have|has|am)\s+(?:i|you|u|we|my|our|he|she|they|it|there)|(?:please\s+)?(?:remind|"
    r"tell|help|give|write|show|explain|suggest|recommend|draft|make|plan|convert|translate|"
    r"list|find|need|pls|please))\b", re.IGNORECASE)

# a question after a comma, typed without its "?": "i miss him so much, how i stop being sad"
# ... or a bid: "we are getting a cat, give me some funny names for him"
_ASKED_AFTER = re.compile(rf"[,;:-]\s*(?:(?:{WH_WORDS}|wat)\s+(?:i|do|can|should|to|would)\b"
                          r"|(?:please\s+)?(?:give|tell|help|show|send|find|suggest|recommend|"
                          r"write|make|propose)\s+(?:me|us)\b|(?:can|could|would) you\b)",
                          re.IGNORECASE)
# a correction of the assistant ("Wrong. Python dicts keep order") is the model's to answer
_CORRECTION = re.compile(r"\b(?:wrong|incorrect|not (?:right|correct|true)|false)\b",
                         re.IGNORECASE)
# news of a death or a loss is met with sympathy before anything is said back
_LOSS = re.compile(r"\b(?:passed away|passed on|died|dead|death|funeral|lost my|miscarriage|"
                   r"put (?:him|her|them) down|was put down)\b", re.IGNORECASE)


# words to the assistant, or a subject later in the clause ("Yesterday, I went…"): no fragment
_A_SUBJECT = SECOND_PERSON | {"i", "i'm", "im", "we", "we're"}


def _fragment(clause: str) -> bool:
    """A statement without its subject ("allergic to penicillin", "two cats and a parrot"):
    not a question, a bid, a greeting, thanks, a correction, words to the assistant, or a
    clause whose subject comes later ("Yesterday, I went to the zoo": the model's)."""
    said = words(clause)
    return len(said) >= 2 and not _FIRST_PERSON_OPENING.match(clause) \
        and not _ASKS_OR_BIDS.match(clause) and not THANKS.search(clause) \
        and not GREETING.match(clause) and not _ACK.match(clause) \
        and not _NOT_A_FACT.match(clause) and not _ON_THE_TALK.search(clause) \
        and not any(w in _A_SUBJECT for w in said)


def _feeling(text: str, reflect: Callable[[str], str | None]) -> str | None:
    """A feeling told in one sentence ("I'm feeling a bit stressed about work") met in kind:
    the model said it back as "The answer is: You're feeling…"."""
    said = sentences(text)
    felt = _FEELING.match(text.strip())
    if felt is None or len(said) != 1 or "?" in text or len(words(text)) > MAX_FEELING_WORDS \
            or _ASKED_AFTER.search(text):  # "im bored, tell me something interesting"
        return None
    back = reflect(text.strip().rstrip(".!"))
    if back is None:
        return None
    if felt.group("low"):
        return f"I'm sorry {back}. Do you want to talk about it?"
    return f"Glad to hear {back}!"


def reply(message: str, recent_user_texts: list[str],
          reflect: Callable[[str], str | None],
          is_name: Callable[[str], bool] = _no_name, told: bool = False) -> str | None:
    """The reply to a greeting, a thank-you, a goodbye or a fact told about oneself, or None
    when the message is anything else (the model's)."""
    text = casual_restored(message.strip())  # "btw im allergic…" tells as "I'm allergic…" does
    name = known_name(reversed(recent_user_texts), is_name)
    to_name = f", {name}" if name else ""
    felt = _feeling(text, reflect)
    if felt is not None:
        return felt
    if _ACK.match(text) and not THANKS.search(text):
        return "Okay! What else is on your mind?"
    given, facts = _told(text, reflect, is_name, told)
    if facts and _LOSS.search(text):
        return "I'm so sorry to hear that. Do you want to talk about it?"
    if given or facts:
        opening = f"Nice to meet you, {given}!" if given else "Got it:"
        if not facts:
            return f"{opening} What's on your mind?"
        body = "; ".join(facts)
        return f"{opening} {'Got it: ' if given else ''}{body}."
    count = len(words(text))
    if _GOODBYE.match(text) and count <= 8:
        return f"Bye{to_name}! Talk soon."
    # "Thanks, but that's wrong" is a correction, not thanks to welcome
    if THANKS.search(text) and count <= 8 and "?" not in text and not _CORRECTION.search(text):
        return "You're welcome!"
    greeted = GREETING.match(text)
    if greeted:
        rest = text[greeted.end():].strip()
        if not rest:
            return f"Hello{to_name}! What would you like to talk about?"
        if _HOW_ARE_YOU.match(rest):
            return f"Hello{to_name}! I'm well, thank you. What's on your mind?"
    elif _HOW_ARE_YOU.match(text):
        return "I'm well, thank you. What's on your mind?"
    return None
