"""The words of the animals people keep, by what each one covers.

"What's my dog called?" is answered by "We have a border collie named Bran", "my cat" by "a
grey tomcat called Moritz": people name a pet by its breed or a casual word and ask by its
kind, and literal matching (`slot.met`) sees no tie, while MiniLM puts "collie" as near a
"donkey" as a "dog". As with kinship.py, the table is the language's words, not a list fitted
to questions: a kind covers itself, its informal forms and its breeds (words that name other
things more often, "lab", "boxer", "pointer", "Russell", "Maltese", "Persian", are left out).
"""

from __future__ import annotations

import functools

from ..text import stem

_KINDS = {
    "dog": "dog doggo doggy dug pup puppy pooch hound mutt perro perrito labrador "
           "retriever terrier spaniel poodle beagle basset husky shepherd bulldog dachshund "
           "staffy staffie whippet greyhound chihuahua pug schnauzer corgi rottweiler "
           "doberman collie sheepdog cocker kelpie heeler boerboel elkhound "
           "labradoodle cockapoo cavapoo weimaraner dalmatian mastiff pitbull "
           "akita shiba samoyed malamute vizsla lurcher aspin inu hund",
    "cat": "cat kitty kitten moggy moggie tomcat tabby siamese ragdoll sphynx "
           "gato katze neko pusa",
    "bird": "bird birdie budgie budgerigar parakeet parrot cockatiel cockatoo canary "
            "lovebird finch macaw conure",
    "rabbit": "rabbit bunny",
    "horse": "horse pony mare stallion gelding foal",
    "fish": "fish goldfish betta guppy",
}
_KINDS["pet"] = _KINDS["animal"] = " ".join(_KINDS.values()) + \
    " tortoise turtle hamster snake lizard donkey goat guinea"


# met whole, never as a longer or shorter word ("grey" is no "greyhound", "pug" no "pugilist")
EXACT = frozenset(stem(w) for words in _KINDS.values() for w in words.split())


@functools.lru_cache(maxsize=1024)
def kind_words(word: str) -> tuple[str, ...]:
    """The words naming an animal of the kind `word` names ("dog" -> collie, pup…), itself
    among them; empty for a word that names no kind of animal."""
    low = word.lower().removesuffix("'s").removesuffix("s") if word.lower() not in _KINDS \
        else word.lower()
    if low not in _KINDS:
        return ()
    return tuple(sorted(set(_KINDS[low].split()) | {low}))


@functools.lru_cache(maxsize=1024)
def covered(word: str) -> frozenset[str]:
    """The stems of `kind_words`, to meet the stems of a sentence's words."""
    return frozenset(stem(w) for w in kind_words(word))
