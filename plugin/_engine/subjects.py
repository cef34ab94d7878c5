"""The subjects ``tooltape matrix`` runs, read from the dialects' own declarations.

Every dialect declares its LangChain chat model (:meth:`Dialect.chat_model`,
one subject per integration package, e.g. ``langchain-openai`` for
``openai_chat`` and ``openai_responses``) and its accumulators
(:attr:`Dialect.accumulators`, one subject per SDK, e.g. ``openai-sdk``);
this module only turns them into :class:`Adapter` rows. LangChain adapters
are built once per dialect (``build``) and bound to the turn's tool names per
cell (ChatAnthropic drops ``tool_use`` blocks when no tools are bound); their
chunks are merged with langchain-core's n-ary ``add_ai_message_chunks``, as an
application's ``full = full + chunk`` ends up. Accumulators return the final
message the SDK's own helper builds.

Every adapter reaches the provider through the transport its HTTP stack is
patched with (httpx2 for the official SDKs and google-genai, httpx via respx for
ollama and cohere); botocore (Bedrock) is given the URL of a real server on
127.0.0.1. Nothing here is imported until ``tooltape matrix`` runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers.integration import Accumulator, installed
from tooltape.fake_providers.raw_turns import RawCall, part_runs, raw_turn
from tooltape.harness import Plan
from tooltape.harness.json_text import loads
from tooltape.plugin._engine.turns import Merged, Turn

if TYPE_CHECKING:
    from tooltape.plugin._engine.js_subjects import BatchCell, BatchOutcome

__all__ = [
    "Adapter",
    "Merged",
    "Turn",
    "accumulator_adapter",
    "adapter_names",
    "adapters",
    "message_text",
    "split_calls",
    "tools_for",
]

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
    run: Callable[[Any, Plan], Turn]
    """``run(client, plan)``: stream one turn and return what was merged: calls, text, order."""
    transport: Transport = "patched"
    """``patched``: httpx/httpx2 are patched in-process; ``server``: a real 127.0.0.1 server."""
    description: str = field(default="")
    """One line for ``tooltape matrix --help`` and the HTML legend."""
    install: str = ""
    """The command that installs what it requires (shown when it is skipped)."""
    batch: Callable[[Sequence[BatchCell], float | None], list[BatchOutcome]] | None = None
    """``batch(cells, cell_timeout)``: every cell of the run at once (one node process for a
    JavaScript subject), before the matrix streams them; then :attr:`run` is not called."""
    missing: Callable[[], str | None] | None = None
    """Instead of :attr:`requires`: the install line when something it needs is absent."""

    def available(self) -> bool:
        """True when every required module is installed."""
        if self.missing is not None:
            return self.missing() is None
        return all(installed(module) for module in self.requires)

    @property
    def install_line(self) -> str:
        """:attr:`install`, or ``pip install`` of the first required module."""
        if self.missing is not None:
            return self.missing() or self.install
        return self.install or f"pip install {self.requires[0].replace('_', '-')}"


def tools_for(plan: Plan) -> list[dict[str, Any]]:
    """OpenAI-style tool definitions for the plan's call names (one ``noop`` if none)."""
    schema = {"type": "object", "properties": {}}
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": schema}}
        for n, _ in _tool_specs(plan)
    ]


def _tool_specs(plan: Plan) -> list[tuple[str, dict[str, Any]]]:
    names = sorted({call.name for call in plan.calls}) or ["noop"]
    return [(name, {"type": "object", "properties": {}}) for name in names]


_TEXT_BLOCKS = frozenset({"text", "output_text"})
_CALL_BLOCKS = frozenset({"tool_use", "tool_call", "function_call", "tool_call_chunk"})


def message_text(content: Any) -> tuple[str, tuple[str, ...] | None]:
    """A LangChain message's visible text, and its order of parts where the content keeps it.

    A string content is the text, in no order; a list of blocks gives the text of
    its text blocks and, when the calls are blocks among them (ChatAnthropic's
    ``tool_use``), the order of text and calls. Reasoning blocks are left out.
    """
    if isinstance(content, str):
        return content, None
    texts: list[str] = []
    kinds: list[str] = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, str):
            texts.append(block)
            kinds.append("text")
        elif isinstance(block, dict) and block.get("type") in _TEXT_BLOCKS:
            if block.get("text"):
                texts.append(str(block["text"]))
                kinds.append("text")
        elif isinstance(block, dict) and block.get("type") in _CALL_BLOCKS:
            kinds.append("call")
    return "".join(texts), part_runs(kinds) if "call" in kinds else None


