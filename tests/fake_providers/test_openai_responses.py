"""The openai_responses dialect on its own: event shapes, finishes, quirks and validate()."""

from __future__ import annotations

import itertools
import json
from typing import Any, ClassVar

import pytest

from tooltape.fake_providers import ProviderRequest, decode_sse, dialect_names, get_dialect
from tooltape.fake_providers.dialects.openai_responses._dialect import (
    SERVER_ERROR,
    OpenAIResponsesDialect,
)
from tooltape.fake_providers.dialects.openai_responses._quirks import LACKS
from tooltape.harness import (
    CAPABILITIES,
    Plan,
    PlannedCall,
    Quirk,
    Stage,
    TooltapeUsageError,
    parse_quirk,
    quirk_kinds,
    stream_plan,
)
from tooltape.harness._quirks import _REGISTRY

DIALECT = get_dialect("openai_responses")
TOOL_CHUNK_KINDS = frozenset(k for k in quirk_kinds() if _REGISTRY[k].stage < Stage.EVENTS)
WEATHER = PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_Wx1")
TIME = PlannedCall(name="get_time", args={"tz": "CET"}, id="call_Tm2")
FULL = Plan(reasoning="Two lookups.", text_before="Checking.", calls=[WEATHER, TIME])

# Top-level field sets per event type, as in the 2026 OpenAI recordings of the corpus.
WITH_ITEM = {"type", "item", "output_index", "sequence_number"}
IN_PART = {"type", "content_index", "item_id", "output_index", "sequence_number"}
IN_SUMMARY = {"type", "item_id", "output_index", "summary_index", "sequence_number"}
IN_CALL = {"type", "item_id", "output_index", "sequence_number"}
FIELDS = {
    "response.created": {"type", "response", "sequence_number"},
    "response.in_progress": {"type", "response", "sequence_number"},
    "response.completed": {"type", "response", "sequence_number"},
    "response.output_item.added": WITH_ITEM,
    "response.output_item.done": WITH_ITEM,
    "response.reasoning_summary_part.added": IN_SUMMARY | {"part"},
    "response.reasoning_summary_text.delta": IN_SUMMARY | {"delta", "obfuscation"},
    "response.reasoning_summary_text.done": IN_SUMMARY | {"text"},
    "response.reasoning_summary_part.done": IN_SUMMARY | {"part"},
    "response.content_part.added": IN_PART | {"part"},
    "response.output_text.delta": IN_PART | {"delta", "logprobs", "obfuscation"},
    "response.output_text.done": IN_PART | {"logprobs", "text"},
    "response.content_part.done": IN_PART | {"part"},
    "response.function_call_arguments.delta": IN_CALL | {"delta", "obfuscation"},
    "response.function_call_arguments.done": IN_CALL | {"arguments"},
}


def _events(plan: Plan, quirks: Any = (), seed: int = 0) -> list[dict[str, Any]]:
    return [event.json() for event in decode_sse(DIALECT.render(plan, quirks, seed).body)]


def _collapsed(events: list[dict[str, Any]]) -> list[str]:
    types: list[str] = []
    for event in events:
        if not types or types[-1] != event["type"]:
            types.append(event["type"])
    return types


def _of(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [event for event in events if event["type"] == type_]


# --- the standard stream ----------------------------------------------------------------


def test_registered_under_its_name() -> None:
    assert "openai_responses" in dialect_names()
    assert isinstance(DIALECT, OpenAIResponsesDialect)
    assert DIALECT.path == "/v1/responses"
    assert DIALECT.framing == "sse"
    assert DIALECT.render(FULL).content_type == "text/event-stream; charset=utf-8"


def test_every_frame_has_an_event_line_naming_its_type_and_no_done() -> None:
    decoded = decode_sse(DIALECT.render(FULL).body)
    assert [event.event for event in decoded] == [event.json()["type"] for event in decoded]
    assert all(event.data != "[DONE]" for event in decoded)


def test_sequence_numbers_count_every_event() -> None:
    events = _events(FULL)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))


def test_order_of_event_types() -> None:
    item = ["response.output_item.added"]
    assert _collapsed(_events(FULL)) == [
        "response.created",
        "response.in_progress",
        *item,
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        *item,
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        *item,
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        *item,
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]


def test_field_sets_per_event_type() -> None:
    for event in _events(FULL):
        assert set(event) == FIELDS[event["type"]], event["type"]


