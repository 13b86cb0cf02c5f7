"""LongMemEval imports (dates, roles, refs, choice) and long turns cut, not refused, in every format."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from memoryos_core import ImportFormatError, InvalidInput

LIMIT = 20000
LONG = 76000


def moment(text: str) -> float:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=dt.UTC).timestamp()


def exchanges(engine, user="u1") -> dict[int, dict]:
    """Every stored exchange of a user (short-term, pending and filed pages) by id."""
    state = engine.state(user)
    rows = state["short_term"]["exchanges"] + state["mid_term"]["pending_pages"]
    rows += [p for seg in state["mid_term"]["segments"] for p in seg["pages"]]
    return {r["id"]: r for r in rows}


def test_longmemeval_import_keeps_dates_roles_and_turn_refs(engine, longmemeval_file):
    data = longmemeval_file.read_bytes()
    preview = engine.preview_import("u1", data)
    assert preview["format"] == "longmemeval" and preview["to_import"] == 6
    assert preview["chosen"] == {"field": "question_id", "id": "lme-car", "of": 2}
    report = engine.import_dialogue("u1", data)
    assert report["format"] == "longmemeval" and report["imported"] == 6 and report["cut"] == []
    assert report["skipped"] == [{"where": "session 3 turn 4", "reason": "the turn has no text"}]
    rows = exchanges(engine)
    by_ref = {ref: rows[ex_id] for ex_id, ref in report["refs"].items()}
    assert sorted(by_ref) == ["D1:1,D1:2", "D1:3,D1:4", "D2:1", "D2:2,D2:3", "D3:1,D3:2,D3:3",
                              "D4:1,D4:2"]
    # each session at its own date; a small step per exchange keeps the order inside it
    assert by_ref["D1:1,D1:2"]["timestamp"] == moment("2023-05-02 10:15")
    assert by_ref["D1:3,D1:4"]["timestamp"] == moment("2023-05-02 10:15") + 1
    assert by_ref["D3:1,D3:2,D3:3"]["timestamp"] == moment("2023-06-01 08:30")
    # sessions 2 and 4 share a minute: session 4 follows session 2 instead of interleaving
    assert by_ref["D2:1"]["timestamp"] < by_ref["D2:2,D2:3"]["timestamp"] \
        < by_ref["D4:1,D4:2"]["timestamp"] < moment("2023-05-09 18:41")
    # a session opened by the assistant, and two user turns in a row (one turn): no text lost
    assert (by_ref["D2:1"]["user"], by_ref["D2:1"]["assistant"]) == (
        "", "Welcome back! How did the hike go?")
    assert by_ref["D3:1,D3:2,D3:3"]["user"] == (
        "I finally sold the Panda and bought a blue Volvo estate.\n"
        "It has room for the dog crate too.")
    # the whole history, in time order, is the short-term queue (capacity 7)
    short = engine.state("u1")["short_term"]["exchanges"]
    assert [e["user"][:12] for e in short][-1] == "I finally so"
    again = engine.import_dialogue("u1", data, fmt="longmemeval")
    assert again["imported"] == 0 and len(again["skipped"]) == 7


def test_longmemeval_select_picks_a_question_by_id(engine, longmemeval_file):
    report = engine.import_dialogue("u1", longmemeval_file.read_bytes(), fmt="longmemeval",
                                    select="lme-city")
    assert report["imported"] == 2 and report["chosen"]["id"] == "lme-city"
    assert sorted(report["refs"].values()) == ["D1:1,D1:2", "D2:1,D2:2"]
    first = min(e["timestamp"] for e in exchanges(engine).values())
    assert first == moment("2023-04-03 20:05")


@pytest.mark.parametrize("change, message", [
    (lambda d: d, "no question 'nope' in this file"),
    (lambda d: d[0]["haystack_dates"].pop(), "one date per session"),
    (lambda d: d[0]["haystack_dates"].__setitem__(1, "May 9th"), "haystack_dates[1]: date"),
    (lambda d: d[0]["haystack_dates"].__setitem__(1, "2023/02/30 (Thu) 10:00"),
     "not a valid date"),
    (lambda d: d[0]["haystack_sessions"][2].__setitem__(0, "hello"), "session 3 turn 1"),
    (lambda d: d[0]["haystack_sessions"][0][1].__setitem__("content", 5),
     "session 1 turn 2: field 'content' must be text"),
])
def test_longmemeval_malformed_is_a_clear_error_and_writes_nothing(engine, change, message,
                                                                  longmemeval_doc):
    doc = longmemeval_doc
    change(doc)
    with pytest.raises(ImportFormatError, match=re.escape(message)):
        engine.import_dialogue("u1", json.dumps(doc), select="nope" if "nope" in message
                               else None)
    assert exchanges(engine) == {} and engine.versions("u1") == []


# -- long turns: cut with a note, listed in the report, never a failed import ----------------

def long_text() -> str:
    """A made-up pasted document of exactly 76,000 characters; its last words get cut."""
    lines, n = [], 0
    while sum(len(x) + 1 for x in lines) < LONG:
        lines.append(f"Clause {n}: the tenant keeps the garden tidy and pays rent monthly.")
        n += 1
    text = "LEASE AGREEMENT\n" + "\n".join(lines)
    return text[: LONG - len(" TAILWORD")] + " TAILWORD"


def with_long_turn(fmt: str, text: str, locomo: list, lme: list) -> tuple[str, int, str, str]:
    """(document, exchanges it holds, where the long user turn is, its reply) for a format."""
    if fmt == "transcript":
        doc = f"User: hello\nAssistant: hi there\nUser: {text}\nAssistant: I read it all.\n"
        return doc, 2, "line 3", "I read it all."
    if fmt == "playground":
        return json.dumps([{"user_input": "hi", "agent_response": "hello", "timestamp": 1},
                           {"user_input": text, "agent_response": "Read.", "timestamp": 60}]), \
            2, "item 1", "Read."
    if fmt == "chatgpt":
        def node(i, role, body, parent, child):
            return {"id": i, "parent": parent, "children": [child] if child else [], "message": {
                "id": i, "author": {"role": role}, "content": {"parts": [body]},
                "create_time": 1_700_000_000 + len(i)}}
        mapping = {"a": node("a", "user", "Please read my lease", None, "bb"),
                   "bb": node("bb", "assistant", "Send it over.", "a", "ccc"),
                   "ccc": node("ccc", "user", text, "bb", "dddd"),
                   "dddd": node("dddd", "assistant", "It says rent is monthly.", "ccc", None)}
        return json.dumps([{"mapping": mapping, "current_node": "dddd"}]), 2, \
            "conversation 1 ccc", "It says rent is monthly."
    if fmt == "locomo":
        doc = locomo[:1]
        doc[0]["conversation"]["session_2"][1]["text"] = text  # a turn of Ana, the user
        reply = doc[0]["conversation"]["session_2"][2]["text"]
        return json.dumps(doc), 22, "session_2[1]", reply
    doc = lme
    doc[0]["haystack_sessions"][0][0]["content"] = text
    return json.dumps(doc), 6, "session 1 turn 1", doc[0]["haystack_sessions"][0][1]["content"]


@pytest.mark.parametrize("fmt", ["transcript", "playground", "chatgpt", "locomo",
                                 "longmemeval"])
def test_long_turn_is_cut_with_a_note_and_reported(engine, fmt, locomo_file, longmemeval_doc):
    text = long_text()
    assert len(text) == LONG
    locomo = json.loads(locomo_file.read_text())
    doc, count, where, reply = with_long_turn(fmt, text, locomo, longmemeval_doc)
    preview = engine.preview_import("u1", doc)
    assert preview["format"] == fmt and preview["to_import"] == count
    assert [(c["where"], c["side"], c["chars"]) for c in preview["cut"]] == [(where, "user", LONG)]
    report = engine.import_dialogue("u1", doc)
    assert report["imported"] == count and report["max_text_chars"] == LIMIT
    [cut] = report["cut"]
    assert (cut["where"], cut["side"], cut["chars"]) == (where, "user", LONG)
    assert cut["cut"] == preview["cut"][0]["cut"] > LONG - LIMIT
    rows = exchanges(engine)
    assert len(rows) == count
    stored = rows[cut["exchange_id"]]["user"]
    note = f" [... cut: {cut['cut']:,} more characters not stored]"
    assert stored.endswith(note) and len(stored) <= LIMIT
    head = stored[: -len(note)]
    assert text.startswith(head) and len(head) + cut["cut"] == LONG  # the report is exact
    assert "TAILWORD" not in stored and text[len(head)] in " \n"  # cut between words
    # nothing else is lost: the reply to the long turn and every other exchange are whole
    assert rows[cut["exchange_id"]]["assistant"] == reply
    others = [(r["user"], r["assistant"]) for i, r in rows.items() if i != cut["exchange_id"]]
    assert len(others) == count - 1 and all(len(u) + len(a) < 300 for u, a in others)


def test_long_texts_outside_imports_keep_their_clear_error(engine):
    with pytest.raises(InvalidInput, match="over the limit of 20000"):
        engine.add_exchange("u1", "x" * (LIMIT + 1), "fine")
    with pytest.raises(InvalidInput, match="longer than 20000"):
        engine.chat("u1", "y" * (LIMIT + 1))
    assert exchanges(engine) == {}


def test_long_turn_cut_follows_the_configured_limit(make_engine, longmemeval_doc):
    engine = make_engine(consolidation="extractive", analysis="extractive", max_text_chars=500)
    doc = longmemeval_doc
    doc[1]["haystack_sessions"][1][1]["content"] = "Practise daily. " * 100  # the assistant
    report = engine.import_dialogue("u1", json.dumps(doc), select="lme-city")
    [cut] = report["cut"]
    assert (cut["side"], cut["ref"], cut["chars"]) == ("assistant", "D2:1,D2:2", 1599)
    stored = exchanges(engine)[cut["exchange_id"]]["assistant"]
    assert len(stored) <= 500 and stored.startswith("Practise daily. Practise")
