"""The subjects ``tooltape matrix`` runs: provider adapters and official SDK accumulators.

Each :class:`Adapter` names the (base) dialects it reads, the modules it needs,
and how to stream one turn from a fake provider and return the calls it
merged. LangChain adapters are built once per dialect (``build``) and bound to
the turn's tool names per cell (ChatAnthropic drops ``tool_use`` blocks when no
tools are bound); their chunks are merged with langchain-core's n-ary
``add_ai_message_chunks``, as an application's ``full = full + chunk`` ends up.
SDK accumulators return the final message the SDK's own helper builds.

Every adapter reaches the provider through the transport its HTTP stack is
patched with (httpx2 for the official SDKs and google-genai, httpx via respx for
ollama and cohere); botocore (Bedrock) is given the URL of a real server on
127.0.0.1. Nothing here is imported until ``tooltape matrix`` runs.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tooltape.harness import Plan

__all__ = ["ADAPTERS", "Adapter", "Merged", "adapter_names", "tools_for"]

Merged = tuple[list[dict[str, Any]], list[dict[str, Any]]]
"""What a subject made of a turn: valid calls ``{name, args, id}``, invalid calls likewise."""

Transport = Literal["patched", "server"]


@dataclass(frozen=True)
class Adapter:
    """One subject of the matrix."""

    name: str
    """How the matrix and the expectations file name it: ``langchain-openai``."""
    dialects: tuple[str, ...]
    """The base dialects it reads (profiles run through their base's adapters)."""
    requires: tuple[str, ...]
    """Modules that must be importable for it to run."""
    build: Callable[[str, str], Any]
    """``build(dialect, base_url)``: the client, once per dialect and run."""
    run: Callable[[Any, Plan], Merged]
    """``run(client, plan)``: stream one turn and return what was merged."""
    transport: Transport = "patched"
    """``patched``: httpx/httpx2 are patched in-process; ``server``: a real 127.0.0.1 server."""
    description: str = field(default="")
    """One line for ``tooltape matrix --help`` and the HTML legend."""

    def available(self) -> bool:
        """True when every required module is installed."""
        return all(importlib.util.find_spec(module) is not None for module in self.requires)


def tools_for(plan: Plan) -> list[dict[str, Any]]:
    """OpenAI-style tool definitions for the plan's call names (one ``noop`` if none)."""
    names = sorted({call.name for call in plan.calls}) or ["noop"]
    schema = {"type": "object", "properties": {}}
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": schema}}
        for n in names
    ]


def _merged_message(chunks: list[Any]) -> Merged:
    from langchain_core.messages.ai import add_ai_message_chunks

    if not chunks:
        return [], []
    message = add_ai_message_chunks(chunks[0], *chunks[1:])
    valid = [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in message.tool_calls]
    invalid = [
        {"name": c.get("name"), "args": c.get("args"), "id": c.get("id")}
        for c in message.invalid_tool_calls
    ]
    return valid, invalid


def _json_schema_tools(plan: Plan) -> list[dict[str, Any]]:
    """The tools as titled JSON schemas: the one form every LangChain chat model binds."""
    return [
        {
            "title": t["function"]["name"],
            "description": t["function"]["name"],
            **t["function"]["parameters"],
        }
        for t in tools_for(plan)
    ]


class _Bindings:
    """A chat model and what ``bind_tools`` made of it, once per set of tool names."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._bound: dict[tuple[str, ...], Any] = {}

    def bound(self, plan: Plan) -> Any:
        tools = _json_schema_tools(plan)
        key = tuple(tool["title"] for tool in tools)
        if key not in self._bound:
            self._bound[key] = self.model.bind_tools(tools)
        return self._bound[key]


def _langchain(build: Callable[[str, str], Any]) -> Callable[[str, str], _Bindings]:
    """``build`` for a chat model, its bindings kept for the run (binding costs per cell)."""

    @functools.wraps(build)
    def built(dialect: str, base_url: str) -> _Bindings:
        return _Bindings(build(dialect, base_url))

    return built


def _run_langchain(chat: _Bindings, plan: Plan) -> Merged:
    bound = chat.bound(plan)
    return _merged_message(list(bound.stream("What is the weather in Paris?")))


def _split_args(name: Any, arguments: Any, call_id: Any, valid: list[Any], bad: list[Any]) -> None:
    """File an SDK's raw argument text as a valid call (a JSON object) or an invalid one."""
    text = arguments if arguments else "{}"
    try:
        args = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        args = None
    if isinstance(args, dict):
        valid.append({"name": name, "args": args, "id": call_id})
    else:
        bad.append({"name": name, "args": arguments, "id": call_id})


