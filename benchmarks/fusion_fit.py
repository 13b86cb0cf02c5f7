"""Learned page fusion (issue 46): candidate features cached per question, fitted out of fold.

Each dev corpus (LoCoMo, LUFY, LongMemEval) is imported once into stores kept under --cache;
`collect` runs the harness (product and flat-hybrid) on copies of them, caching for every
question the features of each candidate page (answer.fusion.FEATURES: the union of the dense,
keyword and period lists before continuations) and whether it is an evidence turn. `fit` fits a
softmax over each question's candidates (a conditional logit) leaving one conversation out at a
time (the three corpora pooled, each weighing the same) and `evaluate`
runs the harness again with each conversation's pages ranked by the model that never saw it:
product recall (out of fold) against today's and the flat-hybrid of the same run.
`--write-weights` fits on every conversation and writes answer/data/fusion_weights.json.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from memoryos_core.answer import fusion
from memoryos_core.answer import retrieval as ranking
from memoryos_core.evaluation import data as edata
from memoryos_core.evaluation import harness
from memoryos_core.evaluation.conversation import (
    Conversation,
    QuestionVectors,
    import_conversation,
    make_engine,
)

from . import common

SHARED = common.ROOT.parent / "shared" / "data"
CORPORA = {"locomo": SHARED / "locomo" / "locomo_dev.json",
           "lufy": SHARED / "lufy" / "lufy_dev.json",
           "lme": SHARED / "longmemeval" / "longmemeval_s_dev30.json"}
STRATEGIES = ("memoryos", "flat-hybrid")


class _Hook:
    """The product's ranking observed (features cached) and, with a model, replaced."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.sink: list[tuple[list[int], np.ndarray]] | None = None
        self.model: fusion.FusionModel | None = None
        self._retrieve, self._words = ranking._retrieve, ranking.distinctive_words
        self._continued = ranking.with_continuations

    def install(self) -> None:
        """Patch the retrieval module's names the ranking calls."""
        ranking._retrieve = self.retrieve  # type: ignore[assignment]
        ranking.distinctive_words = self.distinctive  # type: ignore[assignment]
        ranking.with_continuations = self.continued  # type: ignore[assignment]
        # the product's own learned order is off: this hook ranks (or observes the fixed one)
        ranking.learned_order = lambda pages, *_: pages  # type: ignore[assignment]

    def retrieve(self, *args: Any, **kwargs: Any) -> Any:
        self.words = []  # a query with no keyword searches none
        return self._retrieve(*args, **kwargs)

    def distinctive(self, *args: Any, **kwargs: Any) -> list[str]:
        # the very list the ranking keeps: alias names are added to it in place
        self.words = self._words(*args, **kwargs)
        return self.words

    def continued(self, ctx: Any, user_id: str, pages: list[Any], page_rows: Any,
                  columns: str, *rest: Any) -> Any:
        x = fusion.page_features(pages, page_rows, self.words, ranking.RRF_K)
        if self.sink is not None:
            self.sink.append(([p["id"] for p in pages], x))
        if self.model is not None:
            pages = fusion.reordered(pages, x, self.model)
        return self._continued(ctx, user_id, pages, page_rows, columns, *rest)


HOOK = _Hook()


def conversations(corpus: str, cache: Path, emb: Any) -> Iterator[tuple[str, Conversation,
                                                                        list[dict[str, Any]],
                                                                        str | None]]:
    """(key, conversation, its questions, question type) of a corpus, each imported once
    into the cache and opened from a fresh copy (opening a store may write to it)."""
    path = CORPORA[corpus]
    fmt, samples = edata.parse(path.read_bytes(), path.stem)
    for n, (sample, qas) in enumerate(harness._questions(fmt, samples, None, 1, None)):
        kept = cache / "stores" / corpus / f"d{n}"
        if not (kept / "report.json").exists():
            if kept.exists():
                shutil.rmtree(kept)
            kept.mkdir(parents=True)
            conv, _ = import_conversation(sample, "extractive", kept / "db", emb,
                                          harness.instant_model())
            (kept / "report.json").write_text(json.dumps(conv.report))
            conv.engine.store.close()
        report = json.loads((kept / "report.json").read_text())
        work = cache / "run" / corpus
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(kept / "db", work)
        engine = make_engine(work, harness.instant_model(), QuestionVectors(emb), "extractive")
        try:
            yield f"{corpus}/{sample.sample_id}", Conversation(engine, sample.sample_id, report,
                                                               sample), qas, sample.question_type
        finally:
            engine.store.close()


