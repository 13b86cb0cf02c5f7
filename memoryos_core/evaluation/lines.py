"""A context as lines, each with its source (page, fact, profile) and memory tier."""

from __future__ import annotations

from typing import Any

from ..answer.memory_block import PAGES_HEADER, fact_line, page_body, profile_line
from ..answer.types import RetrievalData
from ..memory.prompts import when

RECENT_HEADER = "## Recent conversation"


def line(row: dict[str, Any]) -> str:
    """One exchange as the product's page lines read (time, user, assistant)."""
    return f"[{when(row['ts'])}] User: {row['user_text']} | Assistant: {row['assistant_text']}"


def entry(text: str, source: Any = None, tier: str | None = None) -> dict[str, Any]:
    """One context line: text, source (exchange id, 'fact:<id>', 'profile', None) and tier."""
    return {"text": text, "source": source, "tier": tier}


def _row(page: Any) -> dict[str, Any]:
    """A trace page in the row shape the memory block writes from."""
    return {"user_text": page["user"], "assistant_text": page["assistant"]}


def product_lines(trace: RetrievalData, by_id: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """The product's memory block as lines; each page line names its exchange and tier."""
    focus = trace["query_keywords"]
    pages = {page_body(_row(p), focus): p["id"] for p in trace["pages"] if p.get("selected")}
    facts = {fact_line(f): f"fact:{f['id']}" for kind in ("user", "assistant")
             for f in trace["facts"][kind] if f.get("in_prompt")}
    profile = {profile_line(r): f"profile:{r['dimension']}" for r in trace["profile"]
               if r.get("in_prompt")}
    out: list[dict[str, Any]] = []
    section = ""
    for text in trace["memory_block"].splitlines():
        if text.startswith("## "):
            section = text
            out.append(entry(text))
        elif section == PAGES_HEADER and text in pages:
            pid = pages[text]
            out.append(entry(text, pid, by_id.get(pid, {}).get("tier", "mid")))
        elif section == PAGES_HEADER:
            out.append(entry(text))  # a day header
        elif text in facts:
            out.append(entry(text, facts[text], "long"))
        elif text in profile:
            out.append(entry(text, profile[text], "long"))
        else:  # the chain overview of the selected pages' segments
            out.append(entry(text, "overview", "mid"))
    return out


def flat_lines(block: list[str], taken: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A flat baseline's page lines (no focus words: the lines as fill_pages wrote them)."""
    pages = {page_body(r): r["id"] for r in taken}
    return [entry(t, pages[t], "mid") if t in pages else entry(t) for t in block]


def recent_lines(fitted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recent conversation (short-term memory) as the prompt shows it."""
    return [entry(RECENT_HEADER)] + [entry(line(r), r["id"], "short") for r in fitted]


TRACE_PAGES = 40  # candidate pages a record's trace keeps (evidence pages always)


def _clip(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def trace_summary(trace: RetrievalData, evidence: list[int]) -> dict[str, Any]:
    """The product's retrieval trace as a record keeps it (candidate pages' texts clipped)."""
    pages = []
    for n, p in enumerate(trace["pages"]):
        if n >= TRACE_PAGES and p["id"] not in evidence:
            continue
        pages.append({k: p[k] for k in ("id", "vector_rank", "vector_score", "keyword_rank",
                                        "period_rank", "fused", "continues", "repeats",
                                        "recent", "reason", "selected", "timestamp") if k in p}
                     | {"text": _clip(f"User: {p.get('user', '')} | Assistant:"
                                      f" {p.get('assistant', '')}"),
                        "evidence": p["id"] in evidence, "position": n + 1})
    return {"query_keywords": trace["query_keywords"],
            "keyword_search_terms": trace["keyword_search_terms"], "period": trace["period"],
            "token_budget": trace["token_budget"], "recent_tokens": trace["recent_tokens"],
            "prompt_parts": trace["prompt_parts"], "timings_ms": trace["timings_ms"],
            "segments": [{"id": s["id"], "summary": _clip(s.get("summary", "")),
                          **{k: s.get(k) for k in ("cos", "jaccard", "score", "heat",
                                                   "selected")}}
                         for s in trace["segments"][:10]],
            "pages_considered": len(trace["pages"]), "pages": pages,
            "facts": [{"kind": kind, "text": _clip(f["text"]), "score": f["score"],
                       "in_prompt": bool(f.get("in_prompt")), "sources": f["sources"]}
                      for kind in ("user", "assistant") for f in trace["facts"][kind]],
            "profile": [{"dimension": r["dimension"], "level": r["level"]}
                        for r in trace["profile"] if r.get("in_prompt")]}
