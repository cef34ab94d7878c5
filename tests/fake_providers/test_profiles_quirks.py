"""The profile registry, and every profile EVENTS quirk on the plain ``openai_chat`` dialect.

Each quirk must change the rendering in the way its docstring says (a check that
fails on the plain rendering and passes on the quirky one), and ChatOpenAI must
read the quirky bytes exactly as ``parse`` says, raising where the quirk makes it
raise.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.fake_providers._profile import ProfileDialect
from tooltape.fake_providers.dialects.openai_chat import read_chat_stream
from tooltape.fake_providers.dialects.openai_chat._dialect import ChatEventQuirk
from tooltape.fake_providers.dialects.openai_compatible import _call_quirks, _quirks, _server_quirks
from tooltape.fake_providers.dialects.openai_compatible._call_quirks import CallIdFormat
from tooltape.fake_providers.dialects.openai_compatible._profiles import (
    PROFILES,
    corpus_claims,
    profile_base_url,
    profile_table,
)
from tooltape.harness import Plan, PlannedCall, TooltapeUsageError, parse_quirk, quirk_kinds

pytestmark = [
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

CHAT = get_dialect("openai_chat")
QUIRK_MODULES = (_quirks, _server_quirks, _call_quirks)
PLAN = Plan(
    reasoning="Two lookups.",
    text_before="Checking.",
    calls=(
        PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_paris_01"),
        PlannedCall(name="get_time", args={"tz": "CET"}, id="call_time_02"),
    ),
)
NUMBERED_PLAN = Plan(
    **PLAN.model_dump(exclude={"calls"}),
    calls=[PlannedCall(name=c.name, args=c.args) for c in PLAN.calls],
)
"""PLAN with ids the plan numbers: the cosmetic id styles keep ids a plan was given."""


# --- the registry -----------------------------------------------------------------------


def test_the_table_lists_every_registered_profile_with_its_quirks() -> None:
    table = profile_table()
    assert [row[0] for row in table] == [p.name for p in PROFILES]
    assert {row[0] for row in table} == set(dialect_names(profiles=True)) - set(dialect_names())
    for name, base, kinds, description in table:
        assert base == "openai_chat"
        assert set(kinds) <= set(quirk_kinds())
        profile = get_dialect(name)
        assert isinstance(profile, ProfileDialect)
        assert kinds == tuple(q.kind for q in profile.quirks)
        assert description and "§" not in description, name
        evidence = [c for q in profile.quirks for c in type(q).cites if c.startswith("https://")]
        assert evidence or "corpus" in description, name  # a public link or a recording


@pytest.mark.parametrize("profile", [p.name for p in PROFILES])
def test_a_profile_renders_openai_chat_with_its_quirks_first(profile: str) -> None:
    quirks = [*next(p.quirks for p in PROFILES if p.name == profile), "no_logprobs"]
    expected = CHAT.render(PLAN, quirks, seed=3)
    assert get_dialect(profile).render(PLAN, ["no_logprobs"], seed=3) == expected
    assert get_dialect(profile).path == CHAT.path


def test_claims_and_base_urls() -> None:
    claims = dict(corpus_claims())
    assert len(claims) == len(corpus_claims())  # one profile per corpus provider
    assert claims["azure_openai"] == "azure" and claims["gemini_openai_compat"] == "gemini_openai"
    assert profile_base_url("groq") == "https://api.groq.com/openai/v1"
    with pytest.raises(TooltapeUsageError, match="unknown profile 'nope'; known profiles: azure"):
        profile_base_url("nope")


def test_an_event_quirk_of_another_dialect_is_refused_naming_the_profile_quirks() -> None:
    with pytest.raises(
        TooltapeUsageError,
        match=r"ping_events\(every=1\) cannot be rendered.*another dialect.*sorted_keys",
    ):
        get_dialect("vllm").render(PLAN, ["ping_events"])


# --- each quirk, on openai_chat ---------------------------------------------------------

Payloads = list[dict[str, Any]]


def _payloads(body: bytes) -> Payloads:
    blocks = [b for b in body.decode().split("\n\n") if "data: {" in b]
    return [json.loads(b[b.index("data: ") + 6 :]) for b in blocks]


def _deltas(payloads: Payloads) -> list[dict[str, Any]]:
    return [p["choices"][0].get("delta") or {} for p in payloads if p.get("choices")]


def _entries(payloads: Payloads) -> list[dict[str, Any]]:
    return [e for d in _deltas(payloads) for e in d.get("tool_calls") or []]


def _finish_chunks(payloads: Payloads) -> Payloads:
    return [p for p in payloads if p.get("choices") and p["choices"][0].get("finish_reason")]


def _finish_before_last_fragment(payloads: Payloads) -> bool:
    """A ``finish_reason`` arrives while argument fragments are still to come."""
    finish = next(i for i, p in enumerate(payloads) if p in _finish_chunks(payloads))
    later = [e for p in payloads[finish + 1 :] for e in _entries([p])]
    return any(e.get("function", {}).get("arguments") for e in later)


def _sorted(value: Any) -> bool:
    if isinstance(value, dict):
        return list(value) == sorted(value) and all(map(_sorted, value.values()))
    return all(map(_sorted, value)) if isinstance(value, list) else True


def _ids(pattern: str) -> Callable[[Payloads], bool]:
    return lambda ps: all(re.fullmatch(pattern, e["id"]) for e in _entries(ps) if "id" in e)


ERROR_PLAN = PLAN.model_copy(update={"finish": "error"})
RC = {"kind": "reasoning_deltas", "field": "reasoning_content"}
R = {"kind": "reasoning_deltas", "field": "reasoning"}

CASES: dict[str, tuple[Any, list[Any], Plan, Callable[[Payloads], bool]]] = {
    "sorted_keys": ("sorted_keys", [], PLAN, lambda ps: all(map(_sorted, ps))),
    "azure_content_filter": (
        "azure_content_filter",
        [],
        PLAN,
        lambda ps: ps[0]["choices"] == [] and "prompt_filter_results" in ps[0],
    ),
    "azure_annotation_frames": (
        {"kind": "azure_annotation_frames", "at": "middle"},
        [],
        PLAN,
        lambda ps: any(c.keys() >= {"content_filter_offsets"} for p in ps for c in p["choices"]),
    ),
    "no_system_fingerprint": (
        "no_system_fingerprint",
        [],
        PLAN,
        lambda ps: not any("system_fingerprint" in p for p in ps),
    ),
    "no_chunk_id": ("no_chunk_id", [], PLAN, lambda ps: not any("id" in p for p in ps)),
    "openrouter_fields": (
        {"kind": "openrouter_fields", "native_finish_reason": "max_tokens"},
        [],
        PLAN,
        lambda ps: (
            ps[0].get("provider") == "OpenAI"
            and _finish_chunks(ps)[0]["choices"][0].get("native_finish_reason") == "max_tokens"
        ),
    ),
    "x_groq": (
        "x_groq",
        [],
        PLAN,
        lambda ps: (
            "seed" in ps[0].get("x_groq", {}) and "usage" in _finish_chunks(ps)[0].get("x_groq", {})
        ),
    ),
    "writer_chunks": (
        "writer_chunks",
        [],
        PLAN,
        lambda ps: all(c.get("message") == c["delta"] for p in ps for c in p["choices"]),
    ),
    "role_on_every_delta": (
        "role_on_every_delta",
        [],
        PLAN,
        lambda ps: (
            all(d.get("role") == "assistant" for d in _deltas(ps))
            and _deltas(ps)[0]["content"] == "Checking."
        ),
    ),
    "reasoning_channel": (
        "reasoning_channel",
        [R],
        PLAN,
        lambda ps: {"reasoning": "Two", "channel": "analysis"} in _deltas(ps),
    ),
    "finish_delta_fields": (
        "finish_delta_fields",
        [RC],
        PLAN,
        lambda ps: (
            _finish_chunks(ps)[0]["choices"][0]["delta"]
            == {"content": "", "reasoning_content": None}
        ),
    ),
    "content_with_tool_calls": (
        "content_with_tool_calls",
        [],
        PLAN,
        lambda ps: all("content" in d for d in _deltas(ps) if d.get("tool_calls")),
    ),
    "usage_placement_null": (
        {"kind": "usage_placement", "before": "null"},
        [],
        PLAN,
        lambda ps: all(p["choices"] for p in ps) and bool(_finish_chunks(ps)[0]["usage"]),
    ),
    "usage_placement_running": (
        {"kind": "usage_placement", "before": "running"},
        [],
        PLAN,
        lambda ps: (
            all((p.get("usage") or {}).get("prompt_tokens") == 75 for p in ps)
            and ps[0]["usage"]["completion_tokens"] is None
        ),
    ),
    "usage_placement_absent": (
        {"kind": "usage_placement", "on": "usage_chunk", "before": "absent"},
        [],
        PLAN,
        lambda ps: [p["choices"] for p in ps if "usage" in p] == [[]],
    ),
    "usage_chunk_choice": (
        "usage_chunk_choice",
        [],
        PLAN,
        lambda ps: (
            bool(ps[-1]["usage"] and ps[-1]["choices"])
            and ps[-1]["choices"][0]["finish_reason"] is None
        ),
    ),
    "finish_on_last_delta": (
        "finish_on_last_delta",
        [],
        PLAN,
        lambda ps: "tool_calls" in _finish_chunks(ps)[0]["choices"][0]["delta"],
    ),
    "one_chunk_turn": ("one_chunk_turn", [], PLAN, lambda ps: len(ps) == 1),
    "stop_after_tool_calls": (
        "stop_after_tool_calls",
        [],
        PLAN,
        lambda ps: _finish_chunks(ps)[0]["choices"][0]["finish_reason"] == "stop",
    ),
    "duplicate_finish": ("duplicate_finish", [], PLAN, lambda ps: len(_finish_chunks(ps)) == 2),
    "duplicate_finish_stop": (
        {"kind": "duplicate_finish", "second_reason": "stop"},
        [],
        PLAN,
        lambda ps: (
            [p["choices"][0]["finish_reason"] for p in _finish_chunks(ps)] == ["tool_calls", "stop"]
        ),
    ),
    "early_finish_reason": ("early_finish_reason", [], PLAN, _finish_before_last_fragment),
    "groq_tool_use_failed": (
        "groq_tool_use_failed",
        [],
        ERROR_PLAN,
        lambda ps: ps[-1]["error"]["code"] == "tool_use_failed",
    ),
    "call_id_format_deepseek": (
        {"kind": "call_id_format", "style": "deepseek"},
        [],
        NUMBERED_PLAN,
        _ids(r"call_0[01]_[A-Za-z0-9]{24}"),
    ),
    "call_id_format_mistral": (
        {"kind": "call_id_format", "style": "mistral"},
        [],
        NUMBERED_PLAN,
        _ids("[A-Za-z0-9]{9}"),
    ),
    "call_id_format_kimi": (
        {"kind": "call_id_format", "style": "kimi"},
        [],
        PLAN,
        _ids(r"functions\.get_weather:0|functions\.get_time:1"),
    ),
    "call_id_format_sglang": (
        {"kind": "call_id_format", "style": "sglang"},
        [],
        PLAN,
        _ids("[01]"),
    ),
    "no_call_type": (
        "no_call_type",
        [],
        PLAN,
        lambda ps: not any("type" in e for e in _entries(ps)),
    ),
    "id_in_function": (
        "id_in_function",
        [],
        PLAN,
        lambda ps: (
            not any("id" in e for e in _entries(ps))
            and any("id" in e["function"] for e in _entries(ps))
        ),
    ),
    "args_on_header": (
        "args_on_header",
        [],
        PLAN,
        lambda ps: all(e["function"]["arguments"] for e in _entries(ps) if "id" in e),
    ),
    "thought_signatures": (
        "thought_signatures",
        [],
        PLAN,
        lambda ps: all("extra_content" in e for e in _entries(ps) if e["function"].get("name")),
    ),
}
CASES |= {
    f"functionless_entry_{variant}": (
        {"kind": "functionless_entry", "variant": variant},
        [],
        PLAN,
        lambda ps: any("function" not in e for e in _entries(ps)),
    )
    for variant in ("lmstudio", "vllm", "gemini")
}


class _Reads(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self) -> Iterator[bytes]:
        yield self.body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body


def _adapter_reading(body: bytes) -> tuple[list[Any], str | None]:
    """The tool-call chunks ChatOpenAI yields from ``body``, and the exception it raised."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = [("content-type", "text/event-stream")]
        return httpx2.Response(200, headers=headers, stream=_Reads(body))

    model = ChatOpenAI(
        model="m",
        api_key=SecretStr("sk-test"),
        base_url="http://fake/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    chunks: list[Any] = []
    try:
        chunks.extend(model.stream("hi"))
    except Exception as error:
        return [c.tool_call_chunks for c in chunks], type(error).__name__
    if chunks and chunks[-1].chunk_position == "last":
        chunks.pop()
    return [c.tool_call_chunks for c in chunks], None


def test_every_profile_event_quirk_is_an_openai_chat_quirk_with_a_case() -> None:
    classes = [getattr(m, name) for m in QUIRK_MODULES for name in m.__all__]
    assert all(issubclass(c, ChatEventQuirk) for c in classes)
    ours = {c.model_fields["kind"].default for c in classes}
    assert ours == {parse_quirk(spec).kind for spec, *_ in CASES.values()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_quirk_does_what_it_says_and_chatopenai_reads_it_like_parse(case: str) -> None:
    spec, base, plan, shows = CASES[case]
    plain = CHAT.render(plan, base, seed=2).body
    quirky = CHAT.render(plan, [*base, spec], seed=2).body
    assert not shows(_payloads(plain))
    assert shows(_payloads(quirky))
    reading = read_chat_stream(quirky)
    deltas, error = _adapter_reading(quirky)
    assert deltas == reading.deltas
    assert error == (reading.error.split(":")[0] if reading.error else None)
    if parse_quirk(spec).lossless and plan.finish != "error":
        assert error is None


def test_call_ids_already_in_the_format_pass_and_others_are_stable() -> None:
    deepseek = CallIdFormat(style="deepseek")
    kept = "call_00_tz6Vq4aG59EtpFCVbpoY3635"
    assert deepseek.wire_id(kept, 0, "f") == kept
    minted = deepseek.wire_id("call_a", 1, "f", seed=4)
    assert minted == deepseek.wire_id("call_a", 1, "f", seed=4)
    assert minted != deepseek.wire_id("call_a", 1, "f", seed=5)
    assert minted.startswith("call_01_")
    assert CallIdFormat(style="mistral").wire_id("abcDEF123", 3, "f") == "abcDEF123"
    assert CallIdFormat(style="kimi").wire_id("c", 2, "read_file") == "functions.read_file:2"
