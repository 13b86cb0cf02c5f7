"""Synthetic but varied dialogue: templated sentences over a topic vocabulary, seeded."""

from __future__ import annotations

import random

TOPICS: dict[str, list[str]] = {
    "cooking": ["sourdough bread", "mushroom risotto", "green curry", "lemon tart", "ramen broth",
                "homemade pasta", "paella", "banana pancakes", "kimchi", "apple pie"],
    "hiking": ["the ridge trail", "a waterfall loop", "the summit hut", "trekking poles",
               "a blister", "the alpine lake", "a thunderstorm", "the trailhead", "hiking boots"],
    "music": ["guitar lessons", "a jazz concert", "the violin", "a vinyl record", "the choir",
              "drum practice", "a piano recital", "a new album", "the festival lineup"],
    "work": ["the quarterly report", "a job interview", "my manager", "the product launch",
             "a salary raise", "the team offsite", "a deadline", "the new client", "overtime"],
    "health": ["a knee injury", "physiotherapy", "the dentist", "a marathon plan", "yoga class",
               "my sleep schedule", "a flu shot", "vitamin D", "the allergy season"],
    "travel": ["a flight to Lisbon", "the train to Vienna", "a hostel in Kyoto", "my passport",
               "a road trip", "the beach house", "a museum pass", "lost luggage", "a visa"],
    "family": ["my sister's wedding", "grandma's birthday", "the kids' school", "a family dinner",
               "my brother's new baby", "moving my parents", "a cousin's visit", "the reunion"],
    "pets": ["my dog Biscuit", "the cat's vet visit", "a new aquarium", "dog training",
             "the parrot", "adopting a kitten", "a pet sitter", "the hamster cage"],
    "garden": ["tomato seedlings", "the compost heap", "roses", "a raised bed", "basil",
               "the lawn mower", "sunflowers", "aphids on the beans", "a rain barrel"],
    "books": ["a mystery novel", "the book club", "a biography of Curie", "poetry",
              "a fantasy series", "the library card", "an audiobook", "a cookbook"],
    "tech": ["a new laptop", "the home server", "a broken phone screen", "password manager",
             "a smart thermostat", "backup drives", "the router", "a 3D printer"],
    "money": ["the mortgage", "a savings plan", "tax returns", "a budget spreadsheet",
              "the car loan", "index funds", "an insurance claim", "the electricity bill"],
    "sports": ["the football match", "tennis practice", "a climbing gym", "swimming laps",
               "a cycling race", "the ski trip", "basketball league", "a rowing club"],
    "art": ["a watercolour class", "the pottery wheel", "an oil painting", "a sketchbook",
            "the photography club", "a gallery opening", "charcoal portraits", "a mural"],
    "learning": ["Spanish lessons", "a statistics course", "the driving test", "calculus",
                 "a coding bootcamp", "Japanese kanji", "a history podcast", "chess openings"],
    "home": ["the leaking roof", "a new sofa", "painting the hallway", "the noisy neighbours",
             "a broken boiler", "the kitchen renovation", "spring cleaning", "a bookshelf"],
}
NAMES = ["Anna", "Ben", "Carla", "Dmitri", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas",
         "Kemi", "Luca", "Maya", "Nils", "Olga", "Pedro", "Quinn", "Rosa", "Sami", "Tess"]
PLACES = ["Berlin", "the lake", "downtown", "the office", "Porto", "the park", "Oslo", "home",
          "the community centre", "Marseille", "the old town", "the campus"]
TIMES = ["last weekend", "yesterday", "on Monday", "in March", "two weeks ago", "this morning",
         "last summer", "on my birthday", "after work", "over the holidays"]
FEELINGS = ["excited", "nervous", "proud", "tired", "relieved", "frustrated", "curious", "happy"]
ADJS = ["wonderful", "tricky", "exciting", "stressful", "lovely", "ambitious", "surprising"]

USER = [
    "I spent {time} on {thing} with {name} in {place}.",
    "Do you remember {thing}? I'm feeling {feeling} about it.",
    "{name} told me {time} that {thing} in {place} was a mistake.",
    "Quick update: {thing} is finally done and I feel {feeling}.",
    "I want to plan {thing} for next month, maybe with {name}.",
    "Can you help me think about {thing}? {name} has a different opinion.",
    "{time} I tried {thing} for the first time in {place}.",
    "I keep postponing {thing} and {other}; any advice?",
]
ASSISTANT = [
    "That sounds {adj}! How did {name} react to {thing}?",
    "You mentioned {other} before; is {thing} related to it?",
    "Being {feeling} about {thing} is natural. What is the next step?",
    "A {adj} plan. Would {place} be a good place for {thing}?",
    "Let's break {thing} into small steps and start {time}.",
    "I remember you liked {other}. Maybe {thing} can work the same way.",
]
QUERY = [
    "What did I tell you about {thing}?",
    "When did I go to {place} with {name}?",
    "How was I feeling about {thing}?",
    "What advice did you give me on {thing} and {other}?",
    "Who came along for {thing}?",
]


def _fill(rng: random.Random, template: str, topic: str) -> str:
    vocab = TOPICS[topic]
    thing, other = rng.sample(vocab, 2)
    return template.format(thing=thing, other=other, name=rng.choice(NAMES),
                           place=rng.choice(PLACES), time=rng.choice(TIMES),
                           feeling=rng.choice(FEELINGS), adj=rng.choice(ADJS))


def exchanges(n: int, seed: int = 7, segment_size: int = 50) -> list[tuple[str, str, str]]:
    """n (topic, user, assistant) triples; runs of `segment_size` share one topic."""
    rng = random.Random(seed)
    names = sorted(TOPICS)
    out = []
    for start in range(0, n, segment_size):
        topic = rng.choice(names)
        for _ in range(min(segment_size, n - start)):
            u = _fill(rng, rng.choice(USER), topic)
            a = _fill(rng, rng.choice(ASSISTANT), topic)
            out.append((topic, u[0].upper() + u[1:], a))
    return out


def queries(n: int, seed: int = 99) -> list[str]:
    """n varied questions over the same vocabulary."""
    rng = random.Random(seed)
    names = sorted(TOPICS)
    return [_fill(rng, rng.choice(QUERY), rng.choice(names)) for _ in range(n)]


def messages(n: int, seed: int = 11) -> list[str]:
    """n varied user messages for chat replay."""
    rng = random.Random(seed)
    names = sorted(TOPICS)
    out, topic = [], rng.choice(names)
    for i in range(n):
        if i % 6 == 0:
            topic = rng.choice(names)
        out.append(_fill(rng, rng.choice(USER + QUERY), topic))
    return out
