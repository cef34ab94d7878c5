"""Every server profile, streamed into ChatOpenAI (sync and async) through patch_httpx2.

For each profile a scenario goes through ``FakeProvider(profile, base_url=...)``
into the real adapter (``AzureChatOpenAI`` for Azure, ``ChatOpenAI`` elsewhere).
The test checks that the adapter's tool-call chunks equal ``get_dialect(profile).parse(body)``,
and pins what LangChain makes of the profile's quirks: the calls the reference
merge keeps, the hazards it names, the exception the adapter raises and the
``finish_reason`` of the summed message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from operator import add
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_openai import AzureChatOpenAI, ChatOpenAI
from langchain_openai.chat_models.base import BaseChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import FakeProvider, dialect_names, get_dialect, patch_httpx2
from tooltape.fake_providers.dialects.openai_compatible._profiles import (
    profile_base_url,
    profile_table,
)
from tooltape.harness import (
    HazardKind,
    MergeResult,
    Plan,
    PlannedCall,
    TooltapeUsageError,
    assert_merge,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

WEATHER = {"city": "Paris", "unit": "celsius"}
PARIS, OSLO = {"city": "Paris"}, {"city": "Oslo"}
TWO_IDS = "call_paris_01|call_oslo_02"


@dataclass(frozen=True)
class Pin:
    """What ChatOpenAI makes of one profile streaming one scenario."""

    scenario: str
    calls: list[tuple[str, dict[str, Any]]]
    """Name and args of every valid call the reference merge keeps."""
    ids: str | None
    """A pattern every call id matches in full (``None``: the calls have no id)."""
    hazards: frozenset[HazardKind] = frozenset()
    finish: str | None = "tool_calls"
    """The summed message's ``finish_reason`` (not checked when the adapter raises)."""
    error: str | None = None
    """The exception ChatOpenAI raises after the chunks it yielded."""
    invalid: int = 0
    check: Callable[[list[Any], bytes], None] | None = field(default=None)
    """A profile-specific check on the adapter's chunks and the body."""


def _prompt_filter_first(chunks: list[Any], body: bytes) -> None:
    assert body.startswith(b'data: {"choices":[],"created":0,"id":"","model":"","object":""')
    assert chunks[0].content == "" and not chunks[0].tool_call_chunks  # Azure: an empty chunk


def _usage_added_up(chunks: list[Any], body: bytes) -> None:
    # every chunk carries the prompt tokens and ChatOpenAI sums them
    usage = reduce(add, chunks).usage_metadata
    assert usage["input_tokens"] == 75 * sum(1 for c in chunks if c.usage_metadata)
    assert usage["input_tokens"] > 75


def _reasoning_dropped(chunks: list[Any], body: bytes) -> None:
    # reasoning_content deltas come first; ChatOpenAI keeps none of them
    assert body.count(b'"reasoning_content"') > 5
    assert reduce(add, chunks).content == "Checking both."


def _header_opens_args(chunks: list[Any], body: bytes) -> None:
    header = next(c for chunk in chunks for c in chunk.tool_call_chunks if c["id"])
    assert header["name"] == "get_weather" and header["args"].startswith("{")


def _model_name_doubled(chunks: list[Any], body: bytes) -> None:
    assert (
        reduce(add, chunks).response_metadata["model_name"] == "m" * 2
    )  # the request's model, echoed


def _keepalive_first(chunks: list[Any], body: bytes) -> None:
    assert body.startswith(b": OPENROUTER PROCESSING\n\n")  # the SDK skips comments
    assert b'"native_finish_reason":"tool_calls"' in body


def _no_done(chunks: list[Any], body: bytes) -> None:
    assert b"[DONE]" not in body and b'"message":' in body


