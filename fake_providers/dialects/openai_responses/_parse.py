"""Responses API bytes -> the tool-call chunks ``ChatOpenAI(use_responses_api=True)`` yields.

A faithful re-statement, without importing either library, of two pieces of
code: openai-python's SSE decoder and stream loop (``openai/_streaming.py``:
``[DONE]`` ends the stream, a payload with a truthy ``error`` key raises
``APIError``, bad JSON raises), and langchain-openai's
``_convert_responses_chunk_to_generation_chunk`` (1.7 and 1.8) with its default
``output_version``: which event yields a message, which yields tool-call
chunks, and how ``index`` advances. Two rules of that function make the
Responses quirks visible (https://github.com/BerriAI/litellm/issues/27144, https://github.com/diegosouzapw/OmniRoute/pull/11144):

* a function call yields tool-call chunks from ``output_item.added`` (name,
  ``call_id``, the item's ``arguments``) and from ``function_call_arguments.delta``
  (arguments alone); its ``output_item.done`` yields nothing (a
  ``custom_tool_call`` yields one chunk, from its ``output_item.done``). Its
  ``function_call_arguments.done`` yields nothing up to langchain-openai 1.7; from
  1.8.1 on, it yields the part of its ``arguments`` the deltas did not stream (all
  of them when none came, as some models send them), so the reading follows the installed release;
* the chunk ``index`` grows by one whenever the event's ``output_index`` (or,
  for text, its ``content_index``) differs from the previous indexed event's,
  so interleaved items split into several chunk indexes.

langchain-core appends an empty ``chunk_position="last"`` message when the
adapter's last message is not marked last (no ``response.completed`` or
``response.incomplete``); the deltas include it, so they equal
``[m.tool_call_chunks for m in model.stream(...)]`` exactly.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import json
import re
from collections.abc import Iterator
from typing import Any

from langchain_core.messages import ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk

from tooltape.fake_providers._sse import openai_sdk_events
from tooltape.fake_providers.dialects.openai_responses._complete import response_deltas
from tooltape.fake_providers.non_streaming import json_document
from tooltape.harness import Deltas
from tooltape.harness.json_text import loads

__all__ = ["completes_arguments_on_done", "parse_responses_body"]


# Output items whose `done` event langchain-openai turns into a content block.
_BUILTIN_TOOL_ITEMS = frozenset(
    {
        "compaction",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "code_interpreter_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "image_generation_call",
        "tool_search_call",
        "tool_search_output",
        "apply_patch_call",
        "apply_patch_call_output",
    }
)
_TEXT_EVENTS = frozenset(
    {
        "response.output_text.delta",
        "response.output_text.annotation.added",
        "response.output_text.done",
    }
)
_SUMMARY_EVENTS = frozenset(
    {"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta"}
)


class _AdapterRaises(Exception):
    """The SDK or the adapter raises on this event; the stream ends with an exception."""


@functools.cache
def completes_arguments_on_done() -> bool:
    """Whether the installed langchain-openai streams what ``function_call_arguments.done`` adds.

    langchain-openai 1.8.1 added it (``_remaining_function_call_arguments``); older
    releases ignore the event. Without langchain-openai installed, the newest rule.
    """
    try:
        version = importlib.metadata.version("langchain-openai")
    except importlib.metadata.PackageNotFoundError:
        return True
    release = tuple(int(part) for part in re.findall(r"\d+", version)[:3])
    return release >= (1, 8, 1)


def parse_responses_body(body: bytes) -> Deltas:
    """The tool-call chunks of each message ``ChatOpenAI(use_responses_api=True)`` yields.

    One list per ``AIMessageChunk`` of ``model.stream(...)``, including the
    empty ``chunk_position="last"`` message langchain-core appends when the
    stream ends without ``response.completed``/``response.incomplete``.
    Where the SDK or the adapter raises (an ``error`` event,
    ``response.failed``, bad JSON), the deltas are the messages yielded
    before the exception. A non-streamed Response body gives one message of
    whole calls.
    """
    if (document := json_document(body)) is not None:
        return response_deltas(document)
    cursor = _Cursor()
    deltas: list[list[ToolCallChunk]] = []
    last = False
    try:
        for data in _sdk_payloads(body):
            converted = cursor.convert(data)
            if converted is not None:
                chunks, last = converted
                deltas.append(chunks)
    except _AdapterRaises:
        return deltas
    if deltas and not last:
        deltas.append([])
    return deltas


def _sdk_payloads(body: bytes) -> Iterator[Any]:
    """The payloads openai-python's ``Stream`` hands over, raising where it raises."""
    try:
        for _event, data in openai_sdk_events(body):
            if data.startswith("[DONE]"):
                return
            decoded = loads(data)
            if isinstance(decoded, dict) and decoded.get("error"):
                raise _AdapterRaises  # APIError
            yield decoded
    except ValueError as error:  # bad JSON, or a broken UTF-8 character (UnicodeDecodeError)
        raise _AdapterRaises from error


