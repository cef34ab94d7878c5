"""The gemini dialect served to the official google-genai SDK (3.x), sync and async.

google-genai 3.x builds httpx2 clients by default (httpx when told, or when
handed httpx objects) and an aiohttp session for async calls only when aiohttp
is installed (it is not here). Each path is served the way a user would:
FakeTransport in ``http_options``, ``patch_httpx2`` (no client change),
``patch_httpx`` with ``GOOGLE_GENAI_HTTP_CLIENT=httpx`` (respx), and a real
uvicorn server on 127.0.0.1 reached through ``base_url``. The SDK's parsed
function calls must equal the plan (whole calls, ids as rendered).
"""

from __future__ import annotations

from typing import Any

import httpx
import httpx2
import pytest
from _adapter_streams import quirk_id
from google import genai
from google.genai import errors, types

from tooltape.fake_providers import (
    FakeProvider,
    FakeTransport,
    patch_httpx,
    patch_httpx2,
    serve_in_thread,
)
from tooltape.fake_providers.dialects.gemini._dialect import GeminiDialect
from tooltape.harness import Plan, PlannedCall

DIALECT = GeminiDialect()
MODEL = "gemini-3.5-flash"
PLAN = Plan(
    text_before="Checking the weather in Zürich.",
    calls=[
        PlannedCall(name="get_weather", args={"city": "Zürich", "days": 3}, id="call_w1"),
        PlannedCall(name="get_time", args={"tz": "Europe/Zurich", "utc": False}, id="call_t2"),
    ],
)
QUIRK_SETS: list[list[Any]] = [
    [],
    ["whole_call", {"kind": "pack_fragments", "size": 2}, "finish_with_last_part"],
    [{"kind": "line_endings", "style": "crlf"}, "split_reads", "split_utf8"],
    ["signature_only_part"],
    ["finish_without_parts", "no_thought_signature"],
]


def parts_of(chunks: list[types.GenerateContentResponse]) -> list[types.Part]:
    contents = [chunk.candidates[0].content for chunk in chunks if chunk.candidates]
    return [part for content in contents if content for part in content.parts or []]


def calls_of(chunks: list[types.GenerateContentResponse]) -> list[tuple[Any, ...]]:
    return [
        (part.function_call.name, part.function_call.args, part.function_call.id)
        for part in parts_of(chunks)
        if part.function_call
    ]


def expected(plan: Plan) -> list[tuple[Any, ...]]:
    return [(c.name, c.args, c.id) for c in plan.calls]


def transport_client(provider: FakeProvider) -> genai.Client:
    transport = FakeTransport(provider)
    options = types.HttpOptions(
        httpx_client=httpx2.Client(transport=transport),
        httpx_async_client=httpx2.AsyncClient(transport=transport),
    )
    return genai.Client(api_key="test-key", http_options=options)


# --- FakeTransport --------------------------------------------------------------------------


@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=quirk_id)
def test_sdk_stream_yields_the_planned_calls(quirks):
    provider = FakeProvider("gemini").stream(PLAN, quirks, seed=2)
    stream = transport_client(provider).models.generate_content_stream(model=MODEL, contents="hi")
    chunks = list(stream)
    assert calls_of(chunks) == expected(PLAN)
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    text = "".join(p.text or "" for p in parts_of(chunks))
    assert text == PLAN.text_before
    # google-genai 3.6 posts to /v1 (the dialect's /v1beta path matches any version)
    assert provider.requests[0].path == f"/v1/models/{MODEL}:streamGenerateContent"
    assert provider.requests[0].query == {"alt": "sse"}
    provider.assert_all_played()


@pytest.mark.asyncio
@pytest.mark.parametrize("quirks", QUIRK_SETS, ids=quirk_id)
async def test_async_sdk_stream_yields_the_planned_calls(quirks):
    provider = FakeProvider("gemini").stream(PLAN, quirks, seed=5)
    client = transport_client(provider)
    stream = await client.aio.models.generate_content_stream(model=MODEL, contents="hi")
    assert calls_of([chunk async for chunk in stream]) == expected(PLAN)
    provider.assert_all_played()


def test_sdk_sees_no_id_and_a_cumulative_usage():
    provider = FakeProvider("gemini").stream(PLAN, ["missing_id"])
    chunks = list(
        transport_client(provider).models.generate_content_stream(model=MODEL, contents="hi")
    )
    assert [call[2] for call in calls_of(chunks)] == [None, None]
    counts = [c.usage_metadata.candidates_token_count or 0 for c in chunks]
    assert counts == sorted(counts) and counts[-1] > counts[0]
    assert chunks[0].candidates[0].content.parts[0].thought_signature is None
    signed = [p for p in parts_of(chunks) if p.thought_signature]
    assert len(signed) == 1 and signed[0].function_call.name == "get_weather"