PINS: dict[str, Pin] = {
    "azure": Pin(
        "openai_golden", [("get_weather", WEATHER)], "call_weather_1", check=_prompt_filter_first
    ),
    "azure_async_filter": Pin(
        "parallel_sequential", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS
    ),
    "databricks": Pin(
        "tool_after_text", [("get_weather", PARIS)], "call_weather_1", check=_usage_added_up
    ),
    "deepseek": Pin(
        "tool_after_thinking",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        TWO_IDS,  # the scenario's ids are given: call_id_format keeps them
        check=_reasoning_dropped,
    ),
    "gemini_openai": Pin(
        "parallel_sequential",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        "",
        frozenset({"missing_id"}),
        finish="stop",
    ),
    "gemini_openai_thinking": Pin(
        "openai_golden",
        [("get_weather", WEATHER)],
        "",
        frozenset({"missing_id"}),
        error="AttributeError",
    ),
    "groq": Pin("tool_after_thinking", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS),
    "kimi": Pin(
        "parallel_sequential",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        r"functions\.get_weather:[01]",
    ),
    "llamacpp": Pin(
        "openai_golden", [("get_weather", WEATHER)], "call_weather_1", check=_header_opens_args
    ),
    "llamacpp_legacy": Pin(
        "openai_golden",
        [("get_weather" * 10, WEATHER)],
        None,
        frozenset({"missing_id", "repeated_name"}),
    ),
    "lmstudio": Pin(
        "parallel_sequential", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS
    ),
    "lmstudio_trailing_entry": Pin(
        "openai_golden", [("get_weather", WEATHER)], "call_weather_1", error="AttributeError"
    ),
    "mistral": Pin(
        "parallel_sequential", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS
    ),  # the scenario's ids are given: call_id_format keeps them
    "ollama_openai": Pin(
        "tool_after_thinking", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS
    ),
    "openrouter": Pin(
        "openai_golden", [("get_weather", WEATHER)], "call_weather_1", check=_keepalive_first
    ),
    "openrouter_double_finish": Pin(
        "openai_golden",
        [("get_weather", WEATHER)],
        "call_weather_1",
        finish="tool_callstool_calls",
        check=_model_name_doubled,
    ),
    "qwen": Pin("openai_golden", [("get_weather", WEATHER)], "call_weather_1"),
    "qwen_native": Pin(
        "openai_golden", [], None, frozenset({"invalid_call", "repeated_name"}), invalid=1
    ),
    "sglang": Pin(
        "parallel_sequential",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        "[01]",
        finish="stop",
    ),
    "vllm": Pin(
        "openai_golden",
        [("get_weather" * 10, WEATHER)],
        "call_weather_1",
        frozenset({"repeated_name"}),
    ),
    "vllm_no_ids": Pin(
        "parallel_sequential",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        None,
        frozenset({"missing_id"}),
    ),
    "vllm_harmony": Pin(
        "openai_golden",
        [("get_weather", PARIS)],
        "call_weather_1",
        frozenset({"args_repaired", "id_changed", "invalid_call"}),
        invalid=1,
    ),
    "writer": Pin(
        "parallel_sequential",
        [("get_weather", PARIS), ("get_weather", OSLO)],
        TWO_IDS,
        check=_no_done,
    ),
    "xai": Pin("parallel_sequential", [("get_weather", PARIS), ("get_weather", OSLO)], TWO_IDS),
}


def _model(profile: str) -> BaseChatOpenAI:
    if profile.startswith("azure"):
        return AzureChatOpenAI(
            azure_endpoint="https://tooltape.openai.azure.com",
            azure_deployment="gpt-4o-mini",
            api_version="2024-12-01-preview",
            api_key=SecretStr("sk-test"),
            max_retries=0,
        )
    return ChatOpenAI(
        model="m", api_key=SecretStr("sk-test"), base_url=profile_base_url(profile), max_retries=0
    )


def _provider(profile: str, scenario: str) -> FakeProvider:
    chosen = get_scenario(scenario)
    provider = FakeProvider(profile, base_url=profile_base_url(profile))
    return provider.stream(chosen.plan, chosen.quirks, chosen.seed)


def _drop_last(chunks: list[Any]) -> list[Any]:
    """ChatOpenAI's closing ``chunk_position="last"`` chunk, which parse leaves out."""
    if chunks and getattr(chunks[-1], "chunk_position", None) == "last":
        assert not chunks[-1].tool_call_chunks
        return chunks[:-1]
    return chunks


