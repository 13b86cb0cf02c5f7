"""The benchmark harness runs at its --quick sizes and its numbers are sane (not timed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed

from benchmarks import cost, locomo_eval, overhead, retrieval, sql_per_turn  # noqa: E402
from benchmarks.common import LocomoDataMissing, load_locomo, locomo_path  # noqa: E402


@pytest.fixture
def out(tmp_path):
    return tmp_path / "results"


def test_benchmarks_retrieval_reports_latency_and_floor(embedder, out):
    result = retrieval.run([1000], n_queries=10, emb=embedder, out=out)
    for key in ("pages", "p50_ms", "p95_ms", "floor_p50_ms", "p50_no_embed_ms", "open_store_s",
                "cold_open_store_s", "index_build_s", "warm_index_load_s", "ratio_p50",
                "machine", "versions", "settings", "date"):
        assert key in result
    assert result["pages"] == 1000 and result["index_ready"] and result["reopen_same_pages"]
    assert 0 < result["p50_ms"] <= result["p95_ms"]
    assert result["floor_p50_ms"] > 0 and result["pages_selected_median"] > 0
    assert (out / "retrieval.json").exists() and (out / "retrieval.md").exists()


def test_benchmarks_retrieval_runs_on_postgresql(embedder, out, postgres_url):
    """The same benchmark on a fresh PostgreSQL database; its user is deleted at the end."""
    import psycopg

    result = retrieval.run([300], n_queries=5, emb=embedder, out=out, url=postgres_url)
    with psycopg.connect(postgres_url) as conn:
        left = conn.execute("SELECT count(*) FROM exchanges").fetchone()[0]
    assert result["backend"] == "postgresql" and result["pages"] == 300
    assert result["page_index"].startswith("pgvector")
    assert 0 < result["p50_ms"] <= result["p95_ms"] and result["pages_selected_median"] > 0
    assert (out / "retrieval_postgresql.json").exists() and left == 0


def test_benchmarks_overhead_counts_maintenance_calls(embedder, out):
    result = overhead.run(turns=20, emb=embedder, out=out)
    assert 0 < result["p50_ms"] <= result["p95_ms"]
    assert result["model_calls"]["answer"] == 21  # 20 turns + the warm-up
    assert result["model_calls"].get("consolidation", 0) >= 1


def test_benchmarks_sql_per_turn_counts_one_write_transaction_per_chat_turn(embedder):
    result = sql_per_turn.run(emb=embedder)
    for layout in result["layouts"]:
        # the turn's state is read once: at most 20 statements, BEGIN and COMMIT included, in
        # one write transaction (was 38-67 in two); 2 more where the question names someone
        # the user named ("my sister" -> Mara: her name is searched too)
        assert layout["max_write_transactions"] == 1
        assert 10 <= layout["median_statements"] <= 20, layout
        assert layout["max_statements"] <= 22, layout
    compact, chat = (next(r for r in result["layouts"] if r["layout"] == name)
                     for name in ("compact", "chat"))
    # the small model's memory is retrieved once at its own budget, not twice
    assert compact["median_statements"] <= chat["median_statements"] + 3


def test_benchmarks_cost_counts_calls_per_exchange(embedder, out, locomo_file):
    result = cost.run([locomo_file], conversations=1, sessions=5, mode="chat", emb=embedder,
                      out=out)
    assert result["admitted"] > 10
    assert result["by_purpose"]["answer"]["calls"] == result["admitted"]
    assert result["by_purpose"]["consolidation"]["calls"] >= 1
    assert 0 < result["maintenance_calls_per_exchange"] < 3


def test_benchmarks_locomo_recall_is_a_share(embedder, out, locomo_file):
    result = locomo_eval.run([locomo_file], ("extractive",), conversations=1, question_stride=1,
                             emb=embedder, out=out)
    summary = result["modes"]["extractive"]["summary"]
    assert set(summary) >= {"memoryos", "flat", "recent", "full"}
    for entry in summary.values():
        assert entry["with_evidence"] == 10
        assert 0.0 <= entry["recall"] <= 1.0
        assert entry["median_tokens"] > 0
        assert all(0.0 <= v <= 1.0 for v in entry["by_category"].values())
    imports = result["modes"]["extractive"]["imports"][0]
    assert imports["imported"] == 22 and sum(imports["model_calls"].values()) == 0


def test_benchmarks_locomo_data_from_argument_or_env(monkeypatch, tmp_path, locomo_file):
    monkeypatch.setenv("MEMORYOS_LOCOMO", str(locomo_file))
    assert locomo_path() == locomo_file
    assert [c["sample_id"] for _, c in load_locomo(None)] == ["demo-ana", "demo-gina"]
    monkeypatch.setenv("MEMORYOS_LOCOMO", str(tmp_path / "missing.json"))
    with pytest.raises(LocomoDataMissing, match="MEMORYOS_LOCOMO"):
        locomo_path()
    with pytest.raises(LocomoDataMissing, match="does not exist"):
        load_locomo([tmp_path / "nope.json"])
    assert "/work" not in (Path(__file__).parents[1] / "benchmarks" / "common.py").read_text()


def test_benchmarks_locomo_scoring_follows_official_rules():
    from benchmarks import locomo_scoring as s

    assert s.score({"category": 4, "answer": "The red bicycle"}, "a red bicycle")["f1"] == 1.0
    assert s.score({"category": 5, "adversarial_answer": "x"}, "Not mentioned.")["f1"] == 1.0
    assert s.score({"category": 3, "answer": "yes; because"}, "yes")["f1"] == 1.0
    multi = s.score({"category": 1, "answer": "Paris, Rome"}, "Paris")["f1"]
    assert 0.4 < multi < 0.6
    assert 0 < s.bleu1("red bicycle", "the red bicycle parked") < 1


def test_benchmarks_memory_quality_counts_grounded_texts_and_rejected_echoes(embedder, out,
                                                                            locomo_file):
    from benchmarks import memory_quality
    from memoryos_core.testing import ScriptedChatModel, fill_schema

    junk = "Reply with JSON. The next topic is [topic2]"

    def echoing(messages, schema):  # a small model copying our instructions into every field
        props = schema["properties"]
        if "user_facts" in props:
            page = props["user_facts"]["items"]["properties"]["pages"]["items"]["enum"][0]
            return json.dumps({"user_facts": [{"fact": "who they are, what they did",
                                               "pages": [page]}], "assistant_facts": []})
        if "dimensions" in props:
            item = props["dimensions"]["items"]["properties"]
            return json.dumps({"dimensions": [{
                "dimension": item["dimension"]["enum"][0], "level": "Low",
                "reason": "Energetic and energetic behaviors",
                "evidence": [item["evidence"]["items"]["enum"][0]]}]})
        return json.dumps(fill_schema(schema, junk))

    result = memory_quality.run([locomo_file], conversation=0, modes=("extractive", "llm"),
                                model=ScriptedChatModel(default=echoing), emb=embedder, out=out)
    extractive, llm = result["runs"]
    assert extractive["grounded_share"] == 1.0 and extractive["echoes"] == 0
    assert extractive["by_kind"]["summary"]["count"] >= 1
    assert extractive["by_kind"]["fact"]["count"] >= 1
    assert llm["echoes"] == 0 and llm["grounded_share"] == 1.0  # nothing echoed was stored
    assert llm["fallbacks"]["consolidation"] >= 1 and llm["fallbacks"]["analysis"] >= 1
    assert (out / "memory_quality.md").exists()


def test_benchmarks_longmemeval_to_locomo_layout_feeds_locomo_eval(embedder, out, tmp_path,
                                                                   longmemeval_file):
    from benchmarks import longmemeval_data, longmemeval_to_locomo

    questions = longmemeval_data.load_longmemeval(longmemeval_file)
    car, city = questions
    assert longmemeval_data.evidence_ids(car) == ["D3:1"]  # the has_answer turn
    assert longmemeval_data.evidence_ids(city) == ["D1:1", "D1:2"]  # its answer session
    assert longmemeval_data.question_time(car) == 1687251600.0  # 2023/06/20 (Tue) 09:00 UTC
    sample = longmemeval_data.to_locomo(car)
    conv = sample["conversation"]
    assert (sample["sample_id"], conv["speaker_a"], conv["speaker_b"]) == ("lme-car", "User",
                                                                           "Assistant")
    assert conv["session_3_date_time"] == "8:30 am on 1 June, 2023"
    assert conv["session_2"][0] == {"speaker": "Assistant", "dia_id": "D2:1",
                                    "text": "Welcome back! How did the hike go?"}
    [qa] = sample["qa"]
    assert (qa["evidence"], qa["category"], qa["question_type"], qa["question_date"]) == (
        ["D3:1"], 1, "knowledge-update", "2023/06/20 (Tue) 09:00")
    assert longmemeval_data.category({"question_id": "x_abs",
                                      "question_type": "temporal-reasoning"}) == 5

    converted = tmp_path / "lme_locomo.json"
    assert longmemeval_to_locomo.main([str(longmemeval_file), str(converted)]) == 0
    assert [s["sample_id"] for s in json.loads(converted.read_text())] == ["lme-car", "lme-city"]
    with pytest.raises(SystemExit):
        longmemeval_to_locomo.main([str(longmemeval_file), str(converted), "--ids", "nope"])

    # the LoCoMo importer reads the layout with "User" as the user side, as the engine's own
    # LongMemEval import does: the same exchanges under the same turn refs
    from benchmarks.common import instant_model, make_engine

    engine = make_engine(tmp_path / "e", model=instant_model(), emb=embedder)
    as_locomo = engine.import_dialogue("a", converted.read_bytes(), fmt="locomo",
                                       select="lme-car", maintain=False)
    native = engine.import_dialogue("b", longmemeval_file.read_bytes(), maintain=False)
    assert sorted(as_locomo["refs"].values()) == sorted(native["refs"].values())

    def pairs(user):
        return sorted((e["user"], e["assistant"]) for e in engine.state(user)["short_term"]
                      ["exchanges"])
    assert pairs("a") == pairs("b")
    assert ("I finally sold the Panda and bought a blue Volvo estate.\nIt has room for the dog"
            " crate too.", "Congratulations on the Volvo! Estates are great with a dog.") \
        in pairs("a")  # the user's two turns in a row are one turn
    engine.store.close()

    result = locomo_eval.run([converted], ("extractive",), conversations=1, emb=embedder,
                             out=out)
    summary = result["modes"]["extractive"]["summary"]
    assert summary["memoryos"]["with_evidence"] == 1  # the has_answer turn was mapped
    assert 0.0 <= summary["memoryos"]["recall"] <= 1.0
    assert result["modes"]["extractive"]["imports"][0]["imported"] == 6


def _lamp_history() -> list[dict]:
    """A made-up LongMemEval question whose answer needs its question_date as 'now'.

    Two lamp purchases: the older one says more of the question's words; the answer is the one
    bought the day before the question was asked, followed by 7 exchanges (short-term).
    """
    def session(day: int, hour: int, user: str, answer: bool = False) -> tuple[str, list[dict]]:
        return (f"2023/05/{day:02d} (Mon) {hour:02d}:00",
                [{"role": "user", "content": user, "has_answer": answer},
                 {"role": "assistant", "content": "Noted, thanks for telling me."}])

    topics = ["Any tips for a sourdough starter?", "How do I repot a fern?",
              "What is a good stretch for the back?", "Suggest a podcast about history.",
              "How long should I boil an egg?", "Recommend a board game for four.",
              "What is the capital of Peru?", "How do I clean a cast iron pan?"]
    sessions = [session(3, 9, "I bought a brass desk lamp yesterday.")]
    sessions += [session(4 + n, 10, t) for n, t in enumerate(topics)]
    sessions.append(session(12, 8, "Got a green lamp at IKEA this morning.", answer=True))
    sessions += [session(12, 10 + n, f"Quick one: {t}") for n, t in enumerate(topics[:7])]
    return [{"question_id": "lme-lamp", "question_type": "temporal-reasoning",
             "question": "Which desk lamp did I buy yesterday?", "answer": "a green lamp",
             "question_date": "2023/05/13 (Sat) 09:00",
             "haystack_session_ids": [f"s{n}" for n in range(len(sessions))],
             "haystack_dates": [d for d, _ in sessions],
             "haystack_sessions": [s for _, s in sessions],
             "answer_session_ids": ["s9"]}]


def test_benchmarks_longmemeval_asks_at_the_question_date_and_reports_per_type(
        embedder, out, tmp_path, longmemeval_file):
    from benchmarks import longmemeval

    result = longmemeval.run([str(longmemeval_file)], emb=embedder, out=out)
    assert result["settings"]["now"] == "question_date"
    assert set(result["by_type"]) == {"knowledge-update", "single-session-user"}
    records = result["records"]
    assert {r["strategy"] for r in records} == set(longmemeval.locomo_eval.STRATEGIES)
    assert all(0.0 <= r["recall"] <= 1.0 for r in records if r["recall"] is not None)
    assert (out / "longmemeval.json").exists() and (out / "longmemeval.md").exists()

    lamp = tmp_path / "lamp.json"
    lamp.write_text(json.dumps(_lamp_history()), encoding="utf-8")
    # a memory budget of one page: only the page bought "yesterday" (May 12) answers it
    result = longmemeval.run([str(lamp)], budget=46, emb=embedder, write=False)
    product = [r for r in result["records"] if r["strategy"] == "memoryos"]
    assert [r["recall"] for r in product] == [1.0]
    assert result["by_type"]["temporal-reasoning"]["memoryos"] == 1.0


@pytest.mark.real_model  # "what is my cat called" must find the kitten: retrieval by meaning
def test_benchmarks_answers_scores_three_prompts_and_the_first_impression(embedder, locomo_file):
    from benchmarks import answers
    from memoryos_core.testing import ScriptedChatModel

    def parrot(messages, schema):  # a small model that says the question back
        return messages[-1]["content"].split("User's message: ")[-1].split("\n")[0]

    model = ScriptedChatModel(default=parrot, name="parrot", context_window=4096)
    model.embedded = True  # the compact layout and its guard, as for the embedded model
    result = answers.run([str(locomo_file)], 1, None, 60, None, None, emb=embedder, llm=model)
    s = result["summary"]
    assert {r["strategy"] for r in result["records"]} == set(answers.STRATEGIES)
    # the question said back never reaches the user: memory answered, or a plain reply
    assert all(r["source"] in ("memory", "no memory", "plain") for r in result["records"])
    assert not any(r["echo"] for r in result["records"])
    assert s["memoryos"]["questions"] == s["none"]["questions"] >= 1
    assert 0.0 <= s["memoryos"]["f1"] <= 1.0
    impression = result["first_impression_total"]
    assert impression["asked"] == 2 * len(answers.FACTS)
    # questions on memory are answered from memory: the fact in the answer itself, alone
    assert impression["answered"] >= 2 * len(answers.FACTS) - 2
    assert impression["repeats"] == impression["mixed"] == impression["echoes"] == 0



@pytest.mark.real_model  # which messages the model gets is the learned router's (MiniLM)
def test_benchmarks_new_user_runs_both_sides_and_counts_what_a_reader_notices(embedder):
    from benchmarks import new_user
    from memoryos_core.testing import ScriptedChatModel

    model = ScriptedChatModel(["Why did the bat blink? It was a bat.",
                               "Paris is the capital of France.", "Try a lentil soup."],
                              default="Okay.", name="small", context_window=4096)
    model.embedded = True  # type: ignore[attr-defined]
    result = new_user.run(model, embedder)
    product, baseline = result["product"], result["model_for_small_talk"]
    assert product["turns"] == baseline["turns"] == len(new_user.CHAT)
    # the set replies keep greetings, facts told and thanks from the model (a feeling the
    # router is unsure of is the model's): the joke, the capital and the recipe reach it
    assert 3 <= product["model_calls"] <= 4 < baseline["model_calls"]
    said = {t["message"]: t for t in result["runs"][0]["answers"]}
    assert result["runs"][0]["set_replies"] is True
    assert said["What's my name?"]["right"] and said["Hi!"]["right"]
    assert said["What's the capital of France?"]["right"]  # the model's, and it holds Paris
    # the small model's habit of speaking the user's life as its own is what the check counts
    assert new_user.takes_user_for_itself("I'm Sarah, a skilled nurse in Bristol.")
    assert not new_user.takes_user_for_itself("Got it: you work as a nurse in Bristol.")
