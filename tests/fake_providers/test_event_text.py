"""Each dialect reads the text, reasoning, tool starts and finish of its own events.

``tooltape.cassettes.mutate`` recovers a recording's plan with these readings:
the text before and after the calls, the reasoning, and a finish that is not a
plain stop. One event per field each dialect's provider uses; a field of
another provider's shape reads as nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooltape.fake_providers import get_dialect

CASES: list[tuple[str, Any, list[tuple[str, str]]]] = [
    ("openai_chat", {"choices": [{"delta": {"content": "Hi"}}]}, [("text", "Hi")]),
    (
        "openai_chat",
        {"choices": [{"delta": {"reasoning_content": "hm", "tool_calls": [{"index": 0}]}}]},
        [("reasoning", "hm"), ("tool", "")],
    ),
    ("groq", {"choices": [{"delta": {"reasoning": "hm"}}]}, [("reasoning", "hm")]),
    ("mistral_native", {"choices": [{"delta": {"content": "Hi"}}]}, [("text", "Hi")]),
    ("openai_responses", {"type": "response.output_text.delta", "delta": "Hi"}, [("text", "Hi")]),
    (
        "openai_responses",
        {"type": "response.reasoning_summary_text.delta", "delta": "hm"},
        [("reasoning", "hm")],
    ),
    (
        "openai_responses",
        {"type": "response.output_item.added", "item": {"type": "function_call"}},
        [("tool", "")],
    ),
    (
        "anthropic_messages",
        {"type": "content_block_delta", "delta": {"type": "thinking_delta", "thinking": "hm"}},
        [("reasoning", "hm")],
    ),
    (
        "anthropic_messages",
        {"type": "content_block_start", "content_block": {"type": "tool_use"}},
        [("tool", "")],
    ),
    (
        "bedrock_invoke",
        {"bytes": {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "Hi"}}},
        [("text", "Hi")],
    ),
    (
        "gemini",
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {"text": "hm", "thought": True},
                            {"functionCall": {"name": "f"}},
                            {"text": "after"},
                        ]
                    }
                }
            ]
        },
        [("reasoning", "hm"), ("tool", ""), ("text", "after")],
    ),
    (
        "ollama",
        {"message": {"thinking": "hm", "content": "Hi"}},
        [("reasoning", "hm"), ("text", "Hi")],
    ),
    (
        "cohere_v2",
        {"type": "content-delta", "delta": {"message": {"content": {"text": "Hi"}}}},
        [("text", "Hi")],
    ),
    ("cohere_v2", {"type": "tool-call-start"}, [("tool", "")]),
    (
        "cohere_v2",
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "Let me"}}},
        [("text", "Let me")],
    ),
    ("bedrock_converse", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}, [("text", "Hi")]),
    ("bedrock_converse", {"start": {"toolUse": {"name": "f"}}}, [("tool", "")]),
    # another provider's shape is not read
    ("anthropic_messages", {"choices": [{"delta": {"content": "Hi"}}]}, []),
    (
        "openai_chat",
        {"type": "content-delta", "delta": {"message": {"content": {"text": "Hi"}}}},
        [],
    ),
]


@pytest.mark.parametrize(("dialect", "data", "pieces"), CASES)
def test_each_dialect_reads_its_own_event_fields(
    dialect: str, data: Any, pieces: list[tuple[str, str]]
) -> None:
    assert get_dialect(dialect).event_pieces(data) == pieces


FINISHES: list[tuple[str, Any, str | None]] = [
    ("openai_chat", {"choices": [{"delta": {}, "finish_reason": "length"}]}, "length"),
    ("openai_chat", {"choices": [{"delta": {}, "finish_reason": "stop"}]}, None),
    ("azure", {"choices": [{"delta": {}, "finish_reason": "content_filter"}]}, "content_filter"),
    (
        "openai_responses",
        {"response": {"incomplete_details": {"reason": "max_output_tokens"}}},
        "length",
    ),
    ("anthropic_messages", {"delta": {"stop_reason": "max_tokens"}}, "length"),
    ("bedrock_invoke", {"bytes": {"delta": {"stop_reason": "max_tokens"}}}, "length"),
    ("gemini", {"candidates": [{"finishReason": "SAFETY"}]}, "content_filter"),
    ("ollama", {"done": True, "done_reason": "length"}, "length"),
    ("bedrock_converse", {"stopReason": "max_tokens"}, "length"),
    ("mistral_native", {"choices": [{"delta": {}, "finish_reason": "length"}]}, "length"),
    ("anthropic_messages", {"candidates": [{"finishReason": "MAX_TOKENS"}]}, None),
]


@pytest.mark.parametrize(("dialect", "data", "finish"), FINISHES)
def test_each_dialect_reads_its_own_finish(dialect: str, data: Any, finish: str | None) -> None:
    assert get_dialect(dialect).event_finish(data) == finish
