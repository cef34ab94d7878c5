"""Cohere v2 in the outside world: api.cohere.com, the cohere SDK, ChatCohere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tooltape.fake_providers._litellm import litellm_accumulator
from tooltape.fake_providers.dialects.openai_chat._integration import openai_chat_body, openai_tool
from tooltape.fake_providers.integration import Accumulator, Integration, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn, TurnParts

__all__ = ["CohereIntegration"]

_MODEL = "command-a-03-2025"
"""The model every request here names."""


def _client(base_url: str, http_client: Any = None, **kwargs: Any) -> Any:
    """``cohere.ClientV2(base_url=...)``, on its own httpx client (which the fakes answer)."""
    import cohere

    kwargs.setdefault("api_key", "test-key")
    return cohere.ClientV2(base_url=base_url, **kwargs)


def _chat_stream(client: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """``chat_stream``, merged as Cohere documents the tool-call events.

    ``tool-call-start`` opens a call (its id and name), each ``tool-call-delta``
    adds an arguments fragment, both at the event's ``index``
    (https://docs.cohere.com/docs/tool-use-streaming).
    """
    turn = TurnParts()
    for event in client.chat_stream(
        model=_MODEL,
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=[openai_tool(n, s) for n, s in tools] or None,
    ):
        if event.type == "tool-call-start":
            call = event.delta.message.tool_calls
            turn.open_call(event.index, call.function.name, call.function.arguments or "", call.id)
        elif event.type == "tool-call-delta":
            turn.arguments(event.index, event.delta.message.tool_calls.function.arguments or "")
        elif event.type in ("content-delta", "tool-plan-delta"):
            text = _event_text(event)
            if text:
                turn.text(text)
    return turn.turn()


def _event_text(event: Any) -> str | None:
    """The text a ``content-delta`` (not thinking) or ``tool-plan-delta`` event carries."""
    message = event.delta.message if event.delta else None
    if message is None:
        return None
    if event.type == "tool-plan-delta":
        return getattr(message, "tool_plan", None)
    content = getattr(message, "content", None)
    return getattr(content, "text", None)


class CohereIntegration(Integration):
    """Where Cohere's v2 chat lives and what talks to it."""

    base_url = "https://api.cohere.com"
    model = _MODEL
    sdk = "cohere"
    sdk_stack = "httpx"
    chat_model_module = "langchain_cohere"
    chat_model_class = "ChatCohere"
    chat_model_options: ClassVar[dict[str, Any]] = {"cohere_api_key": "test-key"}
    accumulators = (
        Accumulator(
            "cohere.ClientV2.chat_stream",
            "cohere-sdk",
            ("cohere",),
            _client,
            _chat_stream,
            "cohere: ClientV2.chat_stream, tool-call-start / tool-call-delta merged by index",
        ),
        litellm_accumulator("cohere_chat", _MODEL, path="/v2/chat"),
    )

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """What cohere's ``ClientV2.chat_stream`` sends."""
        return openai_chat_body(self.model, prompt, tools, stream=True)

    sdk_client = staticmethod(_client)
