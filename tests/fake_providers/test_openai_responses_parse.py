"""parse() on bytes tooltape did not render: hand-built edge cases and the real corpus.

Each body goes through ``ChatOpenAI(use_responses_api=True)`` for real;
``parse`` must give the same tool-call chunks message by message, also where
the SDK or the adapter raises. The corpus part also checks that rendering a
plan with a recording's calls gives the recording's event types, field sets
and order.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from _corpus import corpus_params
from langchain_core.messages import AIMessageChunk
from langchain_openai import ChatOpenAI

from tooltape.fake_providers import decode_sse, get_dialect
from tooltape.harness import Plan, PlannedCall

DIALECT = get_dialect("openai_responses")


class _Body(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    def __iter__(self) -> Iterator[bytes]:
        yield self.body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body


def _model(body: bytes) -> ChatOpenAI:
    def handle(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers=[("content-type", "text/event-stream")], stream=_Body(body)
        )

    transport = httpx2.MockTransport(handle)
    return ChatOpenAI(
        model="gpt-4.1",
        api_key="sk-test",
        base_url="http://fake/v1",
        use_responses_api=True,
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
        http_async_client=httpx2.AsyncClient(transport=transport),
    )


def _adapter_deltas(body: bytes) -> tuple[list[Any], BaseException | None]:
    chunks: list[AIMessageChunk] = []
    try:
        for chunk in _model(body).stream("hi"):
            chunks.append(chunk)
    except Exception as error:
        return [c.tool_call_chunks for c in chunks], error
    return [c.tool_call_chunks for c in chunks], None


async def _adapter_deltas_async(body: bytes) -> tuple[list[Any], BaseException | None]:
    chunks: list[AIMessageChunk] = []
    try:
        async for chunk in _model(body).astream("hi"):
            chunks.append(chunk)
    except Exception as error:
        return [c.tool_call_chunks for c in chunks], error
    return [c.tool_call_chunks for c in chunks], None


# --- hand-built bodies ------------------------------------------------------------------


def _sse(data: Any, *, event_line: bool = True) -> str:
    head = f"event: {data['type']}\n" if event_line and isinstance(data, dict) else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _response(status: str, **fields: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "output": [], **fields}


CREATED = _sse({"type": "response.created", "response": _response("in_progress")})
COMPLETED = _sse({"type": "response.completed", "response": _response("completed")})


def _added(output_index: int, item_id: str, call_id: str, name: str, args: str = "") -> str:
    item = {"id": item_id, "type": "function_call", "status": "in_progress"}
    item.update(arguments=args, call_id=call_id, name=name)
    return _sse({"type": "response.output_item.added", "output_index": output_index, "item": item})


def _delta(output_index: int, item_id: str, text: str) -> str:
    event = {"type": "response.function_call_arguments.delta", "item_id": item_id, "delta": text}
    return _sse({**event, "output_index": output_index})


def _item_event(type_: str, output_index: int, item: dict[str, Any]) -> str:
    return _sse({"type": type_, "output_index": output_index, "item": item})


def _text_delta(output_index: int, content_index: int, text: str) -> str:
    return _sse(
        {
            "type": "response.output_text.delta",
            "output_index": output_index,
            "content_index": content_index,
            "item_id": "msg_1",
            "delta": text,
        }
    )


REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
A = _added(0, "fc_1", "call_A", "get_weather")
EDGE_BODIES = {
    "rs2_literal_from_quirks": CREATED
    + _added(1, "fc_1", "call_A", "get_weather")
    + _added(2, "fc_2", "call_B", "get_time")
    + _delta(1, "fc_1", '{"city":"Paris"}')
    + _delta(2, "fc_2", '{"tz":"CET"}')
    + COMPLETED,
    "done_sentinel_ends_the_stream": CREATED + A + "data: [DONE]\n\n" + _delta(0, "fc_1", "{}"),
    "error_payload_raises_api_error": CREATED + A + 'data: {"error": {"message": "quota"}}\n\n',
    "bad_json_raises": CREATED + A + 'data: {"type": \n\n' + COMPLETED,
    "id_then_comment_block_dispatches_empty_data": CREATED
    + "id: 7\n"
    + A
    + ": ping\n\n"
    + _delta(0, "fc_1", "{}")
    + COMPLETED,
    "unterminated_last_event_is_dropped": CREATED + A + _delta(0, "fc_1", "{}").rstrip("\n"),
    "unknown_event_type_is_skipped": CREATED + _sse({"type": "response.foo"}) + A + COMPLETED,
    "phase_on_a_message_advances_the_index": CREATED
    + _item_event(
        "response.output_item.added",
        0,
        {"id": "msg_1", "type": "message", "content": [], "phase": "commentary"},
    )
    + _added(1, "fc_1", "call_A", "get_weather")
    + _delta(1, "fc_1", "{}")
    + COMPLETED,
    "custom_tool_call_done": CREATED
    + _item_event(
        "response.output_item.done",
        0,
        {
            "id": "ctc_1",
            "type": "custom_tool_call",
            "call_id": "call_C",
            "name": "sh",
            "input": "ls",
        },
    )
    + COMPLETED,
    "output_index_pinned_to_the_first_seen": CREATED
    + A
    + _delta(5, "fc_1", '{"a":')
    + _delta(0, "fc_1", "1}")
    + COMPLETED,
    "item_and_delta_without_fields": CREATED
    + _item_event("response.output_item.added", 0, {"type": "function_call"})
    + _sse({"type": "response.function_call_arguments.delta", "delta": "{}"})
    + COMPLETED,
    "added_without_item_raises": CREATED + _sse({"type": "response.output_item.added"}),
    "completed_with_error_raises": CREATED
    + A
    + _sse({"type": "response.completed", "response": _response("completed", error={"code": "x"})}),
    "encrypted_reasoning_then_call": CREATED
    + _item_event("response.output_item.added", 0, REASONING)
    + _item_event("response.output_item.done", 0, {**REASONING, "encrypted_content": "gAAA"})
    + _added(1, "fc_1", "call_A", "get_weather")
    + COMPLETED,
    "crlf_framing": (CREATED + A + _delta(0, "fc_1", "{}") + COMPLETED).replace("\n", "\r\n"),
    "data_only_frames_with_done": CREATED.split("\n", 1)[1]
    + _added(0, "fc_1", "call_A", "f", '{"x": 1}')
    + COMPLETED
    + "data: [DONE]\n\n",
    "json_that_is_not_an_object_raises": CREATED + "data: [1, 2]\n\n",
    "text_content_index_change_advances_the_index": CREATED
    + _text_delta(0, 0, "a")
    + _text_delta(0, 1, "b")
    + _added(1, "fc_1", "call_A", "f")
    + COMPLETED,
    "empty_body": "",
}
EDGE_PARAMS = [pytest.param(body.encode(), id=name) for name, body in EDGE_BODIES.items()]
EDGE_PARAMS.append(
    pytest.param(CREATED.encode() + A.encode() + b'data: {"type": "\xff"}\n\n', id="invalid_utf8")
)


@pytest.mark.parametrize("body", EDGE_PARAMS)
def test_parse_matches_the_adapter_on_edge_cases(body: bytes) -> None:
    deltas, _ = _adapter_deltas(body)
    assert DIALECT.parse(body) == deltas


@pytest.mark.asyncio
@pytest.mark.parametrize("body", EDGE_PARAMS)
async def test_parse_matches_the_async_adapter_on_edge_cases(body: bytes) -> None:
    deltas, _ = await _adapter_deltas_async(body)
    assert DIALECT.parse(body) == deltas


def test_edge_cases_exercise_raising_and_tool_chunks() -> None:
    # Guard against a vacuous matrix: some bodies must raise, some must carry tool chunks.
    raised = {name for name, body in EDGE_BODIES.items() if _adapter_deltas(body.encode())[1]}
    assert {
        "error_payload_raises_api_error",
        "id_then_comment_block_dispatches_empty_data",
    } <= raised
    rs2 = DIALECT.parse(EDGE_BODIES["rs2_literal_from_quirks"].encode())
    assert [chunk["index"] for delta in rs2 for chunk in delta] == [0, 1, 2, 3]


# --- the corpus -------------------------------------------------------------------------

# langchain-openai's model_dump of some server-tool items warns (pydantic serializer
# warnings); pyproject turns warnings into errors, which would end the adapter early.
_IGNORE_ADAPTER_WARNINGS = pytest.mark.filterwarnings("ignore::UserWarning")


@_IGNORE_ADAPTER_WARNINGS
@pytest.mark.parametrize("record", corpus_params("responses"))
def test_corpus_parse_matches_the_adapter(record: dict[str, Any]) -> None:
    body = record["response_body"].encode()
    deltas, error = _adapter_deltas(body)
    assert error is None
    assert DIALECT.parse(body) == deltas
    assert any(deltas) == bool(record["observed"]["client_calls"])


@_IGNORE_ADAPTER_WARNINGS
@pytest.mark.asyncio
@pytest.mark.parametrize("record", corpus_params("responses"))
async def test_corpus_parse_matches_the_async_adapter(record: dict[str, Any]) -> None:
    body = record["response_body"].encode()
    deltas, _ = await _adapter_deltas_async(body)
    assert DIALECT.parse(body) == deltas


def _recorded(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e.json() for e in decode_sse(record["response_body"].encode()) if e.data != "[DONE]"]


def _plan_and_quirks(events: list[dict[str, Any]]) -> tuple[Plan, list[str]]:
    """A plan with the recording's items, and the quirks matching its framing."""
    items = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    kinds = [item["type"] for item in items]
    calls = [
        PlannedCall(name=i["name"], args=json.loads(i["arguments"] or "{}"), id=i["call_id"])
        for i in items
        if i["type"] == "function_call"
    ]
    texts = [e["text"] for e in events if e["type"] == "response.output_text.done"]
    first_call = kinds.index("function_call")
    plan = Plan(
        calls=calls,
        reasoning="Thinking." if "reasoning" in kinds else "",
        text_before=texts[0] if "message" in kinds[:first_call] else "",
        text_after=texts[-1] if "message" in kinds[first_call:] else "",
    )
    quirks = []
    if not any("reasoning_summary" in e["type"] for e in events):
        quirks.append("encrypted_reasoning")
    if not any("sequence_number" in e for e in events):
        quirks.append("no_sequence_number")
    if not any("obfuscation" in e for e in events):
        quirks.append("responses_no_obfuscation")
    return plan, quirks


