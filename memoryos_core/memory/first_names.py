"""Whether a given name is usually a woman's or a man's, for telling relatives told by name apart.

"I have two children. Richard is 55 and a barrister in London. Helen is 52 and works as a vet
in York." answers "Where does my daughter live?" only if Helen is taken for the daughter. The
table (data/first_names.tsv) holds 52,443 given names seen at least 100 times in the records
that nomquamgender gathered (Van Buskirk, Clauset and Larremore, 2022, MIT licence; rebuilt by
`python -m benchmarks.first_names_table`), each with the sex four in five of its bearers or
more share; a name of no clear sex ("Sam", "Ola", "Robin") or not in it is not guessed.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib import resources


@functools.cache
def _table() -> dict[str, str]:
    """Each name (lower case, no accents) with "f" or "m"."""
    text = resources.files(__package__).joinpath("data/first_names.tsv").read_text("utf-8")
    return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)


def usual_sex(name: str) -> str | None:
    """"f" or "m" where most people of this given name are women or men, else None."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name.strip().lower())
                    if not unicodedata.combining(ch))
    return _table().get(plain)
