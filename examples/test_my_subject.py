"""Bring your own subject: a small OpenAI stream reader of our own, judged like the matrix's.

A subject is a name, the dialects it reads and one function: given the base URL of
a fake provider on 127.0.0.1 and the turn's tools, stream one turn and return the
tool calls. ``check_subject`` runs it over the bundled scenarios and fails on every
cell where it is worse than langchain-core, crashes or hangs (better is fine).

Run: pytest examples/test_my_subject.py
The same subject in the matrix: tooltape matrix --subject test_my_subject:subject
(with examples/ on PYTHONPATH), or register it under the ``tooltape.subjects``
entry-point group of your package.
"""

import json

import httpx

from tooltape.plugin import Subject, check_subject


def read_tool_calls(base_url: str, tools: list[dict]) -> list[dict]:
    """Our adapter under test: stream a chat completion and accumulate calls by index."""
    body = {"model": "gpt-4o-mini", "stream": True, "tools": tools,
            "messages": [{"role": "user", "content": "Weather in Paris?"}]}  # fmt: skip
    calls: dict[int, dict] = {}
    with httpx.stream("POST", f"{base_url}/chat/completions", json=body, timeout=10) as response:
        for line in response.iter_lines():
            if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices", []):
                for part in (choice.get("delta") or {}).get("tool_calls") or []:
                    new = {"name": "", "args": "", "id": None}
                    call = calls.setdefault(part.get("index", 0), new)
                    call["id"] = call["id"] or part.get("id")
                    function = part.get("function") or {}
                    call["name"] += function.get("name") or ""
                    call["args"] += function.get("arguments") or ""
    return [calls[index] for index in sorted(calls)]


def subject() -> Subject:
    return Subject("my-openai-reader", ("openai_chat",), read_tool_calls)


def test_my_reader_holds_up_on_the_golden_and_parallel_scenarios():
    assert check_subject(subject(), tags=["golden"]) == []
    assert check_subject(subject(), scenarios=["parallel_interleaved"]) == []
