"""How a provider meets the outside world, declared by each dialect.

A dialect knows its wire (events, parse, request rules, in :mod:`._dialect`);
this mixin holds what tooltape knows about the provider around the wire: where
it lives, what a real client sends it, which official SDK and LangChain chat
model talk to it, and which accumulators (an SDK's or a well-known library's)
merge its streams. Every built-in dialect declares each of these in an
``_integration`` module of its own folder; the contract test
(``tests/fake_providers/test_dialect_contract.py``) fails when one forgets.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tooltape.fake_providers._wire import ProviderRequest
from tooltape.fake_providers.raw_turns import RawCall, RawTurn
from tooltape.harness import TooltapeUsageError

__all__ = ["Accumulator", "Integration", "ToolSpec", "installed"]


def installed(module: str) -> bool:
    """True when ``module`` can be imported; a dotted name whose parent is absent is not."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # find_spec("a.b") imports "a"
        return False


ToolSpec = tuple[str, dict[str, Any]]
"""A tool a request offers: its name and the JSON schema of its arguments."""
HttpStack = Literal["httpx2", "httpx", "botocore"]


@dataclass(frozen=True)
class Accumulator:
    """An SDK's (or a well-known library's) own merge of a streamed turn.

    ``tooltape differential`` runs it beside langchain-core on the same bytes;
    ``tooltape matrix`` runs it as a subject column.
    """

    name: str
    """The merge, as the differential names it: ``openai.ChatCompletionStreamState``."""
    subject: str
    """The matrix column it belongs to: ``openai-sdk``."""
    requires: tuple[str, ...]
    """Modules that must be importable for it to run."""
    client: Callable[[str, Any], Any]
    """``client(base_url, http_client)``: the SDK client (``http_client``: httpx2, or None)."""
    run: Callable[[Any, Sequence[ToolSpec]], list[RawCall] | RawTurn]
    """``run(client, tools)``: stream one turn offering ``tools`` and return the merged calls
    (a :class:`RawTurn` with the text, and its order where the result keeps it)."""
    description: str = ""
    """One line for ``tooltape matrix --help`` and the HTML legend."""
    install: str = ""
    """What to run when it is missing (default: ``pip install`` its first required module)."""
    asynchronous: bool = False
    """True when ``client`` is handed an ``httpx2.AsyncClient`` (an asyncio library's)."""


class Integration:
    """The declarations every dialect makes about the world around its wire.

    Class attributes:
        base_url: where the real API lives (``https://api.openai.com/v1``); ``None``
            when there is no public default (clients must pass ``base_url=``).
        model: a current model name real requests carry, used in the sample
            request, in a path's ``{model}`` placeholder and by :meth:`chat_model`.
        sdk: the official SDK's import name (``openai``, ``boto3``).
        sdk_stack: the HTTP library that SDK speaks; the fixtures route that
            library to the fake (``botocore``: over a 127.0.0.1 server).
        chat_model_module: the LangChain integration's import name (``langchain_openai``).
        chat_model_class: its chat model's class name there (``ChatOpenAI``), which
            :meth:`chat_model` builds.
        chat_model_options: what :meth:`chat_model` passes that class besides ``model``
            and the URL (a test key, no retries ...).
        chat_model_url: the argument that class takes the URL by (``base_url``).
        accumulators: the SDK's or a well-known library's stream accumulators.
        no_accumulator: why a dialect with no ``accumulators`` has none.

    Methods: :meth:`request_body` (a realistic request body), :meth:`sdk_client`
    and :meth:`chat_model`.
    """

    name: ClassVar[str]
    path: ClassVar[str]
    base_url: ClassVar[str | None] = None
    model: ClassVar[str] = ""
    sdk: ClassVar[str] = ""
    sdk_stack: ClassVar[HttpStack] = "httpx2"
    chat_model_module: ClassVar[str] = ""
    chat_model_class: ClassVar[str] = ""
    chat_model_options: ClassVar[Mapping[str, Any]] = {}
    chat_model_url: ClassVar[str] = "base_url"
    accumulators: ClassVar[tuple[Accumulator, ...]] = ()
    no_accumulator: ClassVar[str] = ""

    def request_body(self, prompt: str, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """The JSON body a real client streams ``prompt`` with, offering ``tools``."""
        raise TooltapeUsageError(f"dialect {self.name!r} declares no sample request")

    def request_query(self) -> dict[str, str]:
        """The query string a real streaming request carries (``alt=sse`` for Gemini)."""
        return {}

    def sample_request(self, prompt: str, tools: Sequence[ToolSpec]) -> ProviderRequest:
        """A realistic streaming request: path (``{model}`` filled in), query and JSON body."""
        import json
        import re

        path = re.sub(r"\{[^}/]+\}", self.model, self.path)
        body = json.dumps(self.request_body(prompt, tools)).encode()
        headers = {"content-type": "application/json"}
        return ProviderRequest("POST", path, headers, body, self.request_query())

    def sdk_client(self, base_url: str, **kwargs: Any) -> Any:
        """The official SDK's client for this API, pointed at ``base_url`` (``kwargs`` pass on)."""
        raise TooltapeUsageError(f"dialect {self.name!r} declares no SDK client")

    def chat_model(
        self, base_url: str, *, tools: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> Any:
        """The provider's LangChain chat model pointed at ``base_url``, streaming, no retries.

        ``tools`` are Anthropic-form declarations every request should carry (a live
        list the fake provider fills as turns are scripted); models that drop tool
        blocks for undeclared tools (``ChatAnthropic``) send them, others ignore
        them. ``kwargs`` are the chat model's own arguments and win over the defaults.

        The model is :attr:`chat_model_class` built with ``model``, the URL and
        :attr:`chat_model_options`.

        Raises:
            TooltapeUsageError: The dialect has no LangChain chat model.
        """
        if not self.chat_model_class:
            raise TooltapeUsageError(
                f"no built-in chat model for dialect {self.name!r}; build your client against "
                f"{base_url!r} (the fake provider's base URL)"
            )
        chat_model = getattr(importlib.import_module(self.chat_model_module), self.chat_model_class)
        options = {"model": self.model, **self.chat_model_options, **kwargs}
        return chat_model(**{self.chat_model_url: base_url}, **options)
