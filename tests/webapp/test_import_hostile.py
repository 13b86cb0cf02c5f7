"""Hostile uploads refused early, in a sentence, with nothing stored (issue 47): a ZIP that
expands past the limit (its header honest or lying), a gzip bomb, JSON that is no export."""

from __future__ import annotations

import gzip
import io
import json
import resource
import struct
import time
import zipfile

import pytest

from .conftest import wait_job

MB = 1024 * 1024


def bomb(size: int, name: str = "conversations.json") -> bytes:
    """A ZIP whose one member is `size` bytes of one long message, small on disk."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        with zf.open(name, "w", force_zip64=True) as member:
            member.write(b'[{"uuid": "x", "chat_messages": [{"uuid": "m", "sender": "human",'
                         b' "text": "')
            block = b"a" * MB
            for _ in range(size // MB):
                member.write(block)
            member.write(b'"}]}]')
    return buf.getvalue()


def lying(data: bytes, declared: int) -> bytes:
    """The same ZIP with its member's size in both headers rewritten to `declared`."""
    out = bytearray(data)
    local = out.find(b"PK\x03\x04")
    central = out.find(b"PK\x01\x02")
    struct.pack_into("<I", out, local + 22, declared)
    struct.pack_into("<I", out, central + 24, declared)
    return bytes(out)


def post(client, data: bytes, name: str = "export.zip"):
    return client.post("/import/preview.json", content_type="multipart/form-data",
                       data={"upload": (io.BytesIO(data), name), "format": "auto"})


def nothing_stored(engine, user) -> None:
    state = engine.state(user)
    assert state["short_term"]["count"] == 0 and state["mid_term"]["pending_pages"] == []
    assert engine.jobs.latest(user, "import", 1) == []


def test_a_zip_bomb_past_the_default_limit_is_refused_at_once(client, user, engine):
    data = bomb(130 * MB)  # over the 128 MiB default, yet a few hundred KB on disk
    assert len(data) < 1 * MB
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    r = post(client, data)
    assert time.monotonic() - started < 3.0
    assert r.status_code == 400
    error = r.json["error"]
    assert error.startswith("conversations.json in the ZIP expands to more than 134 MB")
    assert "its header says 136 MB" in error and "nothing was imported" in error
    # nothing was unpacked: the process' peak memory did not move by the member's size
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 60 * 1024  # KB
    run = client.post("/import/run.json", content_type="multipart/form-data",
                      data={"upload": (io.BytesIO(data), "export.zip"), "format": "auto"})
    assert run.status_code == 400 and run.json["error"] == error  # no job is started
    nothing_stored(engine, user)


def test_the_limit_is_a_setting_and_a_lying_header_does_not_get_past_it(make_app, auth):
    app = make_app(MAX_EXPANDED_BYTES=1 * MB)
    client = app.test_client()
    auth.client = client
    auth.register()
    engine = app.extensions["memoryos"]
    honest = bomb(3 * MB)
    r = post(client, honest)
    assert r.status_code == 400 and "expands to more than 1.0 MB" in r.json["error"]
    # headers that claim 1 KB: the bytes read are what count
    r = post(client, lying(honest, 1024))
    assert r.status_code == 400
    assert "nothing was imported" in r.json["error"] and "in the ZIP" in r.json["error"]
    # a gzip has no header to check: counting while reading stops it
    gz = gzip.compress(b"[" + b" " * (3 * MB) + b"]", compresslevel=9)
    r = post(client, gz, "memories.jsonl.gz")
    assert r.status_code == 400
    assert r.json["error"].startswith("the gzip file expands to more than 1.0 MB")
    nothing_stored(engine, "u1")


@pytest.mark.parametrize("text, words", [
    ("42", "the file is a number in JSON (42), not a chat export"),
    ('"just a string"', "the file is a text in JSON"),
    ("[]", "the file is an empty JSON list: there is nothing to import"),
    ("[1, 2, 3]", "the file is a list whose first element is a number, not a conversation"),
    ("{}", "the file is an object with the keys none (an empty object)"),
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ('[{"uuid": "a", "chat_messages": [{"uuid": "m", "sender": "human", "text": "Hel',
     "it looks cut off (truncated); nothing was imported"),
    ('{"hello": "world"}', "unknown format: the file is an object with the keys hello"),
])
def test_json_that_is_no_export_gets_a_sentence_and_nothing_is_stored(client, user, engine,
                                                                      text, words):
    for ask in (post, lambda c, d, n="x.json": c.post("/import/preview.json", data={
            "text": d.decode(), "format": "auto"})):
        r = ask(client, text.encode(), "export.json")
        assert r.status_code == 400, r.data[:300]
        assert words in r.json["error"]
        assert "NoneType" not in r.json["error"] and "transcript line" not in r.json["error"]
    nothing_stored(engine, user)


def test_a_truncated_file_found_in_the_job_stores_nothing_more_than_it_says(client, user, engine):
    good = [{"uuid": f"c{n}", "name": f"Chat {n}", "chat_messages": [
        {"uuid": f"m{n}", "sender": "human", "text": f"Question {n}",
         "created_at": "2025-03-02T09:15:05Z"}]} for n in range(3)]
    cut = json.dumps(good)[:-40]  # the last conversation is cut off
    r = post(client, cut.encode(), "conversations.json")
    assert r.status_code == 400 and "truncated" in r.json["error"]
    nothing_stored(engine, user)


def test_a_file_found_truncated_by_the_job_stores_nothing_and_says_so(client, user, engine,
                                                                     monkeypatch):
    # past what a preview reads (5 s) the cut is found by the job: batches of whole
    # conversations written before it stayed, though the job said "nothing was imported"
    from memoryos_core.transfer import chat_store
    monkeypatch.setattr(chat_store, "BATCH", 2)  # a batch is written every two conversations
    good = [{"uuid": f"c{n}", "name": f"Chat {n}", "chat_messages": [
        {"uuid": f"m{n}", "sender": "human", "text": f"Question {n} about kayaks",
         "created_at": "2025-03-02T09:15:05Z"},
        {"uuid": f"r{n}", "sender": "assistant", "text": f"Answer {n}",
         "created_at": "2025-03-02T09:15:09Z"}]} for n in range(8)]
    cut = json.dumps(good)[:-40]
    before = len(client.get("/versions.json").json["versions"])
    run = client.post("/import/run.json", content_type="multipart/form-data",
                      data={"upload": (io.BytesIO(cut.encode()), "conversations.json"),
                            "format": "auto"})
    assert run.status_code in (200, 202), run.json  # only the file's start is checked here
    job = wait_job(engine, user, run.json["job"]["id"])
    assert job["status"] == "failed", job
    assert "truncated" in job["error"] and "nothing was imported" in job["error"]
    state = engine.state(user)
    assert state["short_term"]["count"] == 0 and state["mid_term"]["page_count"] == 0
    assert engine.search(user, "kayaks")["pages"] == []
    # no version was saved for an import that stored nothing
    assert len(client.get("/versions.json").json["versions"]) == before


def test_an_import_page_after_a_refusal_still_works(client, user, engine):
    post(client, b"42", "x.json")
    page = client.get("/import")
    assert page.status_code == 200
    done = client.post("/import/run.json", data={"text": "User: hi\nAssistant: hello",
                                                 "format": "auto"})
    assert done.status_code in (200, 202)
    job = wait_job(engine, user, engine.jobs.latest(user, "import", 1)[0]["id"])
    assert job["status"] == "done" and job["result"]["saved_as"] is not None