def _check(profile: str, chunks: list[Any], error: Exception | None, body: bytes) -> None:
    pin = PINS[profile]
    chunks = _drop_last(chunks)
    deltas = get_dialect(profile).parse(body)
    assert [c.tool_call_chunks for c in chunks] == deltas
    assert (type(error).__name__ if error else None) == pin.error
    result: MergeResult = assert_merge(
        deltas,
        [{"name": name, "args": args, "id": None} for name, args in pin.calls],
        allow_hazards=pin.hazards,
        ignore_ids=True,
    )
    assert result.hazard_kinds() == pin.hazards
    assert len(result.invalid_tool_calls) == pin.invalid
    for call in result.tool_calls:
        assert (call["id"] is None) if pin.ids is None else re.fullmatch(pin.ids, call["id"] or "")
    if pin.error is None:
        message = reduce(add, chunks)
        assert isinstance(message, AIMessageChunk)
        assert [(c["name"], c["args"]) for c in message.tool_calls] == pin.calls
        assert message.response_metadata.get("finish_reason") == pin.finish
    if pin.check is not None:
        pin.check(chunks, body)


@pytest.mark.parametrize("profile", sorted(PINS))
def test_chat_openai_stream_pins_what_langchain_makes_of_the_profile(profile: str) -> None:
    provider = _provider(profile, PINS[profile].scenario)
    chunks: list[Any] = []
    error: Exception | None = None
    with patch_httpx2(provider) as transport:
        try:
            chunks.extend(_model(profile).stream("weather?"))
        except Exception as raised:
            error = raised
    transport.assert_all_played()
    _check(profile, chunks, error, provider.turns[0].wire.body)


@pytest.mark.asyncio
@pytest.mark.parametrize("profile", sorted(PINS))
async def test_chat_openai_astream_pins_the_same(profile: str) -> None:
    provider = _provider(profile, PINS[profile].scenario)
    chunks: list[Any] = []
    error: Exception | None = None
    with patch_httpx2(provider):
        try:
            async for chunk in _model(profile).astream("weather?"):
                chunks.append(chunk)
        except Exception as raised:
            error = raised
    _check(profile, chunks, error, provider.turns[0].wire.body)


def test_every_profile_has_a_pin_and_is_listed() -> None:
    names = [row[0] for row in profile_table()]
    assert sorted(PINS) == sorted(names)
    assert set(names) == set(dialect_names(profiles=True)) - set(dialect_names())


# --- the quirks a profile exists for, one by one ----------------------------------------


def _stream(
    profile: str, plan: Plan, quirks: list[Any]
) -> tuple[list[Any], Exception | None, bytes]:
    provider = FakeProvider(profile, base_url=profile_base_url(profile)).stream(plan, quirks)
    chunks: list[Any] = []
    with patch_httpx2(provider):
        try:
            chunks.extend(_model(profile).stream("go"))
        except Exception as raised:
            return chunks, raised, provider.turns[0].wire.body
    return _drop_last(chunks), None, provider.turns[0].wire.body


def test_azure_content_filter_cuts_the_call_and_names_the_filtered_category() -> None:
    """The filter stops the arguments; the call still counts as valid."""
    plan = Plan(calls=(PlannedCall(name="search", args={"q": "lock picking"}, id="c1"),))
    plan = plan.model_copy(update={"finish": "content_filter"})
    chunks, error, body = _stream("azure", plan, [{"kind": "truncate_args", "at": "string"}])
    assert error is None
    message = reduce(add, chunks)
    assert message.response_metadata["finish_reason"] == "content_filter"
    assert message.tool_calls[0]["args"] == {"q": "lock p"}
    assert b'"violence":{"filtered":true,"severity":"medium"}' in body
    result = assert_merge(
        get_dialect("azure").parse(body), message, allow_hazards=["args_repaired"]
    )
    assert result.hazard_kinds() == {"args_repaired"}


def test_groq_tool_use_failed_raises_after_the_partial_call_was_yielded() -> None:
    scenario = get_scenario("truncated_error_event")
    chunks, error, body = _stream("groq", scenario.plan, list(scenario.quirks))
    assert type(error).__name__ == "APIError"
    assert str(error).startswith("Failed to call a function. Please adjust your prompt.")
    assert b"event: error\n" in body and b"tool_use_failed" in body and b"[DONE]" not in body
    partial = reduce(add, chunks)
    assert partial.tool_calls[0]["args"] == {"city": "Pa"}  # whole_call carries the cut args


def test_a_scenario_that_contradicts_the_profile_is_refused() -> None:
    """Mistral sends every call whole: a scenario that splits arguments cannot be expressed."""
    scenario = get_scenario("repeated_name")
    with pytest.raises(TooltapeUsageError, match="pick one"):
        get_dialect("mistral").render(scenario.plan, scenario.quirks)
