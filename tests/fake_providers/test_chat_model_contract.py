"""Every dialect's parse() is what its own LangChain chat model yields, on the same bytes.

One contract over the dialect registry: the shared sample plans (``tests/_plans.py``)
x every quirk each dialect ``expresses`` (lossless and lossy), every WIRE quirk its
framing takes and every finish it renders. Each wire is served to the dialect's
``chat_model()`` through the plugin's :class:`FakeSession` (httpx2, httpx or
botocore over 127.0.0.1, as the dialect's ``sdk_stack`` says; the ``chat_models``
fixture), streamed, and held to

- ``dialect.parse(wire.body)``, delta for delta, and langchain-core's n-ary merge of
  the adapter's chunks to ``reference_merge(parsed)`` (:func:`assert_merges_as_parsed`);
- the plan's calls, for lossless quirks;
- the error the adapter raises (:data:`RAISES`), and none where the table names none.

Adapters that mint their own ids where the wire has none are compared by position
(:func:`by_position`); :data:`ADAPTER_IDS` says which. The registry test below fails
when a dialect is added without its entries. Each dialect's own file keeps what is
its own: quirk combinations, its lossy quirks' consequences, error shapes, SDK clients.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import pytest
from _adapter_streams import (
    ChatModels,
    assert_merges_as_parsed,
    by_position,
    same,
    wire_quirk_kinds,
    without_ids,
)
from _plans import sample_plans
from langchain_core.messages import AIMessageChunk
from packaging.version import Version

from tooltape.fake_providers import Wire, dialect_names, get_dialect
from tooltape.harness import Plan, TooltapeUsageError, parse_quirk

ADAPTER_IDS = {
    "anthropic_messages": "wire",
    "bedrock_converse": "wire",
    "bedrock_invoke": "wire",
    "cohere_v2": "per_chunk",
    "gemini": "minted",
    "mistral_native": "minted",
    "ollama": "minted",
    "openai_chat": "wire",
    "openai_responses": "wire",
}
"""Which ids the dialect's chat model streams: the wire's (``wire``), its own uuid4 per
call where it drops or lacks them (``minted``), or a fresh uuid4 on every chunk of
``stream()``, so langchain-core cannot join a call's fragments (``per_chunk``:
ChatCohere; its ``astream`` and reader are pinned in ``test_cohere.py``)."""
# anthropic 2.17 turns a stream the server drops into its APIConnectionError (which
# langchain-anthropic raises as AnthropicConnectionError); 2.16 and older let httpx2's
# RemoteProtocolError through.
_ANTHROPIC_DROP = (
    "AnthropicConnectionError"
    if Version(version("anthropic")) >= Version("2.17")
    else "RemoteProtocolError"
)
RAISES: dict[str, dict[str, str]] = {
    "anthropic_messages": {
        "finish=error": "APIStatusError",
        "close_mid_event": _ANTHROPIC_DROP,
    },
    "bedrock_converse": {
        "finish=error": "EventStreamError",
        "finish=eof": "ConnectionError",
        "truncate_args": "ConnectionError",
        "close_mid_event": "ProtocolError",
    },
    "bedrock_invoke": {
        "finish=error": "EventStreamError",
        "close_mid_event": "ProtocolError",
    },
    "cohere_v2": {"close_mid_event": "RemoteProtocolError"},
    "gemini": {
        "finish=error": "GoogleAPIError",
        "close_mid_event": "RemoteProtocolError",
        "comments": "UnknownApiResponseError",
        "data_no_space": "UnknownApiResponseError",
        "retry_block": "UnknownApiResponseError",
        "sse_fields": "UnknownApiResponseError",
        "error_envelope": "TypeError",
    },
    "mistral_native": {
        "close_mid_event": "RemoteProtocolError",
        "retry_block": "JSONDecodeError",
    },
    "ollama": {"finish=error": "ResponseError", "close_mid_event": "RemoteProtocolError"},
    "openai_chat": {
        "finish=error": "APIError",
        "close_mid_event": "OpenAIConnectionError",
        "error_envelope": "APIError",
        "retry_block": "JSONDecodeError",
    },
    "openai_responses": {
        "finish=error": "ValueError",
        "close_mid_event": "OpenAIConnectionError",
        "error_envelope": "APIError",
        "retry_block": "JSONDecodeError",
    },
}
"""What the chat model raises, by what the wire does (a quirk kind or ``finish=...``);
everything else streams to the end without an error."""
LOST_BY_THE_ADAPTER = {
    "openai_responses": {
        "interleave_calls",
        "truncate_args",
        "non_object_args",
        "close_mid_event",
        "no_trailing_blank",
        "finish=eof",
    },
    "anthropic_messages": {"channel_in_name"},
}
"""Quirks (and finishes) left out for a dialect: ChatOpenAI re-indexes interleaved
Responses deltas, and where a stream ends before ``response.completed`` (cut, or
langchain-core refusing non-object arguments) it yields no chunk for the last event,
which parse() reads as one more empty delta (interleaving and the truncated stream are
pinned in ``test_openai_responses_clients.py``); the tools ChatAnthropic declares
carry the wire's names, and the fake refuses a ``<|channel|>`` name as Anthropic does,
before any stream."""
PLANS = sample_plans("call_")
ASYNC_PLANS = ("two_calls", "thinking_text_call")
"""The plans streamed through ``astream`` too, under every quirk the dialect expresses."""
WIRE_PLAN = "thinking_text_call"
"""The plan streamed under each WIRE quirk and each finish."""
FINISHES = ("stop", "length", "content_filter", "eof", "error")


def lossless_kinds(dialect: str) -> list[str]:
    """The quirk kinds ``dialect`` expresses that leave the plan recoverable."""
    return sorted(k for k in get_dialect(dialect).expresses if parse_quirk(k).lossless)


def expressed(dialect: str) -> list[list[str]]:
    """No quirk, then each quirk kind ``dialect`` expresses, alone."""
    kinds = sorted(get_dialect(dialect).expresses - LOST_BY_THE_ADAPTER.get(dialect, set()))
    return [[], *([k] for k in kinds)]


def renders(dialect: str, plan: Plan, quirks: list[str]) -> bool:
    try:
        get_dialect(dialect).render(plan, quirks)
    except TooltapeUsageError:
        return False
    return True


def quirk_cases(plans: Any) -> list[Any]:
    return [
        pytest.param(name, plan, quirks, id=f"{name}-{plan}-{'+'.join(quirks) or 'none'}")
        for name in dialect_names()
        for plan in plans
        for quirks in expressed(name)
    ]


def wire_cases() -> list[Any]:
    return [
        pytest.param(name, kind, id=f"{name}-{kind}")
        for name in dialect_names()
        for kind in wire_quirk_kinds()
        if renders(name, PLANS[WIRE_PLAN], [kind])
        and kind not in LOST_BY_THE_ADAPTER.get(name, set())
    ]


def finish_cases() -> list[Any]:
    return [
        pytest.param(name, finish, id=f"{name}-{finish}")
        for name in dialect_names()
        for finish in FINISHES
        if renders(name, PLANS[WIRE_PLAN].model_copy(update={"finish": finish}), [])
        and f"finish={finish}" not in LOST_BY_THE_ADAPTER.get(name, set())
    ]


def check_contract(
    dialect: str,
    plan: Plan,
    quirks: list[str],
    wire: Wire,
    streamed: tuple[list[AIMessageChunk], BaseException | None],
) -> None:
    chunks, error = streamed
    causes = [*quirks, f"finish={plan.effective_finish}"]
    raises = next((RAISES[dialect][c] for c in causes if c in RAISES[dialect]), None)
    assert (type(error).__name__ if error else None) == raises, f"{dialect}: {error!r}"
    ids = ADAPTER_IDS[dialect]
    reference = assert_merges_as_parsed(
        chunks, get_dialect(dialect).parse(wire.body), same if ids == "wire" else by_position
    )
    if raises or not all(parse_quirk(q).lossless for q in quirks):
        return
    if plan.effective_finish in ("eof", "error"):
        return
    expected = plan.expected_calls()
    if ids == "wire":
        assert reference.calls() == expected
    elif ids == "minted":
        assert without_ids(reference.calls()) == without_ids(expected)


def test_the_tables_name_only_registered_dialects_and_every_one() -> None:
    assert sorted(ADAPTER_IDS) == sorted(RAISES) == sorted(dialect_names())
    assert set(LOST_BY_THE_ADAPTER) <= set(dialect_names())


def test_every_dialect_expresses_a_lossless_quirk() -> None:
    assert all(lossless_kinds(name) for name in dialect_names())


@pytest.mark.parametrize(("dialect", "plan", "quirks"), quirk_cases(PLANS))
def test_parse_equals_the_chat_model_stream(
    chat_models: ChatModels, dialect: str, plan: str, quirks: list[str]
) -> None:
    wire = get_dialect(dialect).render(PLANS[plan], quirks, seed=3)
    check_contract(dialect, PLANS[plan], quirks, wire, chat_models.stream(dialect, wire))


@pytest.mark.parametrize(("dialect", "kind"), wire_cases())
def test_parse_equals_the_chat_model_stream_under_wire_quirks(
    chat_models: ChatModels, dialect: str, kind: str
) -> None:
    plan = PLANS[WIRE_PLAN]
    wire = get_dialect(dialect).render(plan, [kind], seed=1)
    check_contract(dialect, plan, [kind], wire, chat_models.stream(dialect, wire))


@pytest.mark.parametrize(("dialect", "finish"), finish_cases())
def test_parse_equals_the_chat_model_stream_for_every_finish(
    chat_models: ChatModels, dialect: str, finish: str
) -> None:
    plan = PLANS[WIRE_PLAN].model_copy(update={"finish": finish})
    wire = get_dialect(dialect).render(plan)
    check_contract(dialect, plan, [], wire, chat_models.stream(dialect, wire))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("dialect", "plan", "quirks"),
    [p for p in quirk_cases(ASYNC_PLANS) if ADAPTER_IDS[p.values[0]] != "per_chunk"],
)
async def test_parse_equals_the_chat_model_astream(
    chat_models: ChatModels, dialect: str, plan: str, quirks: list[str]
) -> None:
    wire = get_dialect(dialect).render(PLANS[plan], quirks, seed=4)
    check_contract(dialect, PLANS[plan], quirks, wire, await chat_models.astream(dialect, wire))
