"""Haystack as an accumulator: a chat generator's streamed run, through its own provider code.

Each dialect Haystack speaks declares one accumulator with the chat generator
that talks to it (``OpenAIChatGenerator``; ``AnthropicChatGenerator`` from
``anthropic-haystack``). The generator builds its own SDK client, streams with
a ``streaming_callback`` (as Haystack's documentation streams:
https://docs.haystack.deepset.ai/docs/openaichatgenerator), converts each
event to a ``StreamingChunk`` and joins the chunks into the ``ChatMessage`` it
returns; that message's ``tool_calls`` are the result.

Haystack is imported with its telemetry off (``HAYSTACK_TELEMETRY_ENABLED``,
set only while it imports): its telemetry would otherwise write
``~/.haystack/config.yaml`` on import. Nothing here runs a pipeline, the one
thing that sends telemetry events.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = ["HAYSTACK_INSTALL", "haystack_accumulator"]

HAYSTACK_INSTALL = "pip install 'tooltape[subjects]'"
"""The install line for the Haystack subject (the ``subjects`` extra pins a tested release)."""

_PROMPT = "What is the weather in Paris?"


@contextmanager
def _environ(**values: str) -> Iterator[None]:
    """``os.environ`` with ``values`` set inside the block, as it was after it."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@functools.cache
def _haystack() -> Any:
    """Haystack, imported with its telemetry off."""
    with _environ(HAYSTACK_TELEMETRY_ENABLED="False"):
        import haystack  # type: ignore[import-not-found,unused-ignore]
        import haystack.dataclasses  # type: ignore[import-not-found,unused-ignore]
        import haystack.tools  # type: ignore[import-not-found,unused-ignore]
    return haystack


def _ignore_chunk(_chunk: Any) -> None:
    """The streaming callback: Haystack streams only when one is given."""


def _openai_generator(served: str, http_client: Any = None) -> Any:
    """Haystack's ``OpenAIChatGenerator`` at ``served``; it builds its own ``openai`` client."""
    _haystack()
    from haystack.components.generators.chat import OpenAIChatGenerator
    from haystack.utils import Secret

    generator = OpenAIChatGenerator(
        api_key=Secret.from_token("sk-tooltape"),
        model="gpt-4o",
        api_base_url=served,
        streaming_callback=_ignore_chunk,
        max_retries=0,
    )
    generator.warm_up()
    return generator


def _anthropic_generator(served: str, http_client: Any = None) -> Any:
    """anthropic-haystack's ``AnthropicChatGenerator``; its client is reached at ``served``.

    The generator takes no base URL: it builds ``anthropic.Anthropic()`` from its
    API key, and that client reads ``ANTHROPIC_BASE_URL`` (set while it is built).
    """
    _haystack()
    from haystack.utils import Secret
    from haystack_integrations.components.generators.anthropic import (  # type: ignore[import-not-found,unused-ignore]
        AnthropicChatGenerator,
    )

    generator = AnthropicChatGenerator(
        api_key=Secret.from_token("sk-ant-tooltape"),
        model="claude-sonnet-4-6",
        streaming_callback=_ignore_chunk,
        max_retries=0,
    )
    with _environ(ANTHROPIC_BASE_URL=served):
        generator.warm_up()
    return generator


def _never_called(**_: Any) -> str:  # pragma: no cover - a generator only prepares calls
    raise AssertionError("a chat generator does not run the tools it offers")


def _generator_turn(generator: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """Stream one turn through ``generator`` offering ``tools``; the calls and text of its reply.

    A reply keeps its texts apart from its tool calls: no order of parts.
    """
    haystack = _haystack()
    tool: Callable[..., Any] = haystack.tools.Tool
    offered = [tool(name, name, schema, _never_called) for name, schema in tools]
    prompt = haystack.dataclasses.ChatMessage.from_user(_PROMPT)
    replies = generator.run([prompt], tools=offered)
    # Haystack says "no id" with "" (its ToolCall id is ``str | None``): None, as langchain-core.
    calls = [c for reply in replies["replies"] for c in reply.tool_calls]
    text = "".join(t for reply in replies["replies"] for t in reply.texts)
    return RawTurn([(c.tool_name, c.arguments, c.id or None) for c in calls], text)


def haystack_accumulator(dialect: str) -> Accumulator:
    """The ``haystack`` subject through the chat generator that talks to ``dialect``."""
    if dialect not in _GENERATORS:
        raise ValueError(
            f"Haystack has no generator declared for {dialect!r}: one of {sorted(_GENERATORS)}"
        )
    name, requires, build, description = _GENERATORS[dialect]
    return Accumulator(
        name, "haystack", requires, build, _generator_turn, description, install=HAYSTACK_INSTALL
    )


_GENERATORS: dict[str, tuple[str, tuple[str, ...], Callable[[str, Any], Any], str]] = {
    "openai_chat": (
        "haystack.OpenAIChatGenerator",
        ("haystack", "openai"),
        _openai_generator,
        "haystack: OpenAIChatGenerator.run(tools=...) with a streaming_callback",
    ),
    "anthropic": (
        "haystack_integrations.AnthropicChatGenerator",
        ("haystack", "haystack_integrations.components.generators.anthropic", "anthropic"),
        _anthropic_generator,
        "haystack: anthropic-haystack's AnthropicChatGenerator.run(tools=...), streaming",
    ),
}
"""Per dialect: the generator class, the modules it needs, how it is built, its legend line."""
