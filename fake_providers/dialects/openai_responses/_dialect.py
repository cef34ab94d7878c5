"""The OpenAI Responses API dialect (``/v1/responses``): SSE frames with ``event:`` lines.

Rendering follows the event types, field sets and ordering of real OpenAI
recordings (``tests/corpus/openai``): ``response.created``,
``response.in_progress``, then one output item each for the reasoning
summary, the text before the calls, every call and the text after them
(``output_item.added``, the item's deltas, its ``.done`` events), then
``response.completed`` with the whole response and its usage. Every event
carries ``type`` and an increasing ``sequence_number``; deltas carry the
random ``obfuscation`` padding OpenAI adds. There is no ``[DONE]``.

A function call item has two ids: the item id ``fc_…`` (``item_id`` on its
delta events) and ``call_id``, the planned call's id. Fragments map to items
by :attr:`Fragment.call`: a call's first fragment opens its item (with the
name, the ``call_id`` and, for ``whole_call``, the arguments), the others
become ``function_call_arguments.delta`` events, and the item closes after
its last fragment. So ``interleave_calls`` interleaves deltas of different
``output_index`` (https://github.com/diegosouzapw/OmniRoute/pull/11144),
``missing_id`` drops ``call_id`` from the items and
``cumulative_args`` repeats prefixes in the deltas while ``.done`` keeps the
text a client should end with. Quirks this wire cannot express are refused
(:mod:`tooltape.fake_providers.dialects.openai_responses._quirks`).

Finishes: ``tool_calls`` and ``stop`` end with ``response.completed``;
``length`` and ``content_filter`` with ``response.incomplete`` (a call cut by
``truncate_args`` is closed with status ``incomplete`` and no
``function_call_arguments.done``); ``eof`` stops right after the event of the
last fragment; ``error`` sends an ``error`` event there, or ``response.failed``
with the ``response_failed`` quirk.
"""

from __future__ import annotations

import base64
import json
import re
import string
from random import Random
from typing import Any

from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
from tooltape.fake_providers._echo import map_dicts, request_body
from tooltape.fake_providers._event_text import Piece, dig, finish_named, text_piece
from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.dialects.openai_chat._dialect import OPENAI_CALL_ID
from tooltape.fake_providers.dialects.openai_chat._validate import openai_body_error
from tooltape.fake_providers.dialects.openai_responses._complete import response_object
from tooltape.fake_providers.dialects.openai_responses._integration import (
    OpenAIResponsesIntegration,
)
from tooltape.fake_providers.dialects.openai_responses._parse import parse_responses_body
from tooltape.fake_providers.dialects.openai_responses._quirks import (
    CARRIES,
    DIALECT,
    LACKS,
    DataOnlyFrames,
    DoneSentinel,
    EncryptedReasoning,
    NoArgumentDeltas,
    NoSequenceNumber,
    OpenCallsFirst,
    ResponseFailed,
    ResponsesEventQuirk,
    ResponsesNoObfuscation,
)
from tooltape.fake_providers.dialects.openai_responses._validate import validate_responses_request
from tooltape.fake_providers.event_shapes import fields_of
from tooltape.harness import Finish, Fragment, PlannedStream

__all__ = ["OpenAIResponsesDialect"]

MODEL = "gpt-4.1-2025-04-14"
SERVER_ERROR = "The server had an error while processing your request. Sorry about that!"

_WORD = re.compile(r"\s*\S+\s*|\s+")
_ALNUM = string.ascii_letters + string.digits
_ARGS_DELTA = "response.function_call_arguments.delta"
_ADDED = "response.output_item.added"
_DONE = "response.output_item.done"


