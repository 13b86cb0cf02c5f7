"""`memoryos eval FILE`: LoCoMo / LongMemEval evidence recall on the product path, vs. baselines.

Each run imports the file into a throwaway memory of its own (a temporary folder): the data
folder and --user are never read or written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..evaluation import DEFAULT_BUDGET, DEFAULT_WINDOW, STRATEGIES, run
from ..evaluation import report as eval_report
from ..evaluation.samples import SAMPLES, sample_bytes
from . import cli_output
from .cli_runtime import Runtime, note, out, read_document


def cmd_eval(rt: Runtime) -> int:
    a = rt.args
    if bool(a.file) == bool(a.sample):
        raise InvalidInput("give a LoCoMo or LongMemEval FILE, or --sample NAME")
    data, name = (sample_bytes(a.sample), a.sample) if a.sample else \
        (read_document(a.file), Path(a.file).stem)
    strategies = [s.strip() for s in a.strategies.split(",") if s.strip()] \
        if a.strategies else None
    categories = [int(c) for c in a.categories.split(",") if c.strip()] \
        if a.categories else None
    emb = rt._embedder
    if emb is None:
        from ..llm.embedder import SentenceTransformerEmbedder

        emb = SentenceTransformerEmbedder.from_name(rt.config().embedding_model)
    answerer = None
    if a.answer:  # --model/--base-url's endpoint, else the embedded model
        from ..evaluation.answering import Answerer
        from ..llm import default_chat_model

        answerer = Answerer(rt.chat_model() or default_chat_model())
    bar = rt.progress()
    try:
        result = run(data, name, emb, budget=a.budget, window=a.window, strategies=strategies,
                     categories=categories, stride=a.stride, limit=a.limit, progress=bar,
                     answerer=answerer)
    finally:
        bar.close()
    if a.out:
        written = write(result, Path(a.out))
        note("wrote " + ", ".join(str(p) for p in written))
    if a.json:
        out(cli_output.dumps(result))
        return 0
    for warning in result["warnings"][:10]:
        note(f"warning: {warning}")
    out(*eval_report.table_lines(result))
    t = result["timings"]
    out(f"{len(result['records'])} records; import {t['import_s']} s, questions"
        f" {t['questions_s']} s, total {t['total_s']} s")
    return 0


def write(result: dict[str, Any], folder: Path) -> list[Path]:
    """records.json, records.csv and summary.md into `folder` (made when missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "records.json", folder / "records.csv", folder / "summary.md"]
    paths[0].write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str) + "\n",
                        encoding="utf-8")
    paths[1].write_text(eval_report.csv_text(result["records"]), encoding="utf-8")
    paths[2].write_text(eval_report.markdown(result), encoding="utf-8")
    return paths


def add_parser(sp: argparse.ArgumentParser) -> None:
    """The eval command's options."""
    sp.add_argument("file", nargs="?", help="a LoCoMo- or LongMemEval-format JSON file")
    sp.add_argument("--sample", choices=sorted(SAMPLES),
                    help="a small made-up sample that ships with the package instead of FILE")
    sp.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="TOKENS",
                    help=f"the product's memory token budget (default {DEFAULT_BUDGET})")
    sp.add_argument("--window", type=int, default=DEFAULT_WINDOW, metavar="TOKENS",
                    help=f"the full-context baseline's window (default {DEFAULT_WINDOW})")
    sp.add_argument("--strategies", metavar="A,B",
                    help="baselines to run beside memoryos (default all: "
                    + ", ".join(STRATEGIES[1:]) + ")")
    sp.add_argument("--categories", metavar="1,2",
                    help="question categories (1 multi-hop, 2 temporal, 3 open-domain,"
                    " 4 single-hop, 5 adversarial; default LoCoMo 1-4, LongMemEval all)")
    sp.add_argument("--stride", type=int, default=1, help="every Nth question")
    sp.add_argument("--limit", type=int, default=None,
                    help="the first N conversations (LongMemEval: questions)")
    sp.add_argument("--answer", action="store_true",
                    help="answer every question from each context with the chat model (--model"
                    " [--base-url], else the embedded model) and score LoCoMo's official F1")
    sp.add_argument("--out", metavar="DIR",
                    help="write records.json, records.csv and summary.md into DIR")