@functools.cache
def _shared_http() -> tuple[Any, Any]:
    """One sync and one async httpx2 client for every SDK client of the run.

    Each SDK client would otherwise build its own, and with it an SSL context
    (loading the CA bundle) that no request ever uses: the transports are patched.
    """
    import httpx2

    return httpx2.Client(), httpx2.AsyncClient()


# --- langchain chat models ---------------------------------------------------------------


def _chat_model(dialect: str, base_url: str) -> Any:
    from tooltape.fake_providers import get_dialect
    from tooltape.plugin._fakes import chat_model_for

    resolved = get_dialect(dialect)
    if getattr(resolved, "base", resolved).name.startswith("openai"):
        sync, asynchronous = _shared_http()
        return chat_model_for(resolved, base_url, http_client=sync, http_async_client=asynchronous)
    return chat_model_for(resolved, base_url)


def _gemini_model(dialect: str, base_url: str) -> Any:
    from langchain_google_genai import ChatGoogleGenerativeAI

    # max_retries=1, not 0: google-genai reads 0 as "use the default retries".
    return ChatGoogleGenerativeAI(model="gemini-2.5-flash", api_key="test-key", max_retries=1)


def _ollama_model(dialect: str, base_url: str) -> Any:
    from langchain_ollama import ChatOllama

    return ChatOllama(model="llama3.1", base_url=base_url)


def _cohere_model(dialect: str, base_url: str) -> Any:
    from langchain_cohere import ChatCohere
    from pydantic import SecretStr

    return ChatCohere(cohere_api_key=SecretStr("test-key"), model="command-a-03-2025")


def _aws_credentials() -> dict[str, Any]:
    return {
        "region_name": "us-east-1",
        "aws_access_key_id": "AKIATOOLTAPETEST",
        "aws_secret_access_key": "tooltape-test-secret",
    }


def _bedrock_converse_model(dialect: str, base_url: str) -> Any:
    from langchain_aws import ChatBedrockConverse

    return ChatBedrockConverse(
        model="anthropic.claude-3-5-sonnet-20240620-v1:0",
        base_url=base_url,
        **_aws_credentials(),
    )


def _bedrock_invoke_model(dialect: str, base_url: str) -> Any:
    from langchain_aws import ChatBedrock

    return ChatBedrock(
        model="anthropic.claude-3-5-sonnet-20240620-v1:0",
        endpoint_url=base_url,
        streaming=True,
        model_kwargs={"max_tokens": 256},
        **_aws_credentials(),
    )


# --- official SDK accumulators -----------------------------------------------------------

_PROMPT = [{"role": "user", "content": "What is the weather in Paris?"}]


def _openai_client(dialect: str, base_url: str) -> Any:
    import openai

    return openai.OpenAI(
        api_key="sk-tooltape", base_url=base_url, max_retries=0, http_client=_shared_http()[0]
    )


def _run_chat_stream_state(client: Any, plan: Plan) -> Merged:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: Any = ChatCompletionStreamState()
    for chunk in client.chat.completions.create(
        model="gpt-4o", messages=_PROMPT, tools=tools_for(plan), stream=True
    ):
        state.handle_chunk(chunk)
    valid: list[Any] = []
    bad: list[Any] = []
    for call in state.get_final_completion().choices[0].message.tool_calls or []:
        _split_args(call.function.name, call.function.arguments, call.id, valid, bad)
    return valid, bad


