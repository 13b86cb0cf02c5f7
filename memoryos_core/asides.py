"""What a sentence says beside its statement: the asides people open and close it with
("Oh, by the way, …", "fyi …", "heads up: …", "I should mention …", "… btw", "… lol 🙂").

A fact said back, or kept, is the statement alone: "I'm vegan btw" tells what "I'm vegan"
does, and "you're vegan btw" or a stored "fyi I'm a midwife" reads as a machine's echo.
"""

from __future__ import annotations

import re

# openings that join a sentence to the talk, not to the fact: "Oh, by the way, speaking of
# bikes, I just got a new one" is said back as "you just got a new one"
EMOJI_CHARS = r"\U0001F000-\U0001FAFF\u2600-\u27BF"  # pictographs and symbols, for [...]
EMOJI = rf"[{EMOJI_CHARS}\ufe0f]+"
SPEAKER = r"(?:i|i'm|im|i've|we|we're|we've|my|our)\b"
INTERJECTION = re.compile(r"^(?:(?:oh|well|yeah|yes|wow|hey|so|haha|lol|ok|okay|um|hmm|"
                           r"ah|aw|omg|actually|honestly|anyway|btw|by the way|also|and)\b"
                           r"[\s,!.]*|speaking of [^,.!?]{1,40},\s*"
                           # a short label before a colon: "Big news actually: we moved…"
                           # (not the statement's own opening: "we got 3 pets: a corgi…")
                           rf"|(?!{SPEAKER})(?:[^\s:,.!?]+\s+){{0,3}}[^\s:,.!?]+:\s+"
                           # or before a comma, where it announces: "Big news, I got a job"
                           r"|(?:[^\s:,.!?]+\s+){0,2}(?:news|update|change|confession|fact)"
                           r",\s+"
                           # or is a known aside: "heads up, I'm allergic", "fyi I'm…"
                           r"|(?:heads up|(?:just )?fyi|fwiw|tbh|ps|p\.s\.|side ?note|"
                           r"just so (?:you|u) know|for the record|please note|please remember|"
                           r"in case it (?:matters|helps))\b[\s,:!.-]*"
                           r"|(?:remember|reminder|note)[,:]\s*"
                           # a frame whose statement follows: "remember that I'm training…",
                           # "I should mention I have a bad knee", "forgot to say, my dog…"
                           r"|(?:(?:please\s+)?(?:remember|keep in mind|note)"
                           r"|(?:i\s+|just\s+)?(?:should|must|have to|need to|forgot to|meant to|"
                           r"wanted to|want to)\s+(?:say|mention|tell you|add|let you know))"
                           rf"(?:\s+that)?[\s,:!.-]+(?={SPEAKER})"
                           # a label set off by a spaced dash or an emoji, or an announcing
                           # word alone, where the statement after it opens with its speaker:
                           # "quick update - we moved", "NEWS 🎉 we moved", "big change I left"
                           rf"|(?!{SPEAKER})(?:[^\s:,.!?]+\s+){{0,2}}(?:[^\s:,.!?]+\s+[-\u2013\u2014]|"
                           rf"[^\s:,.!?]*[^\s:,.!?{EMOJI_CHARS}]\s*"
                           rf"{EMOJI}|(?:news|update|change|question|confession))[\s!.,]*"
                           rf"(?={SPEAKER})"
                           # "hello, I have a shop"
                           r"|(?:hello|hi|hiya)(?:\s+there)?\b[\s,!.]+(?=\w)"
                           r")+", re.IGNORECASE)
# an aside that ends a statement as one opens it: "I'm vegan btw", "my kid is Leo fyi 🙂"
TRAILING_ASIDE = re.compile(rf"(?:[\s,;:-]+(?:btw|by the way|fyi|fwiw|tbh|lol|haha+|lmao|"
                            rf"just so (?:you|u) know|for the record)\b|\s*{EMOJI}|\s*:[)D])+"
                            r"[\s.!]*$", re.IGNORECASE)

_MIDDLE_ASIDE = re.compile(r"\s+(?:btw|fyi|fwiw|tbh|lol|haha+)\b(?=\s*[,;])", re.IGNORECASE)


def without_asides(text: str) -> str:
    """A statement without the asides around it: "Actually we moved to Gdańsk" tells as much
    as "We moved to Gdańsk", "I'm vegan btw" as "I'm vegan"."""
    text = text.strip()
    core = TRAILING_ASIDE.sub("", INTERJECTION.sub("", text)).rstrip(".!").strip()
    core = _MIDDLE_ASIDE.sub("", core)  # "my gf is Jiwoo btw, shes a nurse"
    return core or text.rstrip(".!")
