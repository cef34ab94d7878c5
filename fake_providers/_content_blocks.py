"""Content-block turns, as Anthropic Messages and Bedrock ConverseStream stream them.

Both lay a turn out as numbered content blocks, opened in order: the reasoning,
the text before the calls, one block per tool call (its argument fragments as
deltas, interleaved as planned), and the text after them. A stream that ends cut
(``eof``, ``error``) drops inside its last block, so that block's stop is never
sent. Each dialect writes its own events; this base holds the order, the
numbering and the text chunking they share.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any, ClassVar

from tooltape.fake_providers._dialect import EventQuirks
from tooltape.harness import Fragment, PlannedStream

__all__ = ["CARRIES", "ContentBlockEvents", "Event", "content_block_lacks"]

Event = tuple[str, dict[str, Any]]
"""An event's name and its data."""

CARRIES = frozenset({"escaped_text", "args_text", "arg_pieces", "interleaving"})
"""What a content-block wire can say: argument text in pieces, several blocks open at once."""


def content_block_lacks(start: str, delta: str) -> dict[str, str]:
    """Why a content-block wire says none of the other capabilities, in its own event names.

    ``start`` names the event that opens a tool block, ``delta`` the one that
    carries its argument text.
    """
    return {
        "name_fragments": f"the name rides once, whole, on {start}, before any argument",
        "id_fragments": f"a tool block has one id, sent once on {start}; {delta} events "
        "carry no id",
        "optional_id": f"{start} always carries the tool-use id",
        "optional_index": "every content block event carries its block index",
        "index_field": "the index is the block's position in the content; put text_before "
        "or reasoning in the plan to offset the tool blocks",
        "packing": "each event carries one delta, so there is nothing to pack",
    }


class ContentBlockEvents:
    """Builds one stream's events in block order; a dialect says what each event holds."""

    reasoning: ClassVar[str]
    """The dialect's kind of a reasoning block (``thinking``, ``reasoning``)."""
    block_stop: ClassVar[str]
    """The name of the event that closes a block."""

    def __init__(self, stream: PlannedStream, quirks: EventQuirks, label: str) -> None:
        self.stream = stream
        self.quirks = quirks
        self.rng = Random(f"{stream.seed}:{label}")
        self.out: list[Event] = []
        self.blocks = 0

    def next_block(self) -> int:
        """The next block's index."""
        index, self.blocks = self.blocks, self.blocks + 1
        return index

    def text_pieces(self, text: str) -> Iterator[str]:
        """``text`` in pieces of 3 to 16 characters, as the live APIs stream text."""
        start = 0
        while start < len(text):
            end = start + self.rng.randint(3, 16)
            yield text[start:end]
            start = end

    def content(self) -> bool:
        """Every block of the turn, in order; True when the stream ends cut (eof, error)."""
        plan, stream = self.stream.plan, self.stream
        self.text_block(plan.reasoning, self.reasoning)
        self.text_block(plan.text_before, "text")
        self.tool_blocks()
        if stream.truncated_call is None:
            self.text_block(plan.text_after, "text")
        if stream.finish not in ("eof", "error"):
            return False
        if self.out[-1][0] == self.block_stop:
            self.out.pop()  # the connection drops inside the last block
        return True

    def tool_blocks(self) -> None:
        """A block per call, opened at its first fragment and stopped after its last."""
        fragments = self.stream.fragments
        last = {fragment.call: n for n, fragment in enumerate(fragments)}
        blocks: dict[int, int] = {}
        for n, fragment in enumerate(fragments):
            first = fragment.call not in blocks
            if first:
                blocks[fragment.call] = self.open_tool(fragment)
            self.tool_delta(blocks[fragment.call], fragment, first)
            if last[fragment.call] == n:
                self.stop(blocks[fragment.call])

    def text_block(self, text: str, kind: str) -> None:
        """A text or reasoning block holding ``text`` (none when it is empty)."""
        raise NotImplementedError

    def open_tool(self, fragment: Fragment) -> int:
        """Open the block of ``fragment``'s call; its index."""
        raise NotImplementedError

    def tool_delta(self, index: int, fragment: Fragment, first: bool) -> None:
        """``fragment``'s arguments in block ``index`` (``first``: the call's first fragment)."""
        raise NotImplementedError

    def stop(self, index: int) -> None:
        """Close block ``index``."""
        raise NotImplementedError