def test_function_call_items_have_an_item_id_and_the_planned_call_id() -> None:
    events = _events(FULL)
    added = [e for e in _of(events, "response.output_item.added") if e["item"]["type"] != "message"]
    assert [e["output_index"] for e in added] == [0, 2, 3]  # reasoning first, the message at 1
    calls = [e["item"] for e in added if e["item"]["type"] == "function_call"]
    assert [(c["name"], c["call_id"], c["arguments"], c["status"]) for c in calls] == [
        ("get_weather", "call_Wx1", "", "in_progress"),
        ("get_time", "call_Tm2", "", "in_progress"),
    ]
    assert all(c["id"].startswith("fc_") and c["id"] != c["call_id"] for c in calls)
    for call, output_index, planned in zip(calls, [2, 3], [WEATHER, TIME], strict=True):
        deltas = [
            e
            for e in _of(events, "response.function_call_arguments.delta")
            if e["item_id"] == call["id"]
        ]
        assert {e["output_index"] for e in deltas} == {output_index}
        text = "".join(e["delta"] for e in deltas)
        assert json.loads(text) == planned.args
        (done,) = [
            e
            for e in _of(events, "response.function_call_arguments.done")
            if e["item_id"] == call["id"]
        ]
        assert done["arguments"] == text


def test_completed_response_holds_every_item_and_the_usage() -> None:
    events = _events(FULL)
    response = events[-1]["response"]
    assert response["status"] == "completed"
    assert response["output"] == [e["item"] for e in _of(events, "response.output_item.done")]
    assert [item["type"] for item in response["output"]] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    usage = response["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 42
    assert response["id"] == events[0]["response"]["id"]


def test_text_after_the_calls_is_the_last_item() -> None:
    events = _events(Plan(calls=[WEATHER], text_after="Done."))
    items = events[-1]["response"]["output"]
    assert [item["type"] for item in items] == ["function_call", "message"]
    assert items[1]["content"][0]["text"] == "Done."


def test_rendering_is_deterministic_per_seed() -> None:
    assert DIALECT.render(FULL, seed=4).body == DIALECT.render(FULL, seed=4).body
    assert DIALECT.render(FULL, seed=4).body != DIALECT.render(FULL, seed=5).body


def test_a_planned_stream_renders_like_its_plan() -> None:
    stream = stream_plan(FULL, ["whole_args"], seed=2)
    assert DIALECT.render(stream, seed=2).body == DIALECT.render(FULL, ["whole_args"], seed=2).body


# --- finishes ---------------------------------------------------------------------------


def test_eof_stops_right_after_the_last_fragment() -> None:
    events = _events(Plan(calls=[WEATHER, TIME], finish="eof"))
    assert events[-1]["type"] == "response.function_call_arguments.delta"
    assert events[-1]["output_index"] == 1
    assert len(_of(events, "response.output_item.done")) == 1  # the first call was closed


def test_truncated_arguments_end_the_stream_mid_call() -> None:
    events = _events(Plan(calls=[WEATHER, TIME]), ["truncate_args"])
    assert events[-1]["type"] == "response.function_call_arguments.delta"
    texts = [e["delta"] for e in events if e.get("output_index") == 1 and "delta" in e]
    assert "".join(texts) == '{"tz": "C'


def test_error_finish_sends_an_error_event() -> None:
    events = _events(Plan(calls=[WEATHER], finish="error"))
    assert events[-2]["type"] == "response.function_call_arguments.delta"
    assert {k: v for k, v in events[-1].items() if k != "sequence_number"} == {
        "type": "error",
        "code": "server_error",
        "message": SERVER_ERROR,
        "param": None,
    }


def test_response_failed_quirk_replaces_the_error_event() -> None:
    events = _events(Plan(calls=[WEATHER], finish="error"), ["response_failed"])
    assert events[-1]["type"] == "response.failed"
    assert events[-1]["response"]["status"] == "failed"
    assert events[-1]["response"]["error"]["code"] == "server_error"


@pytest.mark.parametrize(
    ("finish", "reason"), [("length", "max_output_tokens"), ("content_filter", "content_filter")]
)
def test_incomplete_finishes(finish: Any, reason: str) -> None:
    events = _events(Plan(calls=[WEATHER], finish=finish))
    assert events[-1]["type"] == "response.incomplete"
    assert events[-1]["response"]["status"] == "incomplete"
    assert events[-1]["response"]["incomplete_details"] == {"reason": reason}


def test_length_with_truncation_closes_the_cut_item_as_incomplete() -> None:
    events = _events(Plan(calls=[WEATHER], finish="length"), ["truncate_args"])
    assert [e["type"] for e in events[-2:]] == ["response.output_item.done", "response.incomplete"]
    assert events[-2]["item"]["status"] == "incomplete"
    assert events[-2]["item"]["arguments"] == '{"city": "Pa'
    assert not _of(events, "response.function_call_arguments.done")


def test_stop_finish_still_completes() -> None:
    assert _events(Plan(calls=[WEATHER], finish="stop"))[-1]["type"] == "response.completed"


# --- quirks -----------------------------------------------------------------------------


def test_no_argument_deltas_leaves_the_arguments_to_done() -> None:
    events = _events(Plan(calls=[WEATHER, TIME]), ["no_argument_deltas"])
    assert not _of(events, "response.function_call_arguments.delta")
    dones = _of(events, "response.function_call_arguments.done")
    assert [json.loads(e["arguments"]) for e in dones] == [WEATHER.args, TIME.args]


def test_open_calls_first_opens_every_call_before_any_argument() -> None:
    types = [e["type"] for e in _events(Plan(calls=[WEATHER, TIME]), ["open_calls_first"])]
    first_delta = types.index("response.function_call_arguments.delta")
    assert types[first_delta - 2 : first_delta] == ["response.output_item.added"] * 2


def test_interleaved_calls_interleave_their_output_indexes() -> None:
    events = _events(Plan(calls=[WEATHER, TIME]), ["interleave_calls", "split_args"], seed=3)
    indexes = [e["output_index"] for e in _of(events, "response.function_call_arguments.delta")]
    assert indexes != sorted(indexes)
    dones = _of(events, "response.function_call_arguments.done")
    assert [json.loads(e["arguments"]) for e in dones] == [WEATHER.args, TIME.args]


def test_whole_call_puts_the_arguments_on_the_added_item() -> None:
    events = _events(Plan(calls=[WEATHER]), ["whole_call"])
    (added,) = _of(events, "response.output_item.added")
    assert json.loads(added["item"]["arguments"]) == WEATHER.args
    assert not _of(events, "response.function_call_arguments.delta")


def test_missing_id_leaves_call_id_out() -> None:
    events = _events(Plan(calls=[WEATHER]), ["missing_id"])
    assert all("call_id" not in e["item"] for e in events if "item" in e)


def test_cumulative_args_repeat_prefixes_but_done_holds_the_text() -> None:
    events = _events(Plan(calls=[WEATHER]), ["cumulative_args"])
    deltas = [e["delta"] for e in _of(events, "response.function_call_arguments.delta")]
    assert len(deltas) > 1
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(deltas))
    (done,) = _of(events, "response.function_call_arguments.done")
    assert json.loads(done["arguments"]) == WEATHER.args