def run_corpus(corpus: str, cache: Path, emb: Any,
               models: dict[str, fusion.FusionModel] | None = None,
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Harness records of a corpus (each conversation ranked by `models[key]` when given) and
    the cached candidates of each question (features, labels)."""
    records: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for key, conv, qas, qtype in conversations(corpus, cache, emb):
        HOOK.sink, HOOK.model = [], (models or {}).get(key)
        recs = harness.evaluate(conv, qas, harness.DEFAULT_BUDGET, harness.DEFAULT_WINDOW,
                                None, STRATEGIES, None, qtype)
        mine = [r for r in recs if r["strategy"] == "memoryos"]
        assert len(mine) == len(HOOK.sink), (key, len(mine), len(HOOK.sink))
        for r, (ids, x) in zip(mine, HOOK.sink, strict=True):
            gold = {g["exchange"] for g in r["gold"] if g["exchange"] is not None}
            questions.append({"key": key, "q": r["q"], "ids": ids, "x": x,
                              "y": np.array([i in gold for i in ids], dtype=float),
                              "mapped": r["mapped"], "category": r["category"]})
        for r in recs:
            r.pop("context", None)
            r.pop("trace", None)
        records += recs
    HOOK.sink = HOOK.model = None
    return records, questions


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall and median tokens per strategy, per category."""
    agg = harness.aggregate(records, STRATEGIES)
    return {s: {"recall": agg[s]["recall"], "median_tokens": agg[s]["median_tokens"],
                "by_category": agg[s]["by_category"]} for s in STRATEGIES}


def collect(corpora: list[str], cache: Path, emb: Any) -> None:
    """Today's figures and the candidates of every question, cached per corpus."""
    for corpus in corpora:
        t0 = time.perf_counter()
        records, questions = run_corpus(corpus, cache, emb)
        with (cache / f"features_{corpus}.pkl").open("wb") as fh:
            pickle.dump({"features": fusion.FEATURES, "questions": questions,
                         "summary": summary(records), "records": records}, fh)
        print(corpus, json.dumps(summary(records)), f"({time.perf_counter() - t0:.0f}s)",
              flush=True)


def load_cached(corpora: list[str], cache: Path) -> dict[str, dict[str, Any]]:
    """The cached candidates and figures of each corpus (refused if of other features)."""
    out = {}
    for corpus in corpora:
        with (cache / f"features_{corpus}.pkl").open("rb") as fh:
            body = pickle.load(fh)
        if tuple(body["features"]) != fusion.FEATURES:
            raise SystemExit(f"{corpus}: cached with other features: run collect again")
        out[corpus] = body
    return out


def fit(questions: list[dict[str, Any]], l2: float = 1e-3, steps: int = 500,
        balance: bool = True, gate: float = float("-inf"),
        gated_fit: bool = False) -> fusion.FusionModel:
    """A softmax over each question's candidates maximising the mean log-probability of its
    evidence pages (ranking inside a question is all the block uses), L2, by L-BFGS."""
    kept = [q for q in questions if q["y"].sum()
            and (not gated_fit or fusion.reply_ratio(q["x"]) >= gate)]
    x_all = np.vstack([q["x"] for q in kept])
    mean, scale = x_all.mean(axis=0), x_all.std(axis=0)
    scale[scale == 0] = 1.0
    width = max(len(q["ids"]) for q in kept)
    x = np.zeros((len(kept), width, x_all.shape[1]))
    mask = np.full((len(kept), width), -np.inf)
    target = np.zeros((len(kept), width))
    per_corpus: dict[str, int] = {}
    for q in kept:
        per_corpus[q["key"].split("/")[0]] = per_corpus.get(q["key"].split("/")[0], 0) + 1
    weight = np.array([1.0 / per_corpus[q["key"].split("/")[0]] if balance else 1.0
                       for q in kept])
    weight /= weight.sum()
    for n, q in enumerate(kept):
        x[n, :len(q["ids"])] = (q["x"] - mean) / scale
        mask[n, :len(q["ids"])] = 0.0
        target[n, :len(q["ids"])] = q["y"] / q["y"].sum()
    from scipy.optimize import minimize  # a fit-time tool (scikit-learn brings it)

    def cost(theta: np.ndarray) -> tuple[float, np.ndarray]:
        scores = x @ theta + mask
        scores -= scores.max(axis=1, keepdims=True)
        logp = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
        p = np.exp(logp)
        loss = -float(np.einsum("q,qc,qc->", weight, target, np.where(target > 0, logp, 0)))
        grad = np.einsum("q,qc,qcf->f", weight, p - target, x)
        return loss + 0.5 * l2 * float(theta @ theta), grad + l2 * theta

    theta = minimize(cost, np.zeros(x.shape[2]), jac=True, method="L-BFGS-B",
                     options={"maxiter": steps}).x
    return fusion.FusionModel(fusion.FEATURES, mean, scale, theta, 0.0, gate)


def out_of_fold(questions: list[dict[str, Any]], fitter: Any) -> dict[str, fusion.FusionModel]:
    """For each conversation the model `fitter` fits on every other one."""
    keys = sorted({q["key"] for q in questions})
    return {k: fitter([q for q in questions if q["key"] != k]) for k in keys}


def ranked_recall(questions: list[dict[str, Any]], models: dict[str, fusion.FusionModel] | None,
                  k: int) -> float:
    """A quick proxy: the share of evidence pages among the first k candidates (of those
    among the candidates at all), by the fixed fusion (no models) or the models."""
    got = total = 0.0
    for q in questions:
        if not q["y"].sum():
            continue
        order = np.arange(len(q["ids"])) if models is None else \
            np.argsort(-models[q["key"]].scores(q["x"]), kind="stable")
        got += q["y"][order[:k]].sum() / q["y"].sum()
        total += 1
    return round(float(got / total), 4) if total else 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("collect", "fit", "evaluate"))
    parser.add_argument("--corpora", default="locomo,lufy,lme")
    parser.add_argument("--fit-on", default="locomo,lufy,lme", help="corpora pooled in the fit")
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "memoryos-fusion-cache")
    parser.add_argument("--l2", type=float, default=1e-3, help="L2 strength of the fit")
    parser.add_argument("--no-balance", action="store_true",
                        help="every question weighs the same (default: every corpus)")
    parser.add_argument("--gate", type=float, default=0.4,
                        help="rank by the model only at this reply ratio or more")
    parser.add_argument("--gated-fit", action="store_true",
                        help="fit on the questions the gate lets through only")
    parser.add_argument("--write-weights", action="store_true",
                        help="fit on every conversation, write answer/data/fusion_weights.json")
    args = parser.parse_args(argv)
    HOOK.install()
    corpora = [c for c in args.corpora.split(",") if c]
    if args.action == "collect":
        collect(corpora, args.cache, common.embedder())
        return
    fit_on = [c for c in args.fit_on.split(",") if c]
    cached = load_cached(sorted(set(corpora) | set(fit_on)), args.cache)
    pool = [q for c in fit_on for q in cached[c]["questions"]]
    def fitter(qs: list[dict[str, Any]]) -> fusion.FusionModel:
        return fit(qs, l2=args.l2, balance=not args.no_balance, gate=args.gate,
                   gated_fit=args.gated_fit)
    models = out_of_fold(pool, fitter)
    whole = fitter(pool)
    for c in corpora:  # a corpus outside the fit is ranked by the model of the whole pool
        extra = {q["key"] for q in cached[c]["questions"]} - set(models)
        if extra:
            models.update({k: whole for k in extra})
    print("weights (whole pool):", {n: round(float(w), 3) for n, w in
                                    zip(fusion.FEATURES, whole.weights, strict=True)})
    for c in corpora:
        qs = cached[c]["questions"]
        print(c, "candidates hold", round(statistics.fmean(
            q["y"].sum() / q["mapped"] for q in qs if q["mapped"]), 4),
            "| first 10/15/20 fixed", [ranked_recall(qs, None, k) for k in (10, 15, 20)],
            "learned", [ranked_recall(qs, models, k) for k in (10, 15, 20)], flush=True)
    if args.action == "evaluate":
        emb = common.embedder()
        for c in corpora:
            t0 = time.perf_counter()
            records, _ = run_corpus(c, args.cache, emb, models)
            now, before = summary(records), cached[c]["summary"]
            (args.cache / f"eval_{c}.json").write_text(json.dumps(records))
            print(c, "learned", json.dumps(now), "| today", json.dumps(before),
                  f"({time.perf_counter() - t0:.0f}s)", flush=True)
    if args.write_weights:
        fusion.save(whole, fusion.WEIGHTS, fitted_on=fit_on, l2=args.l2,
                    balance=not args.no_balance, gated_fit=args.gated_fit, embedder=common.embedder().name)
        print("wrote", fusion.WEIGHTS)


if __name__ == "__main__":
    main()
