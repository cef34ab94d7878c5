"""Whether langchain-core's ``AIMessageChunk`` validation would store a chunk list unchanged.

Validating a message is most of the cost of building one (it also partial-parses
every fragment into ``tool_calls``). When the chunk dicts already are what
validation stores, a message can be built without it, or skipped: the
reference merge (:mod:`tooltape.harness._reference`) and the ``openai_chat``
parse ask this one question here. Anything else goes through langchain-core's
validating constructor, which coerces or rejects it there.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolCallChunk

__all__ = ["stored_as_is", "stored_chunks"]

_CHUNK_KEYS = frozenset({"name", "args", "id", "index", "type"})
_TEXT = (str, type(None))
_INDEX = (int, type(None))


def stored_as_is(value: Any) -> bool:
    """Whether validation would store this chunk dict unchanged.

    True for a dict with exactly name, args and id (text or ``None``), an int (or
    ``None``) index and the ``tool_call_chunk`` type: what ``tool_call_chunk()`` makes.
    """
    return (
        type(value) is dict
        and value.keys() == _CHUNK_KEYS
        and value["type"] == "tool_call_chunk"
        and type(value["name"]) in _TEXT
        and type(value["args"]) in _TEXT
        and type(value["id"]) in _TEXT
        and type(value["index"]) in _INDEX
    )


def stored_chunks(delta: Any) -> list[ToolCallChunk] | None:
    """``delta`` itself when it is a list of chunks validation stores unchanged, else ``None``."""
    if type(delta) is not list:
        return None
    for value in delta:
        if not stored_as_is(value):
            return None
    return delta
