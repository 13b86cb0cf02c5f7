"""Engine settings: one table of (name, default, help) drives config, CLI, web page and docs."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InvalidInput

# The single declaration of every engine setting. (name, default, help)
SETTINGS: tuple[tuple[str, Any, str], ...] = (
    ("short_term_capacity", 7, "Exchanges kept verbatim in short-term memory (paper: 7)."),
    ("mid_term_capacity", 200, "Segments kept in mid-term memory before the coldest is evicted."),
    ("fact_capacity", 100, "Facts kept per list (user facts, assistant facts)."),
    ("heat_threshold", 5.0, "Heat at which a segment with unanalysed pages is analysed."),
    ("heat_alpha", 1.0, "Heat weight of N_visit (retrievals that used the segment)."),
    ("heat_beta", 1.0, "Heat weight of L_interaction (pages added since the last analysis)."),
    ("heat_gamma", 1.0, "Heat weight of the recency term exp(-dt/tau)."),
    (
        "recency_tau_seconds",
        86400.0,
        "Recency time constant tau in seconds. 24 h (the reference code's choice): the paper's"
        " 1e7 s keeps the term near 1 for months, so it would never separate segments in practice.",
    ),
    ("merge_threshold", 0.6, "theta: a topic joins a segment when cos + Jaccard >= theta."),
    ("segment_max_pages", 40, "A segment takes no more pages beyond this size (extractive"
     " summaries of a long chat otherwise merge into one segment that selects nothing)."),
    ("top_segments", 5, "m: segments considered per retrieval."),
    ("top_pages", 20, "k: pages put into the answer prompt at most (the token budget usually"
     " stops first: pages take what facts and profile leave)."),
    ("top_facts", 10, "Facts per list put into the answer prompt at most."),
    ("fact_min_score", 0.55, "A fact enters the answer prompt only at this cosine similarity to"
     " the message or above (below it, dialogue pages recall more per token)."),
    ("profile_min_score", 0.4, "A profile dimension enters the answer prompt only at this cosine"
     " similarity to the message or above (at most 3)."),
    ("memory_token_budget", 1200, "Token budget for the memory part of the answer prompt."),
    ("context_token_budget", 1700, "Tokens for the memory part and the recent conversation"
     " (short-term exchanges) together: long recent exchanges leave the memory less, down to a"
     " quarter of memory_token_budget (0: no cap)."),
    ("consolidation", "auto", "How pages become segments: 'llm' (one JSON call per batch),"
     " 'extractive' (no chat model) or 'auto': extractive with the embedded model (on LoCoMo it"
     " recalls as much and stores only grounded text, in seconds instead of minutes), llm with"
     " a configured endpoint."),
    ("consolidation_batch", 12, "Pending pages gathered before one consolidation call (12: with"
     " the embedded model a LoCoMo conversation files in half the time of 7, with fewer retries)."),
    ("analysis", "auto", "How hot segments feed long-term memory: 'llm', 'extractive' or"
     " 'auto' (extractive with the embedded model, llm with a configured endpoint)."),
    ("import_analysis", "inline", "After an import: 'inline' analyses the hot segments in the"
     " import job; 'deferred' leaves them to the next turn or a forced analysis (much faster"
     " with the small embedded model)."),
    ("structured_retries", 2, "Retries of a structured (JSON) model call before falling back."),
    ("fact_merge_similarity", 0.95, "Facts at or above this cosine similarity are merged."),
    ("version_retention", 50, "Versions (snapshots) kept per user; older ones are deleted."),
    ("max_text_chars", 20000, "Longest accepted user or assistant text, in characters."),
    ("answer_max_tokens", 400, "Most tokens the chat model may generate for one answer."),
    ("embedding_model", "all-MiniLM-L6-v2", "Embedding model: the default, a sentence-transformers"
     " model folder, or an installed model package. A store keeps the model it was made with;"
     " `memoryos reembed` moves it to another."),
)

SETTING_NAMES = tuple(name for name, _, _ in SETTINGS)
CHOICES: dict[str, tuple[str, ...]] = {
    "consolidation": ("auto", "llm", "extractive"),
    "analysis": ("auto", "llm", "extractive"),
    "import_analysis": ("inline", "deferred"),
}


@dataclass(frozen=True)
class EngineConfig:
    """Frozen engine settings; build variants with `replace` or `from_mapping`."""

    short_term_capacity: int = 7
    mid_term_capacity: int = 200
    fact_capacity: int = 100
    heat_threshold: float = 5.0
    heat_alpha: float = 1.0
    heat_beta: float = 1.0
    heat_gamma: float = 1.0
    recency_tau_seconds: float = 86400.0
    merge_threshold: float = 0.6
    segment_max_pages: int = 40
    top_segments: int = 5
    top_pages: int = 20
    top_facts: int = 10
    fact_min_score: float = 0.55
    profile_min_score: float = 0.4
    memory_token_budget: int = 1200
    context_token_budget: int = 1700
    consolidation: str = "auto"
    consolidation_batch: int = 12
    analysis: str = "auto"
    import_analysis: str = "inline"
    structured_retries: int = 2
    fact_merge_similarity: float = 0.95
    version_retention: int = 50
    max_text_chars: int = 20000
    answer_max_tokens: int = 400
    embedding_model: str = "all-MiniLM-L6-v2"

    def __post_init__(self) -> None:
        for name, choices in CHOICES.items():
            if getattr(self, name) not in choices:
                raise InvalidInput(f"setting {name} must be one of {', '.join(choices)}")
        for name in SETTING_NAMES:
            value = getattr(self, name)
            if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
                raise InvalidInput(f"setting {name} must not be negative")
        if self.short_term_capacity < 1 or self.consolidation_batch < 1:
            raise InvalidInput("short_term_capacity and consolidation_batch must be at least 1")

    def replace(self, **changes: Any) -> EngineConfig:
        """Return a copy with some settings changed (values are coerced to the right type)."""
        return EngineConfig.from_mapping(changes, base=self)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: EngineConfig | None = None) -> EngineConfig:
        """Build a config from name -> value pairs (strings are parsed), rejecting unknown names."""
        base = base or cls()
        coerced: dict[str, Any] = {}
        for name, raw in values.items():
            if name not in SETTING_NAMES:
                raise InvalidInput(f"unknown setting {name!r}")
            coerced[name] = _coerce(name, raw, getattr(base, name))
        return dataclasses.replace(base, **coerced)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, base: EngineConfig | None = None
    ) -> EngineConfig:
        """Apply MEMORYOS_<NAME> environment variables on top of `base`."""
        environ = os.environ if environ is None else environ
        found = {
            name: environ[f"MEMORYOS_{name.upper()}"]
            for name in SETTING_NAMES
            if f"MEMORYOS_{name.upper()}" in environ
        }
        return cls.from_mapping(found, base=base)

    def as_dict(self) -> dict[str, Any]:
        """The settings as a plain dict."""
        return dataclasses.asdict(self)


def _coerce(name: str, raw: Any, current: Any) -> Any:
    """Parse `raw` into the type of the setting's default."""
    kind = type(current)
    try:
        if kind is int:
            if isinstance(raw, bool):
                raise ValueError
            return int(raw)
        if kind is float:
            return float(raw)
        return str(raw)
    except (TypeError, ValueError):
        raise InvalidInput(f"setting {name} needs a {kind.__name__}, got {raw!r}") from None


def settings_table(config: EngineConfig | None = None) -> list[dict[str, Any]]:
    """Rows (name, default, value, help) for display in the CLI and the web app."""
    config = config or EngineConfig()
    return [
        {"name": name, "default": default, "value": getattr(config, name), "help": help_text}
        for name, default, help_text in SETTINGS
    ]