def test_encrypted_reasoning_sends_no_summary_events() -> None:
    events = _events(FULL, ["encrypted_reasoning"])
    assert not [e for e in events if "reasoning_summary" in e["type"]]
    reasoning = events[-1]["response"]["output"][0]
    assert reasoning["type"] == "reasoning"
    assert reasoning["encrypted_content"].startswith("gAAAAAB")


def test_legacy_frame_quirks() -> None:
    quirks = ["no_sequence_number", "responses_no_obfuscation", "responses_data_only"]
    decoded = decode_sse(DIALECT.render(FULL, [*quirks, "responses_done_sentinel"]).body)
    assert decoded[-1].data == "[DONE]"
    assert all(event.event is None for event in decoded)
    payloads = [event.json() for event in decoded[:-1]]
    assert payloads[-1]["type"] == "response.completed"
    assert not [e for e in payloads if "sequence_number" in e or "obfuscation" in e]


@pytest.mark.parametrize("kind", sorted(TOOL_CHUNK_KINDS - DIALECT.expresses))
def test_quirks_the_wire_cannot_express_are_refused(kind: str) -> None:
    with pytest.raises(
        TooltapeUsageError,
        match=rf"quirk {kind}(\(.*\))? cannot be rendered by dialect openai_responses",
    ) as raised:
        DIALECT.render(Plan(calls=[WEATHER, TIME]), [kind])
    needs = parse_quirk(kind).needs or ()
    missing = [c for c in CAPABILITIES if c in needs and c not in DIALECT.carries]
    assert (LACKS.get(missing[0]) or CAPABILITIES[missing[0]]) in str(raised.value)