_INCOMPLETE: dict[str, Finish] = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""``response.incomplete_details.reason`` values, as finishes."""


class OpenAIResponsesDialect(OpenAIResponsesIntegration, Dialect):
    """OpenAI's Responses API, streamed (``client.responses.create(stream=True)``).

    ``parse`` mirrors ``ChatOpenAI(use_responses_api=True)`` of langchain-openai
    1.7 with its default ``output_version``; ``validate`` answers broken
    function-call pairing with the API's real 400s.
    """

    name = DIALECT
    call_id_format = OPENAI_CALL_ID
    path = "/v1/responses"
    stream_flag = True
    event_shape = (
        ("type", "str"),
        ("output_index", "int"),
        *fields_of("item", type="str", name="str|null", call_id="str|null", arguments="str|null"),
        ("delta", "str"),
        ("arguments", "str"),
    )
    media_type = "text/event-stream; charset=utf-8"
    carries = CARRIES
    lacks = LACKS
    event_quirks = (ResponsesEventQuirk,)

    def build_events(self, stream: PlannedStream, quirks: EventQuirks) -> list[ProviderEvent]:
        """The Responses events for a planned stream, EVENTS quirks applied."""
        return _Renderer(stream, quirks).render()

    def echo(self, events: list[ProviderEvent], request: ProviderRequest) -> list[ProviderEvent]:
        """Every Response object carries the request's ``model`` and ``tools``.

        Function tools come back in the API's normalised shape (``type``,
        ``description``, ``name``, ``parameters``, ``strict``); other tools as sent.
        The model is echoed as written (the live API answers with the dated snapshot).
        """
        body = request_body(request)
        model = body.get("model")
        tools = body.get("tools")
        echoed = [_echoed_tool(t) for t in tools] if isinstance(tools, list) else None

        def edit(event: dict[str, Any]) -> dict[str, Any]:
            response = event.get("response")
            if not isinstance(response, dict):
                return event
            response = dict(response)
            if isinstance(model, str) and model and response.get("model") == MODEL:
                response["model"] = model
            if echoed is not None and response.get("tools") == []:
                response["tools"] = echoed
            return {**event, "response": response}

        return map_dicts(events, edit)

    def event_pieces(self, data: Any) -> list[Piece]:
        """Output text and reasoning-summary deltas; ``response.function_call*`` events."""
        kind = str(dig(data, "type") or "")
        if kind == "response.output_text.delta":
            return text_piece("text", dig(data, "delta"))
        if kind == "response.reasoning_summary_text.delta":
            return text_piece("reasoning", dig(data, "delta"))
        if (
            kind.startswith("response.function_call")
            or dig(data, "item", "type") == "function_call"
        ):
            return [("tool", "")]
        return []

    def event_finish(self, data: Any) -> Finish | None:
        """``response.incomplete_details.reason``: ``max_output_tokens`` or ``content_filter``."""
        reason = dig(data, "response", "incomplete_details", "reason")
        return finish_named(
            reason, {"max_output_tokens": "length", "content_filter": "content_filter"}
        )

    parse = staticmethod(parse_responses_body)

    def completion_bytes(self, body: dict[str, Any]) -> bytes:
        """OpenAI's non-streamed bodies are pretty-printed with a two-space indent."""
        return json.dumps(body, indent=2, ensure_ascii=False).encode()

    completion_body = staticmethod(response_object)
    validate = staticmethod(validate_responses_request)
    body_error = staticmethod(openai_body_error)


