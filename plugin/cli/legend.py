"""What the matrix's marks mean: one symbol per status, one key letter per subject.

The table, the grid and the HTML page all read their legend from here, so the
three never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MEANINGS", "SUBJECT_KEYS", "SYMBOLS", "subject_key", "subject_legend"]

SYMBOLS = {
    "pass": "✓",
    "hazard": "!",
    "better": "+",
    "differs": "≠",
    "crashes": "✗",
    "hangs": "⧗",
    "memory": "M",
    "n/a": "·",
}

MEANINGS = {
    "pass": "merged calls, text and order of parts equal the reference's (and the plan's "
    "when the scenario is lossless)",
    "hazard": "passes, but the reference (langchain-core) reports hazards in the stream",
    "better": "differs from the reference where langchain-core loses or invents data, and "
    "the subject does not (recovers the plan, or keeps repaired arguments invalid): shown, "
    "not failed",
    "differs": "worse: merged calls, text or order of parts differ from the reference's, "
    "or from the plan",
    "crashes": "the subject raised while streaming",
    "hangs": "the subject ran past the cell's time limit (--cell-timeout); the run went on",
    "memory": "the subject grew the process past the cell's memory bound (--cell-memory)",
    "n/a": "the dialect cannot say the scenario's quirks",
    "unexpected": "not what matrix_expectations.yaml expects, or langchain-core not as "
    "reference_outcomes.yaml pins it (fails the run)",
}

SUBJECT_KEYS = {
    "reference": "R",
    "langchain-openai": "O",
    "openai-sdk": "S",
    "langchain-anthropic": "A",
    "anthropic-sdk": "K",
    "langchain-google-genai": "G",
    "langchain-ollama": "L",
    "langchain-cohere": "C",
    "langchain-aws": "W",
    "langchain-mistralai": "T",
    "litellm": "M",
    "pydantic-ai": "P",
    "openai-agents": "N",
    "google-genai-sdk": "E",
    "mistralai-sdk": "D",
    "cohere-sdk": "V",
    "ollama-sdk": "Z",
    "haystack": "H",
    "smolagents": "F",
    "langchain-js": "J",
    "vercel-ai": "Y",
    "llama-index-openai": "I",
    "llama-index-anthropic": "X",
}
"""One letter per subject: grid columns and HTML badges name whose mark it is with it."""


def subject_key(name: str) -> str:
    """The subject's key letter (``?`` for a subject this table does not know)."""
    return SUBJECT_KEYS.get(name, "?")


def subject_legend(names: Iterable[str]) -> list[str]:
    """``"R reference"``, ... for the subjects that appear, in first-seen order."""
    return [f"{subject_key(name)} {name}" for name in dict.fromkeys(names)]