class _ForeignEventQuirk(Quirk):
    """An event quirk of some other dialect (``kind`` has no default, so it never registers)."""

    kind: str
    stage: ClassVar[Stage] = Stage.EVENTS


def test_event_quirks_of_other_dialects_are_refused() -> None:
    stream = stream_plan(Plan(calls=[WEATHER]))
    with pytest.raises(
        TooltapeUsageError,
        match="quirk elsewhere cannot be rendered by dialect openai_responses: it belongs",
    ):
        DIALECT.events(stream, [_ForeignEventQuirk(kind="elsewhere")])


@pytest.mark.parametrize(
    "kind",
    [
        "no_argument_deltas",
        "open_calls_first",
        "response_failed",
        "encrypted_reasoning",
        "no_sequence_number",
        "responses_no_obfuscation",
        "responses_data_only",
        "responses_done_sentinel",
    ],
)
def test_event_quirks_are_registered_and_documented(kind: str) -> None:
    from tooltape.harness import parse_quirk

    quirk = parse_quirk(kind)
    assert quirk.stage is Stage.EVENTS
    assert quirk.cites
    assert type(quirk).__doc__


# --- parse on rendered bytes ------------------------------------------------------------


def test_parse_of_the_standard_stream() -> None:
    deltas = DIALECT.parse(DIALECT.render(Plan(calls=[WEATHER]), ["whole_args"]).body)
    assert deltas == [
        [],  # response.created
        [
            {
                "name": "get_weather",
                "args": "",
                "id": "call_Wx1",
                "index": 0,
                "type": "tool_call_chunk",
            }
        ],
        [
            {
                "name": None,
                "args": '{"city": "Paris"}',
                "id": None,
                "index": 0,
                "type": "tool_call_chunk",
            }
        ],
        [],  # response.completed, chunk_position="last"
    ]


def test_parse_adds_the_trailing_empty_message_only_without_a_terminal_event() -> None:
    ended = DIALECT.parse(DIALECT.render(Plan(calls=[WEATHER], finish="eof"), ["whole_args"]).body)
    assert ended[-1] == []
    assert ended[-2] != []
    failed = DIALECT.parse(
        DIALECT.render(Plan(calls=[WEATHER], finish="error"), ["whole_args"]).body
    )
    assert failed[-1] != []  # the adapter raised: nothing follows the last delta


# --- validate ---------------------------------------------------------------------------


def _request(payload: Any) -> ProviderRequest:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return ProviderRequest(method="POST", path="/v1/responses", body=body)


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "get_weather", "arguments": "{}"}


def _output(call_id: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "sunny"}


USER = {"role": "user", "content": "Weather?"}


@pytest.mark.parametrize(
    "payload",
    [
        {"model": "gpt-4.1", "input": "Weather?"},
        {"model": "gpt-4.1", "input": [USER]},
        {"model": "gpt-4.1", "input": [USER, _call("call_a"), _output("call_a")]},
        {"input": [USER, _call("call_a"), _call("call_b"), _output("call_b"), _output("call_a")]},
        {"previous_response_id": "resp_1", "input": [_output("call_stored")]},
        {"conversation": "conv_1", "input": [_output("call_stored")]},
        {"input": [{"type": "item_reference", "id": "fc_1"}, _output("call_stored")]},
        {"model": "gpt-4.1"},
        b"",
    ],
)
def test_valid_requests_pass(payload: Any) -> None:
    assert DIALECT.validate(_request(payload)) is None


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([USER, _call("call_a")], "No tool output found for function call call_a."),
        (
            [USER, _call("call_a"), _call("call_b"), _output("call_b")],
            "No tool output found for function call call_a.",
        ),
        (
            [USER, _output("call_z")],
            "No tool call found for function call output with call_id call_z.",
        ),
        (
            [USER, _output("call_a"), _call("call_a")],
            "No tool call found for function call output with call_id call_a.",
        ),
    ],
)
def test_broken_pairing_gets_the_real_400(items: list[Any], message: str) -> None:
    error = DIALECT.validate(_request({"model": "gpt-4.1", "input": items}))
    assert error is not None
    assert error.status == 400
    assert error.message == message
    assert error.body == {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": "input",
            "code": None,
        }
    }


def test_previous_response_id_does_not_excuse_calls_sent_in_input() -> None:
    payload = {
        "previous_response_id": "resp_1",
        "input": [_output("call_stored"), _call("call_new")],
    }
    error = DIALECT.validate(_request(payload))
    assert error is not None
    assert error.message == "No tool output found for function call call_new."
