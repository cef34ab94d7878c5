"""Builders of hostile and huge cassettes for the cassette tests and bench/ (never committed)."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
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
        function = {"name": "get_weather", "arguments": ""}
        start = {"index": n, "id": f"call_{n}", "function": function}
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
    response = data["interactions"][0]["response"]
    response["body"]["string"] = many_calls_body(calls)
    response.pop("tooltape", None)  # the golden body's read offsets, past a shorter body
    data.pop("tooltape", None)
    return write_cassette(path, data)


def alias_bomb(levels: int = 9) -> str:
    """YAML lines defining ``&b0``..``&b{levels-1}``, each nine aliases of the one before.

    Referencing ``*b8`` stands for 9**9 (387 million) strings in under 1 KB of text.
    """
    lines = ["bombs:", '  b0: &b0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"  b{level}: &b{level} [" + ",".join([f"*b{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


CASSETTE_FIELDS = {
    "method": "POST",
    "uri": "https://api.openai.com/v1/chat/completions",
    "headers": "{}",
    "body": "null",
    "status": "{code: 200, message: OK}",
    "response_headers": "{content-type: [text/event-stream]}",
    "string": "'data: [DONE]\n\n'",
}
"""The fields of a one-interaction cassette, as YAML flow text."""


def cassette_text(**fields: str) -> str:
    """A one-interaction cassette's text with some fields replaced by raw YAML."""
    f = {**CASSETTE_FIELDS, **fields}
    return (
        "version: 1\ninteractions:\n- request:\n"
        f"    method: {f['method']}\n    uri: {f['uri']}\n"
        f"    headers: {f['headers']}\n    body: {f['body']}\n"
        f"  response:\n    status: {f['status']}\n    headers: {f['response_headers']}\n"
        f"    body: {{string: {f['string']}}}\n"
    )


def bomb_in(field: str) -> str:
    """A cassette whose ``field`` is an alias bomb."""
    value = "{code: *b8, message: OK}" if field == "status" else "*b8"
    if field in ("headers", "response_headers"):
        value = "{x-bomb: *b8}"
    return alias_bomb() + cassette_text(**{field: value})


def dialect_body(dialect: str, mutate: Any = None) -> bytes:
    """The bundled ``whole_call`` stream of ``dialect``, its first tool-call event mutated.

    ``mutate`` takes the event's payload (a dict) and returns the new one; the
    stream is framed again by the dialect itself (SSE, NDJSON or AWS event stream).
    """
    from tooltape.cassettes import get_scenario
    from tooltape.fake_providers import get_dialect
    from tooltape.harness import stream_plan

    chosen = get_dialect(dialect)
    events = chosen.events(stream_plan(get_scenario("whole_call").plan), [])
    if mutate is not None:
        for number, event in enumerate(events):
            payload, encode = _open(event.data)
            if "get_weather" in json.dumps(payload):
                events[number] = replace(event, data=encode(mutate(payload)))
                break
    return b"".join(chosen.frame(event) for event in events)


def _open(data: Any) -> tuple[Any, Any]:
    """An event's payload as plain data, and how to put an edited payload back."""
    if isinstance(data, str):  # pre-encoded JSON text (Gemini's spacing)
        return json.loads(data), json.dumps
    if isinstance(data, dict) and isinstance(data.get("bytes"), str):  # Bedrock invoke
        inner = json.loads(base64.b64decode(data["bytes"]))

        def wrap(payload: Any) -> Any:
            return {**data, "bytes": base64.b64encode(json.dumps(payload).encode()).decode()}

        return inner, wrap
    return json.loads(json.dumps(data)), lambda payload: payload


def deep_eventstream_body(depth: int = 100_000) -> bytes:
    """A Bedrock Converse stream plus one event whose JSON payload nests ``depth`` deep."""
    from tooltape.fake_providers.dialects.bedrock._eventstream import encode_eventstream_message

    headers = [
        (":event-type", "contentBlockDelta"),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ]
    return dialect_body("bedrock_converse") + encode_eventstream_message(headers, b"[" * depth)
