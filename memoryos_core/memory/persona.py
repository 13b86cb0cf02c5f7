"""The profile dimensions of the paper's three families, named as in the reference's analysis
prompt; levels are stored, never parsed."""

from __future__ import annotations

LEVELS = ("High", "Medium", "Low")

FAMILIES: dict[str, tuple[str, ...]] = {
    # Psychological Model (Basic Needs & Personality)
    "psychological model": (
        "Extraversion", "Openness", "Agreeableness", "Conscientiousness", "Neuroticism",
        "Physiological Needs", "Need for Security", "Need for Belonging", "Need for Self-Esteem",
        "Cognitive Needs", "Aesthetic Appreciation", "Self-Actualization", "Need for Order",
        "Need for Autonomy", "Need for Power", "Need for Achievement",
    ),
    # AI Alignment Dimensions
    "AI alignment preferences": (
        "Helpfulness", "Honesty", "Safety", "Instruction Compliance", "Truthfulness",
        "Coherence", "Complexity", "Conciseness",
    ),
    # Content Platform Interest Tags
    "content interests": (
        "Science Interest", "Education Interest", "Psychology Interest", "Family Concern",
        "Fashion Interest", "Art Interest", "Health Concern", "Financial Management Interest",
        "Sports Interest", "Food Interest", "Travel Interest", "Music Interest",
        "Literature Interest", "Film Interest", "Social Media Activity", "Tech Interest",
        "Environmental Concern", "History Interest", "Political Concern", "Religious Interest",
        "Gaming Interest", "Animal Concern", "Emotional Expression", "Sense of Humor",
        "Information Density", "Language Style", "Practicality",
    ),
}

DIMENSIONS: dict[str, str] = {dim: fam for fam, dims in FAMILIES.items() for dim in dims}

# Migration 4: the names stored before, mapped to the reference's (None: retired, kept as a note).
# "Emotional stability" becomes "Neuroticism" with its level inverted.
RENAMED: dict[str, str | None] = {
    "Openness to experience": "Openness", "Emotional stability": "Neuroticism",
    "Curiosity": "Cognitive Needs", "Need for achievement": "Need for Achievement",
    "Need for belonging": "Need for Belonging", "Creativity": "Aesthetic Appreciation",
    "Empathy": None, "Optimism": None, "Resilience": None, "Risk taking": None,
    "Self-reflection": None,
    "Prefers concise answers": "Conciseness", "Prefers detailed explanations": "Complexity",
    "Prefers formal tone": "Language Style", "Appreciates humour": "Sense of Humor",
    "Wants emotional support": None, "Wants proactive suggestions": None,
    "Values directness": None, "Wants encouragement": None, "Values privacy": None,
    "Sports and fitness": "Sports Interest", "Music": "Music Interest",
    "Travel": "Travel Interest", "Technology": "Tech Interest", "Art and creativity": "Art Interest",
    "Family and relationships": "Family Concern", "Career and work": None,
    "Health and wellbeing": "Health Concern", "Food and cooking": "Food Interest",
    "Education and learning": "Education Interest", "Nature and outdoors": "Environmental Concern",
    "Books and literature": "Literature Interest", "Movies and TV": "Film Interest",
    "Pets and animals": "Animal Concern", "Community and volunteering": None,
    "Finance": "Financial Management Interest", "Games": "Gaming Interest",
    "Fashion": "Fashion Interest", "Society and politics": "Political Concern",
    "Science": "Science Interest", "Spirituality and religion": "Religious Interest",
    "Home and gardening": None,
}
