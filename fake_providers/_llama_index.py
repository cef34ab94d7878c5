"""llama-index's LLMs as accumulators: a streamed ``stream_chat_with_tools`` turn.

Each dialect llama-index speaks declares one accumulator with the LLM class
that talks to it (``llama_index.llms.openai.OpenAI``,
``llama_index.llms.anthropic.Anthropic``). A turn streams as llama-index's own
``FunctionAgent`` streams one (``llama_index/core/agent/workflow/function_agent.py``,
``_get_streaming_response``): ``llm.stream_chat_with_tools(tools, ...)`` with
parallel calls allowed, the last ``ChatResponse`` kept, and
``llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)`` is the
result: the ``ToolSelection`` list the agent would run.

The LLM builds its own SDK client, which is not handed the matrix's httpx2
client: ``llama-index-llms-openai`` 0.8 needs ``openai<3``, whose client speaks
httpx (reached through respx, which the matrix patches beside httpx2), and
``llama-index-llms-anthropic`` 0.12 builds an ``anthropic`` 2.x client, which
speaks httpx2. So the subject runs on the SDK generation llama-index pulls in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooltape.fake_providers.integration import Accumulator, ToolSpec
from tooltape.fake_providers.raw_turns import RawTurn

__all__ = ["LLAMA_INDEX_INSTALL", "llama_index_accumulator"]

LLAMA_INDEX_INSTALL = "pip install 'tooltape[llamaindex]'"
"""The install line for the llama-index subjects (their own extra: they need ``openai<3``)."""

_PROMPT = "What is the weather in Paris?"


def _never_called(**_: Any) -> str:  # pragma: no cover - an LLM only selects tools
    raise AssertionError("tooltape streams one LLM turn; no tool runs")


def _tool(name: str, schema: dict[str, Any]) -> Any:
    """A llama-index ``FunctionTool`` named ``name`` whose parameters are ``schema``."""
    from llama_index.core.tools import (  # type: ignore[import-not-found,unused-ignore]
        FunctionTool,
        ToolMetadata,
    )
    from pydantic import BaseModel

    class Parameters(BaseModel):
        """``ToolMetadata`` reads the parameters from a model's JSON schema: this one's."""

        @classmethod
        def model_json_schema(cls, *_: Any, **__: Any) -> dict[str, Any]:
            return schema

    metadata = ToolMetadata(description=name, name=name, fn_schema=Parameters)
    return FunctionTool(fn=_never_called, metadata=metadata)


def _openai_llm(served: str, http_client: Any = None) -> Any:
    """``llama_index.llms.openai.OpenAI`` at ``served``, no retries, its own httpx client."""
    from llama_index.llms.openai import OpenAI  # type: ignore[import-not-found,unused-ignore]

    return OpenAI(model="gpt-4o", api_key="sk-tooltape", api_base=served, max_retries=0)


def _anthropic_llm(served: str, http_client: Any = None) -> Any:
    """``llama_index.llms.anthropic.Anthropic`` at ``served``, no retries, its own client."""
    from llama_index.llms.anthropic import (  # type: ignore[import-not-found,unused-ignore]
        Anthropic,
    )

    return Anthropic(
        model="claude-sonnet-4-5", api_key="sk-ant-tooltape", base_url=served, max_retries=0
    )


def stream_turn(llm: Any, tools: Sequence[ToolSpec]) -> RawTurn:
    """Stream one turn through ``llm`` offering ``tools``; the calls llama-index extracted.

    The text is the last response's message content (llama-index accumulates it), in no order.
    """
    offered = [_tool(name, schema) for name, schema in tools]
    responses = llm.stream_chat_with_tools(
        offered, user_msg=_PROMPT, allow_parallel_tool_calls=True
    )
    last = None
    for response in responses:
        last = response
    if last is None:
        return RawTurn([], "")
    selections = llm.get_tool_calls_from_response(last, error_on_no_tool_call=False)
    # ToolSelection says "no id" with "" (``tool_call_id or ""``): None, as langchain-core.
    calls = [(s.tool_name, s.tool_kwargs, s.tool_id or None) for s in selections]
    return RawTurn(calls, last.message.content or "")


def llama_index_accumulator(dialect: str) -> Accumulator:
    """The llama-index LLM that talks to ``dialect`` (``openai_chat`` or ``anthropic``)."""
    if dialect not in _LLMS:
        raise ValueError(f"llama-index has no LLM declared for {dialect!r}: one of {sorted(_LLMS)}")
    cls, subject, client = _LLMS[dialect]
    module = cls.rsplit(".", 1)[0]
    return Accumulator(
        cls,
        subject,
        ("llama_index", module),
        client,
        stream_turn,
        f"{subject}: {cls.rsplit('.', 1)[1]}.stream_chat_with_tools + get_tool_calls_from_response",
        install=LLAMA_INDEX_INSTALL,
    )


_LLMS: dict[str, tuple[str, str, Any]] = {
    "openai_chat": ("llama_index.llms.openai.OpenAI", "llama-index-openai", _openai_llm),
    "anthropic": ("llama_index.llms.anthropic.Anthropic", "llama-index-anthropic", _anthropic_llm),
}
"""Per dialect: the LLM class, the matrix column, how it is built."""
