"""Importing a reference MemoryOS data folder (written here in its layout): CLI and web page."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from memoryos_core import EngineConfig, MemoryEngine
from memoryos_core.hosts.cli import main

from .conftest import wait_job

PROFILE = ("User profile: Extraversion ( High ) - enjoys group hikes. Tech Interest ( High ) -"
           " works with data.")


def page(pid: str, user: str, assistant: str, ts: str, prev: str | None, nxt: str | None,
         analyzed: bool = False) -> dict:
    return {"page_id": pid, "user_input": user, "agent_response": assistant, "timestamp": ts,
            "pre_page": prev, "next_page": nxt, "meta_info": f"chain about {user[:12]}",
            "page_keywords": ["k1"], "analyzed": analyzed, "preloaded": False,
            "page_embedding": [0.1] * 1024}


def write_reference(root: Path, user: str = "demo_user", assistant: str = "demo_assistant",
                    broken: bool = False) -> Path:
    """A data folder exactly as the reference library writes it."""
    udir, adir = root / "users" / user, root / "assistants" / assistant
    udir.mkdir(parents=True)
    adir.mkdir(parents=True)
    short = [{"user_input": f"Short question {n}", "agent_response": f"Short answer {n}",
              "timestamp": f"2024-06-0{n} 09:00:00"} for n in range(1, 4)]
    (udir / "short_term.json").write_text(json.dumps(short, indent=2))
    hiking = [page("page_a1", "I love hiking in the Alps.", "Which trail?", "2024-05-01 10:00:00",
                   None, "page_a2", True),
              page("page_a2", "The Eiger trail last summer.", "Impressive!",
                   "2024-05-01 10:05:00", "page_a1", None, True)]
    work = [page(f"page_b{n}", f"At work I analyse data set {n}.", "Sounds interesting.",
                 f"2024-05-02 1{n}:00:00", None, None) for n in range(1, 4)]
    if broken:
        del work[1]["user_input"]
    sessions = {
        "session_aaaa1111": {"id": "session_aaaa1111", "summary": "Hiking in the Alps",
                             "summary_keywords": ["hiking", "alps"], "summary_embedding": [0.0],
                             "details": hiking, "L_interaction": 2, "R_recency": 1.0,
                             "N_visit": 3, "H_segment": 6.0, "timestamp": "2024-05-01 10:00:00",
                             "last_visit_time": "2024-05-03 08:00:00", "access_count_lfu": 3},
        "session_bbbb2222": {"id": "session_bbbb2222", "summary": "Data science work",
                             "summary_keywords": ["data", "work"], "summary_embedding": [0.0],
                             "details": work, "L_interaction": 3, "R_recency": 1.0,
                             "N_visit": 0, "H_segment": 4.0, "timestamp": "2024-05-02 11:00:00",
                             "last_visit_time": "2024-05-02 13:00:00", "access_count_lfu": 0},
    }
    (udir / "mid_term.json").write_text(json.dumps(
        {"sessions": sessions, "access_frequency": {"session_aaaa1111": 3}}, indent=2))
    knowledge = [{"knowledge": "User works as a data scientist.", "timestamp": "2024-05-03"
                  " 08:00:00", "knowledge_embedding": [0.2] * 1024},
                 {"knowledge": "User lives in San Francisco.", "timestamp": "2024-05-03 08:00:01",
                  "knowledge_embedding": [0.2] * 1024}]
    (udir / "long_term_user.json").write_text(json.dumps({
        "user_profiles": {user: {"data": PROFILE, "last_updated": "2024-05-03 08:00:00"}},
        "knowledge_base": knowledge, "assistant_knowledge": []}, indent=2))
    (adir / "long_term_assistant.json").write_text(json.dumps({
        "user_profiles": {}, "knowledge_base": [],
        "assistant_knowledge": [{"knowledge": "The assistant recommended the Eiger trail.",
                                 "timestamp": "2024-05-01 10:06:00",
                                 "knowledge_embedding": [0.3] * 1024}]}, indent=2))
    return root


def make_engine(data: Path, embedder) -> MemoryEngine:
    return MemoryEngine(data, embedder=embedder, config=EngineConfig().replace(
        consolidation="extractive", analysis="extractive"))


def test_reference_folder_imports_with_counts_matching_its_files(tmp_path, embedder, capsys):
    ref = write_reference(tmp_path / "ref")
    data = tmp_path / "data"
    args = ["--data-dir", str(data), "--user", "tom", "-q"]
    assert main([*args, "import-reference", str(ref), "--dry-run", "--json"],
                embedder=embedder) == 0
    preview = json.loads(capsys.readouterr().out)
    assert preview["counts"] == {"short_term": 3, "segments": 2, "pages": 5, "user_facts": 2,
                                 "assistant_facts": 1, "profile_note": True}
    assert make_engine(data, embedder).state("tom")["short_term"]["count"] == 0  # dry run
    assert main([*args, "import-reference", str(ref), "--json"], embedder=embedder) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["imported"] == preview["counts"]
    state = make_engine(data, embedder).state("tom")
    assert state["short_term"]["count"] == 3
    segs = {s["summary"]: s for s in state["mid_term"]["segments"]}
    assert set(segs) == {"Hiking in the Alps", "Data science work"}
    hike = segs["Hiking in the Alps"]
    assert hike["n_visit"] == 3 and hike["unanalysed_pages"] == 0
    assert [p["user"] for p in hike["pages"]] == ["I love hiking in the Alps.",
                                                  "The Eiger trail last summer."]
    first, second = hike["pages"]
    assert first["next_id"] == second["id"] and second["prev_id"] == first["id"]
    assert first["overview"].startswith("chain about")
    assert first["timestamp"] < second["timestamp"]
    assert [f["text"] for f in state["long_term"]["user_facts"]] == [
        "User works as a data scientist.", "User lives in San Francisco."]
    assert [f["text"] for f in state["long_term"]["assistant_facts"]] == [
        "The assistant recommended the Eiger trail."]
    assert state["long_term"]["profile"] == []  # the profile text is never parsed into levels
    engine = make_engine(data, embedder)
    from memoryos_core.hosts.mcp_tools import profile_text

    assert profile_text(engine, "tom") == PROFILE  # kept verbatim as a note
    assert [n["text"] for n in engine.profile("tom")["notes"]] == [PROFILE]
    cleared = engine.clear("tom")
    assert profile_text(engine, "tom") == ""
    engine.restore("tom", cleared["saved_as"])  # notes travel with versions
    assert profile_text(engine, "tom") == PROFILE
    hits = engine.retrieve("tom", "Which trail did I hike?")
    assert any("Eiger" in p["user"] for p in hits["pages"][:3])
    assert main([*args, "import-reference", str(ref), "--json"], embedder=embedder) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["imported"] == {"short_term": 0, "segments": 0, "pages": 0, "user_facts": 0,
                                 "assistant_facts": 0, "profile_note": False}


def test_reference_malformed_folder_imports_nothing(tmp_path, embedder, capsys):
    ref = write_reference(tmp_path / "ref", broken=True)
    data = tmp_path / "data"
    code = main(["--data-dir", str(data), "--user", "tom", "import-reference", str(ref)],
                embedder=embedder)
    err = capsys.readouterr().err
    assert code == 1
    assert "users/demo_user/mid_term.json" in err and "details[1]" in err
    assert "user_input" in err
    engine = make_engine(data, embedder)
    state = engine.state("tom")
    assert state["short_term"]["count"] == 0 and state["mid_term"]["count"] == 0
    assert engine.versions("tom") == []
    (ref / "users" / "demo_user" / "short_term.json").write_text("{not json")
    assert main(["--data-dir", str(data), "import-reference", str(ref)], embedder=embedder) == 1
    assert "short_term.json is not valid JSON" in capsys.readouterr().err
    assert main(["--data-dir", str(data), "import-reference", str(tmp_path)],
                embedder=embedder) == 1
    assert "not a MemoryOS data folder" in capsys.readouterr().err


def zipped(root: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in root.rglob("*.json"):
            archive.write(path, "memoryos_data/" + path.relative_to(root).as_posix())
    return buffer.getvalue()


def test_reference_import_page_preview_then_job(client, user, engine, tmp_path):
    data = zipped(write_reference(tmp_path / "ref"))
    assert "Import its data folder" in client.get("/import").get_data(as_text=True)
    preview = client.post("/import/memoryos/preview.json",
                          data={"upload": (io.BytesIO(data), "memoryos_data.zip")})
    assert preview.status_code == 200, preview.get_json()
    body = preview.get_json()
    assert body["preview"]["counts"]["pages"] == 5
    assert engine.state(user)["mid_term"]["count"] == 0  # a preview writes nothing
    started = client.post("/import/memoryos/run.json", data={"token": body["token"]})
    job = wait_job(engine, user, started.get_json()["job"]["id"])
    assert job["status"] == "done", job
    assert job["result"]["imported"]["segments"] == 2
    assert engine.state(user)["mid_term"]["page_count"] == 5
    html = client.get("/import/memoryos").get_data(as_text=True)
    assert "Imported from MemoryOS users/demo_user" in html
    profile = client.get("/profile").get_data(as_text=True)
    assert "Extraversion ( High ) - enjoys group hikes." in profile


def test_reference_import_page_rejects_a_broken_zip(client, user, engine, tmp_path):
    bad = zipped(write_reference(tmp_path / "ref", broken=True))
    response = client.post("/import/memoryos/preview.json",
                           data={"upload": (io.BytesIO(bad), "x.zip")})
    assert response.status_code == 400
    assert "details[1] lacks the text field 'user_input'" in response.get_json()["error"]
    response = client.post("/import/memoryos/preview.json",
                           data={"upload": (io.BytesIO(b"not a zip"), "x.zip")})
    assert response.status_code == 400 and "not a zip" in response.get_json()["error"]
    assert engine.state(user)["mid_term"]["count"] == 0