class _Renderer:
    """Builds one stream's events: the items in wire order, then the terminal event."""

    def __init__(self, stream: PlannedStream, quirks: EventQuirks) -> None:
        self.stream, self.plan, self.quirks = stream, stream.plan, quirks
        self.rng = Random(f"{stream.seed}:{DIALECT}")
        self.response_id = "resp_" + self._hex()
        self.created_at = 1_760_000_000 + self.rng.randrange(10_000_000)
        self.events: list[tuple[dict[str, Any], bool]] = []  # (event, carries a fragment)
        self.final_items: dict[int, dict[str, Any]] = {}
        self.next_output_index = 0

    def _hex(self) -> str:
        return f"{self.rng.getrandbits(200):050x}"

    def _emit(self, type_: str, fragment: bool = False, **fields: Any) -> None:
        self.events.append(({"type": type_, **fields}, fragment))

    def _delta(self, type_: str, text: str, **fields: Any) -> None:
        # OpenAI pads each delta's UTF-8 length to a multiple of 16 (seen in the corpus).
        pad = 16 - len(text.encode()) % 16
        obfuscation = "".join(self.rng.choice(_ALNUM) for _ in range(pad))
        self._emit(type_, True, delta=text, obfuscation=obfuscation, **fields)

    def _open(self, item: dict[str, Any], fragment: bool = False) -> int:
        output_index = self.next_output_index
        self.next_output_index += 1
        self._emit(_ADDED, fragment, item=item, output_index=output_index)
        return output_index

    def _close(self, output_index: int, item: dict[str, Any]) -> None:
        self.final_items[output_index] = item
        self._emit(_DONE, item=item, output_index=output_index)

    # -- items ------------------------------------------------------------------------

    def _reasoning(self, text: str) -> None:
        item_id = "rs_" + self._hex()
        if self.quirks.has(EncryptedReasoning):
            sealed = base64.urlsafe_b64encode(text.encode()).decode()
            item = {"id": item_id, "type": "reasoning", "summary": []}
            at = self._open({**item, "encrypted_content": "gAAAAAB" + sealed[:8]})
            self._close(at, {**item, "encrypted_content": "gAAAAAB" + sealed})
            return
        at = self._open({"id": item_id, "type": "reasoning", "summary": []})
        where: dict[str, Any] = {"item_id": item_id, "output_index": at, "summary_index": 0}
        part = {"type": "summary_text", "text": ""}
        self._emit("response.reasoning_summary_part.added", part=part, **where)
        for piece in _WORD.findall(text):
            self._delta("response.reasoning_summary_text.delta", piece, **where)
        self._emit("response.reasoning_summary_text.done", text=text, **where)
        self._emit("response.reasoning_summary_part.done", part={**part, "text": text}, **where)
        summary = [{"type": "summary_text", "text": text}]
        self._close(at, {"id": item_id, "type": "reasoning", "summary": summary})

    def _message(self, text: str) -> None:
        item_id = "msg_" + self._hex()
        item = {"id": item_id, "type": "message", "status": "in_progress", "content": []}
        at = self._open({**item, "role": "assistant"})
        where: dict[str, Any] = {"content_index": 0, "item_id": item_id, "output_index": at}
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        self._emit("response.content_part.added", part=part, **where)
        for piece in _WORD.findall(text):
            self._delta("response.output_text.delta", piece, logprobs=[], **where)
        self._emit("response.output_text.done", logprobs=[], text=text, **where)
        self._emit("response.content_part.done", part={**part, "text": text}, **where)
        done = {**item, "status": "completed", "content": [{**part, "text": text}]}
        self._close(at, {**done, "role": "assistant"})

    def _calls(self) -> None:
        fragments = self.stream.fragments
        last_of = {fragment.call: n for n, fragment in enumerate(fragments)}
        opened: dict[int, tuple[int, dict[str, Any]]] = {}
        sent: dict[int, list[str]] = {}
        for n, fragment in enumerate(fragments):
            if fragment.call not in opened:
                opened[fragment.call] = self._open_call(fragment)
                sent[fragment.call] = [fragment.args or ""]
            elif fragment.args:
                at, item = opened[fragment.call]
                sent[fragment.call].append(fragment.args)
                self._delta(_ARGS_DELTA, fragment.args, item_id=item["id"], output_index=at)
            if last_of[fragment.call] == n:
                self._close_call(*opened[fragment.call], sent[fragment.call], fragment.call)

    def _open_call(self, header: Fragment) -> tuple[int, dict[str, Any]]:
        item: dict[str, Any] = {"id": "fc_" + self._hex(), "type": "function_call"}
        item.update(status="in_progress", arguments=header.args or "")
        if header.id is not None:
            item["call_id"] = header.id
        item["name"] = header.name
        return self._open(item, fragment=True), item

    def _close_call(self, at: int, item: dict[str, Any], sent: list[str], call: int) -> None:
        cumulative = any(getattr(q, "kind", None) == "cumulative_args" for q in self.stream.quirks)
        arguments = sent[-1] if cumulative else "".join(sent)
        if call == self.stream.truncated_call:
            self._close(at, {**item, "status": "incomplete", "arguments": arguments})
            return
        self._emit(
            "response.function_call_arguments.done",
            arguments=arguments,
            item_id=item["id"],
            output_index=at,
        )
        self._close(at, {**item, "status": "completed", "arguments": arguments})

    # -- the whole stream -------------------------------------------------------------

    def render(self) -> list[ProviderEvent]:
        """Every event of the stream, ready to frame."""
        self._emit("response.created", response=self._response("in_progress", output=[]))
        self._emit("response.in_progress", response=self._response("in_progress", output=[]))
        if self.plan.reasoning:
            self._reasoning(self.plan.reasoning)
        if self.plan.text_before:
            self._message(self.plan.text_before)
        self._calls()
        if self.plan.text_after and self.stream.truncated_call is None:
            self._message(self.plan.text_after)
        if self.quirks.has(NoArgumentDeltas):
            self.events = [e for e in self.events if e[0]["type"] != _ARGS_DELTA]
        if self.quirks.has(OpenCallsFirst):
            self._open_calls_first()
        self._finish()
        return self._provider_events()

    def _open_calls_first(self) -> None:
        opens = [e for e in self.events if _opens_call(e[0])]
        if opens:
            first = self.events.index(opens[0])
            rest = [e for e in self.events[first:] if not _opens_call(e[0])]
            self.events = self.events[:first] + opens + rest

    def _finish(self) -> None:
        finish = self.stream.finish
        if finish in ("eof", "error"):
            last = max((n for n, (_, fragment) in enumerate(self.events) if fragment), default=1)
            self.events = self.events[: last + 1]
            done = (e for e, _ in self.events if e["type"] == _DONE)
            self.final_items = {e["output_index"]: e["item"] for e in done}
        if finish == "error" and self.quirks.has(ResponseFailed):
            error = {"code": "server_error", "message": SERVER_ERROR}
            self._emit("response.failed", response=self._response("failed", error=error))
        elif finish == "error":
            self._emit("error", code="server_error", message=SERVER_ERROR, param=None)
        elif finish in ("length", "content_filter"):
            details = {"reason": "max_output_tokens" if finish == "length" else "content_filter"}
            response = self._response("incomplete", incomplete_details=details, usage=self._usage())
            self._emit("response.incomplete", response=response)
        elif finish != "eof":
            response = self._response(
                "completed", completed_at=self.created_at + 1, usage=self._usage()
            )
            self._emit("response.completed", response=response)

    def _response(self, status: str, **fields: Any) -> dict[str, Any]:
        output = [self.final_items[n] for n in sorted(self.final_items)]
        return _response_object(
            self.response_id, self.created_at, status, **{"output": output, **fields}
        )

    def _usage(self) -> dict[str, Any]:
        output_tokens = sum(1 for _, fragment in self.events if fragment)
        reasoning_tokens = len(_WORD.findall(self.plan.reasoning))
        return {
            "input_tokens": 42,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": 42 + output_tokens,
        }

    def _provider_events(self) -> list[ProviderEvent]:
        provider_events = []
        for number, (event, _) in enumerate(self.events):
            fields = {k: v for k, v in event.items() if k != "type"}
            if not self.quirks.has(NoSequenceNumber):
                fields["sequence_number"] = number
            if self.quirks.has(ResponsesNoObfuscation):
                fields.pop("obfuscation", None)
            # 2026 recordings: `type` first, the other fields in alphabetical order.
            data = {"type": event["type"], **dict(sorted(fields.items()))}
            sse_event = None if self.quirks.has(DataOnlyFrames) else event["type"]
            provider_events.append(ProviderEvent(data, sse_event))
        if self.quirks.has(DoneSentinel):
            provider_events.append(ProviderEvent("[DONE]"))
        return provider_events


def _echoed_tool(tool: Any) -> Any:
    """A request tool as the Response object lists it."""
    if not isinstance(tool, dict) or tool.get("type") != "function":
        return tool
    echoed = {"type": "function", "description": tool.get("description")}
    echoed |= {"name": tool.get("name"), "parameters": tool.get("parameters")}
    return echoed | {"strict": tool.get("strict", True)}


def _opens_call(event: dict[str, Any]) -> bool:
    return event["type"] == _ADDED and bool(event["item"]["type"] == "function_call")


def _response_object(
    response_id: str, created_at: int, status: str, **fields: Any
) -> dict[str, Any]:
    """A Response object with the field set of 2026 OpenAI recordings."""
    response: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "background": False,
        "completed_at": None,
        "error": None,
        "frequency_penalty": 0.0,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": MODEL,
        "output": [],
        "parallel_tool_calls": True,
        "presence_penalty": 0.0,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "prompt_cache_retention": None,
        "reasoning": {"effort": None, "summary": None},
        "safety_identifier": None,
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": None,
        "user": None,
        "metadata": {},
    }
    response.update(fields)
    return response