def _merged_message(chunks: list[Any]) -> Turn:
    from langchain_core.messages.ai import add_ai_message_chunks

    if not chunks:
        return Turn([], [], "", None)
    message = add_ai_message_chunks(chunks[0], *chunks[1:])
    valid = [{"name": c["name"], "args": c["args"], "id": c.get("id")} for c in message.tool_calls]
    invalid = [
        {"name": c.get("name"), "args": c.get("args"), "id": c.get("id")}
        for c in message.invalid_tool_calls
    ]
    text, parts = message_text(message.content)
    return Turn(valid, invalid, text, parts)


def _json_schema_tools(plan: Plan) -> list[dict[str, Any]]:
    """The tools as titled JSON schemas: the one form every LangChain chat model binds."""
    return [{"title": name, "description": name, **schema} for name, schema in _tool_specs(plan)]


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


def _run_langchain(chat: _Bindings, plan: Plan) -> Turn:
    bound = chat.bound(plan)
    return _merged_message(list(bound.stream("What is the weather in Paris?")))


def split_calls(calls: Sequence[RawCall]) -> Merged:
    """File an accumulator's calls as valid (args a JSON object) or invalid (anything else)."""
    valid: list[dict[str, Any]] = []
    bad: list[dict[str, Any]] = []
    for name, arguments, call_id in calls:
        text = arguments if arguments else "{}"
        try:
            args = loads(text) if isinstance(text, str) else text
        except ValueError:
            args = None
        if isinstance(args, dict):
            valid.append({"name": name, "args": args, "id": call_id})
        else:
            bad.append({"name": name, "args": arguments, "id": call_id})
    return valid, bad


@functools.cache
def _shared_http() -> tuple[Any, Any]:
    """One sync and one async httpx2 client for every SDK client of the run.

    Each SDK client would otherwise build its own, and with it an SSL context
    (loading the CA bundle) that no request ever uses: the transports are patched.
    """
    import httpx2

    return httpx2.Client(), httpx2.AsyncClient()


def _chat_model(dialect: str, base_url: str) -> _Bindings:
    """The dialect's chat model, its tool bindings kept for the run (binding costs per cell)."""
    resolved = get_dialect(dialect)
    if resolved.chat_model_module == "langchain_openai":
        sync, asynchronous = _shared_http()
        model = resolved.chat_model(base_url, http_client=sync, http_async_client=asynchronous)
    else:
        model = resolved.chat_model(base_url)
    return _Bindings(model)


def accumulator_adapter(accumulator: Accumulator, dialect: str) -> Adapter:
    """The matrix row of one accumulator a dialect declares."""

    def build(_dialect: str, base_url: str) -> Any:
        return accumulator.client(base_url, _shared_http()[accumulator.asynchronous])

    def run(client: Any, plan: Plan) -> Turn:
        made = raw_turn(accumulator.run(client, _tool_specs(plan)))
        return Turn(*split_calls(made.calls), made.text, made.parts)

    return Adapter(
        accumulator.subject, (dialect,), accumulator.requires, build, run, "patched",
        accumulator.description, accumulator.install,
    )  # fmt: skip


@functools.cache
def adapters() -> tuple[Adapter, ...]:
    """Every subject the dialects declare, in column order (chat model, then accumulators)."""
    from tooltape.fake_providers import dialect_names

    rows: list[Adapter] = []
    chat_models: dict[tuple[str, bool], list[str]] = {}
    for name in dialect_names():
        dialect = get_dialect(name)
        chat_models.setdefault((dialect.chat_model_module, dialect.sdk_stack == "botocore"), [])
        chat_models[(dialect.chat_model_module, dialect.sdk_stack == "botocore")].append(name)
    for (module, botocore), names in chat_models.items():
        subject = module.replace("_", "-")
        how = "botocore, over a 127.0.0.1 server" if botocore else "patched transport"
        description = f"{subject}: chat_model().stream() of {', '.join(names)} ({how})"
        transport: Transport = "server" if botocore else "patched"
        row = Adapter(
            subject, tuple(names), (module,), _chat_model, _run_langchain, transport, description
        )
        rows.append(row)
        for name in names:
            rows += [accumulator_adapter(a, name) for a in get_dialect(name).accumulators]
    from tooltape.plugin._engine.js_subjects import js_adapters

    return (*rows, *js_adapters())


def adapter_names() -> list[str]:
    """The distinct adapter names, in column order (``reference`` first)."""
    return ["reference", *dict.fromkeys(a.name for a in adapters())]