def _run_responses_stream(client: Any, plan: Plan) -> Merged:
    tools = [{"type": "function", **t["function"]} for t in tools_for(plan)]
    with client.responses.stream(model="gpt-4.1", input="hi", tools=tools) as stream:
        final = stream.get_final_response()
    valid: list[Any] = []
    bad: list[Any] = []
    for item in final.output:
        if item.type == "function_call":
            _split_args(item.name, item.arguments, item.call_id, valid, bad)
    return valid, bad


def _anthropic_client(dialect: str, base_url: str) -> Any:
    import anthropic

    return anthropic.Anthropic(
        api_key="sk-ant-tooltape", base_url=base_url, max_retries=0, http_client=_shared_http()[0]
    )


def _run_message_stream(client: Any, plan: Plan) -> Merged:
    tools = [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]}
        for t in tools_for(plan)
    ]
    with client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=256, messages=_PROMPT, tools=tools
    ) as stream:
        message = stream.get_final_message()
    valid: list[Any] = []
    bad: list[Any] = []
    for block in message.content:
        if block.type == "tool_use":
            target = valid if isinstance(block.input, dict) else bad
            target.append({"name": block.name, "args": block.input, "id": block.id})
    return valid, bad


ADAPTERS: tuple[Adapter, ...] = (
    Adapter(
        "langchain-openai",
        ("openai_chat", "openai_responses"),
        ("langchain_openai",),
        _langchain(_chat_model),
        _run_langchain,
        description="ChatOpenAI.stream() (use_responses_api for openai_responses)",
    ),
    Adapter(
        "openai-sdk",
        ("openai_chat",),
        ("openai",),
        _openai_client,
        _run_chat_stream_state,
        description="openai: chat.completions.create(stream=True) + ChatCompletionStreamState",
    ),
    Adapter(
        "openai-sdk",
        ("openai_responses",),
        ("openai",),
        _openai_client,
        _run_responses_stream,
        description="openai: responses.stream(...).get_final_response()",
    ),
    Adapter(
        "langchain-anthropic",
        ("anthropic_messages",),
        ("langchain_anthropic",),
        _langchain(_chat_model),
        _run_langchain,
        description="ChatAnthropic.stream()",
    ),
    Adapter(
        "anthropic-sdk",
        ("anthropic_messages",),
        ("anthropic",),
        _anthropic_client,
        _run_message_stream,
        description="anthropic: messages.stream(...).get_final_message() (MessageStream)",
    ),
    Adapter(
        "langchain-google-genai",
        ("gemini",),
        ("langchain_google_genai",),
        _langchain(_gemini_model),
        _run_langchain,
        description="ChatGoogleGenerativeAI.stream()",
    ),
    Adapter(
        "langchain-ollama",
        ("ollama",),
        ("langchain_ollama",),
        _langchain(_ollama_model),
        _run_langchain,
        description="ChatOllama.stream()",
    ),
    Adapter(
        "langchain-cohere",
        ("cohere_v2",),
        ("langchain_cohere",),
        _langchain(_cohere_model),
        _run_langchain,
        description="ChatCohere.stream()",
    ),
    Adapter(
        "langchain-aws",
        ("bedrock_converse",),
        ("langchain_aws",),
        _langchain(_bedrock_converse_model),
        _run_langchain,
        transport="server",
        description="ChatBedrockConverse.stream() (botocore, over a 127.0.0.1 server)",
    ),
    Adapter(
        "langchain-aws",
        ("bedrock_invoke",),
        ("langchain_aws",),
        _langchain(_bedrock_invoke_model),
        _run_langchain,
        transport="server",
        description="ChatBedrock.stream() (botocore, over a 127.0.0.1 server)",
    ),
)
"""Every subject the matrix knows, in column order."""


def adapter_names() -> list[str]:
    """The distinct adapter names, in column order (``reference`` first)."""
    return ["reference", *dict.fromkeys(a.name for a in ADAPTERS)]
