"""Hypothesis strategies for wire bytes: quirky streams rendered by a dialect, then re-framed.

The chunk-level strategies live in :mod:`tooltape.harness.strategies`; these add
the dialect and the byte-level framing (split reads, split UTF-8, CRLF, comment
keep-alives...). They shrink toward the harness's simplest stream and no framing
quirk.

Example::

    from hypothesis import given
    from tooltape.fake_providers.strategies import wire_streams

    @given(wire_streams(dialect="openai_chat"))
    def test_my_sse_client(wire):
        assert my_client.read(wire.iter_reads()) == ...
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tooltape.fake_providers._dialect import Dialect
from tooltape.fake_providers._registry import get_dialect
from tooltape.fake_providers._wire import Wire
from tooltape.harness import PlannedStream, Quirk, TooltapeUsageError, parse_quirk
from tooltape.harness.strategies import planned_streams, plans

__all__ = ["framings", "wire_streams"]

_ANY_BYTES = ("split_reads", "events_per_read", "split_utf8")
_SSE_ONLY = (
    {"kind": "line_endings", "style": "crlf"},
    {"kind": "line_endings", "style": "mixed"},
    {"kind": "comments", "leading": 1, "every": 2},
    "data_no_space",
    "sse_fields",
)


def framings(*, sse: bool = True, max_size: int = 2) -> st.SearchStrategy[list[Quirk]]:
    """Sets of lossless WIRE quirks, shrinking toward none.

    Args:
        sse: Include the quirks that only make sense for server-sent events.
        max_size: Most quirks in one set.
    """
    choices: list[Any] = [*_ANY_BYTES, *(_SSE_ONLY if sse else ())]
    return st.lists(
        st.sampled_from(choices).map(parse_quirk),
        max_size=max_size,
        unique_by=lambda q: _EXCLUSIVE.get(q.kind, q.kind),
    )


_SIZE_KINDS = ("long_strings", "many_keys", "deep_nesting")
"""Value kinds left out of the default wire streams (``value_kinds()`` names them)."""

_EXCLUSIVE = {"comments": "blank line dispatch", "sse_fields": "blank line dispatch"}
"""Kinds never drawn together: after an ``id:`` field openai-python dispatches every
blank line, so a comment block becomes an empty ``data`` the SDK fails to decode."""


@st.composite
def _wires(
    draw: st.DrawFn,
    dialect: str,
    streams: st.SearchStrategy[PlannedStream],
    framing: st.SearchStrategy[list[Quirk]],
) -> Wire:
    chosen = get_dialect(dialect)
    stream = draw(streams)
    return _render(chosen, stream, draw(framing))


def _render(dialect: Dialect, stream: PlannedStream, framing: list[Quirk]) -> Wire:
    """Render the stream, leaving out the quirks the dialect cannot say, last drawn first.

    Rejecting such draws instead made Hypothesis's filter_too_much health check fail
    for most dialects; dropping quirks keeps every draw and shrinks the same way.
    """
    quirks = list(stream.quirks)
    while True:
        try:
            return dialect.render(stream.plan, [*quirks, *framing], stream.seed)
        except TooltapeUsageError:
            if not quirks:
                raise
            quirks.pop()


def wire_streams(
    *,
    dialect: str = "openai_chat",
    streams: st.SearchStrategy[PlannedStream] | None = None,
    framing: bool = True,
) -> st.SearchStrategy[Wire]:
    """Wire bytes (with read boundaries) of quirky streams in ``dialect``.

    Args:
        dialect: A dialect or profile name.
        streams: The planned streams to render (default: the harness's
            ``planned_streams()`` without the size-setting value kinds); quirks a
            dialect cannot express are left out of that draw (the last drawn first).
        framing: Also apply lossless framing quirks (split reads, CRLF...).

    Raises:
        TooltapeUsageError: The dialect is unknown (at call time).
    """
    chosen = get_dialect(dialect)
    sse = chosen.framing == "sse"
    framing_sets = framings(sse=sse) if framing else st.just([])
    if streams is None:
        # Every value kind but the ones that set a stream's size: a 100,000-character
        # argument is tens of thousands of events to render in each draw.
        streams = planned_streams(plans(exclude_value_kinds=_SIZE_KINDS))
    return _wires(dialect, streams, framing_sets)
