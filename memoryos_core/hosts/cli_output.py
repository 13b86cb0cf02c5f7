"""Human-readable output of the `memoryos` command: summaries, tables and a progress bar."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any, TextIO

from ..answer.types import RetrievalData
from ..memory.state import PageView, State
from ..transfer.importing import ImportReport, Preview
from ..transfer.versions import Diff, Version


def clip(text: Any, width: int = 90) -> str:
    """One line of at most `width` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def when(ts: Any) -> str:
    """A timestamp as local 'YYYY-MM-DD HH:MM' (or '-' when missing)."""
    if not isinstance(ts, int | float):
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


def dumps(value: Any) -> str:
    """Indented JSON, UTF-8 kept readable, numpy values converted."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=_json_default)


def cut_lines(report: Preview | ImportReport, verb: str, most: int = 20) -> list[str]:
    """The texts an import cut to max_text_chars, one line each (import report or preview)."""
    cut = report.get("cut") or []
    noun = "text" if len(cut) == 1 else "texts"
    lines = [f"{len(cut)} {noun} over {report.get('max_text_chars') or 0:,} characters {verb}"
             " (a note marks each cut):"] if cut else []
    for c in cut[:most]:
        ex = f" exchange {c['exchange_id']}" if "exchange_id" in c else ""
        ref = f" ({c['ref']})" if c.get("ref") else ""
        lines.append(f"  {c['where']}{ref}{ex}: {c['side']} text of {c['chars']:,} characters,"
                     f" {c['cut']:,} not stored")
    if len(cut) > most:
        lines.append(f"  … {len(cut) - most} more cut")
    return lines


def _exchange_line(ex: PageView) -> str:
    return clip(f"[{when(ex['timestamp'])}] User: {ex['user']} | Assistant: {ex['assistant']}",
                110)


def format_state(state: State, full: bool = False) -> list[str]:
    """A summary of every tier; `full` lists every page of every segment."""
    short, mid, long = state["short_term"], state["mid_term"], state["long_term"]
    lines = [f"user {state['user_id']}",
             f"short-term: {short['count']}/{short['capacity']} exchanges"]
    lines += [f"  {_exchange_line(ex)}" for ex in short["exchanges"]]
    lines.append(f"mid-term: {mid['count']}/{mid['capacity']} segments, {mid['page_count']}"
                 f" pages, {len(mid['pending_pages'])} pending (heat threshold"
                 f" {mid['heat_threshold']})")
    for seg in mid["segments"]:
        lines.append(clip(
            f"  #{seg['id']} heat {seg['heat']:.2f} (visits {seg['n_visit']}, interaction"
            f" {seg['l_interaction']}, recency {seg['recency']:.2f}) {len(seg['pages'])} pages:"
            f" {seg['summary']}", 110))
        if seg["keywords"]:
            lines.append(clip(f"      keywords: {', '.join(seg['keywords'])}", 110))
        if full:
            lines += [f"      {_exchange_line(p)}" for p in seg["pages"]]
    if mid["pending_pages"]:
        lines.append("  pending pages (not yet in a segment):")
        lines += [f"    {_exchange_line(p)}" for p in mid["pending_pages"][:10]]
        if len(mid["pending_pages"]) > 10:
            lines.append(f"    … {len(mid['pending_pages']) - 10} more")
    lines.append(f"long-term: {len(long['profile'])} profile dimensions,"
                 f" {len(long['user_facts'])} user facts, {len(long['assistant_facts'])}"
                 f" assistant facts (capacity {long['fact_capacity']} per list)")
    lines += [clip(f"  profile {d['dimension']}: {d['summary']}", 110)
              for d in long["profile"]]
    lines += [clip(f"  user fact: {f['text']}", 110) for f in long["user_facts"]]
    lines += [clip(f"  assistant fact: {f['text']}", 110) for f in long["assistant_facts"]]
    return lines


def memory_counts(state: State) -> str:
    """One line with the size of every tier."""
    short, mid, long = state["short_term"], state["mid_term"], state["long_term"]
    return (f"memory: short-term {short['count']}/{short['capacity']}, mid-term {mid['count']}"
            f" segments ({mid['page_count']} pages, {len(mid['pending_pages'])} pending),"
            f" {len(long['user_facts'])} user facts, {len(long['assistant_facts'])} assistant"
            f" facts, {len(long['profile'])} profile dimensions")


def format_trace(trace: RetrievalData, show_prompt: bool = False) -> list[str]:
    """What retrieval considered and what went into the prompt, with token counts."""
    lines = [f"query: {trace['query']}",
             f"keywords: {', '.join(trace['query_keywords']) or '-'}"]
    if trace["segments"]:
        lines.append("segments (* = selected):")
        lines += [clip(f"  {'*' if s.get('selected') else ' '} #{s['id']} score {s['score']:.3f}"
                       f" (cos {s['cos']:.3f} + jaccard {s['jaccard']:.3f}) heat {s['heat']:.2f}"
                       f": {s['summary']}", 110) for s in trace["segments"]]
    chosen = [p for p in trace["pages"] if p.get("selected")]
    lines.append(f"pages in the prompt: {len(chosen)} of {len(trace['pages'])} candidates")
    for p in chosen:
        lines.append(clip(f"  #{p['id']} [{when(p['timestamp'])}] User: {p['user']} |"
                          f" Assistant: {p['assistant']}", 110))
    for kind in ("user", "assistant"):
        facts = trace["facts"][kind]
        lines.append(f"{kind} facts: {len(facts)}")
        lines += [clip(f"  {f['score']:.3f} {f['text']}", 110) for f in facts]
    lines.append(f"profile dimensions: {len(trace['profile'])}")
    lines.append(f"prompt parts (memory budget {trace['token_budget']} tokens):")
    for part in trace["prompt_parts"]:
        lines.append(f"  {part['name']:<16} {part['items']:>4} items {part['tokens']:>6} tokens")
    lines.append(f"  {'total':<16} {'':>10} {sum(p['tokens'] for p in trace['prompt_parts']):>6}"
                 " tokens")
    if show_prompt:
        lines += ["memory block:", trace["memory_block"]]
    return lines


def format_versions(items: list[Version]) -> list[str]:
    """The versions as a table, newest first."""
    if not items:
        return ["no versions"]
    lines = [f"{'version':>7}  {'saved at':<16}  {'short':>5} {'pages':>6} {'segs':>5}"
             f" {'facts':>7} {'prof':>4}  label"]
    for v in items:
        c = v["counts"]
        lines.append(f"{v['version']:>7}  {when(v['created_at']):<16}  {c['short_term']:>5}"
                     f" {c['pages']:>6} {c['segments']:>5}"
                     f" {str(c['user_facts']) + '/' + str(c['assistant_facts']):>7}"
                     f" {c['profile']:>4}  {v['label']}")
    return lines


def format_diff(delta: Diff) -> list[str]:
    """Added (+), removed (-) and changed (~) items per kind."""
    name = {0: "current"}
    lines = [f"from version {name.get(delta['from'], delta['from'])} to"
             f" {name.get(delta['to'], delta['to'])}"]
    for kind in ("exchanges", "segments", "facts", "profile"):
        part = delta[kind]
        lines.append(f"{kind}: +{len(part['added'])} -{len(part['removed'])}"
                     f" ~{len(part['changed'])}")
        lines += [clip(f"  + {i['id']}: {i['text']}", 110) for i in part["added"]]
        lines += [clip(f"  - {i['id']}: {i['text']}", 110) for i in part["removed"]]
        lines += [clip(f"  ~ {i['id']} ({', '.join(i['fields'])}): {i['text']}", 110)
                  for i in part["changed"]]
    return lines


def format_settings(rows: list[dict[str, Any]]) -> list[str]:
    """name = value, the default when it differs, and the help text."""
    lines = []
    for row in rows:
        changed = "" if row["value"] == row["default"] else f" (default {row['default']})"
        lines.append(f"{row['name']} = {row['value']}{changed}")
        lines.append(f"    {row['help']}")
    return lines


class ProgressBar:
    """A text bar redrawn with \\r on a terminal; a line every 10 % otherwise."""

    def __init__(self, stream: TextIO, enabled: bool = True, width: int = 30) -> None:
        self.stream = stream
        self.enabled = enabled
        self.width = width
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self.phase: str | None = None
        self.last_pct = -1
        self.open = False

    def __call__(self, done: int, total: int, phase: str) -> None:
        if not self.enabled:
            return
        total = max(int(total), 1)
        done = max(0, min(int(done), total))
        pct = done * 100 // total
        name = phase.split(" (", 1)[0]  # "embedding (64 of 192 exchanges)" is phase "embedding"
        new_phase = name != self.phase
        if self.tty:
            if new_phase and self.open:
                self.stream.write("\n")
            filled = self.width * done // total
            self.stream.write(f"\r{phase:<14} [{'#' * filled}{'.' * (self.width - filled)}]"
                              f" {done}/{total} {pct:>3}%")
            self.open = True
        elif new_phase or pct >= self.last_pct + 10 or (pct == 100 and self.last_pct < 100):
            self.stream.write(f"{phase}: {done}/{total} ({pct}%)\n")
            self.last_pct = pct
        self.phase = name
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line so that later output starts on a fresh one."""
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False


def recognised_lines(result: Mapping[str, Any], verb: str) -> list[str]:
    """What a chat export was recognised as and why, what was left out, its saved memories."""
    seen = result.get("recognised")
    if not seen:
        return []
    talks, left = int(result.get("conversations", 0)), int(result.get("abandoned", 0))
    lines = [f"recognised {seen['label']}: {seen['why']}",
             f"{talks} conversation{'s' * (talks != 1)}; {left} message{'s' * (left != 1)} on"
             f" abandoned branches (edits, regenerations)"
             f" {'was' if verb == 'were' and left == 1 else verb} left out"]
    facts = result.get("facts") or {}
    if facts.get("found"):
        new = facts.get("new", facts.get("imported", 0))
        lines.append(f"saved memories: {new} of {facts['found']} {verb} added as long-term facts")
    return lines
