"""docs/architecture.md names only files and code names that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
# the code a name may live in; the docs and the README are left out, or they would vouch for
# themselves
SOURCES = ("memoryos_core", "webapp", "tests", "benchmarks")
SUFFIXES = {".py", ".html", ".js"}
# a path: a file name with a suffix, or a folder ending in a slash
PATH = re.compile(r"^[\w./-]+(?:\.(?:py|html|js|md)|/)$")
# a code name: `fit_prompt`, `MemoryEngine.chat`, `store.transaction(user_id)`
NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(.*\))?$")


def _spans() -> list[str]:
    """Every inline code span of the page outside its fenced code blocks."""
    text = re.sub(r"```.*?```", "", DOC.read_text(), flags=re.S)
    return re.findall(r"`([^`\n]+)`", text)


def _source_words() -> set[str]:
    """Every word written in the project's code, templates and tests."""
    found: set[str] = set()
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in SUFFIXES and "fixtures" not in path.parts:
                found.update(re.findall(r"\w+", path.read_text(errors="replace")))
    return found


def _exists(path: str) -> bool:
    """A path from the repository root, the package, or the templates folder."""
    bases = (ROOT, ROOT / "memoryos_core", ROOT / "webapp" / "templates")
    return any((base / path).exists() for base in bases)


def test_every_path_the_page_names_exists():
    paths = [s for s in _spans() if PATH.match(s)]
    assert len(paths) > 40  # the page names its modules: a change that lost them fails too
    assert [p for p in paths if not _exists(p)] == []


def test_every_code_name_the_page_uses_is_in_the_code():
    words = _source_words()
    # a code name has an underscore, a capital after the first letter or a dot; plain words
    # (`chat`, `auto`) are settings values and event names
    names = [s for s in _spans() if NAME.match(s) and not PATH.match(s)
             and re.search(r"_|\.|[a-z][A-Z]", s.split("(")[0])]
    missing = [n for n in names
               if not all(part in words for part in n.split("(")[0].split("."))]
    assert len(names) > 40
    assert missing == []


def test_the_readme_links_the_page():
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()
