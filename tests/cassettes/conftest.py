"""Shared helpers for the cassette tests: hostile files built on the fly, never committed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tooltape.cassettes import library_path

GOLDEN = library_path("openai_golden", "openai_chat")
"""A small real-shaped OpenAI Chat Completions cassette to edit."""


def golden_data() -> dict[str, Any]:
    """The golden cassette as plain YAML data, ready to be edited."""
    data: dict[str, Any] = yaml.safe_load(GOLDEN.read_text(encoding="utf-8"))
    return data


def chat_chunk(delta: dict[str, Any]) -> str:
    """One Chat Completions SSE event carrying ``delta``."""
    payload = {
        "id": "chatcmpl-x",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return f"data: {json.dumps(payload, separators=(',', ':'))}\n\n"


def many_calls_body(calls: int) -> str:
    """An SSE body streaming ``calls`` parallel tool calls, each as a name chunk then args."""
    events = [chat_chunk({"role": "assistant", "content": None})]
    for n in range(calls):
        start = {"index": n, "id": f"call_{n}", "function": {"name": "get_weather", "arguments": ""}}
        events.append(chat_chunk({"tool_calls": [start]}))
        args = {"index": n, "function": {"arguments": json.dumps({"city": f"c{n}"})}}
        events.append(chat_chunk({"tool_calls": [args]}))
    events.append("data: [DONE]\n\n")
    return "".join(events)


def write_cassette(path: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as a cassette file at ``path`` and return the path."""
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def many_calls_cassette(path: Path, calls: int) -> Path:
    """A cassette at ``path`` whose one answer streams ``calls`` tool calls."""
    data = golden_data()
    data["interactions"][0]["response"]["body"]["string"] = many_calls_body(calls)
    data.pop("tooltape", None)
    return write_cassette(path, data)
