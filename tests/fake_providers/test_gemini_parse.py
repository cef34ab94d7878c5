"""parse() on hand-written Gemini bodies, pinned against the real ChatGoogleGenerativeAI.

Each body probes one rule of google-genai's stream reader or of the adapter's
conversion (see ``tooltape.fake_providers.dialects.gemini._parse``); the adapter's
messages must equal parse's, with generated uuids matched to the stand-ins, and
both must fail, or not, together.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import httpx2
import pytest
from _adapter_streams import adapter_messages
from langchain_core.messages import AIMessageChunk
from langchain_google_genai import ChatGoogleGenerativeAI

from tooltape.fake_providers.dialects.gemini._parse import generated_id, read_gemini_stream
from tooltape.harness import reference_merge

pytestmark = pytest.mark.slow

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def frame(*parts: dict[str, Any], model: str = "gemini-2.5-flash", **candidate: Any) -> str:
    content = {"parts": list(parts), "role": "model"}
    return json.dumps({"candidates": [{"content": content, **candidate}], "modelVersion": model})


def call(name: str | None = "f", args: Any = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {} if name is None else {"name": name}
    if args is not None:
        body["args"] = args
    return {"functionCall": {**body, **extra}}


def sse(*payloads: str) -> bytes:
    return "".join(f"data: {p}\n\n" for p in payloads).encode()


ONE = frame(call("f", {"x": 1}, id="a1"))
TWO = frame(call("g", {}, id="a2"))
BODIES: dict[str, bytes] = {
    "plain": sse(ONE, TWO),
    "crlf": sse(ONE, TWO).replace(b"\n", b"\r\n"),
    "bare_cr": sse(ONE, TWO).replace(b"\n", b"\r"),
    "no_trailing_blank_line": sse(ONE) + f"data: {TWO}".encode(),
    "multiline_data": f"data: {ONE[:15]}\ndata: {ONE[15:]}\n\n".encode(),
    "multiline_data_inside_a_string": f"data: {ONE[:20]}\ndata: {ONE[20:]}\n\n".encode(),
    "comment_line": b": keep-alive\n\n" + sse(ONE),
    "data_without_space": sse(ONE) + f"data:{TWO}\n\n".encode(),
    "raw_json_line": sse(ONE) + f"{TWO}\n".encode(),
    "raw_pretty_json": json.dumps(json.loads(ONE), indent=2).encode(),
    "unterminated_raw_json": sse(ONE) + TWO.encode(),
    "done_sentinel": sse(ONE, "[DONE]"),
    "error_with_code": sse(ONE, '{"error": {"code": 429, "message": "q", "status": "X"}}'),
    "server_error": sse(ONE, '{"error": {"code": 500, "message": "boom", "status": "INTERNAL"}}'),
    "error_without_code": sse(ONE, '{"error": {"message": "quota exceeded"}}'),
    "list_payload": sse(ONE, "[1, 2]", "null", '"text"', TWO),
    "number_payload": sse(ONE, "7"),
    "list_naming_a_field": sse(ONE, '["candidates"]'),
    "no_candidates": sse('{"usageMetadata": {"promptTokenCount": 3}}', ONE),
    "empty_candidate": sse('{"candidates": [{"finishReason": "STOP"}]}', ONE),
    "two_candidates": sse(
        json.dumps(
            {
                "candidates": [
                    json.loads(ONE)["candidates"][0],
                    {"content": {"parts": [call("other", {})]}},
                ]
            }
        )
    ),
    "ids_absent_or_empty": sse(frame(call("f", {"x": 1}), call("g", {}, id="")), frame(call(None))),
    "empty_function_call": sse(frame({"functionCall": {}}), frame(call(None, willContinue=True))),
    "integer_floats": sse(frame(call("f", {"a": [1.0, {"b": 2.0}], "c": 1.5, "s": "é"}))),
    "signed_text_on_2_5": sse(
        frame({"text": "hi", "thoughtSignature": "c2ln"}), frame({"text": " more"}), TWO
    ),
    "thought_then_text_on_2_5": sse(frame({"text": "t", "thought": True}, {"text": "x"}), TWO),
    "plain_text_on_2_5": sse(frame({"text": "a"}), frame({"text": "b"}), TWO),
    "text_on_gemini_3": sse(frame({"text": "a"}, model="gemini-3-pro"), TWO),
    "vertex_model_path": sse(frame({"text": "a"}, model="publishers/google/models/gemini-3"), TWO),
    "empty_text_signed": sse(ONE, frame({"text": "", "thoughtSignature": "c2ln"})),
    "code_and_image_parts": sse(
        frame(
            {"executableCode": {"code": "print(1)", "language": "PYTHON"}},
            {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
            call("f", {}),
        ),
        TWO,
    ),
    "json_array_body": f"[{ONE},\r\n{TWO}]".encode(),
}


def adapter_stream(body: bytes) -> tuple[list[AIMessageChunk], Exception | None]:
    class Reads(httpx2.SyncByteStream):
        def __iter__(self):
            yield body

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=[("content-type", "text/event-stream")], stream=Reads())

    llm = ChatGoogleGenerativeAI(
        model="gemini-2.5-flash",
        api_key="test-key",
        max_retries=1,
        client_args={"transport": httpx2.MockTransport(handler)},
    )
    chunks: list[AIMessageChunk] = []
    try:
        with warnings.catch_warnings():
            # the adapter warns that code-execution output "may vary"; parse has no warnings
            warnings.simplefilter("ignore", UserWarning)
            chunks.extend(llm.stream("hi"))
    except Exception as error:
        return chunks, error
    return chunks, None


@pytest.mark.parametrize("name", BODIES)
def test_parse_equals_chat_google_on_hand_written_body(name):
    body = BODIES[name]
    chunks, error = adapter_stream(body)
    reading = read_gemini_stream(body)
    chunks = adapter_messages(chunks)
    got = []
    for message, parsed in zip(chunks, reading.deltas, strict=True):
        aligned = []
        for chunk, stand_in in zip(message.tool_call_chunks, parsed, strict=True):
            if stand_in["id"] in reading.generated_ids:
                assert UUID4.match(chunk["id"])
                chunk = {**chunk, "id": stand_in["id"]}
            aligned.append(chunk)
        got.append(aligned)
    assert got == reading.deltas
    assert (error is None) == (reading.error is None), (error, reading.error)
    if error is not None:  # the SDK's exception, maybe wrapped by the adapter
        causes = {type(error).__name__, type(error.__cause__).__name__}
        assert reading.error.split(":")[0] in causes


EXPECTED_ERRORS = {
    "comment_line": "UnknownApiResponseError",
    "data_without_space": "UnknownApiResponseError",
    "done_sentinel": "UnknownApiResponseError",
    "json_array_body": "UnknownApiResponseError",
    "error_with_code": "GoogleRateLimitError",
    "server_error": "GoogleAPIError",
    "error_without_code": "TypeError",
    "multiline_data_inside_a_string": "UnknownApiResponseError",
    "number_payload": "TypeError",
    "list_naming_a_field": "TypeError",
}


@pytest.mark.parametrize("name", BODIES)
def test_which_bodies_raise_and_how(name):
    """google-genai reads only ``data: `` lines as SSE; everything else is raw JSON."""
    _, error = adapter_stream(BODIES[name])
    assert (type(error).__name__ if error else None) == EXPECTED_ERRORS.get(name)


def test_index_counter_runs_over_blocks_and_calls():
    deltas = read_gemini_stream(BODIES["code_and_image_parts"]).deltas
    assert [[c["index"] for c in d] for d in deltas] == [[3], [4]]
    deltas = read_gemini_stream(BODIES["plain_text_on_2_5"]).deltas
    assert [[c["index"] for c in d] for d in deltas] == [[], [], [0]]
    deltas = read_gemini_stream(BODIES["signed_text_on_2_5"]).deltas
    assert [[c["index"] for c in d] for d in deltas] == [[], [], [1]]


def test_stand_ins_are_deterministic_uuid4s_per_body_and_position():
    reading = read_gemini_stream(BODIES["ids_absent_or_empty"])
    assert reading.generated_ids == tuple(
        generated_id(BODIES["ids_absent_or_empty"], n) for n in range(3)
    )
    assert all(UUID4.match(i) for i in reading.generated_ids)
    assert len(set(reading.generated_ids)) == 3
    assert generated_id(b"a", 0) != generated_id(b"b", 0)
    merged = reference_merge(reading.deltas)
    assert [c["id"] for c in merged.tool_calls] == list(reading.generated_ids)
    assert [c["name"] for c in merged.tool_calls] == ["f", "g", ""]


def test_integer_floats_and_ascii_escapes_in_args():
    (message,) = read_gemini_stream(BODIES["integer_floats"]).deltas
    assert message[0]["args"] == '{"a": [1, {"b": 2}], "c": 1.5, "s": "\\u00e9"}'
