"""The profile dimensions of the paper's three families; levels are stored, never parsed."""

from __future__ import annotations

LEVELS = ("High", "Medium", "Low")

FAMILIES: dict[str, tuple[str, ...]] = {
    "psychological model": (
        "Extraversion", "Openness to experience", "Agreeableness", "Conscientiousness",
        "Emotional stability", "Curiosity", "Empathy", "Optimism", "Resilience",
        "Need for achievement", "Need for belonging", "Risk taking", "Creativity",
        "Self-reflection",
    ),
    "AI alignment preferences": (
        "Prefers concise answers", "Prefers detailed explanations", "Prefers formal tone",
        "Appreciates humour", "Wants emotional support", "Wants proactive suggestions",
        "Values directness", "Wants encouragement", "Values privacy",
    ),
    "content interests": (
        "Sports and fitness", "Music", "Travel", "Technology", "Art and creativity",
        "Family and relationships", "Career and work", "Health and wellbeing",
        "Food and cooking", "Education and learning", "Nature and outdoors",
        "Books and literature", "Movies and TV", "Pets and animals",
        "Community and volunteering", "Finance", "Games", "Fashion", "Society and politics",
        "Science", "Spirituality and religion", "Home and gardening",
    ),
}

DIMENSIONS: dict[str, str] = {dim: fam for fam, dims in FAMILIES.items() for dim in dims}
