"""Newcomer chats, end to end: every turn through `engine.chat` as the browser sends it.

Each chat of benchmarks/data/ (written for this check: people telling facts in passing, asking
for advice about themselves, asking about their partner, siblings, pets and plans in other
words than they told them, asking what they never told) is sent turn by turn to a fresh memory
with the embedded-model layout, and each answer is read as its user would:
- a request or small talk must not get a memory line or "I don't remember";
- a question on a told fact must be answered with it (a confident answer, or "I'm not sure.
  You told me: …" naming it, counted apart), never with another fact;
- a question on something never told must not be answered with another fact.
The default chat model is a scripted stand-in flagged as the embedded one (what it writes is
not judged here, only whether it was asked); `--real` uses SmolLM2 itself.

`--casual` sends every message as people type on a phone: lower case, contractions without
their apostrophe ("im", "dont"), so no rule may lean on a capital letter or an apostrophe.

    python -m benchmarks.newcomer_chats [--set heldout|dev | --chats FILE] [--casual] [--real]
        [--json] [--show]
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from . import common

DATA = Path(__file__).resolve().parent / "data"
MODEL_SOURCES = ("model", "retry", "plain")
DONT = "I don't remember"
NOT_SURE = "I'm not sure this answers it"
# the judge's own words of a change (not the product's rules): an answer that names the old
# value as replaced names it rightly
_CHANGED = re.compile(r"\b(?:now|instead|no longer|not any ?more|quit|left|stopped|discontinued|"
                      r"switched|changed|replaced|moved|sold|new|used to|before|bumped|"
                      r"upped|lowered|increased|reduced)\b", re.IGNORECASE)


def stand_in() -> Any:
    """A scripted model the engine treats as the embedded small model."""
    from memoryos_core.testing import ScriptedChatModel

    count = [0]

    def reply(messages: Any, schema: Any) -> str:
        count[0] += 1
        return f"(the small model's answer number {count[0]})"

    model = ScriptedChatModel(default=reply, name="stand-in (embedded)")
    model.embedded = True  # type: ignore[attr-defined]
    return model


def judge(turn: dict[str, Any], answer: str, source: str) -> str:
    """right, hedged (a 'not sure' naming the answer), or what went wrong."""
    low = answer.lower()
    kind = turn["kind"]
    expect = [w.lower() for w in turn.get("expect", [])]
    wrong = [w.lower() for w in turn.get("not", [])]
    from_memory = answer.startswith(("You told me", "Here is what", NOT_SURE, DONT))
    if kind in ("request", "social", "told"):
        if answer.startswith(("You told me", NOT_SURE, DONT)):
            return "memory line for a " + kind
        return "right"
    if kind == "recall":
        if source in MODEL_SOURCES:
            return "sent to the model"
        # the new value said with the old one as replaced ("discontinued the warfarin and
        # prescribed apixaban", "Jardiance now instead of the metformin") answers it
        if all(w in low for w in expect) and (not any(w in low for w in wrong) or expect and (
                _CHANGED.search(answer))):
            return "hedged" if answer.startswith(NOT_SURE) else "right"
        if answer.startswith(DONT):
            return "said it does not remember"
        return "another fact"
    if from_memory and any(w in low for w in wrong) or (answer.startswith("You told me")):
        return "another fact"
    return "right"


def casual(text: str) -> str:
    """A message as typed in a hurry: lower case, a contraction's apostrophe dropped ("I'm"
    -> "im", "don't" -> "dont"); a possessive keeps it ("my sister's")."""
    return re.sub(r"(?<=\w)['’](?=(?:m|ve|ll|d|re|t)\b)", "", text.lower())


def run_chat(chat: dict[str, Any], model: Any, emb: Any, folder: Path,
             typed: Any = None) -> list[dict[str, Any]]:
    """One chat through a fresh engine (each message as `typed` makes it); each turn with its
    answer and verdict."""
    engine = common.make_engine(folder, model=model, emb=emb, consolidation="extractive",
                                analysis="extractive")
    out = []
    for n, turn in enumerate(chat["turns"]):
        turn = {**turn, "text": typed(turn["text"])} if typed else turn
        result = dict(engine.chat("newcomer", turn["text"], model=model))
        plan = (result.get("trace") or {}).get("answer_plan") or {}
        out.append({"n": n, "text": turn["text"], "kind": turn["kind"],
                    "answer": result["answer"], "source": result["source"],
                    "route": (plan.get("routed") or {}).get("route"),
                    "verdict": judge(turn, result["answer"], result["source"])})
    engine.store.close()
    return out


def _turns(chats: list[dict[str, Any]], model: Any, emb: Any,
           typed: Any = None) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, chat in enumerate(chats):
            for t in run_chat(chat, model, emb, Path(tmp) / str(k), typed):
                turns.append({**t, "person": chat["person"]})
    return turns


def main() -> None:
    """Every chat of the set, then the counts and (with --show) every answer."""
    parser = common.base_parser(__doc__ or "")
    parser.add_argument("--set", choices=("heldout", "dev"), default="heldout")
    parser.add_argument("--real", action="store_true", help="SmolLM2 itself answers")
    parser.add_argument("--show", action="store_true", help="print every answer")
    parser.add_argument("--casual", action="store_true",
                        help="lower case, contractions without apostrophes")
    parser.add_argument("--chats", type=Path, help="another file of chats in the same form")
    args = parser.parse_args()
    files = [DATA / "newcomer_chats_heldout.json"] if args.set == "heldout" else \
        sorted(DATA.glob("newcomer_chats_dev*.json"))
    files = [args.chats] if args.chats else files
    name = args.chats.stem if args.chats else args.set
    chats = [c for f in files for c in json.loads(f.read_text())]
    emb = common.embedder()
    if args.real:
        from .answers import answer_model

        model = answer_model(None, None)
    else:
        model = stand_in()
    turns = _turns(chats, model, emb, casual if args.casual else None)
    right = sum(t["verdict"] in ("right", "hedged") for t in turns)
    by_kind: dict[str, dict[str, int]] = {}
    for t in turns:
        by_kind.setdefault(t["kind"], {}).setdefault(t["verdict"], 0)
        by_kind[t["kind"]][t["verdict"]] += 1
    firsts = [next(t for t in turns if t["person"] == c["person"]) for c in chats]
    result = common.envelope("newcomer_chats", {"set": name, "chats": len(chats),
                                                 "casual": args.casual},
                             {"embedder": emb.name, "answer": model.name})
    result.update({"turns": len(turns), "right_or_hedged": right, "by_kind": by_kind,
                   "first_turns": [{"text": t["text"], "source": t["source"],
                                    "verdict": t["verdict"]} for t in firsts],
                   "answers": turns})
    told = [t for t in turns if t["kind"] == "told"]
    # a fact told is right whoever answers it; said back ("Got it: …") the user sees it was heard
    said_back = sum(t["source"] == "courtesy" for t in told)
    result["told_said_back"] = said_back
    lines = [f"{name}{' (casual)' if args.casual else ''}: {right}/{len(turns)} turns right"
             f" (hedged counted right); told facts said back {said_back}/{len(told)}"]
    lines += [f"  {kind}: {counts}" for kind, counts in sorted(by_kind.items())]
    lines += [f"  first turn of {c['person']}: {t['source']} ({t['verdict']})"
              for c, t in zip(chats, firsts, strict=True)]
    if args.show:
        for t in turns:
            mark = "  " if t["verdict"] in ("right", "hedged") else "XX"
            lines.append(f"{mark} [{t['person']} {t['kind']}/{t['route']}] {t['text']!r}\n"
                         f"     -> {t['answer'][:160]!r} ({t['verdict']})")
    common.emit(result, args.json, "\n".join(lines))


if __name__ == "__main__":
    main()
