"""Every dialect's parse() is what its own LangChain chat model yields, on the same bytes.

One contract over the dialect registry x the shared sample plans (``tests/_plans.py``)
x the lossless quirks each dialect ``expresses``: render the wire, serve it to the
dialect's ``chat_model()`` through the plugin's :class:`FakeSession` (httpx2, httpx
or botocore over 127.0.0.1, as the dialect's ``sdk_stack`` says), stream it, and hold

- the adapter's tool-call chunks to ``dialect.parse(wire.body)``,
- langchain-core's n-ary merge of the adapter's chunks to ``reference_merge(parsed)``,
- the reference's calls to ``plan.expected_calls()``.

Adapters that mint their own ids where the wire has none are compared by position
(:func:`by_position`); :data:`ADAPTER_IDS` says which, and the registry test below
fails when a dialect is added without an entry. Each dialect's own file keeps what
is its own: its lossy quirks, error shapes and SDK clients.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import pytest
from _adapter_streams import acollect, adapter_messages, by_position, collect, without_ids
from _plans import sample_plans
from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import Wire, dialect_names, get_dialect
from tooltape.harness import parse_quirk, reference_merge
from tooltape.plugin._fakes import FakeSession

pytestmark = pytest.mark.slow

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
LOST_BY_THE_ADAPTER = {"openai_responses": {"interleave_calls"}}
"""Quirks lossless for the merge rule that a chat model still loses (ChatOpenAI re-indexes
interleaved Responses deltas; pinned in ``test_openai_responses_clients.py``)."""
PLANS = sample_plans("call_")
ASYNC_PLANS = ("two_calls", "thinking_text_call")
"""The plans streamed through ``astream`` too (no quirks)."""


def lossless_kinds(dialect: str) -> list[str]:
    """The quirk kinds ``dialect`` expresses that leave the plan recoverable."""
    return sorted(k for k in get_dialect(dialect).expresses if parse_quirk(k).lossless)


def cases() -> list[Any]:
    return [
        pytest.param(name, plan, quirks, id=f"{name}-{plan}-{'+'.join(quirks) or 'none'}")
        for name in dialect_names()
        for plan in PLANS
        for quirks in [[], *([k] for k in lossless_kinds(name))]
        if not set(quirks) & LOST_BY_THE_ADAPTER.get(name, set())
    ]


def render(dialect: str, plan: str, quirks: list[str], seed: int) -> Wire:
    return get_dialect(dialect).render(PLANS[plan], quirks, seed=seed)


def served_model(dialect: str, wire: Wire, session: FakeSession) -> Any:
    provider = session.provider(dialect)
    provider.stream(wire)
    return provider.chat_model()


def stream_chat(dialect: str, wire: Wire) -> tuple[list[AIMessageChunk], BaseException | None]:
    session = FakeSession()
    try:
        return collect(lambda: served_model(dialect, wire, session).stream("hi"))
    finally:
        session.close(check=False)


async def astream_chat(
    dialect: str, wire: Wire
) -> tuple[list[AIMessageChunk], BaseException | None]:
    session = FakeSession()
    try:
        return await acollect(lambda: served_model(dialect, wire, session).astream("hi"))
    finally:
        session.close(check=False)


def check_contract(
    dialect: str, plan: str, wire: Wire, chunks: list[AIMessageChunk], error: Any
) -> None:
    assert error is None, f"{dialect} {plan}: the chat model raised {error!r}"
    parsed = get_dialect(dialect).parse(wire.body)
    ids = ADAPTER_IDS[dialect]
    aligned = _same if ids == "wire" else by_position
    assert aligned([c.tool_call_chunks for c in adapter_messages(chunks)]) == aligned(parsed)
    merged = functools.reduce(operator.add, chunks)
    reference = reference_merge(parsed)
    assert aligned(merged.tool_calls) == aligned(reference.tool_calls)
    assert aligned(merged.invalid_tool_calls) == aligned(reference.invalid_tool_calls)
    expected = PLANS[plan].expected_calls()
    if ids == "wire":
        assert reference.calls() == expected
    elif ids == "minted":
        assert without_ids(reference.calls()) == without_ids(expected)


def _same(items: Any) -> Any:
    return items


def test_the_table_names_every_registered_dialect() -> None:
    assert sorted(ADAPTER_IDS) == sorted(dialect_names())
    assert set(LOST_BY_THE_ADAPTER) <= set(dialect_names())


def test_every_dialect_expresses_a_lossless_quirk() -> None:
    assert all(lossless_kinds(name) for name in dialect_names())


@pytest.mark.parametrize(("dialect", "plan", "quirks"), cases())
def test_parse_equals_the_chat_model_stream(dialect: str, plan: str, quirks: list[str]) -> None:
    wire = render(dialect, plan, quirks, seed=3)
    chunks, error = stream_chat(dialect, wire)
    check_contract(dialect, plan, wire, chunks, error)


@pytest.mark.asyncio
@pytest.mark.parametrize("plan", ASYNC_PLANS)
@pytest.mark.parametrize("dialect", [n for n in dialect_names() if ADAPTER_IDS[n] != "per_chunk"])
async def test_parse_equals_the_chat_model_astream(dialect: str, plan: str) -> None:
    wire = render(dialect, plan, [], seed=4)
    chunks, error = await astream_chat(dialect, wire)
    check_contract(dialect, plan, wire, chunks, error)