def _collapsed(events: list[dict[str, Any]]) -> list[str]:
    types: list[str] = []
    for event in events:
        if not types or types[-1] != event["type"]:
            types.append(event["type"])
    return types


def _field_sets(events: list[dict[str, Any]]) -> dict[str, set[frozenset[str]]]:
    sets: dict[str, set[frozenset[str]]] = {}
    for event in events:
        sets.setdefault(event["type"], set()).add(frozenset(event))
    return sets


def _function_call_fields(events: list[dict[str, Any]]) -> set[frozenset[str]]:
    return {
        frozenset(e["item"]) for e in events if e.get("item", {}).get("type") == "function_call"
    }


OPENAI_CALL_RECORDS = [
    param
    for param in corpus_params("responses")
    if (param.values[0]["provider"] == "openai" and param.values[0]["observed"]["client_calls"])
]


@pytest.mark.parametrize("record", OPENAI_CALL_RECORDS)
def test_rendering_looks_like_the_openai_recording(record: dict[str, Any]) -> None:
    recorded = _recorded(record)
    plan, quirks = _plan_and_quirks(recorded)
    rendered = [e.json() for e in decode_sse(DIALECT.render(plan, quirks, seed=1).body)]
    assert _collapsed(rendered) == _collapsed(recorded)
    assert _field_sets(rendered) == _field_sets(recorded)
    assert _function_call_fields(rendered) == _function_call_fields(recorded)