def test_sdk_rebuilds_partial_args_into_the_planned_arguments():
    """The SDK types every partialArgs entry; joining them by jsonPath gives the args."""
    plan = Plan(calls=[{"name": "write", "args": {"path": "a.md", "text": "Hello there"}}])
    provider = FakeProvider("gemini").stream(plan, ["partial_args"], seed=1)
    chunks = list(
        transport_client(provider).models.generate_content_stream(model=MODEL, contents="hi")
    )
    calls = [p.function_call for p in parts_of(chunks) if p.function_call is not None]
    assert calls[0].name == "write" and calls[0].will_continue is True
    assert calls[-1].model_dump(exclude_none=True) == {}  # the empty closing functionCall
    rebuilt: dict[str, str] = {}
    for call in calls:
        for partial in call.partial_args or []:
            key = partial.json_path.removeprefix("$.")
            rebuilt[key] = rebuilt.get(key, "") + (partial.string_value or "")
    assert rebuilt == plan.calls[0].args


def test_sdk_raises_server_error_on_the_error_frame():
    plan = PLAN.model_copy(update={"finish": "error"})
    provider = FakeProvider("gemini").stream(plan)
    stream = transport_client(provider).models.generate_content_stream(model=MODEL, contents="hi")
    seen: list[types.GenerateContentResponse] = []
    with pytest.raises(errors.ServerError) as raised:
        seen.extend(stream)
    assert raised.value.code == 503 and raised.value.status == "UNAVAILABLE"
    assert raised.value.message == "The model is overloaded. Please try again later."
    assert calls_of(seen) == expected(PLAN)  # the calls before the error were yielded


# --- patch_httpx2, patch_httpx (respx), a real server -------------------------------------


def test_patch_httpx2_serves_an_unmodified_client():
    provider = FakeProvider("gemini").stream(PLAN).stream(PLAN, ["missing_id"])
    with patch_httpx2(provider):
        client = genai.Client(api_key="test-key")
        first = list(client.models.generate_content_stream(model=MODEL, contents="hi"))
        second = list(client.models.generate_content_stream(model=MODEL, contents="again"))
    assert calls_of(first) == expected(PLAN)
    assert [c[:2] for c in calls_of(second)] == [c[:2] for c in expected(PLAN)]
    provider.assert_all_played()


@pytest.mark.asyncio
async def test_patch_httpx2_serves_the_async_client():
    provider = FakeProvider("gemini").stream(PLAN)
    with patch_httpx2(provider):
        stream = await genai.Client(api_key="test-key").aio.models.generate_content_stream(
            model=MODEL, contents="hi"
        )
        chunks = [chunk async for chunk in stream]
    assert calls_of(chunks) == expected(PLAN)


def test_patch_httpx_serves_the_httpx_backend(monkeypatch):
    monkeypatch.setenv("GOOGLE_GENAI_HTTP_CLIENT", "httpx")
    provider = FakeProvider("gemini").stream(PLAN, [{"kind": "line_endings", "style": "crlf"}])
    with patch_httpx(provider) as router:
        client = genai.Client(api_key="test-key")
        assert isinstance(client._api_client._httpx_client, httpx.Client)  # not httpx2
        chunks = list(client.models.generate_content_stream(model=MODEL, contents="hi"))
    assert calls_of(chunks) == expected(PLAN)
    assert router.unrouted == []
    router.assert_all_played()


@pytest.mark.asyncio
async def test_patch_httpx_serves_the_async_httpx_backend(monkeypatch):
    monkeypatch.setenv("GOOGLE_GENAI_HTTP_CLIENT", "httpx")
    provider = FakeProvider("gemini").stream(PLAN)
    with patch_httpx(provider):
        client = genai.Client(api_key="test-key")
        stream = await client.aio.models.generate_content_stream(model=MODEL, contents="hi")
        chunks = [chunk async for chunk in stream]
    assert calls_of(chunks) == expected(PLAN)


def test_real_server_through_base_url():
    provider = FakeProvider("gemini", base_url="http://127.0.0.1").stream(PLAN, ["split_reads"])
    with serve_in_thread(provider) as url:
        client = genai.Client(api_key="test-key", http_options={"base_url": url})
        chunks = list(client.models.generate_content_stream(model=MODEL, contents="hi"))
    assert calls_of(chunks) == expected(PLAN)
    provider.assert_all_played()


def test_vertex_client_is_served_by_the_gemini_dialect():
    """Vertex AI (express mode) posts to .../publishers/google/models/{m}:streamGenerateContent."""
    base = "https://aiplatform.googleapis.com"
    provider = FakeProvider("gemini", base_url=base).stream(PLAN, ["partial_args"], seed=3)
    with patch_httpx2(provider):
        client = genai.Client(vertexai=True, api_key="test-key")
        chunks = list(client.models.generate_content_stream(model=MODEL, contents="hi"))
    assert provider.requests[0].path.endswith(
        f"/publishers/google/models/{MODEL}:streamGenerateContent"
    )
    names = [c[0] for c in calls_of(chunks) if c[0]]
    assert names == ["get_weather", "get_time"]
