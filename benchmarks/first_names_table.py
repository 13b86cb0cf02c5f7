"""Rebuilds memoryos_core/memory/data/first_names.tsv from nomquamgender's name table.

nomquamgender (Van Buskirk, Clauset and Larremore, 2022; MIT licence) publishes, for about
720,000 given names, how often each was seen with a gender in many countries' records. The
answer layer needs only whether a name is usually a woman's or a man's, to tell which of the
children told by name a question on "my daughter" asks about; the table keeps the names seen
at least MIN_COUNT times whose share is clear (at most SURE_MALE or at least SURE_FEMALE).

    pip download --no-deps nomquamgender==0.1.4 && unzip nomquamgender-0.1.4-py3-none-any.whl
    python -m benchmarks.first_names_table nomquamgender/name_data.json
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from . import common

MIN_COUNT = 100  # records a name is seen in, at least
SURE_FEMALE = 0.8  # share of records of women, at least
SURE_MALE = 0.2  # share of records of women, at most
OUT = common.ROOT / "memoryos_core" / "memory" / "data" / "first_names.tsv"


def table(data: dict[str, list]) -> list[tuple[str, str]]:
    """(name, "f" or "m") of each clearly gendered name seen often enough, sorted."""
    out = []
    for name, (_, count, share, *_) in data.items():
        if count >= MIN_COUNT and re.fullmatch(r"[a-z][a-z'-]+", name) and (
                share >= SURE_FEMALE or share <= SURE_MALE):
            out.append((name, "f" if share >= SURE_FEMALE else "m"))
    return sorted(out)


def main() -> None:
    """Reads nomquamgender's name_data.json and writes the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name_data", type=Path)
    args = parser.parse_args()
    rows = table(json.loads(args.name_data.read_text(encoding="utf-8")))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(f"{n}\t{g}\n" for n, g in rows), encoding="utf-8")
    print(f"{len(rows)} names -> {OUT}")


if __name__ == "__main__":
    main()