def _mapping(value: Any) -> dict[str, Any]:
    """An SDK model's fields; accessing one on ``None`` or a non-object raises."""
    if not isinstance(value, dict):
        raise _AdapterRaises
    return value


class _Cursor:
    """langchain-openai's running indexes across one stream."""

    def __init__(self) -> None:
        self.index = -1
        self.output_index: Any = -1
        self.sub_index: Any = -1
        self.item_output_indices: dict[Any, Any] = {}
        self.item_id: Any = None
        self.arguments: dict[Any, Any] | None = {} if completes_arguments_on_done() else None
        """Each call's arguments so far, by item id (1.8.1's ``function_call_arguments``)."""

    def _advance(self, output_index: Any, sub_index: Any = None) -> None:
        if self.item_id is not None and self.item_id in self.item_output_indices:
            output_index = self.item_output_indices[self.item_id]
        if sub_index is None:
            if self.output_index != output_index:
                self.index += 1
        else:
            if self.output_index != output_index or self.sub_index != sub_index:
                self.index += 1
            self.sub_index = sub_index
        self.output_index = output_index

    def _chunk(self, name: Any, args: Any, call_id: Any) -> ToolCallChunk:
        return tool_call_chunk(name=name, args=args, id=call_id, index=self.index)

    def convert(self, data: Any) -> tuple[list[ToolCallChunk], bool] | None:
        """``(tool-call chunks, is last)`` for a message, or ``None`` when none is yielded."""
        event = _mapping(data)
        kind = event.get("type")
        item = event.get("item")
        self.item_id = (item.get("id") if isinstance(item, dict) else None) or event.get("item_id")
        output_index = event.get("output_index")
        if self.item_id is not None and output_index is not None:
            self.item_output_indices.setdefault(self.item_id, output_index)
        if kind in _TEXT_EVENTS:
            self._advance(output_index, event.get("content_index"))
        elif kind == "response.created":
            _mapping(event.get("response"))
        elif kind in ("response.failed", "error"):
            raise _AdapterRaises  # langchain-openai raises ValueError
        elif kind in ("response.completed", "response.incomplete"):
            response = _mapping(event.get("response"))
            if response.get("error") or not isinstance(response.get("output"), list):
                raise _AdapterRaises
            return [], True
        elif kind == "response.output_item.added":
            return self._item_added(_mapping(item), output_index)
        elif kind == "response.output_item.done":
            return self._item_done(_mapping(item), output_index)
        elif kind == "response.function_call_arguments.delta":
            self._advance(output_index)
            if self.arguments is not None:
                with _raising():
                    so_far = self.arguments.get(event.get("item_id"), "")
                    self.arguments[event.get("item_id")] = so_far + event.get("delta")
            return [self._chunk(None, event.get("delta"), None)], False
        elif kind == "response.function_call_arguments.done" and self.arguments is not None:
            remaining = self._remaining(event)
            if not remaining:
                return None
            self._advance(output_index)
            return [self._chunk(None, remaining, None)], False
        elif kind in _SUMMARY_EVENTS:
            self._advance(output_index)
        elif kind not in ("response.refusal.done", "response.image_generation_call.partial_image"):
            return None
        return [], False

    def _item_added(
        self, item: dict[str, Any], output_index: Any
    ) -> tuple[list[ToolCallChunk], bool] | None:
        kind = item.get("type")
        if kind == "message":
            if item.get("phase"):
                self._advance(output_index, 0)
        elif kind == "function_call":
            self._advance(output_index)
            if self.arguments is not None:
                with _raising():
                    self.arguments[item.get("id")] = item.get("arguments") or ""
            name, args, call_id = item.get("name"), item.get("arguments"), item.get("call_id")
            return [self._chunk(name, args, call_id)], False
        elif kind == "reasoning":
            self._advance(output_index)
            self.sub_index = 0
        else:
            return None
        return [], False

    def _remaining(self, event: dict[str, Any]) -> Any:
        """``_remaining_function_call_arguments``: the arguments not streamed yet, or ``""``."""
        assert self.arguments is not None
        with _raising():
            streamed = self.arguments.get(event.get("item_id"), "")
            arguments = event.get("arguments") or ""
            self.arguments[event.get("item_id")] = arguments
            if not arguments.startswith(streamed):
                return ""
            return arguments[len(streamed) :]

    def _item_done(
        self, item: dict[str, Any], output_index: Any
    ) -> tuple[list[ToolCallChunk], bool] | None:
        kind = item.get("type")
        if kind == "custom_tool_call":
            self._advance(output_index)
            args = json.dumps({"__arg1": item.get("input")})
            return [self._chunk(item.get("name"), args, item.get("call_id"))], False
        if kind in _BUILTIN_TOOL_ITEMS or (kind == "reasoning" and item.get("encrypted_content")):
            self._advance(output_index)
            return [], False
        return None


@contextlib.contextmanager
def _raising() -> Iterator[None]:
    """Run the adapter's own expressions: where they raise on a malformed event, it does."""
    try:
        yield
    except (TypeError, AttributeError) as error:
        raise _AdapterRaises from error
