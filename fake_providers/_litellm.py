"""LiteLLM as an accumulator: ``litellm.completion(stream=True)`` through its own provider code.

Each dialect LiteLLM speaks declares one :func:`litellm_accumulator` with the
route LiteLLM reaches it by (``openai/``, ``anthropic/``, ``gemini/`` ...):
LiteLLM's own request builder, stream iterator and chunk transformation for
that provider run, and :func:`litellm.stream_chunk_builder` merges the chunks,
as an application that streams through LiteLLM ends up.

LiteLLM is configured for a closed world when first imported here: the model
cost map is read from the package (``LITELLM_LOCAL_MODEL_COST_MAP``; else it is
fetched from GitHub at import), telemetry and the aiohttp transport are off, so
every request is an httpx one the fake provider answers.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = ["LITELLM_INSTALL", "litellm_accumulator"]

LITELLM_INSTALL = "pip install 'tooltape[subjects]'"
"""The install line for the LiteLLM subject (the ``subjects`` extra pins a tested release)."""

_PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


@functools.cache
def _litellm() -> Any:
    """LiteLLM, imported with no network: local cost map, no telemetry, httpx only."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    import litellm  # type: ignore[import-not-found,unused-ignore]

    litellm.telemetry = False
    litellm.disable_aiohttp_transport = True
    litellm.suppress_debug_info = True
    litellm.num_retries = 0
    return litellm


@dataclass(frozen=True)
class _Route:
    """Where one LiteLLM call goes: its model string and keyword arguments."""

    model: str
    kwargs: dict[str, Any]


def litellm_accumulator(
    route: str,
    model: str,
    *,
    base_url_arg: str = "api_base",
    path: str = "",
    extra: dict[str, Any] | None = None,
) -> Accumulator:
    """The ``litellm`` subject over one provider route.

    Args:
        route: LiteLLM's provider prefix (``openai``, ``anthropic``, ``gemini``).
        model: The model name after the prefix.
        base_url_arg: The ``completion`` argument the served URL goes in.
        path: Appended to the served base URL (routes that take the endpoint's full URL).
        extra: More ``completion`` arguments (default: a placeholder ``api_key``; Bedrock's
            route takes AWS credentials instead).
    """

    def client(served: str, http_client: Any = None) -> _Route:
        _litellm()  # imported while the client is built, outside the cell's time limit
        settings = {"api_key": "sk-tooltape"} if extra is None else extra
        kwargs = {base_url_arg: served.rstrip("/") + path, **settings}
        return _Route(f"{route}/{model}", kwargs)

    return Accumulator(
        f"litellm.completion ({route}/)",
        "litellm",
        ("litellm",),
        client,
        _run,
        f"litellm: completion('{route}/...', stream=True) + stream_chunk_builder",
        LITELLM_INSTALL,
    )


@contextmanager
def _own_event_loop() -> Iterator[None]:
    """A loop of our own as the thread's current one while LiteLLM runs, closed after.

    LiteLLM's sync path dispatches its service-logging hooks on
    ``asyncio.get_event_loop()``, which makes a loop for the thread and leaves it
    open; it would be collected later, unclosed, in whatever code runs then. Inside
    a running loop (an async caller) nothing is changed.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        yield
        return
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()


def _run(route: _Route, tools: Sequence[ToolSpec]) -> RawTurn:
    with _own_event_loop():
        return _stream(route, tools)


def _stream(route: _Route, tools: Sequence[ToolSpec]) -> RawTurn:
    """The calls and text of ``stream_chunk_builder``'s message (one content string: no order)."""
    litellm = _litellm()
    offered = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": s}}
        for n, s in tools
    ]
    stream = litellm.completion(
        model=route.model,
        messages=_PROMPT,
        stream=True,
        max_retries=0,
        **({"tools": offered} if offered else {}),
        **route.kwargs,
    )
    chunks = list(stream)
    message = litellm.stream_chunk_builder(chunks, messages=_PROMPT)
    if message is None:
        return RawTurn([], "")
    built = message.choices[0].message
    calls = [(c.function.name, c.function.arguments, c.id) for c in built.tool_calls or []]
    return RawTurn(calls, built.content or "")
